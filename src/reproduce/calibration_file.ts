// Frozen calibrations: data/calibration/<id>.json holds the unknowns' values `schedlab calibrate
// <id> --write` fitted on the experiment's calibration targets, with the targets, residuals,
// held-out check and method, so every later run uses the same values and a reader can see what
// they were fitted on.
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { parseWith } from "../machine/schema";
import type { CalibrationRecord } from "../experiment/calibrate";

const value = z.union([z.number().finite(), z.string().min(1)]);

/** The zod schema of a calibration file. */
export const calibrationFileSchema = z
  .strictObject({
    id: z.string().min(1).describe("the reproduction id; must equal the file name"),
    schedlab: z.string().min(1).describe("the schedlab version that fitted the values"),
    date: z.string().min(10).describe("when (ISO 8601)"),
    values: z.record(z.string(), value).describe("the fitted unknowns' values"),
    fixed: z.record(z.string(), value).describe("the other unknowns' values during the fit"),
    targets: z
      .array(
        z.strictObject({
          id: z.string().min(1).describe("metric/variant"),
          published: z.number().finite(),
          band: z.tuple([z.number(), z.number()]).nullable(),
          simulated: z.number().describe("at the fitted values, on the fit's seeds"),
          residual: z.number().describe("simulated - published"),
          heldOut: z.number().describe("at the fitted values, on held-out seeds"),
        }),
      )
      .min(1)
      .describe("the calibration targets, named in data/published/<id>.json before the fit"),
    objective: z.number().min(0),
    heldOutObjective: z.number().min(0),
    method: z.string().min(3),
    budget: z.number().int().positive(),
    evaluations: z.number().int().positive(),
    run: z.strictObject({
      iterations: z.number().int().positive(),
      duration: z.number().positive().nullable(),
      seed: z.string(),
      heldOutSeed: z.string(),
    }),
  })
  .describe("The values a calibration froze, what they were fitted on, and how");

/** A frozen calibration (data/calibration/<id>.json). */
export type CalibrationFile = z.infer<typeof calibrationFileSchema>;

/** data/calibration/<id>.json's path. */
export function calibrationPath(id: string): string {
  return path.join(__dirname, "..", "..", "data", "calibration", `${id}.json`);
}

/** The frozen calibration of reproduction `id`, or null when it has none. */
export function frozenCalibration(id: string): CalibrationFile | null {
  const file = calibrationPath(id);
  if (!fs.existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  const cal = parseWith(calibrationFileSchema, raw, file);
  if (cal.id !== id)
    throw new Error(`${file}: id must be ${JSON.stringify(id)} (got ${JSON.stringify(cal.id)})`);
  return cal;
}

/** A calibration record as the file stores it. */
export function calibrationFileOf(
  id: string,
  record: CalibrationRecord,
  version: string,
  date = new Date().toISOString(),
): CalibrationFile {
  return { id, schedlab: version, date, ...record };
}
