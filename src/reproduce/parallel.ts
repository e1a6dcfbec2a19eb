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

/** The worker's entry: compiled JS next to this file, or the TypeScript source through tsx's
 *  CommonJS hook (a .ts file cannot be a Worker's entry by itself). */
function workerEntry(): { code: string; eval: boolean } {
  const js = path.join(__dirname, "worker.js");
  if (__filename.endsWith(".js") && fs.existsSync(js)) return { code: js, eval: false };
  const ts = path.join(__dirname, "worker.ts");
  // An eval'd worker resolves bare module names from the process's cwd, which may be anywhere
  // (a report directory): hand it tsx's absolute path, resolved from here.
  const tsx = require.resolve("tsx/cjs");
  return { code: `require(${JSON.stringify(tsx)}); require(${JSON.stringify(ts)});`, eval: true };
}

/** What the main thread sends a worker: one (variant, iteration) of the reproduction `id`. */
export interface WorkerJob {
  id: string;
  opts: Pick<
    RunOptions,
    | "iterations"
    | "duration"
    | "warmup"
    | "seed"
    | "trace"
    | "maxEvents"
    | "traceLimit"
    | "maxHeapMb"
  >;
  job: IterationJob;
}

/** What a worker answers: the job's result, or why it failed. */
export type WorkerReply =
  | { type: "result"; result: IterationResult }
  | { type: "error"; message: string; job: IterationJob };

type RunOpts = Pick<
  RunOptions,
  "seed" | "onProgress" | "trace" | "maxEvents" | "traceLimit" | "maxHeapMb"
>;

/** Names the run that failed, so a user can rerun exactly that one. */
function jobError(id: string, job: IterationJob | undefined, message: string): Error {
  const where = job ? ` variant ${job.variant} iteration ${job.iteration}` : "";
  return new Error(`${id}${where}: ${message}`);
}

/**
 * Runs reproductions on `size` threads: this one and `size - 1` worker threads that stay up
 * from one reproduction to the next, so each thread's start-up (loading schedlab, about 0.3 s,
 * then a cold JIT) is paid once per command, not once per experiment. This thread runs jobs
 * too: its start-up is already paid, and a worker boots while it works. Each worker holds two
 * jobs, so it never waits for this thread (busy with a job of its own) to hand it the next.
 * This thread yields to the event loop between its jobs, so abort() (Ctrl-C) is seen within
 * one run. Call close() when done: live threads keep the process running.
 */
export class ReproductionPool {
  readonly size: number;
  #workers: Worker[] = [];
  /** The reply handler of the run each worker is serving. */
  #onReply = new Map<Worker, (m: WorkerReply) => void>();
  #onFail = new Map<Worker, (err: Error) => void>();
  /** Jobs handed to each worker and not answered yet, oldest first. */
  #held = new Map<Worker, IterationJob[]>();
  #abortRun: ((err: Error) => void) | null = null;
  #closing = false;

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new Error(`workers must be a positive integer (got ${size})`);
    this.size = size;
  }

  #spawn(): Worker {
    const entry = workerEntry();
    const w = new Worker(entry.code, { eval: entry.eval });
    w.on("message", (m: WorkerReply) => this.#onReply.get(w)?.(m));
    w.on("error", (err) => this.#onFail.get(w)?.(err));
    w.on("exit", (code) => {
      if (!this.#closing) this.#onFail.get(w)?.(new Error(`worker exited with code ${code}`));
    });
    this.#workers.push(w);
    return w;
  }

  /**
   * Runs `r` with `profile` on up to `size` threads (this one alone when it has one run or the
   * pool one thread). `onProgress` sees results in completion order. A failed run rejects with
   * an error naming the experiment, variant and iteration, and the other runs are dropped.
   */
  async run(
    r: Pick<Reproduction, "id" | "experiment">,
    profile: RunProfile,
    opts: RunOpts = {},
  ): Promise<Results> {
    const runOpts: RunOptions = {
      iterations: profile.iterations,
      duration: profile.duration,
      warmup: profile.warmup,
      seed: opts.seed,
      trace: opts.trace,
      maxEvents: opts.maxEvents,
      traceLimit: opts.traceLimit,
      maxHeapMb: opts.maxHeapMb,
    };
    const exp = r.experiment();
    const jobs = exp.jobs(runOpts);
    exp.spec(runOpts); // validate before any work
    const n = Math.min(this.size, jobs.length);
    while (this.#workers.length < n - 1) this.#spawn();
    const workers = this.#workers.slice(0, Math.max(0, n - 1));
    const { iterations, duration, warmup, seed, trace, maxEvents, traceLimit, maxHeapMb } = runOpts;
    const wire = { iterations, duration, warmup, seed, trace, maxEvents, traceLimit, maxHeapMb };
    const results: IterationResult[] = [];
    let next = 0;
    let failure: Error | null = null;
    const done = new Promise<void>((resolve, reject) => {
      const record = (res: IterationResult) => {
        results.push(res);
        opts.onProgress?.(results.length, jobs.length, res);
        if (results.length === jobs.length) resolve();
      };
      const fail = (err: Error) => {
        if (failure) return;
        failure = err;
        reject(failure);
      };
      this.#abortRun = fail;
      const give = (w: Worker) => {
        if (next >= jobs.length) return;
        const job = jobs[next++];
        this.#held.get(w)!.push(job);
        w.postMessage({ id: r.id, opts: wire, job });
      };
      for (const w of workers) {
        this.#held.set(w, []);
        // a crash names the oldest job the worker held
        this.#onFail.set(w, (err) => fail(jobError(r.id, this.#held.get(w)?.[0], err.message)));
        this.#onReply.set(w, (m) => {
          if (failure) return;
          if (m.type === "error") return fail(jobError(r.id, m.job, m.message));
          this.#held.get(w)!.shift();
          give(w);
          record(m.result);
        });
        give(w);
        give(w);
      }
      // this thread's share: one job at a time, letting worker replies and signals in between
      const local = () => {
        if (failure || next >= jobs.length) return;
        const job = jobs[next++];
        try {
          record(exp.runJob(runOpts, job));
        } catch (err) {
          return fail(jobError(r.id, job, err instanceof Error ? err.message : String(err)));
        }
        setImmediate(local);
      };
      local();
    });
    try {
      await done;
    } finally {
      this.#abortRun = null;
      for (const w of workers) {
        this.#onReply.delete(w);
        this.#onFail.delete(w);
        this.#held.delete(w);
      }
    }
    return exp.assemble(runOpts, results);
  }

  /** Stops the run in progress (its promise rejects with `reason`) and the threads. */
  async abort(reason: Error): Promise<void> {
    this.#abortRun?.(reason);
    await this.close();
  }

  /** Stops the threads. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(this.#workers.map((w) => w.terminate()));
    this.#workers = [];
  }
}

/**
 * Runs `r` with `profile` on up to `workers` threads (1 = in this thread alone; worker threads
 * started for this call and stopped after it); `onProgress` sees results in completion order.
 */
export async function runReproductionParallel(
  r: Reproduction,
  profile: RunProfile,
  opts: RunOpts & { workers: number },
): Promise<Results> {
  const pool = new ReproductionPool(opts.workers);
  try {
    return await pool.run(r, profile, opts);
  } finally {
    await pool.close();
  }
}
