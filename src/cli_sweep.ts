// `schedlab sweep SPEC.json [--db FILE] [--queue redis://HOST:PORT]` (a sweep spec into a sweep
// database, on this machine's threads or through a Redis queue) and `schedlab worker --queue
// redis://HOST:PORT` (a machine serving that queue).
import * as path from "node:path";
import type { Command } from "commander";
import { loadSweepSpec, parseSweepSpec, planSweep, type SweepSpec } from "./sweeps/spec";
import { identity } from "./sweeps/identity";
import { runSweep, type SweepRunSummary } from "./sweeps/run";
import { redisTarget } from "./sweeps/redis";
import { runQueueWorker } from "./sweeps/worker";

/** Flags of `schedlab sweep` that a spec run reads. */
export interface SpecSweepFlags {
  db?: string;
  queue?: string;
  jobs?: string;
  json?: boolean;
}

function positiveInt(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === "" || !Number.isInteger(n) || n < 1)
    throw new Error(`--${flag} must be a positive integer (got ${v})`);
  return n;
}

/** Calls `run` with a signal that the first Ctrl-C (or SIGTERM) aborts; a second one exits. */
async function withInterrupt<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const onSignal = () => {
    if (ac.signal.aborted) process.exit(130);
    ac.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    return await run(ac.signal);
  } finally {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
  }
}

function summaryText(s: SweepRunSummary): string {
  const lines = [
    `${s.interrupted ? "interrupted: " : ""}${s.ran} jobs run, ${s.reused} reused, ${s.failed.length} failed, of ${s.total}; results in ${s.db} (sweep ${s.sweepId}), ${s.wallS.toFixed(1)} s`,
  ];
  for (const f of s.failed)
    lines.push(`  failed ${f.key} (${f.job}) after ${f.attempts} attempt(s): ${f.error}`);
  if (s.interrupted || s.failed.length)
    lines.push("run the same command again to run the missing jobs (finished ones are kept)");
  return lines.join("\n");
}

/**
 * Runs a sweep spec (a file, or a spec built from `sweep <id> NAME=...` flags) into a sweep
 * database; resolves to the exit status: 0 all done, 1 some jobs failed, 130 interrupted.
 */
export async function runSpecSweep(
  spec: SweepSpec | string,
  flags: SpecSweepFlags,
): Promise<number> {
  const file = typeof spec === "string" ? spec : null;
  const s = file ? loadSweepSpec(file) : parseSweepSpec(spec, "sweep");
  const plan = planSweep(s, file ?? "sweep", identity());
  const db = flags.db ?? `${file ? path.basename(file, ".json") : s.experiment}.duckdb`;
  const jobs = positiveInt("jobs", flags.jobs);
  if (flags.queue && flags.jobs !== undefined)
    throw new Error(
      "--jobs runs threads on this machine; with --queue, give schedlab worker --concurrency N",
    );
  if (flags.queue) redisTarget(flags.queue); // a bad URL fails before anything else
  const summary = await withInterrupt((signal) =>
    runSweep(plan, { db, jobs, queue: flags.queue, signal }),
  );
  if (flags.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else process.stderr.write(`${summaryText(summary)}\n`);
  if (summary.interrupted) return 130;
  return summary.failed.length ? 1 : 0;
}

/** Adds `schedlab worker`. */
export function addSweepCommands(sub: (name: string) => Command, status: { code: number }): void {
  sub("worker")
    .description("run sweep jobs from a Redis queue (schedlab sweep SPEC.json --queue ...)")
    .requiredOption(
      "--queue <URL>",
      "redis://HOST:PORT[/DB]; a password comes from SCHEDLAB_REDIS_URL, never the command line",
    )
    .option("--concurrency <N>", "jobs at once, each on its own thread", "1")
    .option(
      "--stall-timeout <S>",
      "seconds a job's lock lasts unrenewed before another worker retries it",
      "30",
    )
    .action(async (flags: { queue: string; concurrency: string; stallTimeout: string }) => {
      const target = redisTarget(flags.queue);
      const stall = Number(flags.stallTimeout);
      if (!Number.isFinite(stall) || stall <= 0)
        throw new Error(`--stall-timeout must be a positive number (got ${flags.stallTimeout})`);
      status.code = await withInterrupt((signal) =>
        runQueueWorker(target, {
          concurrency: positiveInt("concurrency", flags.concurrency),
          stallTimeout: stall,
          signal,
        }),
      );
    });
}
