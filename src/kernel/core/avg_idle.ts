// rq->avg_idle's samples at the kernel's instants. idle_stamp is rq_clock(this_rq) as
// newidle_balance (idle_balance up to v5.x) reads it at its top, "before calling idle_balance(),
// such that we measure the duration of idle_balance() as idle time" (3.19 .. 6.19 fair.c): the
// clock __schedule's update_rq_clock took right after rq_lock. ttwu_do_wakeup's sample is
// rq_clock(rq) - rq->idle_stamp, with rq_clock(rq) the target's clock as whoever activates took
// it under the target's lock (the waker in ttwu_queue, after any wait for that lock; the target
// itself in sched_ttwu_pending). The model's events start at k.now; the kernel's clock of a
// context is k.now plus the work charged so far (lockRq's convention).
import type { Rq } from "../sched";
import type { SchedCore } from "./api";

/**
 * The top of __schedule, after rq_lock (taken by the caller, held to the switch; idle_balance
 * drops it after 2.6.29, not modelled): update_rq_clock (v2.6.29 .. v6.19). Keeps the clock in
 * rq.clockAtSchedule for the idle_stamp of a CPU that goes idle.
 */
export function scheduleClock(k: SchedCore, rq: Rq): void {
  rq.clockAtSchedule = k.now + k.chargeNs;
}

/**
 * newidle_balance returns before it takes idle_stamp, and before it balances, when a wakeup is
 * already queued on this CPU's wakelist: "There is a task waiting to run. No need to search for
 * one." (Rik van Riel, "sched,fair: Skip newidle_balance if a wakeup is pending", e5e678e4fea2,
 * v5.14; kept through 6.19's sched_balance_newidle.) The wakee's sched_ttwu_pending then finds
 * idle_stamp 0 and takes no avg_idle sample. Its second test, a break out of the domain walk
 * once ttwu_pending is set, cannot arise here: the model's walk runs within one event, so no
 * wakelist entry arrives during it.
 */
export function newidleSkipsForWakelist(k: SchedCore, rq: Rq): boolean {
  return rq.ttwuPending !== 0 && k.features.NEWIDLE_TTWU_PENDING;
}

/**
 * rq->idle_stamp as __schedule leaves it when it switches to the idle task: newidle_balance's
 * rq_clock(this_rq) at its top (scheduleClock), or 0 when it returned first (a pending wakeup).
 */
export function newidleIdleStamp(k: SchedCore, rq: Rq): number {
  return newidleSkipsForWakelist(k, rq) ? 0 : rq.clockAtSchedule;
}

/**
 * ttwu_do_wakeup's avg_idle update (v3.12+ in ttwu_do_activate's path): update_avg with the idle
 * period since idle_stamp, capped at 2 * rq->max_idle_balance_cost (v3.13+; the sysctl until a
 * newidle pass costs more); v5.13-v6.5 also restart the SIS_PROP budget (wake_stamp = jiffies,
 * wake_avg_idle = avg_idle / 2). Call under rq's lock, before the enqueue.
 */
export function ttwuAvgIdle(k: SchedCore, rq: Rq): void {
  if (rq.idleStamp <= 0 || rq.curr !== null) return;
  const clock = k.now + k.chargeNs; // rq_clock(rq) after update_rq_clock under its lock
  const delta = Math.max(0, clock - rq.idleStamp);
  const max = 2 * Math.max(k.tunables.sched_migration_cost_ns, rq.maxIdleBalanceCost);
  rq.avgIdle += (delta - rq.avgIdle) / 8;
  if (rq.avgIdle > max) rq.avgIdle = max;
  rq.wakeStamp = Math.floor(clock / k.tickNs);
  rq.wakeAvgIdle = Math.floor(rq.avgIdle / 2);
  rq.idleStamp = 0;
}
