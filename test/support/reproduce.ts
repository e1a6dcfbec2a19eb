// The reproduction tests' shared steps: run one reproduction's quick profile, find a ledger row.
import { type LedgerRow, reproduction, runReproduction } from "../../src/index";

/** Runs reproduction `id` with its quick (test) profile; returns it, its results and ledger rows. */
export function quickRun(id: string) {
  const r = reproduction(id);
  const res = runReproduction(r, r.quick);
  return { r, res, rows: r.rows(res) };
}

/** The ledger row of `metric` / `variant`; throws naming them if there is none. */
export function ledgerRow(rows: readonly LedgerRow[], metric: string, variant: string): LedgerRow {
  const row = rows.find((x) => x.metric === metric && x.variant === variant);
  if (!row) throw new Error(`no ledger row for ${metric} / ${variant}`);
  return row;
}
