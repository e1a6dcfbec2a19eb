// Running a reproduction's iterations on worker threads. Every (variant, iteration) is an
// independent simulation with its own derived seed, so the results are identical to a serial
// run whatever the number of workers; only the wall time changes.
import * as fs from "node:fs";
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import type { IterationJob, RunOptions } from "../experiment/experiment";
import type { Results } from "../experiment/results";
import type { IterationResult } from "../experiment/types";
import type { Reproduction, RunProfile } from "./registry";
import { runReproduction } from "./registry";

/** The worker's entry: compiled JS next to this file, or the TypeScript source through tsx's
 *  CommonJS hook (a .ts file cannot be a Worker's entry by itself). */
function workerEntry(): { code: string; eval: boolean } {
  const js = path.join(__dirname, "worker.js");
  if (__filename.endsWith(".js") && fs.existsSync(js)) return { code: js, eval: false };
  const ts = path.join(__dirname, "worker.ts");
  return { code: `require("tsx/cjs"); require(${JSON.stringify(ts)});`, eval: true };
}

/**
 * Runs `r` with `profile` on up to `workers` threads (1 = in this thread). Jobs are dealt out
 * round-robin; `onProgress` sees results in completion order.
 */
export async function runReproductionParallel(
  r: Reproduction,
  profile: RunProfile,
  opts: Pick<RunOptions, "seed" | "onProgress" | "trace"> & { workers: number },
): Promise<Results> {
  const runOpts: RunOptions = {
    iterations: profile.iterations,
    duration: profile.duration,
    warmup: profile.warmup,
    seed: opts.seed,
    trace: opts.trace,
  };
  const exp = r.experiment();
  const jobs = exp.jobs(runOpts);
  const workers = Math.max(1, Math.min(opts.workers, jobs.length));
  if (!Number.isInteger(opts.workers) || opts.workers < 1)
    throw new Error(`workers must be a positive integer (got ${opts.workers})`);
  if (workers === 1) return runReproduction(r, profile, opts);
  exp.spec(runOpts); // validate before starting threads
  const shares: IterationJob[][] = Array.from({ length: workers }, () => []);
  jobs.forEach((j, i) => {
    shares[i % workers].push(j);
  });
  const results: IterationResult[] = [];
  const entry = workerEntry();
  const { seed, trace } = runOpts;
  await Promise.all(
    shares.map(
      (share) =>
        new Promise<void>((resolve, reject) => {
          const w = new Worker(entry.code, {
            eval: entry.eval,
            workerData: {
              id: r.id,
              opts: {
                iterations: runOpts.iterations,
                duration: runOpts.duration,
                warmup: runOpts.warmup,
                seed,
                trace,
              },
              jobs: share,
            },
          });
          let finished = false;
          w.on("message", (m: { type: string; result?: IterationResult; message?: string }) => {
            if (m.type === "result" && m.result) {
              results.push(m.result);
              opts.onProgress?.(results.length, jobs.length, m.result);
            } else if (m.type === "done") {
              finished = true;
              resolve();
            } else if (m.type === "error") {
              finished = true;
              reject(new Error(`${r.id} worker: ${m.message}`));
            }
          });
          w.on("error", reject);
          w.on("exit", (code) => {
            if (!finished)
              reject(
                new Error(`${r.id} worker exited with code ${code} before finishing its runs`),
              );
          });
        }),
    ),
  );
  return exp.assemble(runOpts, results);
}
