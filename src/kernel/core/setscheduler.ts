// sched_setscheduler() and set_user_nice(): change a task's class, priority or weight, requeueing
// it so every class's accounting stays right.
import type { SchedCore } from "./api";
import type { Policy } from "../prio";
import { isRtPolicy, setSchedParams } from "../prio";
import type { Task } from "../sched";

/** __sched_setscheduler / set_user_nice: requeue with the new class, prio and weight. */
export function changeScheduling(
  k: SchedCore,
  p: Task,
  policy: Policy,
  nice: number,
  rtPriority: number,
): void {
  const rq = k.rqs[p.cpu];
  const oldClass = p.schedClass;
  const oldOps = k.classFor(p);
  const oldPrio = p.prio;
  const queued = p.onRq !== 0;
  const running = rq.curr === p;
  if (queued) {
    if (running) k.putPrevTask(rq, p);
    k.dequeueTask(rq, p, 0);
  }
  setSchedParams(p, policy, nice, isRtPolicy(policy) ? rtPriority : 0);
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
