// The ledger: each published number beside the simulated one, their ratio, and whether the
// simulated value falls in the experiment's accepted band. Shared by the HTML report and the
// CLI's printed table so both say the same thing.
import { confidenceInterval, sampleStddev } from "../analysis/stats";
import { fmtNum } from "../analysis/compare";
import type { Figure } from "../plot/types";

/**
 * What a ledger row is worth: "independent" is an output of the model, judged against its band;
 * "calibrated" fixed a model input (its simulated value matches by construction); "derived"
 * follows from a calibrated one (e.g. a stddev that is cv x the calibrated mean). Only
 * independent rows are judged in band.
 */
export type FigureKind = "independent" | "calibrated" | "derived";

export interface LedgerRowInput {
  metric: string;
  variant: string;
  /** The number the source published; null when it published none for this row. */
  published: number | null;
  /** The simulated figure (normally the mean over iterations). */
  simulated: number;
  /** The per-iteration simulated values. */
  iterations: number[];
  /**
   * Accepted range [lo, hi] (inclusive) for the simulated value, in the metric's own units.
   * A reproduction sets it from the published number and its tolerance; absent: not judged.
   */
  band?: [number, number];
  unit?: string;
  /** Absent: "independent". */
  kind?: FigureKind;
  /** calibrated, predicted or reported (the ledger's roles). */
  role?: string;
  /** reproduced, reproduced after calibration, missed, not comparable, calibration target, not judged. */
  verdict?: string;
  /** Why the verdict (the band's source, what a row follows from, where a miss is explained). */
  reason?: string;
}

/** An unknown as the report lists it: its value, whether calibrated, its range and source. */
export interface ReportUnknown {
  name: string;
  unit: string;
  value: number | string;
  calibrated: boolean;
  range?: [number, number];
  choices?: string[];
  source: string;
}

export interface ReportExperiment {
  id: string;
  title: string;
  /** Machine preset name or description. */
  machine: string;
  rows: LedgerRowInput[];
  figures: Figure[];
  /** The full spec that was run (ExperimentSpec or anything JSON-able), embedded for rerunning. */
  spec?: unknown;
  /** Free text (plain, paragraphs separated by blank lines). */
  notes?: string;
  /** Where the published numbers come from (message, URL-free citation). */
  source?: string;
  /** Wall-clock seconds the experiment's runs took. */
  wallS?: number;
  /** Simulated events over the experiment's runs. */
  events?: number;
  /** The experiment's declared unknowns, with the values its runs used. */
  unknowns?: ReportUnknown[];
  /**
   * What the rows of variant `today` mean (today's kernel, no patch, nothing published), shown
   * under the ledger table.
   */
  todayNote?: string;
}

export interface LedgerRow extends LedgerRowInput {
  experiment: string;
  /** simulated / published; null when nothing was published or it is 0. */
  ratio: number | null;
  /** true/false when a band is given, null otherwise. */
  inBand: boolean | null;
  n: number;
  stddev: number;
  ci95: number;
}

export function ledgerRow(experiment: string, r: LedgerRowInput): LedgerRow {
  const ratio =
    r.published === null || r.published === 0 || !Number.isFinite(r.published)
      ? null
      : r.simulated / r.published;
  // A calibrated or derived row matches by construction: it is not judged, band or not.
  const judged = (r.kind ?? "independent") === "independent" && r.band;
  const inBand = judged
    ? r.simulated >= Math.min(...r.band!) && r.simulated <= Math.max(...r.band!)
    : null;
  return {
    ...r,
    experiment,
    ratio,
    inBand,
    n: r.iterations.length,
    stddev: sampleStddev(r.iterations),
    ci95: confidenceInterval(r.iterations).halfWidth,
  };
}

export function ledgerRows(experiments: readonly ReportExperiment[]): LedgerRow[] {
  return experiments.flatMap((e) => e.rows.map((r) => ledgerRow(e.id, r)));
}

export interface LedgerTotals {
  rows: number;
  judged: number;
  inBand: number;
  outOfBand: number;
}

export function ledgerTotals(rows: readonly LedgerRow[]): LedgerTotals {
  const judged = rows.filter((r) => r.inBand !== null);
  const inBand = judged.filter((r) => r.inBand).length;
  return { rows: rows.length, judged: judged.length, inBand, outOfBand: judged.length - inBand };
}

export const bandText = (b?: [number, number]) => (b ? `[${fmtNum(b[0])}, ${fmtNum(b[1])}]` : "-");
export const inBandText = (v: boolean | null) => (v === null ? "-" : v ? "yes" : "NO");
/** The kind column: "calibrated", "derived", or "-" for an independent row. */
export const kindText = (k?: FigureKind) => (k && k !== "independent" ? k : "-");

/** What the runs cost, "12.3 s wall, 45.6 M events" (the parts given; "" if none), after `lead`. */
export function runCostText(
  wallS: number | undefined,
  events: number | undefined,
  lead: string,
): string {
  const parts: string[] = [];
  if (wallS !== undefined) parts.push(`${wallS.toFixed(1)} s wall`);
  if (events !== undefined)
    parts.push(
      events >= 1e6
        ? `${(events / 1e6).toFixed(1)} M events`
        : `${(events / 1e3).toFixed(1)} k events`,
    );
  return parts.length ? `${lead}${parts.join(", ")}` : "";
}
