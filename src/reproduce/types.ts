// Types shared by the reproduction registry and the ledger, below both so neither imports the other.
import type { FigureKind } from "../report/ledger";
import type { Results } from "../experiment/results";

export type { FigureKind } from "../report/ledger";

/** One row of a reproduction's ledger: a published figure beside the simulated one. */
export interface LedgerRow {
  metric: string;
  variant: string;
  /** The published figure, or null where the source gives none. */
  published: number | null;
  /** Mean over iterations. */
  simulated: number;
  iterations: number[];
  /** simulated / published. */
  ratio: number | null;
  /** The band the reproduction aims for (a stated choice in data/published), if any. */
  band: [number, number] | null;
  /** null for calibrated and derived rows, and for rows without a band. */
  inBand: boolean | null;
  /** independent (an output of the model), calibrated (fixed an input) or derived from one. */
  kind: FigureKind;
}

/**
 * A reproduction's `today` variant: the same machine and workload on today's kernel (the newest
 * era, no patch), so a reader can see whether the published effect still happens. Its ledger
 * rows have variant `today` and no published value (nobody measured it); they are never judged.
 */
export interface TodaySpec {
  /**
   * What became of the patch in today's kernel (merged as posted, merged in another form, never
   * merged, with the hazard still present or gone), with the commit or source line, and what the
   * today rows mean.
   */
  note: string;
  /** The headline metrics that get a `today` row. */
  metrics: readonly string[];
  /**
   * One metric's per-iteration values from the today run (default: the run's own values of the
   * metric for variant `today`), for reproductions whose rows keep only some iterations.
   */
  values?(res: Results, metric: string, variant: string): number[];
  /**
   * The variant of the reproduction's own run that already is today's kernel unpatched (the
   * demo runs 6.19): its values become the today rows and nothing extra is run.
   */
  fromVariant?: string;
}
