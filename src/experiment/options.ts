// The options of one Experiment.run: how many iterations, the seed, the length, tracing,
// limits, and the probes a user attaches to each iteration's kernel.
import type { Kernel } from "../kernel/core/core";
import type { RunLimits } from "./run";
import type { IterationResult } from "./types";

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
  /** Record sched_switch/wakeup/migrate records for trace export and timelines. */
  trace?: boolean;
  /** Called after each iteration (progress lines). */
  onProgress?: (done: number, total: number, last: IterationResult) => void;
  /**
   * Called with each iteration's booted kernel before its workload starts: schedule probes with
   * `k.at(t, fn)`, keep a reference, read counters. Runs in the calling thread (run and runSync).
   */
  onKernel?: (k: Kernel, variant: string, iteration: number) => void;
  /** Sample kernel state every `every` simulated seconds into series "sample.<key>" (and "sample.t"). */
  sample?: {
    /** Seconds between samples (simulated). */
    every: number;
    /** Reads the kernel (must not change it); returns named numbers. */
    fn: (k: Kernel) => Record<string, number>;
  };
  /** Check kernel invariants every this many simulated seconds (default: at the end only). */
  checkEvery?: number;
}
