// Runs a planned sweep into a sweep database: records the spec and its jobs, skips the jobs the
// database already holds, runs the others on this machine's threads or through a Redis queue,
// and writes each result as it arrives.
import { SweepStore } from "./store";
import { SweepProgress, type SweepCounts } from "./progress";
import { runLocally } from "./local";
import { runOnQueue } from "./queue";
import { checkRedis, redisTarget } from "./redis";
import { describeJob, type ExecHooks } from "./exec";
import type { PlannedJob, SweepPlan } from "./spec";

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/** Options of runSweep. */
export interface RunSweepOptions {
  /** The sweep database (created when missing). */
  db: string;
  /** Threads on this machine (default 1); not used with `queue`. */
  jobs?: number;
  /** redis://HOST:PORT: run the jobs on `schedlab worker` processes instead. */
  queue?: string;
  /** Where a password comes from (SCHEDLAB_REDIS_URL); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Stops the sweep: finished jobs stay written, running ones are dropped. */
  signal?: AbortSignal;
  /** Progress on stderr (default true). */
  progress?: boolean;
  /** How often the queue is polled, ms (default 2000). */
  pollMs?: number;
}

/** A job that failed, with its spec and error. */
export interface FailedJob {
  key: string;
  job: string;
  error: string;
  attempts: number;
}

/** What a sweep run did. */
export interface SweepRunSummary {
  sweepId: string;
  db: string;
  total: number;
  /** Jobs whose results were already in the database. */
  reused: number;
  /** Jobs run (and written) by this run. */
  ran: number;
  failed: FailedJob[];
  interrupted: boolean;
  wallS: number;
}

/**
 * Runs `plan` into the database `opts.db`: a job whose result the database holds is not run
 * again. With `opts.queue` the Redis server is checked first, so an unreachable one fails
 * within seconds and nothing is written.
 */
export async function runSweep(plan: SweepPlan, opts: RunSweepOptions): Promise<SweepRunSummary> {
  const target = opts.queue ? redisTarget(opts.queue, opts.env ?? process.env) : null;
  if (target)
    await checkRedis(target).catch((err: Error) => {
      throw new Error(`${err.message}; nothing was written`);
    });
  const threads = opts.jobs ?? 1;
  if (!Number.isInteger(threads) || threads < 1)
    throw new Error(`--jobs must be a positive integer (got ${threads})`);
  const store = await SweepStore.open(opts.db, { create: true });
  const t0 = Date.now();
  const failed: FailedJob[] = [];
  let ran = 0;
  let reused = 0;
  let bar: SweepProgress | null = null;
  try {
    await store.recordSweep(plan);
    const finished = await store.finishedKeys();
    const seen = new Set<string>();
    const missing: PlannedJob[] = [];
    for (const j of plan.jobs) {
      if (finished.has(j.key)) reused++;
      else if (!seen.has(j.key)) missing.push(j);
      seen.add(j.key);
    }
    const write = (s: string) => {
      if (opts.progress !== false) process.stderr.write(s);
    };
    bar = new SweepProgress(plan.experiment, plan.jobs.length, reused, { write });
    write(
      `[sweep ${plan.experiment}] ${plan.jobs.length} jobs (${plural(plan.points.length, "point")} x ${plural(plan.variants.length, "variant")} x ${plural(plan.iterations, "iteration")}): ${reused} in ${opts.db} already, ${missing.length} to run ${target ? `through ${target.display}` : `on ${Math.min(threads, Math.max(1, missing.length))} thread${threads > 1 ? "s" : ""}`}\n`,
    );
    const counts: SweepCounts = { done: reused, running: 0, failed: 0 };
    const hooks: ExecHooks = {
      signal: opts.signal,
      onResult: async (job, json, origin) => {
        await store.writeRun(plan, job, json, origin);
        ran++;
        counts.done++;
        bar!.update(counts);
      },
      onFailure: async (job, error, attempts) => {
        await store.writeFailure(plan, job, error, attempts);
        failed.push({ key: job.key, job: describeJob(plan.experiment, job), error, attempts });
        counts.failed++;
        bar!.note(
          `[sweep ${plan.experiment}] job ${job.key} failed (${describeJob(plan.experiment, job)}): ${error}`,
        );
        bar!.update(counts);
      },
      onRunning: (n) => {
        counts.running = n;
        bar!.update(counts);
      },
      note: (line) => bar!.note(line),
    };
    if (missing.length) {
      if (target) await runOnQueue(plan, missing, target, hooks, opts.pollMs);
      else await runLocally(missing, threads, hooks);
    }
    await store.flush();
  } finally {
    bar?.stop();
    await store.close();
  }
  return {
    sweepId: plan.id,
    db: opts.db,
    total: plan.jobs.length,
    reused,
    ran,
    failed,
    interrupted: !!opts.signal?.aborted,
    wallS: (Date.now() - t0) / 1000,
  };
}
