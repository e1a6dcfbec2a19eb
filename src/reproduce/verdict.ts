// A verdict for every ledger row: each published figure is a calibration target or a prediction,
// and a prediction is reproduced (in band, nothing fitted), reproduced after calibration (in
// band, k unknowns fitted on other figures), missed (out of band; the experiment's doc says
// why), or not comparable (no band can judge it, with the reason). Calibration targets are
// never counted as reproduced. Rows with nothing published (today rows, extra metrics) are
// reported, not judged.
import { figureRole, publishedFor, type PublishedFile } from "./registry";
import type { FigureRole, LedgerRow, Verdict } from "./types";

/** What judging an experiment's rows needs beyond the rows. */
export interface VerdictContext {
  /** The experiment's published file (null: none, every row is reported). */
  published: PublishedFile | null;
  /** Unknowns fitted on this experiment's calibration targets (0: none). */
  calibrated: string[];
  /** The experiment's doc page, where misses are explained. */
  doc: string;
}

/** The doc page of a reproduction: docs/experiments/<id up to its first "-">.md. */
export function experimentDoc(id: string): string {
  return `docs/experiments/${id.split("-")[0]}.md`;
}

/** The verdict context of reproduction `id` (its published file, if any, and calibration). */
export function verdictContext(id: string): VerdictContext {
  let published: PublishedFile | null = null;
  try {
    published = publishedFor(id);
  } catch {
    published = null;
  }
  return { published, calibrated: published?.calibration?.unknowns ?? [], doc: experimentDoc(id) };
}

/** Where a band comes from: the figure's bandSource, else its derivation's "band: ..." clause. */
export function bandSourceOf(f: { bandSource?: string; derivation?: string }): string | undefined {
  if (f.bandSource) return f.bandSource;
  const m = /band:\s*(.*)$/s.exec(f.derivation ?? "");
  return m ? m[1].trim() : undefined;
}

/** A row with its role, verdict and reason (and its band's source). */
export function judgeRow(row: LedgerRow, ctx: VerdictContext): LedgerRow & { bandSource?: string } {
  const with_ = (role: FigureRole, verdict: Verdict, reason?: string, bandSource?: string) => ({
    ...row,
    role,
    verdict,
    ...(reason ? { reason } : {}),
    ...(bandSource ? { bandSource } : {}),
  });
  if (row.published === null)
    return with_("reported", "not judged", "nothing published for this row");
  const f = ctx.published?.figures.find(
    (x) => x.metric === row.metric && x.variant === row.variant,
  );
  const role = f ? figureRole(f) : row.kind === "calibrated" ? "calibrated" : "predicted";
  const bandSource = f ? bandSourceOf(f) : undefined;
  const k = ctx.calibrated.length;
  if (role === "calibrated")
    return with_(
      "calibrated",
      "calibration target",
      k ? `fits ${ctx.calibrated.join(", ")}` : "fixes a model input",
    );
  if (f?.comparable) return with_("predicted", "not comparable", f.comparable);
  if (row.kind === "derived")
    return with_(
      "predicted",
      "not comparable",
      `follows from a calibrated figure${f?.derivation ? `: ${f.derivation}` : ""}`,
    );
  if (!row.band || row.inBand === null)
    return with_("predicted", "not comparable", "no band: the source gives no noise to judge by");
  if (row.inBand)
    return with_(
      "predicted",
      k ? "reproduced after calibration" : "reproduced",
      k
        ? `${k} unknown${k > 1 ? "s" : ""} fitted on other figures (${ctx.calibrated.join(", ")})`
        : undefined,
      bandSource,
    );
  return with_(
    "predicted",
    "missed",
    `the mechanism: ${ctx.doc}, "What would have to be true"`,
    bandSource,
  );
}

/** Counts of an experiment's verdicts, for the README and the report. */
export interface VerdictCounts {
  predicted: number;
  reproduced: number;
  reproducedAfterCalibration: number;
  missed: number;
  notComparable: number;
  calibrationTargets: number;
}

/** How many of `rows` got each verdict. */
export function verdictCounts(rows: readonly LedgerRow[]): VerdictCounts {
  const n = (v: Verdict) => rows.filter((r) => r.verdict === v).length;
  return {
    predicted: rows.filter((r) => r.role === "predicted").length,
    reproduced: n("reproduced"),
    reproducedAfterCalibration: n("reproduced after calibration"),
    missed: n("missed"),
    notComparable: n("not comparable"),
    calibrationTargets: n("calibration target"),
  };
}
