// A sweep database from a notebook or script: SQL over its tables, DataFrames (danfojs, loaded on
// first use), Parquet files for other tools, and a finished sweep back as a SweepResult, so the
// sensitivity and envelope plots work on it.
import type { DataFrame } from "danfojs-node";
import { SweepResult, metricFigures, type SweepPoint } from "../experiment/sweep";
import { unknownInfo, type UnknownValue } from "../experiment/unknown";
import type { IterationResult } from "../experiment/types";
import { reproduction } from "../reproduce/registry";
import { reproductionFigures } from "../reproduce/unknowns";
import { sweepJobExperiment, type VariantSpec } from "../reproduce/sweep_job";
import { SweepStore } from "./store";

/** A sweep as the sweeps table records it. */
export interface SweepRecord {
  sweep_id: string;
  experiment: string;
  schedlab: string;
  model: string;
  jobs: number;
  /** Jobs of this sweep with a result. */
  done: number;
  created_at: string;
}

interface PlanRecord {
  experiment: string;
  grid: Record<string, UnknownValue[]>;
  design: "grid" | "one-at-a-time";
  base: Record<string, UnknownValue>;
  points: Array<Record<string, UnknownValue>>;
  variants: string[] | Record<string, VariantSpec>;
  variantSpecs: Record<string, VariantSpec> | null;
  iterations: number;
  duration: number;
  warmup: number | null;
  seed: string;
}

function quote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/**
 * An open sweep database (openSweep). Tables: `sweeps` (one row per spec swept into the file),
 * `jobs` (each sweep's planned jobs: key, point, point_values, variant, iteration), `runs` (one
 * row per finished job, keyed by its hash, with its full result as JSON), `metrics` (key,
 * metric, value) and `failures`.
 */
export class SweepDb {
  readonly #store: SweepStore;

  /** @internal Use openSweep(). */
  constructor(store: SweepStore) {
    this.#store = store;
  }

  /** The file. */
  get file(): string {
    return this.#store.file;
  }

  /** The rows of a SQL query as plain objects. */
  query(sql: string): Promise<Array<Record<string, unknown>>> {
    return this.#store.rows(sql);
  }

  /** A SQL query as a danfojs DataFrame; without SQL, the wide table of one sweep (wide()). */
  async frame(sql?: string): Promise<DataFrame> {
    const rows = sql === undefined ? await this.wide() : await this.query(sql);
    const danfo = require("danfojs-node") as typeof import("danfojs-node");
    return new danfo.DataFrame(rows);
  }

  /** The sweeps in the file, newest last, with how many of their jobs have results. */
  async sweeps(): Promise<SweepRecord[]> {
    return (await this.query(
      `SELECT s.sweep_id, s.experiment, s.schedlab, s.model, s.jobs, s.created_at,
         (SELECT count(*) FROM jobs j JOIN runs r USING (key) WHERE j.sweep_id = s.sweep_id) AS done
       FROM sweeps s ORDER BY s.created_at, s.sweep_id`,
    )) as unknown as SweepRecord[];
  }

