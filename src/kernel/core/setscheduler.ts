// sched_setscheduler() / sched_setattr() and set_user_nice(): change a task's class, priority,
// weight or slice, requeueing it so every class's accounting stays right.
import type { SchedCore } from "./api";
import type { Policy } from "../prio";
import { isRtPolicy, setSchedParams } from "../prio";
import type { Task } from "../sched";
import { eraAtLeastFn } from "../features";
import { setCustomSlice } from "../fair/eevdf";

const atLeast612 = eraAtLeastFn("6.12");

/**
 * __sched_setscheduler / set_user_nice: requeue with the new class, prio and weight. With
 * `sliceNs` (sched_attr.sched_runtime of a fair task, v6.12+; 0 = the base slice) the slice too.
 */
export function changeScheduling(
  k: SchedCore,
  p: Task,
  policy: Policy,
  nice: number,
  rtPriority: number,
  sliceNs?: number,
): void {
  const rq = k.rqs[p.cpu];
  const oldClass = p.schedClass;
  const oldOps = k.classFor(p);
  const oldPrio = p.prio;
  const oldWeight = p.se.weight;
  const queued = p.onRq !== 0;
  const running = rq.curr === p;
  if (queued) {
    if (running) k.putPrevTask(rq, p);
    k.dequeueTask(rq, p, 0);
  }
  setSchedParams(p, policy, nice, isRtPolicy(policy) ? rtPriority : 0);
  // __setscheduler_params: se->custom_slice and se->slice (v6.12, fair policies only)
  if (sliceNs !== undefined && p.schedClass === "fair") setCustomSlice(k, p, sliceNs);
  // set_load_weight -> reweight_task: a fair entity keeps its lag across the new weight
  if (p.se.weight !== oldWeight && oldClass === "fair" && p.schedClass === "fair")
    k.classFor(p).reweightTask?.(rq, p, oldWeight);
  if (queued) {
    k.enqueueTask(rq, p, 0);
    // A running task is back in its class's queue; schedule() picks again right away.
    if (running) k.reschedCurr(rq);
    else k.classFor(p).checkPreemptCurr(rq, p); // not a wakeup: not counted as one
    // check_class_changed: switched_from of the old class and switched_to of the new, or
    // prio_changed when the class stayed.
    const from = oldOps;
    const to = k.classFor(p);
    from.prioChanged?.(rq, p, oldClass, oldPrio);
    if (to !== from) to.prioChanged?.(rq, p, oldClass, oldPrio);
  }
}

/** Whether the era's sched_setattr honours sched_runtime for fair tasks (v6.12+). */
export function customSlices(k: SchedCore): boolean {
  return atLeast612(k.era);
}
