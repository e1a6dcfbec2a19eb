// util_est, the utilization estimate kept across a task's sleeps (kernel/sched/fair.c, pelt.c;
// Patrick Bellasi, 7f65ea42eb00 "sched/fair: Add util_est on top of PELT", v4.17). A task's
// util_avg decays while it sleeps, so a task that woke looks smaller than it is; util_est keeps
// what it was at its last sleep. The readers take the larger of the two:
//   task_util_est(p) = max(util_avg, _task_util_est(p))    capacity fits, misfit, migrate_util
//   cpu_util(cpu)    = max(cfs_rq util_avg, cfs_rq util_est) capped at capacity_orig
// where a cfs_rq's util_est is the sum of _task_util_est over its queued tasks
// (util_est_enqueue / util_est_dequeue) and a task's estimate is refreshed when it sleeps
// (util_est_update). The forms the modelled eras run:
//   v4.17-v5.12 (eras 5.6, 5.10): util_est.enqueued = util_avg at dequeue, with UTIL_AVG_UNCHANGED
//          in its lowest bit (0x1, which _task_util_est ORs in); an update within 1% of the EWMA
//          keeps nothing; UTIL_EST_FASTUP (b8c96361402a, v5.5) resets the EWMA on increases
//   v5.13-v6.7 (eras 5.19, 6.6): the flag in the top bit, masked out (68d7a190682a); a sample
//          within 1% of the EWMA is still stored when it moved from the last one by 1% or more
//          (b89997aa88f0)
//   v6.8+ (era 6.19): one value, the EWMA (11137d384996 "sched/fair: Simplify util_est"), reset on
//          increases; no update when the task did not get all the CPU it wanted (runnable_avg
//          above its util by 1%, "sched/pelt: Avoid underestimation of task utilization",
//          Vincent Guittot, Message-ID <20231122140119.472110-1-vincent.guittot@linaro.org>)
// In dequeue_task_fair the task leaves the cfs_rq's sum first (8c1f560c1ea3, v5.12: before, at
// the end; nothing reads it between) and util_est_update runs after dequeue_entity's PELT update;
// from v6.12 both run before dequeue_entities. With DELAY_DEQUEUE (v6.12+) a delayed task's
// estimate leaves the sum when it goes to sleep and comes back when it is woken (ENQUEUE_DELAYED;
// the conditions as 0212696a8446 put them, v6.16); the final dequeue of a delayed entity
// (pick_next_entity -> dequeue_entities) touches neither. The update skips a sample above the
// CPU's capacity (10a35e6812aa) until f2d650618bc7 (v6.16) lets the EWMA decay there.
import type { Rq, Task } from "../sched";
import { DEQUEUE_DELAYED, DEQUEUE_SLEEP, ENQUEUE_DELAYED, SCHED_CAPACITY_SCALE } from "../sched";
import type { SchedCore } from "../core/api";
import { type Era, eraAtLeastFn } from "../features";

/** UTIL_EST_WEIGHT_SHIFT: the EWMA keeps 3/4 of the old value and takes 1/4 of the sample. */
export const UTIL_EST_WEIGHT_SHIFT = 2;
/** UTIL_EST_MARGIN: SCHED_CAPACITY_SCALE / 100. */
export const UTIL_EST_MARGIN = Math.floor(SCHED_CAPACITY_SCALE / 100);

const atLeast417 = eraAtLeastFn("4.17");
const atLeast513 = eraAtLeastFn("5.13");
const atLeast68 = eraAtLeastFn("6.8");
const atLeast612 = eraAtLeastFn("6.12");
const atLeast616 = eraAtLeastFn("6.16");

/** Whether the era has util_est and UTIL_EST is on. */
export function utilEstOn(k: SchedCore): boolean {
  return atLeast417(k.era) && k.features.UTIL_EST;
}

/** within_margin(value, margin): |value| < margin. */
function withinMargin(value: number, margin: number): boolean {
  return value > -margin && value < margin;
}

/** _task_util_est(p) from the task's fields, in the era's form. */
function taskEstimate(era: Era, p: Task): number {
  const ue = p.se.avg;
  if (atLeast68(era)) return ue.utilEstEwma;
  const m = Math.max(ue.utilEstEwma, ue.utilEstEnqueued);
  // v4.17-v5.12 returned the max with UTIL_AVG_UNCHANGED (bit 0) set
  return atLeast513(era) ? m : m | 1;
}

/** util_est_enqueue(&rq->cfs, p): p's estimate joins the cfs_rq's sum. */
export function utilEstEnqueue(k: SchedCore, rq: Rq, p: Task): void {
  if (!utilEstOn(k)) return;
  rq.cfs.avg.utilEst += p.se.avg.utilEst;
}

/** util_est_dequeue(&rq->cfs, p): p's estimate leaves the sum (never below 0). */
export function utilEstDequeue(k: SchedCore, rq: Rq, p: Task): void {
  if (!utilEstOn(k)) return;
  const a = rq.cfs.avg;
  a.utilEst -= Math.min(a.utilEst, p.se.avg.utilEst);
}

/**
 * enqueue_task_fair's util_est_enqueue, before the entity is enqueued. From v6.12 not for a
 * delayed task moved or restored while it sleeps, only for the wakeup that requeues it.
 */
export function utilEstEnqueueTask(k: SchedCore, rq: Rq, p: Task, flags: number): void {
  if (!atLeast612(k.era) || !p.se.schedDelayed || flags & ENQUEUE_DELAYED) utilEstEnqueue(k, rq, p);
}

