// Types shared by the reproduction registry and the ledger, below both so neither imports the other.
import type { FigureKind } from "../report/ledger";

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
