// The schema of a published-figures file (data/published/<id>.json), in zod: registry.ts
// validates every file with it and scripts/file-formats.ts documents it from the same object.
import { z } from "zod";

const figure = z.strictObject({
  metric: z.string().min(1).describe("the ledger metric this figure is compared with"),
  variant: z.string().min(1).describe("the variant (pre, post, ...)"),
  value: z.number().finite().nullable().describe("the published number; null when not published"),
  band: z
    .tuple([z.number().finite(), z.number().finite()])
    .refine(([lo, hi]) => lo <= hi, { message: "must be [low, high] with low <= high" })
    .optional()
    .describe("the range a reproduction aims for, with its reasoning in derivation"),
  derivation: z.string().optional().describe("how the value and the band were derived"),
  kind: z
    .enum(["independent", "calibrated", "derived"])
    .optional()
    .describe(
      "independent (a result), calibrated (fixes a model input, not a result) or derived from a calibrated one",
    ),
  role: z
    .enum(["calibrated", "predicted"])
    .optional()
    .describe(
      "calibrated (a target the file's calibration fits, named here before the fit) or predicted (judged against its band); default: calibrated for kind calibrated, else predicted",
    ),
  bandSource: z
    .string()
    .min(3)
    .optional()
    .describe(
      'where the band comes from: the published noise (a replicate run, a range in the text) or "choice: <reason>"',
    ),
  comparable: z
    .string()
    .min(3)
    .optional()
    .describe("set when the figure cannot be judged: why it is not comparable"),
});

const calibration = z.strictObject({
  unknowns: z
    .array(z.string().min(1))
    .min(1)
    .describe("the experiment's unknowns fitted on the figures whose role is calibrated"),
  method: z
    .string()
    .min(3)
    .optional()
    .describe("how they are fitted when not by `schedlab calibrate` (e.g. a closed form)"),
  from: z
    .string()
    .min(1)
    .optional()
    .describe(
      "the experiment whose frozen calibration these runs use (same machine, other workload); default this one",
    ),
});

/** The zod schema of a published-figures file. */
export const publishedFileSchema = z
  .strictObject({
    id: z.string().min(1).describe("the reproduction id; must equal the file name"),
    source: z.string().min(1).describe("the publication: author, date, subject, Message-ID, link"),
    figures: z.array(figure).describe("the published numbers"),
    calibration: calibration
      .optional()
      .describe(
        "the unknowns fitted on this file's calibrated figures (frozen values: data/calibration/<id>.json)",
      ),
  })
  .describe("The numbers a patch published, and the bands a reproduction is judged by");
