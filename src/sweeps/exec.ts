// What runs a sweep's missing jobs reports back, whether they run on this machine's threads
// (local.ts) or on queue workers (queue.ts): each result or failure as it happens, and how many
// jobs are running.
import type { PlannedJob } from "./spec";
import type { RunOrigin } from "./store";

/** The callbacks an executor reports through; it resolves once every job is settled. */
export interface ExecHooks {
  /** A job finished: its IterationResult as JSON, and where it ran. */
  onResult(job: PlannedJob, resultJson: string, origin: RunOrigin): Promise<void>;
  /** A job failed for good (after its retries). */
  onFailure(job: PlannedJob, error: string, attempts: number): Promise<void>;
  /** How many jobs are running now, over every thread or machine. */
  onRunning(running: number): void;
  /** A line for the user (a stalled job retried, a worker that refused). */
  note(line: string): void;
  /** Aborted: stop handing out jobs; jobs in flight are dropped (not written). */
  signal?: AbortSignal;
}

/** "demo hz=100 context_switch_scale=1, variant 2.6.29, iteration 0": a job in words. */
export function describeJob(experiment: string, job: PlannedJob): string {
  const values = Object.entries(job.values)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  return `${experiment} ${values}, variant ${job.variant}, iteration ${job.iteration}`;
}
