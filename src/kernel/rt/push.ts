// RT push/pull balancing (kernel/sched/rt.c): push_rt_task moves the best waiting RT task of an
// overloaded rq to a CPU running something less important (find_lock_lowest_rq with up to
// RT_MAX_TRIES rounds of double_lock_balance); pull_rt_task, before a CPU picks something less
// important than what it ran, takes such tasks from the overloaded CPUs (3.19: locking each of
// them in turn) or, with RT_PUSH_IPI, sends one irq_work IPI that walks the rto_mask and makes
// each overloaded CPU push its own tasks. Locks are charged through lockRq, by path:
//   rt_push        target rq locks taken by push (double_lock_balance), plus our own on a drop
//   rt_pull        source rq locks taken by pull
//   rt_push_local  our own rq lock retaken by post_schedule (<= 5.6) or the push irq_work
import type { SchedCore } from "../core/api";
import type { Rq } from "../sched";
import type { ClassName, Task } from "../sched";
import { MAX_RT_PRIO, TASK_ON_RQ_QUEUED } from "../sched";
import { bump, type RqLockPath } from "../counters";
import { lockRq, rqLockBusy, unlockRq } from "../core/rq_lock";
import { CPUPRI_INVALID, MAX_PRIO } from "./cpupri";
import { findLowestRq, rtTask } from "./select";
import { eraAtLeastFn } from "../features";

const atLeast56 = eraAtLeastFn("5.6");
const atLeast519 = eraAtLeastFn("5.19");

/** Only try algorithms three times. */
export const RT_MAX_TRIES = 3;

function other(k: SchedCore, key: string): void {
  bump(k.counters.other, key);
}

/** rq->curr->prio, with the idle task at MAX_PRIO. */
function currPrio(rq: Rq): number {
  return rq.curr ? rq.curr.prio : MAX_PRIO;
}

/** The CPU doing the work ("smp_processor_id()"); outside any context, the rq's own. */
function cpuOf(k: SchedCore, rq: Rq): number {
  return k.thisCpu >= 0 ? k.thisCpu : rq.cpu;
}

/**
 * double_lock_balance (the !CONFIG_PREEMPT variant): trylock the other rq; if it is busy and
 * ordered before ours, drop our lock and take both in order. Returns true if ours was dropped,
 * i.e. the caller must re-validate what it saw.
 */
export function doubleLockBalance(
  k: SchedCore,
  thisRq: Rq,
  busiest: Rq,
  path: RqLockPath,
): boolean {
  const from = cpuOf(k, thisRq);
  if (!rqLockBusy(k, busiest, from) || busiest.cpu > thisRq.cpu) {
    lockRq(k, busiest, from, path);
    return false;
  }
  unlockRq(k, thisRq); // raw_spin_unlock(&this_rq->lock)
  lockRq(k, busiest, from, path);
  lockRq(k, thisRq, from, path);
  other(k, "rt_double_lock_dropped");
  return true;
}

/**
 * find_lock_lowest_rq: find_lowest_rq, lock it, check it is still below the task; up to
 * RT_MAX_TRIES rounds. Returns the locked target or null.
 */
export function findLockLowestRq(k: SchedCore, task: Task, rq: Rq): Rq | null {
  for (let tries = 0; tries < RT_MAX_TRIES; tries++) {
    if (tries > 0) other(k, "rt_push_retry");
    const cpu = findLowestRq(k, task);
    if (cpu === -1 || cpu === rq.cpu) break;
    const lowest = k.rqs[cpu];
    // v4.0+: it runs something at least as important; retrying would not release any lock.
    if (
      !k.hooks.get("rt.target_feasible")({ k, p: task, target: cpu, site: "find_lock_lowest_rq" })
    ) {
      other(k, "rt_push_infeasible");
      break;
    }
    if (doubleLockBalance(k, rq, lowest, "rt_push")) {
      // Our lock was dropped: the task may have moved, run, or changed.
      const valid =
        task.cpu === rq.cpu &&
        task.cpusAllowed[cpu] === 1 &&
        !task.onCpu &&
        rtTask(task) &&
        task.onRq === TASK_ON_RQ_QUEUED;
      if (!valid) break;
    }
    if (lowest.rt.highestPrio > task.prio) return lowest;
    unlockRq(k, lowest); // double_unlock_balance, try again
  }
  return null;
}

/**
 * push_rt_task: if rq has more than one RT task, move its best pushable one to a CPU running
 * something less important. Returns true if a task moved.
 */
