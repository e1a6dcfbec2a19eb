// A box's own background activity, measured from a recorded trace: how often its kernel threads
// wake per CPU and how long each wakeup runs, as workload.background takes them. A recording of
// a quiet box (or of a workload that leaves CPU time free) gives the rates a model of that box
// should run beside a benchmark instead of a guess.
import type { ReplayPlan } from "./trace_replay";

/** Kernel-thread activity of a trace. */
export interface BackgroundActivity {
  /** Wakeups of kernel threads per second, per CPU (by the CPU of the run that followed). */
  wakeupsPerSecPerCpu: number;
  /** Mean CPU time of one kernel-thread wakeup, ns. */
  meanRunNs: number;
  /** Kernel threads seen, wakeups counted, and the span they were counted over (s). */
  threads: number;
  wakeups: number;
  spanS: number;
  /** Per kernel-thread name with its CPU suffix dropped (kworker, ksoftirqd, rcu_preempt, ...). */
  byName: Record<string, { wakeups: number; cpuNs: number }>;
}

/**
 * The kernel threads' wakeups and CPU time in a replay plan, as rates per CPU over the trace's
 * span. A block that ends inside the trace is one wakeup; the thread's CPU time over its wakeups
 * (and its first run, if it was running when the trace began) gives the mean run.
 */
export function backgroundActivity(plan: ReplayPlan): BackgroundActivity {
  const span = (plan.end - plan.start) / 1e9;
  const byName: BackgroundActivity["byName"] = {};
  let wakeups = 0;
  let cpuNs = 0;
  let threads = 0;
  for (const t of plan.tasks) {
    if (!t.kthread) continue;
    threads++;
    const w = t.steps.filter((s) => s.op === "block" && s.wokeAt !== null).length;
    const name = t.comm.replace(/\/.*$/, "");
    const e = byName[name] ?? { wakeups: 0, cpuNs: 0 };
    e.wakeups += w;
    e.cpuNs += t.cpuNs;
    byName[name] = e;
    wakeups += w;
    cpuNs += t.cpuNs;
  }
  return {
    wakeupsPerSecPerCpu: span > 0 && plan.nrCpus > 0 ? wakeups / span / plan.nrCpus : 0,
    meanRunNs: wakeups > 0 ? cpuNs / wakeups : 0,
    threads,
    wakeups,
    spanS: span,
    byName,
  };
}
