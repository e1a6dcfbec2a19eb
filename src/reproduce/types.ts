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
  /** calibrated (a calibration target), predicted (judged), or reported (nothing published). */
  role?: FigureRole;
  /** The judgement of the row (verdict.ts); set by ledgerEntry. */
  verdict?: Verdict;
  /** Why: the band's source, what it follows from, or where the miss is explained. */
  reason?: string;
}

/** A published figure's role: fitted by a calibration, judged as a prediction, or only reported. */
export type FigureRole = "calibrated" | "predicted" | "reported";

/**
 * A row's verdict. reproduced: predicted, in band, nothing calibrated; reproduced after
 * calibration: predicted, in band, k unknowns fitted on other figures; missed: predicted, out of
 * band (the mechanism in the experiment's doc); not comparable: predicted but no band can judge
 * it (the reason given); calibration target: fitted, never counted as reproduced; not judged:
 * nothing was published for the row (today rows, extra metrics).
 */
export type Verdict =
  | "reproduced"
  | "reproduced after calibration"
  | "missed"
  | "not comparable"
  | "calibration target"
  | "not judged";

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
