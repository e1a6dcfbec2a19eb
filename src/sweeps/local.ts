// A sweep's jobs on this machine: `jobs` worker threads of a ReproductionPool, each result
// reported as it finishes. This thread only hands out jobs and writes results, so it stays free
// to write the database and to see Ctrl-C at once.
import * as os from "node:os";
import { performance } from "node:perf_hooks";
import { ReproductionPool } from "../reproduce/parallel";
import type { PlannedJob } from "./spec";
import type { ExecHooks } from "./exec";

/** Runs `jobs` on `threads` worker threads; resolves when all are settled or the run is aborted. */
export async function runLocally(
  jobs: readonly PlannedJob[],
  threads: number,
  hooks: ExecHooks,
): Promise<void> {
  const pool = new ReproductionPool(Math.min(threads, Math.max(1, jobs.length)));
  const worker = `${os.hostname()}:${process.pid}`;
  let next = 0;
  let running = 0;
  // results are written behind the runs (the store writes one at a time): a thread never waits
  // for the database before its next job; a write that fails stops the sweep
  const writes: Promise<void>[] = [];
  let broken = false;
  const written = (w: Promise<void>) => {
    w.catch(() => {
      broken = true;
    });
    writes.push(w);
  };
  const aborted = () => !!hooks.signal?.aborted || broken;
  const onAbort = () => void pool.abort(new Error("interrupted"));
  hooks.signal?.addEventListener("abort", onAbort, { once: true });
  const lane = async () => {
    while (!aborted() && next < jobs.length) {
      const job = jobs[next++];
      running++;
      hooks.onRunning(running);
      const t0 = performance.now();
      let json: string | null = null;
      let error: string | null = null;
      try {
        json = JSON.stringify(await pool.runTask(job.task));
      } catch (err) {
        error = (err as Error).message;
      }
      running--;
      if (aborted()) break;
      if (json !== null)
        written(hooks.onResult(job, json, { worker, wallMs: performance.now() - t0 }));
      else written(hooks.onFailure(job, error!, 1));
      hooks.onRunning(running);
    }
  };
  try {
    await pool.warm().catch((err: Error) => {
      if (!aborted()) throw err;
    });
    await Promise.all(Array.from({ length: Math.min(threads, jobs.length) }, lane));
    await Promise.all(writes);
  } finally {
    hooks.signal?.removeEventListener("abort", onAbort);
    await pool.close();
  }
}
