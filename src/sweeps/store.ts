// A sweep database: a DuckDB file holding the specs swept into it, their planned jobs, one row
// per finished run with its full result, the runs' metrics in long form, and the jobs that
// failed. Each finished run is written in one transaction with its metrics, so an interrupted
// sweep leaves only whole runs behind and resumes from them.
import * as fs from "node:fs";
import type { DuckDBConnection, DuckDBInstance, DuckDBValue } from "@duckdb/node-api";
import type { IterationResult } from "../experiment/types";
import { canonicalJson, type PlannedJob, type SweepPlan } from "./spec";

/** What a sweep database says it is (table schedlab_meta). */
export const SWEEP_DB_FORMAT = "schedlab-sweep";
export const SWEEP_DB_VERSION = 1;

const SCHEMA = [
  `CREATE TABLE schedlab_meta (format VARCHAR NOT NULL, format_version INTEGER NOT NULL,
     created_by VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE sweeps (sweep_id VARCHAR PRIMARY KEY, experiment VARCHAR NOT NULL,
     spec VARCHAR NOT NULL, plan VARCHAR NOT NULL, schedlab VARCHAR NOT NULL,
     model VARCHAR NOT NULL, jobs INTEGER NOT NULL, created_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE jobs (sweep_id VARCHAR NOT NULL, key VARCHAR NOT NULL, point INTEGER NOT NULL,
     point_values VARCHAR NOT NULL, variant VARCHAR NOT NULL, iteration INTEGER NOT NULL,
     PRIMARY KEY (sweep_id, key))`,
  `CREATE TABLE runs (key VARCHAR PRIMARY KEY, experiment VARCHAR NOT NULL,
     point_values VARCHAR NOT NULL, variant VARCHAR NOT NULL, iteration INTEGER NOT NULL,
     seed VARCHAR NOT NULL, duration_ns BIGINT NOT NULL, events BIGINT NOT NULL,
     schedlab VARCHAR NOT NULL, model VARCHAR NOT NULL, result VARCHAR NOT NULL,
     worker VARCHAR NOT NULL, wall_ms DOUBLE NOT NULL, finished_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE metrics (key VARCHAR NOT NULL, metric VARCHAR NOT NULL, value DOUBLE,
     PRIMARY KEY (key, metric))`,
  `CREATE TABLE failures (sweep_id VARCHAR NOT NULL, key VARCHAR NOT NULL, error VARCHAR NOT NULL,
     attempts INTEGER NOT NULL, failed_at TIMESTAMP NOT NULL)`,
];

/** Where a run came from: the worker (host:pid or "local") and its wall time. */
export interface RunOrigin {
  worker: string;
  wallMs: number;
}

function duckdb(): typeof import("@duckdb/node-api") {
  return require("@duckdb/node-api") as typeof import("@duckdb/node-api");
}

/** A value DuckDB returned, as plain JSON-able JavaScript (BIGINT as a number, times as ISO). */
function plain(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(plain);
  return v;
}

/** Opens a DuckDB file without ever fetching an extension (json and parquet are built in). */
async function openInstance(file: string, readOnly: boolean): Promise<DuckDBInstance> {
  try {
    return await duckdb().DuckDBInstance.create(file, {
      access_mode: readOnly ? "READ_ONLY" : "READ_WRITE",
      autoinstall_known_extensions: "false",
      autoload_known_extensions: "false",
    });
  } catch (err) {
    const msg = (err as Error).message;
    if (/lock/i.test(msg))
      throw new Error(
        `${file} is in use by another process (a sweep still running on it?): ${msg}`,
      );
    throw new Error(`${file} is not a sweep database: DuckDB cannot open it (${msg})`);
  }
}

/** A sweep database, open for reading and (unless read-only) writing. */
export class SweepStore {
  readonly file: string;
  readonly #instance: DuckDBInstance;
  readonly #conn: DuckDBConnection;
  /** Writes run one after another on the one connection. */
  #chain: Promise<unknown> = Promise.resolve();

