// The options of one Experiment.run: how many iterations, the seed, the length, tracing,
// limits, and the probes a user attaches to each iteration's kernel.
import type { Kernel } from "../kernel/core/core";
import type { RunLimits } from "./run";
import type { IterationResult } from "./types";
import type { Workload } from "../workload/workload";

/** Options of Experiment.run: how many iterations, the seed, the run length, tracing. */
export interface RunOptions extends RunLimits {
  /** Iterations per variant (default 1). */
  iterations?: number;
  /** Master seed; iteration i of every variant uses the same derived seed (default 1). */
  seed?: number | string;
  /** Simulated seconds per iteration (default: the workload's). */
  duration?: number;
  /** Simulated seconds excluded from the metrics (default: the workload's). */
  warmup?: number;
  /** Record the scheduler's tracepoints (sched_switch, sched_waking, sched_wakeup, sched_wakeup_new, sched_migrate_task, sched_process_fork, sched_process_exit) for trace export and timelines. */
  trace?: boolean;
  /** Called after each iteration (progress lines). */
  onProgress?: (done: number, total: number, last: IterationResult) => void;
  /**
   * Called with each iteration's booted kernel before its workload starts: schedule probes with
   * `k.at(t, fn)`, keep a reference, read counters. Runs in the calling thread (run and runSync).
   */
  onKernel?: (k: Kernel, variant: string, iteration: number) => void;
  /**
   * Sample kernel state every `every` simulated seconds into series "sample.<key>", with the
   * sample times in series "sample.t", also in simulated seconds (analysis.sampleWindow selects
   * a time window of them).
   */
  sample?: {
    /** Simulated seconds between samples. */
    every: number;
    /** Reads the kernel (must not change it); returns named numbers. */
    fn: (k: Kernel) => Record<string, number>;
  };
  /** Check kernel invariants every this many simulated seconds (default: at the end only). */
  checkEvery?: number;
}

/** The iterations per variant `opts` asks for, checked. */
export function runIterations(opts: RunOptions): number {
  const n = opts.iterations ?? 1;
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`run: iterations must be a positive integer (got ${n})`);
  return n;
}

/** The run length and warm-up `opts` asks for (else the workload's), checked. */
export function runTimes(opts: RunOptions, wl: Workload): { durationNs: number; warmupNs: number } {
  if (
    opts.duration !== undefined &&
    !(typeof opts.duration === "number" && opts.duration > 0 && Number.isFinite(opts.duration))
  ) {
    throw new Error(`run: duration must be a positive number of seconds (got ${opts.duration})`);
  }
  if (
    opts.warmup !== undefined &&
    !(typeof opts.warmup === "number" && opts.warmup >= 0 && Number.isFinite(opts.warmup))
  ) {
    throw new Error(`run: warmup must be a number of seconds >= 0 (got ${opts.warmup})`);
  }
  const durationNs =
    opts.duration !== undefined ? Math.round(opts.duration * 1e9) : wl.defaultDurationNs;
  const warmupNs = opts.warmup !== undefined ? Math.round(opts.warmup * 1e9) : wl.defaultWarmupNs;
  if (warmupNs >= durationNs)
    throw new Error(
      `run: warmup (${warmupNs / 1e9} s) must be shorter than the duration (${durationNs / 1e9} s)`,
    );
  return { durationNs, warmupNs };
}

/** Refuses run limits that are not positive integers and a malformed sample probe. */
export function checkRunLimits(opts: RunOptions): void {
  for (const key of ["maxEvents", "traceLimit", "maxHeapMb"] as const) {
    const v = opts[key];
    if (v !== undefined && !(Number.isInteger(v) && v > 0))
      throw new Error(`run: ${key} must be a positive integer (got ${v})`);
  }
  const sm = opts.sample;
  if (
    sm !== undefined &&
    !(Number.isFinite(sm?.every) && sm.every > 0 && typeof sm.fn === "function")
  )
    throw new Error(
      `run: sample must be { every: seconds > 0, fn: (k) => ({ name: number }) } (got every = ${sm?.every})`,
    );
}
