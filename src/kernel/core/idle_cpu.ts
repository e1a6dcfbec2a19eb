// What another CPU's unlocked reads see of a runqueue's idle state, and when.
//
// A CPU switching to idle. The kernel's __schedule sets rq->curr = next only after
// pick_next_task, and pick_next_task_fair runs newidle_balance (idle_balance before v5.x) with the
// blocking task still current, though it drops the rq lock while it balances. So idle_cpu(), whose
// first test is rq->curr != rq->idle in every era (2.6.29 to 6.19 core.c), is 0 for that CPU until
// the pick is done. The model's __schedule runs at its event's instant and clears rq.curr at
// once; Rq.currIdleAt keeps the kernel's instant, and the readers of idle_cpu() compare it with
// the running context's clock (now + chargeNs), as lockRq and the on_cpu window do.
//
// A CPU leaving idle (the visibility windows). A wakeup is one event of the model: select_task_rq,
// the rq lock and ttwu_do_activate happen in the waker's context, which has a clock of its own
// (now + chargeNs) that runs past the event's instant. In the kernel the enqueue (rq->nr_running,
// under the target's lock) or the wakelist's WRITE_ONCE(rq->ttwu_pending, 1) is seen by other
// CPUs only once it is done, and select_idle_sibling, find_idlest_group_cpu, wake_affine_idle,
// ttwu_queue_cond and the nohz kick read it without the target's lock. Rq.busyVisibleAt keeps that
// instant: a reader whose clock is before it sees the CPU as it was, idle with nothing queued,
// although the model's rq already holds the wakee. Rq.busyHiddenFrom opens the window later than
// boot for the one case where a CPU looks idle again after it stopped looking idle: before v6.2,
// sched_ttwu_pending clears ttwu_pending (llist_del_all of rq->wake_list before v5.8) before it
// takes its lock and enqueues (d6962c4fe8f9, "sched: Clear ttwu_pending after enqueue", v6.2,
// moved the clear after the enqueue).
import type { Rq } from "../sched";
import type { SchedCore } from "./api";

/** __schedule after pick_next_task chose the idle task: rq->curr = rq->idle from this context's clock. */
export function currBecomesIdle(k: SchedCore, rq: Rq): void {
  rq.currIdleAt = k.now + k.chargeNs;
}

/**
 * The part of idle_cpu() the idle bytes of the wakeup scans do not hold: rq->curr is already the
 * idle task at this context's clock.
 */
export function currIsIdleTask(k: SchedCore, cpu: number): boolean {
  return k.rqs[cpu].currIdleAt <= k.now + k.chargeNs;
}

/**
 * Whether rq is still idle before a write that makes it busy (an enqueue, a wakelist entry):
 * the idle task runs and nothing is queued or pending. Read by the writer under the lock, or
 * before its wakelist store, so the model's own state is the truth here. When it is, what an
 * unlocked reader keeps seeing until the write is visible is kept on the rq (keepSeenState).
 */
export function idleBeforeWrite(rq: Rq): boolean {
  if (rq.curr !== null || rq.nrRunning !== 0 || rq.ttwuPending !== 0) return false;
  keepSeenState(rq);
  return true;
}

/** The idle stamp and cfs averages a reader inside rq's coming window sees (Rq.seen*). */
export function keepSeenState(rq: Rq): void {
  const a = rq.cfs.avg;
  rq.seenIdleStamp = rq.idleStamp;
  rq.seenLoadAvg = a.loadAvg;
  rq.seenUtilAvg = a.utilAvg;
  rq.seenRunnableAvg = a.runnableAvg;
  rq.seenUtilEst = a.utilEst;
}

/**
 * The write that makes rq busy (nr_running of the enqueue, or ttwu_pending) is done at this
 * context's clock; until then other CPUs still see rq as it was. `wasIdle`: rq was idle before
 * the write (idleBeforeWrite), so a window opens from `from` (0: since it went idle) to now;
 * otherwise an open window closes at this write if it is the earlier one (a second wakee of a CPU
 * two wakers both found idle). Nothing opens with the VISIBILITY_WINDOWS switch off.
 */
export function busyVisibleNow(k: SchedCore, rq: Rq, wasIdle: boolean, from = 0): void {
  const t = k.now + k.chargeNs;
  if (wasIdle) {
    if (!k.features.VISIBILITY_WINDOWS) return;
    rq.busyHiddenFrom = from;
    rq.busyVisibleAt = t;
    rq.busyWriter = k.thisCpu;
  } else if (rq.busyVisibleAt > t) rq.busyVisibleAt = t;
}

/**
 * An unlocked reader at this context's clock sees rq as idle although the model's rq already
 * holds a wakee: its clock is inside rq's window, the idle task was current by then, and it runs
 * on another CPU than the writer (a CPU sees its own stores in program order; two events of one
 * CPU at the same instant, such as two hrtimers expiring together, each start at the instant).
 */
export function inIdleWindow(k: SchedCore, rq: Rq): boolean {
  const t = k.now + k.chargeNs;
  return (
    t < rq.busyVisibleAt &&
    t >= rq.busyHiddenFrom &&
    t >= rq.currIdleAt &&
    k.thisCpu !== rq.busyWriter
  );
}

/**
 * idle_cpu(cpu) / available_idle_cpu(cpu) as another CPU reads it without the rq lock at this
 * context's clock: the era's test (Rq.isIdle: the idle task current from currIdleAt, and from
 * v3.2 nothing queued and no wakelist entry) or a window in which the CPU still looks idle.
 */
export function seenIdle(k: SchedCore, cpu: number): boolean {
  const rq = k.rqs[cpu];
  return rq.isIdle() || (rq.busyVisibleAt > k.now + k.chargeNs && inIdleWindow(k, rq));
}

/**
 * The idle-byte form of seenIdle for the scans (select_idle_core / select_idle_cpu / the cluster
 * pass): `idleByte` is rq's byte of WakeState.idle.
 */
export function seenIdleByte(k: SchedCore, idleByte: number, cpu: number): boolean {
  if (idleByte === 1) return currIsIdleTask(k, cpu);
  const rq = k.rqs[cpu];
  return rq.busyVisibleAt > k.now + k.chargeNs && inIdleWindow(k, rq);
}

/** rq->idle_stamp read without rq's lock (find_idlest_group_cpu): the kept one inside a window. */
export function seenIdleStampOf(k: SchedCore, rq: Rq): number {
  return rq.busyVisibleAt > k.now + k.chargeNs && inIdleWindow(k, rq)
    ? rq.seenIdleStamp
    : rq.idleStamp;
}

/** rq->nr_running read without rq's lock at this context's clock: 0 inside a window. */
export function seenNrRunning(k: SchedCore, rq: Rq): number {
  return rq.busyVisibleAt > k.now + k.chargeNs && inIdleWindow(k, rq) ? 0 : rq.nrRunning;
}