export function pushRtTask(k: SchedCore, rq: Rq): boolean {
  if (!rq.rt.overloaded) return false;
  let next: Task | undefined = rq.rt.pushable[0];
  if (!next) return false;
  other(k, "rt_push_attempt");
  for (;;) {
    if (next === rq.curr) return false;
    // It slipped in with a higher prio than curr: just reschedule.
    if (next.prio < currPrio(rq)) {
      k.reschedCurr(rq);
      other(k, "rt_push_resched");
      return false;
    }
    const lowest = findLockLowestRq(k, next, rq);
    if (!lowest) {
      // Still the next eligible task: do not retry, others will pull from us when ready.
      const task: Task | undefined = rq.rt.pushable[0];
      if (!task || task === next) return false;
      next = task;
      continue;
    }
    // A target with RT queued: next preempts a lower RT task there, which may be pushed on.
    if (lowest.rt.highestPrio < MAX_RT_PRIO) other(k, "rt_push_onto_rt");
    k.moveQueuedTask(next, lowest.cpu, "rt_push");
    k.reschedCurr(lowest);
    unlockRq(k, lowest); // double_unlock_balance: held over the move and the resched IPI
    other(k, "rt_push");
    return true;
  }
}

/** push_rt_tasks: push until nothing moves. */
export function pushRtTasks(k: SchedCore, rq: Rq): number {
  let n = 0;
  while (pushRtTask(k, rq)) n++;
  return n;
}

/** pick_highest_pushable_task: the best pushable task of src that may run on `cpu`. */
function pickHighestPushableTask(src: Rq, cpu: number): Task | null {
  for (const p of src.rt.pushable) {
    if (!p.onCpu && p.cpusAllowed[cpu] === 1) return p;
  }
  return null;
}

/**
 * pull_rt_task: take from the overloaded CPUs every waiting RT task that beats what this rq
 * would run. With RT_PUSH_IPI, ask them to push instead. Returns true if a task was pulled.
 */
export function pullRtTask(k: SchedCore, thisRq: Rq): boolean {
  const rd = k.rt.rd;
  // rt_overloaded(): rto_count read without a lock (as are rto_mask and highest_prio.next below).
  if (!rd.rtOverloaded()) return false;
  // v4.15+ ("Do not pull from current CPU if only one CPU to pull")
  if (atLeast56(k.era) && rd.rtoCount === 1 && rd.rtoMask[thisRq.cpu]) return false;
  if (k.features.RT_PUSH_IPI) {
    tellCpuToPush(k);
    return false;
  }
  other(k, "rt_pull_attempt");
  let pulled = false;
  for (let cpu = 0; cpu < k.rqs.length; cpu++) {
    if (cpu === thisRq.cpu || !rd.rtoVisible(cpu)) continue;
    const src = k.rqs[cpu];
    // Don't take src's lock if its best waiting task cannot beat what we would run (racy: what
    // another puller took a moment ago may still look pushable here).
    if (rd.readNext(src) >= thisRq.rt.highestPrio) continue;
    doubleLockBalance(k, thisRq, src, "rt_pull");
    const p = pickHighestPushableTask(src, thisRq.cpu);
    // p is waking on src and about to preempt its curr: leave it there.
    if (p && p.prio < thisRq.rt.highestPrio && p.prio >= currPrio(src)) {
      k.moveQueuedTask(p, thisRq.cpu, "rt_pull");
      other(k, "rt_pull");
      pulled = true;
    } else other(k, "rt_pull_nothing"); // the lock was taken for nothing
    unlockRq(k, src); // double_unlock_balance
  }
  return pulled;
}

// ------------------------------------------------------------------ RT_PUSH_IPI (4.16+ design)

/** rto_next_cpu: the next CPU of rto_mask after rto_cpu; loop again while rto_loop_next moved. */
function rtoNextCpu(k: SchedCore): number {
  const rd = k.rt.rd;
  const n = rd.rtoMask.length;
  for (;;) {
    let cpu = -1;
    for (let c = rd.rtoCpu + 1; c < n; c++) {
      if (rd.rtoMask[c]) {
        cpu = c;
        break;
      }
    }
    rd.rtoCpu = cpu;
    if (cpu >= 0) return cpu;
    const next = rd.rtoLoopNext;
    if (rd.rtoLoop === next) break;
    rd.rtoLoop = next;
  }
  return -1;
}

/** irq_work_queue_on(&rd->rto_push_work, cpu): an IPI whose handler runs on `cpu`. */
function queuePushWork(k: SchedCore, cpu: number): void {
  other(k, "rt_push_ipi");
  const rq = k.rqs[cpu];
  k.sendIpi(rq, () => rtoPushIrqWork(k, rq));
}

/**
 * tell_cpu_to_push: start the IPI walk over the overloaded CPUs, or keep a running walk going
 * one more round (rto_loop_next). Only one walk runs per root domain.
 */
export function tellCpuToPush(k: SchedCore): void {
  const rd = k.rt.rd;
  rd.rtoLoopNext++;
  other(k, "rt_tell_cpu_to_push");
  // rto_loop_start trylock + rto_lock: nothing runs concurrently in the model.
  const cpu = rd.rtoCpu < 0 ? rtoNextCpu(k) : -1;
  if (cpu >= 0) queuePushWork(k, cpu);
}