  private constructor(file: string, instance: DuckDBInstance, conn: DuckDBConnection) {
    this.file = file;
    this.#instance = instance;
    this.#conn = conn;
  }

  /**
   * Opens `file`. A missing file is created when `create` is set (else refused); a file that is
   * not a DuckDB database, or a DuckDB database that is not a sweep database (it has tables but
   * no schedlab_meta saying so), is refused and left as it was.
   */
  static async open(
    file: string,
    opts: { create?: boolean; readOnly?: boolean } = {},
  ): Promise<SweepStore> {
    const exists = fs.existsSync(file);
    if (!exists && !opts.create)
      throw new Error(
        `no sweep database at ${file} (schedlab sweep SPEC.json --db ${file} makes one)`,
      );
    const instance = await openInstance(file, !!opts.readOnly && exists);
    const conn = await instance.connect();
    const store = new SweepStore(file, instance, conn);
    try {
      await store.#check(!!opts.create && !opts.readOnly);
    } catch (err) {
      store.#closeNow();
      throw err;
    }
    return store;
  }

  async #check(create: boolean): Promise<void> {
    const tables = (
      await this.rows(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'",
      )
    ).map((r) => String(r.table_name));
    if (tables.includes("schedlab_meta")) {
      const meta = await this.rows("SELECT format, format_version FROM schedlab_meta");
      const m = meta[0];
      if (!m || m.format !== SWEEP_DB_FORMAT)
        throw new Error(
          `${this.file} is not a sweep database (its schedlab_meta says ${JSON.stringify(m?.format ?? null)}, not ${SWEEP_DB_FORMAT})`,
        );
      if (m.format_version !== SWEEP_DB_VERSION)
        throw new Error(
          `${this.file} is a sweep database of format ${m.format_version}; this schedlab reads format ${SWEEP_DB_VERSION}`,
        );
      return;
    }
    if (tables.length)
      throw new Error(
        `${this.file} is not a sweep database: it is a DuckDB database with tables ${tables.slice(0, 8).join(", ")} and no schedlab_meta (give a new file to start a sweep database)`,
      );
    if (!create) throw new Error(`${this.file} is not a sweep database: it holds no tables`);
    await this.#transaction(async () => {
      for (const sql of SCHEMA) await this.#conn.run(sql);
      await this.#conn.run("INSERT INTO schedlab_meta VALUES ($1, $2, $3, now())", [
        SWEEP_DB_FORMAT,
        SWEEP_DB_VERSION,
        "schedlab",
      ]);
    });
  }

  /** Runs `fn` inside one transaction: all of it is written, or nothing. */
  async #transaction(fn: () => Promise<void>): Promise<void> {
    await this.#conn.run("BEGIN TRANSACTION");
    try {
      await fn();
      await this.#conn.run("COMMIT");
    } catch (err) {
      await this.#conn.run("ROLLBACK").catch(() => {});
      throw err;
    }
  }

  /** Queues a write behind the ones before it. */
  #write(fn: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(() => this.#transaction(fn));
    this.#chain = next.catch(() => {});
    return next;
  }

  /** Rows of a query as plain objects (BIGINT as numbers, timestamps as ISO text). */
  async rows(sql: string, params: DuckDBValue[] = []): Promise<Array<Record<string, unknown>>> {
    const reader = await this.#conn.runAndReadAll(sql, params);
    return reader
      .getRowObjectsJS()
      .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)])));
  }

  /** Runs a statement (COPY ... TO 'x.parquet', CREATE VIEW, ...). */
  async exec(sql: string): Promise<void> {
    await this.#conn.run(sql);
  }

  /** Records a sweep's spec and its planned jobs (again, if it was recorded before). */
  recordSweep(plan: SweepPlan): Promise<void> {
    return this.#write(async () => {
      await this.#conn.run("DELETE FROM jobs WHERE sweep_id = $1", [plan.id]);
      await this.#conn.run("DELETE FROM sweeps WHERE sweep_id = $1", [plan.id]);
      await this.#conn.run("INSERT INTO sweeps VALUES ($1, $2, $3, $4, $5, $6, $7, now())", [
        plan.id,
        plan.experiment,
        JSON.stringify(plan.spec),
        JSON.stringify(planRecord(plan)),
        plan.identity.version,
        plan.identity.model,
        plan.jobs.length,
      ]);
      for (let i = 0; i < plan.jobs.length; i += 200) {
        const batch = plan.jobs.slice(i, i + 200);
        const params: DuckDBValue[] = [];
        const rows = batch.map((j, n) => {
          params.push(plan.id, j.key, j.point, canonicalJson(j.values), j.variant, j.iteration);
          const b = n * 6;
          return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6})`;
        });
        await this.#conn.run(`INSERT INTO jobs VALUES ${rows.join(", ")}`, params);
      }
    });
  }

  /** The keys of the runs already in the database. */
  async finishedKeys(): Promise<Set<string>> {
    await this.#chain;
    return new Set((await this.rows("SELECT key FROM runs")).map((r) => String(r.key)));
  }

  /**
   * Writes one finished run and its metrics in one transaction. `resultJson` is the run's
   * IterationResult as JSON (as it crossed a thread or the queue: NaN is null there).
   */
  writeRun(plan: SweepPlan, job: PlannedJob, resultJson: string, origin: RunOrigin): Promise<void> {
    const result = JSON.parse(resultJson) as IterationResult;
    return this.#write(async () => {
      await this.#conn.run(
        "INSERT INTO runs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, now())",
        [
          job.key,
          plan.experiment,
          canonicalJson(job.values),
          job.variant,
          job.iteration,
          result.seed,
          BigInt(result.durationNs),
          BigInt(result.events),
          plan.identity.version,
          plan.identity.model,
          resultJson,
          origin.worker,
          origin.wallMs,
        ],
      );
      const metrics = Object.entries(result.metrics);
      if (metrics.length) {
        const params: DuckDBValue[] = [];
        const rows = metrics.map(([m, v], n) => {
          params.push(job.key, m, typeof v === "number" ? v : null);
          return `($${n * 3 + 1}, $${n * 3 + 2}, $${n * 3 + 3})`;
        });
        await this.#conn.run(`INSERT INTO metrics VALUES ${rows.join(", ")}`, params);
      }
      await this.#conn.run("DELETE FROM failures WHERE key = $1", [job.key]);
    });
  }

  /** Records a job that failed (it stays missing, so the next run of the sweep tries it again). */
  writeFailure(plan: SweepPlan, job: PlannedJob, error: string, attempts: number): Promise<void> {
    return this.#write(async () => {
      await this.#conn.run("DELETE FROM failures WHERE sweep_id = $1 AND key = $2", [
        plan.id,
        job.key,
      ]);
      await this.#conn.run("INSERT INTO failures VALUES ($1, $2, $3, $4, now())", [
        plan.id,
        job.key,
        error,
        attempts,
      ]);
    });
  }

  /** Waits for the writes queued so far. */
  async flush(): Promise<void> {
    await this.#chain;
  }

  /** Closes the database after the writes queued so far. */
  async close(): Promise<void> {
    await this.#chain;
    this.#closeNow();
  }

  #closeNow(): void {
    this.#conn.closeSync();
    this.#instance.closeSync();
  }
}

/** What the sweeps table keeps of a plan (everything but the jobs, which have their own table). */
export function planRecord(plan: SweepPlan): Record<string, unknown> {
  return {
    experiment: plan.experiment,
    grid: plan.grid,
    design: plan.design,
    base: plan.base,
    points: plan.points,
    variants: plan.variants,
    variantSpecs: plan.variantSpecs,
    iterations: plan.iterations,
    duration: plan.duration,
    warmup: plan.warmup ?? null,
    seed: plan.seed,
  };
}