  async #sweep(id?: string): Promise<SweepRecord> {
    const all = await this.sweeps();
    if (!all.length) throw new Error(`${this.file} holds no sweep yet`);
    if (id === undefined) return all[all.length - 1];
    const s = all.find((x) => x.sweep_id === id);
    if (!s)
      throw new Error(
        `${this.file} has no sweep ${id} (sweeps: ${all.map((x) => x.sweep_id).join(", ")})`,
      );
    return s;
  }

  async #plan(id: string): Promise<PlanRecord> {
    const [rec] = await this.query(`SELECT plan FROM sweeps WHERE sweep_id = ${quote(id)}`);
    return JSON.parse(String(rec.plan)) as PlanRecord;
  }

  /**
   * One row per run of a sweep (default: the newest): point, the unknowns' values, variant,
   * iteration, then one column per metric.
   */
  async wide(sweepId?: string): Promise<Array<Record<string, unknown>>> {
    const s = await this.#sweep(sweepId);
    const plan = await this.#plan(s.sweep_id);
    const rows = await this.query(
      `SELECT j.key, j.point, j.point_values, j.variant, j.iteration, m.metric, m.value
       FROM jobs j JOIN runs r USING (key) JOIN metrics m USING (key)
       WHERE j.sweep_id = ${quote(s.sweep_id)}
       ORDER BY j.point, j.iteration, j.variant, m.metric`,
    );
    const out = new Map<string, Record<string, unknown>>();
    for (const r of rows) {
      let row = out.get(String(r.key));
      if (!row) {
        const values = JSON.parse(String(r.point_values)) as Record<string, unknown>;
        row = {
          point: r.point,
          // the unknowns in the order the experiment declares them
          ...Object.fromEntries(Object.keys(plan.base).map((k) => [k, values[k]])),
          variant: r.variant,
          iteration: r.iteration,
        };
        out.set(String(r.key), row);
      }
      row[String(r.metric)] = r.value ?? Number.NaN;
    }
    return [...out.values()];
  }

  /** Writes a query's rows (default: every run with its metrics) to a Parquet file. */
  async toParquet(file: string, sql?: string): Promise<void> {
    const q =
      sql ??
      `SELECT r.key, r.experiment, r.point_values, r.variant, r.iteration, r.seed, m.metric,
         m.value FROM runs r JOIN metrics m USING (key) ORDER BY r.key, m.metric`;
    await this.#store.exec(`COPY (${q}) TO ${quote(file)} (FORMAT parquet)`);
  }

  /**
   * A finished sweep (default: the newest) as a SweepResult: each point's runs assembled into
   * Results, its figures the reproduction's ledger rows (published values and bands marked) when
   * the sweep ran the reproduction's own variants, else every metric's mean per variant.
   */
  async result(sweepId?: string): Promise<SweepResult> {
    const s = await this.#sweep(sweepId);
    if (s.done < s.jobs)
      throw new Error(
        `sweep ${s.sweep_id} in ${this.file} is not finished: ${s.done} of ${s.jobs} jobs have results (run the same sweep again to finish it)`,
      );
    const plan = await this.#plan(s.sweep_id);
    const runs = await this.query(
      `SELECT j.point, r.result FROM jobs j JOIN runs r USING (key)
       WHERE j.sweep_id = ${quote(s.sweep_id)} ORDER BY j.point`,
    );
    const byPoint = new Map<number, IterationResult[]>();
    for (const r of runs) {
      const list = byPoint.get(Number(r.point)) ?? [];
      list.push(JSON.parse(String(r.result)) as IterationResult);
      byPoint.set(Number(r.point), list);
    }
    const r = reproduction(plan.experiment);
    const own = r
      .experiment()
      .jobs({ iterations: 1 })
      .map((j) => j.variant);
    const ledger =
      !plan.variantSpecs && Array.isArray(plan.variants) && plan.variants.length === own.length;
    const opts = {
      iterations: plan.iterations,
      duration: plan.duration,
      warmup: plan.warmup ?? undefined,
      seed: plan.seed,
    };
    const points: SweepPoint[] = plan.points.map((values, i) => {
      const exp = sweepJobExperiment({
        experiment: plan.experiment,
        values,
        ...(plan.variantSpecs ? { variants: plan.variantSpecs } : {}),
      });
      const results = exp.assemble(opts, byPoint.get(i) ?? []);
      return {
        values,
        results,
        figures: ledger ? reproductionFigures(r)(results) : metricFigures(results),
      };
    });
    const unknowns = r.experiment().declaredUnknowns().map(unknownInfo);
    return new SweepResult(unknowns, plan.base, plan.grid, plan.design, points);
  }

  /** Closes the file. */
  close(): Promise<void> {
    return this.#store.close();
  }
}

/**
 * Opens a sweep database read-only (a file `schedlab sweep SPEC.json --db FILE` wrote); a file
 * that is not one is refused. `await db.query(sql)`, `await db.frame(sql?)`,
 * `await db.toParquet(file, sql?)`, `await db.result()` (a SweepResult: `.plot.sensitivity()`),
 * then `await db.close()`; docs/scale-out.md has a notebook's cells.
 */
export async function openSweep(file: string): Promise<SweepDb> {
  return new SweepDb(await SweepStore.open(file, { readOnly: true }));
}