/** rto_push_irq_work_func: push our own tasks, then pass the IPI to the next overloaded CPU. */
function rtoPushIrqWork(k: SchedCore, rq: Rq): void {
  if (rq.rt.pushable.length > 0) {
    lockRq(k, rq, rq.cpu, "rt_push_local");
    pushRtTasks(k, rq);
    unlockRq(k, rq);
  }
  const cpu = rtoNextCpu(k);
  if (cpu >= 0) queuePushWork(k, cpu);
}

// ------------------------------------------------------------------ entry points for the core

/**
 * task_woken_rt: p was just woken onto rq (after check_preempt_curr) but does not run, curr is
 * an RT task that is pinned or at least as important: push now rather than wait.
 */
export function rtTaskWoken(k: SchedCore, rq: Rq, p: Task): void {
  if (p.schedClass !== "rt") return;
  const curr = rq.curr;
  if (!curr || curr === p || rq.needResched) return;
  if (p.nrCpusAllowed <= 1 || !rtTask(curr)) return;
  // 3.19/4.8 also asked has_pushable_tasks; 6.x leaves that to push_rt_task.
  if (!atLeast56(k.era) && rq.rt.pushable.length === 0) return;
  const push =
    curr.nrCpusAllowed < 2 ||
    k.hooks.get("rt.wakeup_push_cond")({ k, rq, curr, p, site: "task_woken" });
  if (!push) return;
  other(k, "rt_task_woken_push");
  pushRtTasks(k, rq);
}

/**
 * Pull before the pick (3.19: pick_next_task_rt; 6.x: balance_rt): when this rq is about to run
 * something less important than prev. __schedule clears need_resched after its pick, so the
 * resched a pull sets on this CPU is dropped.
 */
export function pullBeforePick(k: SchedCore, rq: Rq, prev: Task): void {
  if (rq.stopQueued) return;
  if (!(rq.rt.highestPrio > prev.prio)) return; // need_pull_rt_task
  const saved = rq.needResched;
  pullRtTask(k, rq);
  if (k.thisCpu === rq.cpu) rq.needResched = saved;
}

/** The standalone form of RtClass.balance (marks the core wiring as present). */
export function rtPrePick(k: SchedCore, rq: Rq, prev: Task | null): void {
  k.rt.balance(rq, prev);
}

/**
 * post_schedule_rt (3.19) / the push balance_callback queued by set_next_task_rt (4.2+): after
 * switching to an RT task, push what else waits here. Up to 5.6 the callback retakes the rq
 * lock after the switch; from 5.11 it runs before the lock is dropped.
 */
export function rtPostSchedule(k: SchedCore, rq: Rq): void {
  const curr = rq.curr;
  if (curr?.schedClass !== "rt" || rq.rt.pushable.length === 0) return;
  other(k, "rt_post_schedule");
  // 5.19+: __schedule still holds the lock (the core releases it after this callback).
  const relock = !atLeast519(k.era);
  if (relock) lockRq(k, rq, cpuOf(k, rq), "rt_push_local");
  pushRtTasks(k, rq);
  if (relock) unlockRq(k, rq);
}

/**
 * switched_from_rt / switched_to_rt / prio_changed_rt, after __sched_setscheduler moved p
 * (still queued on rq) to its new class or prio.
 */
export function rtPrioChanged(
  k: SchedCore,
  rq: Rq,
  p: Task,
  oldClass: ClassName,
  oldPrio: number,
): void {
  if (p.onRq === 0) return;
  if (oldClass === "rt" && p.schedClass !== "rt") {
    // We were the last RT task here: pull now, nothing else will.
    if (rq.rt.rtNrRunning === 0 && pullRtTask(k, rq)) k.reschedCurr(rq);
  } else if (oldClass !== "rt" && p.schedClass === "rt") {
    if (rq.curr !== p && p.nrCpusAllowed > 1 && rq.rt.overloaded) pushRtTask(k, rq);
  } else if (p.schedClass === "rt" && rq.curr === p && oldPrio < p.prio) {
    // Our priority dropped while running: something elsewhere may now beat us.
    pullRtTask(k, rq);
  }
}

/** rq_online_rt: back in cpupri and, if overloaded, in rto_mask. */
export function rtRqOnline(k: SchedCore, rq: Rq): void {
  if (rq.rt.overloaded) k.rt.rd.setOverload(rq);
  k.rt.rd.updateCpupri(rq);
}

/** rq_offline_rt: out of rto_mask and cpupri (INVALID) so nobody pushes to it. */
export function rtRqOffline(k: SchedCore, rq: Rq): void {
  if (rq.rt.overloaded) k.rt.rd.clearOverload(rq);
  k.rt.rd.cpupri.set(rq.cpu, CPUPRI_INVALID);
}

/** cpupri_set for rq's current state (highest RT prio, online); the RT class calls it itself. */
export function rtUpdateCpupri(k: SchedCore, rq: Rq): void {
  k.rt.rd.updateCpupri(rq);
}
