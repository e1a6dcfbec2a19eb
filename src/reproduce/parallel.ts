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

/** What a worker answers: the job's result, or why it failed (or, to a ping, that it is up). */
export type WorkerReply =
  | { type: "result"; result: IterationResult }
  | { type: "error"; message: string; job: IterationJob }
  | { type: "pong" };

type RunOpts = Pick<
  RunOptions,
  "seed" | "onProgress" | "trace" | "maxEvents" | "traceLimit" | "maxHeapMb"
>;

/** One job for ReproductionPool.runTask: an experiment as worker threads rebuild it, one run. */
export interface PoolTask {
  /** The experiment's id for experimentById (a reproduction, `<id>@today`, a sweep job's JSON). */
  id: string;
  opts: WorkerJob["opts"];
  job: IterationJob;
}

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
  /** runTask: threads free for a task, callers waiting for one, tasks in flight (to reject). */
  #idle: Worker[] = [];
  #waiting: Array<{ take: (w: Worker) => void; drop: (err: Error) => void }> = [];
  #inFlight = new Set<(err: Error) => void>();

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
          if (failure || m.type === "pong") return;
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

  /**
   * Starts every thread runTask may use and resolves once each has loaded schedlab, so the
   * first tasks do not pay for a thread's start-up (seconds on a loaded machine).
   */
  async warm(): Promise<void> {
    const fresh: Worker[] = [];
    while (this.#workers.length < this.size) fresh.push(this.#spawn());
    await Promise.all(
      fresh.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const drop = (err: Error) => {
              this.#inFlight.delete(drop);
              reject(err);
            };
            this.#inFlight.add(drop);
            this.#onReply.set(w, () => {
              this.#inFlight.delete(drop);
              this.#onReply.delete(w);
              this.#onFail.delete(w);
              this.#release(w);
              resolve();
            });
            this.#onFail.set(w, drop);
            w.postMessage({ ping: true });
          }),
      ),
    );
  }

  /**
   * Runs one (variant, iteration) on a worker thread, never on this one, so that this thread
   * stays free for I/O (a database, a job queue's lock renewals) while it runs. Up to `size`
   * tasks run at once; later calls wait for a free thread. A failed task rejects with an error
   * naming the experiment, variant and iteration; a thread that died is replaced by the next
   * task. Not to be mixed with run() on the same pool at the same time.
   */
  async runTask(task: PoolTask): Promise<IterationResult> {
    if (this.#closing) throw new Error("the pool is closed");
    const w = await this.#acquire();
    return new Promise<IterationResult>((resolve, reject) => {
      const settle = (err: Error | null, res?: IterationResult, dead = false) => {
        this.#inFlight.delete(drop);
        this.#onReply.delete(w);
        this.#onFail.delete(w);
        if (dead) this.#retire(w);
        else this.#release(w);
        if (err) reject(err);
        else resolve(res!);
      };
      const drop = (err: Error) => settle(err, undefined, true);
      this.#inFlight.add(drop);
      this.#onReply.set(w, (m) => {
        if (m.type === "error") settle(jobError(task.id, m.job, m.message));
        else if (m.type === "result") settle(null, m.result);
      });
      this.#onFail.set(w, (err) =>
        settle(jobError(task.id, task.job, err.message), undefined, true),
      );
      w.postMessage({ id: task.id, opts: task.opts, job: task.job } satisfies WorkerJob);
    });
  }

  #acquire(): Promise<Worker> {
    const w = this.#idle.pop();
    if (w) return Promise.resolve(w);
    if (this.#workers.length < this.size) return Promise.resolve(this.#spawn());
    return new Promise((take, drop) => this.#waiting.push({ take, drop }));
  }

  #release(w: Worker): void {
    const next = this.#waiting.shift();
    if (next) next.take(w);
    else this.#idle.push(w);
  }

  /** A thread that crashed: forget it, and let a waiting task start a new one. */
  #retire(w: Worker): void {
    this.#workers = this.#workers.filter((x) => x !== w);
    this.#idle = this.#idle.filter((x) => x !== w);
    void w.terminate();
    if (this.#closing) return;
    const next = this.#waiting.shift();
    if (next) next.take(this.#spawn());
  }

  /** Stops the run in progress (its promise rejects with `reason`) and the threads. */
  async abort(reason: Error): Promise<void> {
    this.#closing = true;
    this.#abortRun?.(reason);
    for (const drop of [...this.#inFlight]) drop(reason);
    for (const w of this.#waiting.splice(0)) w.drop(reason);
    await this.close();
  }

  /** Stops the threads (tasks still running or waiting reject). */
  async close(): Promise<void> {
    this.#closing = true;
    const closed = new Error("the pool is closed");
    for (const drop of [...this.#inFlight]) drop(closed);
    for (const w of this.#waiting.splice(0)) w.drop(closed);
    await Promise.all(this.#workers.map((w) => w.terminate()));
    this.#workers = [];
    this.#idle = [];
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