/**
 * dequeue_task_fair's util_est part before dequeue_entities: util_est_dequeue (not again for a
 * task already delayed) and, from v6.12, util_est_update. A delayed entity's final dequeue
 * (DEQUEUE_DELAYED: pick_next_entity calls dequeue_entities) touches neither. Returns whether
 * util_est_update is still due after the entity's PELT update (before v6.12).
 */
export function utilEstDequeueTask(k: SchedCore, rq: Rq, p: Task, flags: number): boolean {
  if (flags & DEQUEUE_DELAYED) return false;
  if (!atLeast612(k.era) || !p.se.schedDelayed) utilEstDequeue(k, rq, p);
  if (!atLeast612(k.era)) return true;
  utilEstUpdate(k, rq, p, (flags & DEQUEUE_SLEEP) !== 0);
  return false;
}

/**
 * util_est_update(cfs_rq, p, task_sleep): when p goes to sleep, fold its util_avg into its
 * estimate; the CPU's arch capacity (capacity_orig_of) bounds a sample worth keeping.
 */
export function utilEstUpdate(k: SchedCore, rq: Rq, p: Task, taskSleep: boolean): void {
  if (!utilEstOn(k) || !taskSleep) return;
  const ue = p.se.avg;
  // the PELT values have not changed since the last update: nothing new to learn
  if (ue.utilEstUnchanged) return;
  const era = k.era;
  const util = ue.utilAvg;
  const capacityOrig = rq.cpuCapacityOrig;
  const fastUp = k.features.UTIL_EST_FASTUP;
  let ewma: number | null;
  // f2d650618bc7 (v6.16) lets the EWMA decay while util_avg is above the CPU's capacity
  const capacityCap = atLeast616(era) ? Number.POSITIVE_INFINITY : capacityOrig;
  if (atLeast68(era)) ewma = ewmaV68(ue.utilEstEwma, util, ue.runnableAvg, capacityCap);
  else if (atLeast513(era)) {
    ewma = ewmaV513(ue.utilEstEwma, ue.utilEstEnqueued, util, capacityOrig, fastUp);
    if (ewma !== null) ue.utilEstEnqueued = util;
  } else {
    ewma = ewmaV417(ue.utilEstEwma, util | 1, util, capacityOrig, fastUp);
    if (ewma !== null) ue.utilEstEnqueued = util | 1; // task_util(p) | UTIL_AVG_UNCHANGED
  }
  if (ewma === null) return; // nothing stored, the flag stays clear
  ue.utilEstEwma = ewma;
  ue.utilEstUnchanged = true;
  ue.utilEst = taskEstimate(era, p);
}

// Each returns the EWMA to store with UTIL_AVG_UNCHANGED (the kernel's `done:`), or null where
// the kernel returns without storing anything.

/** v6.8+: one EWMA, reset on increases, a quarter of the way down on decreases. */
function ewmaV68(
  ewma: number,
  dequeued: number,
  runnable: number,
  capacityOrig: number,
): number | null {
  if (ewma <= dequeued) return dequeued;
  const lastEwmaDiff = ewma - dequeued;
  if (lastEwmaDiff < UTIL_EST_MARGIN) return ewma;
  // no idle time on this CPU: the sample may understate the task
  if (dequeued > capacityOrig) return null;
  // it did not get all the CPU time it wanted
  if (dequeued + UTIL_EST_MARGIN < runnable) return ewma;
  return ((ewma << UTIL_EST_WEIGHT_SHIFT) - lastEwmaDiff) >> UTIL_EST_WEIGHT_SHIFT;
}

/** v5.13-v6.7: a sample within 1% of the EWMA is stored only if it moved 1% from the last one. */
function ewmaV513(
  ewma: number,
  lastEnqueued: number,
  enqueued: number,
  capacityOrig: number,
  fastUp: boolean,
): number | null {
  if (fastUp && ewma < enqueued) return enqueued;
  const lastEwmaDiff = enqueued - ewma;
  if (withinMargin(lastEwmaDiff, UTIL_EST_MARGIN))
    return withinMargin(lastEnqueued - enqueued, UTIL_EST_MARGIN) ? null : ewma;
  if (enqueued > capacityOrig) return null;
  // ewma += (enqueued - ewma) / 4 in the kernel's shifts (ewma * 4 + diff is never negative)
  return ((ewma << UTIL_EST_WEIGHT_SHIFT) + lastEwmaDiff) >> UTIL_EST_WEIGHT_SHIFT;
}

/** v4.17-v5.12: `enqueued` carries the flag in bit 0; a sample within 1% is dropped. */
function ewmaV417(
  ewma: number,
  enqueued: number,
  util: number,
  capacityOrig: number,
  fastUp: boolean,
): number | null {
  if (fastUp && ewma < enqueued) return enqueued;
  const lastEwmaDiff = enqueued - ewma;
  if (withinMargin(lastEwmaDiff, UTIL_EST_MARGIN)) return null;
  if (util > capacityOrig) return null;
  return ((ewma << UTIL_EST_WEIGHT_SHIFT) + lastEwmaDiff) >> UTIL_EST_WEIGHT_SHIFT;
}

/** task_util_est(p): max(util_avg, _task_util_est(p)). */
export function taskUtilEst(p: Task): number {
  return Math.max(p.se.avg.utilAvg, p.se.avg.utilEst);
}

/** cpu_util_cfs(cpu) / cpu_util(cpu) (5.x+): max(util_avg, util_est), capped at capacity_orig. */
export function cpuUtilCfs(k: SchedCore, rq: Rq): number {
  const a = rq.cfs.avg;
  const util = utilEstOn(k) ? Math.max(a.utilAvg, a.utilEst) : a.utilAvg;
  return Math.min(util, rq.cpuCapacityOrig);
}
