// Results as a table: plain rows for anything, a danfojs-node DataFrame for notebooks.
// danfojs-node takes ~0.5 s and hundreds of MB to load, so it is required only inside toFrame():
// the simulator, the CLI and the tests that do not ask for a frame never load it.
import type { DataFrame } from "danfojs-node";
import type { IterationResult, ResultsData } from "../experiment/types";
import { variantNames } from "./metric";

/** One row of toRows: column name -> value. */
export type FrameRow = Record<string, string | number>;

/** Options of toRows and toFrame. */
export interface RowOptions {
  /** Add scheduler counters as columns ("sched.contextSwitches", "migrations.load_balance"...). Default true. */
  counters?: boolean;
}

/**
 * One row per variant x iteration: variant, iteration, seed, durationNs, events, every workload
 * metric, and (unless counters: false) the scheduler counters flattened to their metric paths.
 * Columns missing in some iterations are filled with NaN so every row has the same keys.
 */
export function toRows(data: ResultsData, opts: RowOptions = {}): FrameRow[] {
  const order = new Map(variantNames(data).map((v, i) => [v, i]));
  const its = data.iterations
    .slice()
    .sort(
      (a, b) =>
        (order.get(a.variant) ?? 0) - (order.get(b.variant) ?? 0) || a.iteration - b.iteration,
    );
  const rows = its.map((it) => rowOf(it, opts.counters !== false));
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const r of rows)
    for (const k of Object.keys(r))
      if (!seen.has(k)) {
        seen.add(k);
        columns.push(k);
      }
  // Same key order in every row: danfo takes its columns from the first row.
  return rows.map((r) => {
    const out: FrameRow = {};
    for (const c of columns) out[c] = c in r ? r[c] : NaN;
    return out;
  });
}

function rowOf(it: IterationResult, counters: boolean): FrameRow {
  const row: FrameRow = {
    variant: it.variant,
    iteration: it.iteration,
    seed: it.seed,
    durationNs: it.durationNs,
    events: it.events,
  };
  for (const [k, v] of Object.entries(it.metrics)) row[k] = v;
  if (counters && it.sched) {
    const s = it.sched;
    row["sched.contextSwitches"] = s.contextSwitches;
    if (s.voluntarySwitches !== undefined) {
      row["sched.voluntarySwitches"] = s.voluntarySwitches;
      row["sched.involuntarySwitches"] = s.involuntarySwitches;
      row["sched.wakeupPreemptions"] = s.wakeupPreemptions;
    }
    const flat = (prefix: string, rec: Record<string, unknown> | undefined) => {
      for (const [k, v] of Object.entries(rec ?? {})) {
        if (typeof v === "number") row[`${prefix}.${k}`] = v;
        else if (v && typeof v === "object") flat(`${prefix}.${k}`, v as Record<string, unknown>);
      }
    };
    flat("migrations", s.migrations);
    flat("balance", s.balance as unknown as Record<string, unknown>);
    flat("wakePlacement", s.wakePlacement);
    flat("wakePath", s.wakePath);
    flat("ipis", s.ipis);
    flat("rqLock", s.rqLock as unknown as Record<string, unknown>);
    flat("other", s.other);
    if (s.lagAtWakeup) flat("lagAtWakeup", s.lagAtWakeup as unknown as Record<string, unknown>);
  }
  return row;
}

/** A danfojs-node DataFrame of toRows(data). Loads danfojs-node on first call. */
export function toFrame(data: ResultsData, opts: RowOptions = {}): DataFrame {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const dfd = require("danfojs-node") as typeof import("danfojs-node");
  const rows = toRows(data, opts);
  if (rows.length === 0) return new dfd.DataFrame([]);
  return new dfd.DataFrame(rows);
}
