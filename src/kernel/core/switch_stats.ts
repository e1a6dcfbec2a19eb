// Counters of __schedule and the wakeup preemption check, kept out of core.ts: nvcsw/nivcsw
// totals beside the per-task figures, and wakeups that preempt the running task.
import type { SchedCounters } from "../counters";
import type { Rq, Task } from "../sched";
import type { SchedCore } from "./api";

/**
 * __schedule's switch_count (kernel/sched/core.c): prev->nvcsw when it leaves because it blocked
 * (`!preempt && prev_state`), else prev->nivcsw (preempted, or runnable after sched_yield).
 */
export function countSwitch(c: SchedCounters, prev: Task, voluntary: boolean): void {
  if (voluntary) {
    prev.stats.nvcsw++;
    c.voluntarySwitches++;
  } else {
    prev.stats.nivcsw++;
    c.involuntarySwitches++;
  }
}

/**
 * check_preempt_curr (wakeup_preempt in 6.x) of a wakeup or a new task, counting the wakeups
 * that set need_resched on a running task that did not already have it set.
 */
export function checkPreemptWakeup(k: SchedCore, rq: Rq, p: Task, wakeFlags = 0): void {
  const curr = rq.curr;
  const already = rq.needResched;
  k.classFor(p).checkPreemptCurr(rq, p, wakeFlags);
  if (curr !== null && curr !== p && !already && rq.needResched) k.counters.wakeupPreemptions++;
}
