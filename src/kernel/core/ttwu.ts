// try_to_wake_up and its helpers (kernel/sched/core.c): select a CPU, then either queue the
// wakee on the target's wakelist (the target activates it, after an IPI unless it polls) or
// take the target's rq lock and activate it directly.
import type { SchedCore } from "./api";
import type { Rq } from "../sched";
import type { Task } from "../sched";
import { TASK_RUNNING } from "../sched";
import {
  DEQUEUE_DELAYED,
  DEQUEUE_SLEEP,
  ENQUEUE_INITIAL,
  ENQUEUE_DELAYED,
  ENQUEUE_WAKEUP,
  WF_FORK,
  WF_MIGRATED,
  WF_ON_CPU,
  WF_TTWU,
} from "../sched";
import { bump } from "../counters";
import { lockRq, unlockRq } from "./rq_lock";
import { EV_WAKE_ARRIVE } from "../sched";
import { exitLatencyNs } from "./idle";
import { ttwuAvgIdle } from "./avg_idle";
import { defineHook } from "../hooks";
import { type Era, ERA_TRAITS, eraAtLeast, eraAtLeastFn } from "../features";
import { busyVisibleNow, idleBeforeWrite, keepSeenState, seenNrRunning } from "./idle_cpu";

/** Context of ttwu_queue_cond: wakelist or direct activation for a wakeup on `cpu`. */
export interface TtwuQueueCondCtx {
  k: SchedCore;
  p: Task;
  /** Target CPU chosen by select_task_rq. */
  cpu: number;
  /** The waking CPU (smp_processor_id()). */
  thisCpu: number;
  wakeFlags: number;
}

declare module "../hooks" {
  interface HookTypes {
    /** ttwu_queue_cond: queue the wakee on the target CPU's wakelist instead of locking its rq. */
    "core.ttwu_queue_cond": (ctx: TtwuQueueCondCtx) => boolean;
  }
}

/** ttwu_queue_cond, v3.0-v5.19: remote wakelist only across LLCs, or for an on_cpu wakee with
 *  at most one task on the target. */
function ttwuQueueCond519(ctx: TtwuQueueCondCtx): boolean {
  const { k, cpu, thisCpu, wakeFlags } = ctx;
  if (!k.rqs[cpu].online) return false;
  if (thisCpu < 0) return false;
  if (k.domains.sdLlcId[thisCpu] !== k.domains.sdLlcId[cpu]) return true;
  return (wakeFlags & WF_ON_CPU) !== 0 && seenNrRunning(k, k.rqs[cpu]) <= 1;
}

/** ttwu_queue_cond since v6.0 (both seed 001 patches): also for an idle target in the same LLC. */
function ttwuQueueCond60(ctx: TtwuQueueCondCtx): boolean {
  const { k, p, cpu, thisCpu } = ctx;
  if (!k.rqs[cpu].online || !p.cpusAllowed[cpu]) return false;
  if (thisCpu < 0) return false;
  if (k.domains.sdLlcId[thisCpu] !== k.domains.sdLlcId[cpu]) return true;
  if (cpu === thisCpu) return false;
  return seenNrRunning(k, k.rqs[cpu]) === 0; // !cpu_rq(cpu)->nr_running, read without its lock
}

defineHook(
  "core.ttwu_queue_cond",
  "ttwu_queue_cond: queue the wakee on the target CPU's wakelist instead of locking its rq",
  (era: Era) => (eraAtLeast(era, "6.0") ? ttwuQueueCond60 : ttwuQueueCond519),
);

/**
 * Where record_wakee(p) runs, if at all: v3.12 added it (62470419e993, "sched: Implement smarter
 * wake-affine logic") in task_waking_fair, which try_to_wake_up calls for every fair wakee it
 * takes off a sleep ("task_waking", 3.19); v4.8 moved it into select_task_rq_fair's wakeup branch
 * ("sched/core: Kill sched_class::task_waking to clean up the migration logic", with 2f950354e6d5
 * "sched/fair: Fix fairness issue on migration"), which select_task_rq calls only for a task
 * that may run on more than one CPU, and which v5.8's on_cpu wakelist skips ("select"). 2.6.29
 * has none.
 */
function recordWakeeSite(era: Era): "none" | "task_waking" | "select" {
  if (ERA_TRAITS[era].family === "2.6") return "none";
  return atLeast48(era) ? "select" : "task_waking";
}
const atLeast48 = eraAtLeastFn("4.8");

/**
 * `current` on the waking CPU, whom record_wakee charges: the waking task, or for a wakeup from
 * an interrupt (an hrtimer's expiry, no waker task) whatever task the interrupt found running
 * there (null: the idle task, whose flips the model does not keep, or no CPU context).
 */
function wakeCurrent(k: SchedCore, wakerCpu: number, waker: Task | null): Task | null {
  if (waker) return waker;
  return wakerCpu >= 0 ? k.rqs[wakerCpu].curr : null;
}

/** record_wakee: count how often the waker switches wakees (wake_wide's input). */
function recordWakee(k: SchedCore, waker: Task, p: Task): void {
  if (k.now > waker.wakeeFlipDecayTs + 1_000_000_000) {
    waker.wakeeFlips >>= 1;
    waker.wakeeFlipDecayTs = k.now;
  }
  if (waker.lastWakee !== p) {
    waker.lastWakee = p;
    waker.wakeeFlips++;
  }
}

/** select_task_rq: the class's choice, corrected to an allowed online CPU. */
export function selectTaskRq(
  k: SchedCore,
  p: Task,
  prevCpu: number,
  wakeFlags: number,
  wakerCpu: number,
): number {
  let cpu = prevCpu;
  if (p.nrCpusAllowed > 1 || !p.cpusAllowed[prevCpu]) {
    const cls = k.classFor(p);
    if (cls.selectTaskRq) cpu = cls.selectTaskRq(p, prevCpu, wakeFlags, wakerCpu);
  }
  // select_fallback_rq(task_cpu(p), p): the node preference is the task's CPU's, not the pick's
  if (!p.cpusAllowed[cpu] || !k.rqs[cpu].online) cpu = selectFallbackRq(k, p, prevCpu);
  return cpu;
}

/** select_fallback_rq: an allowed online CPU, preferring the same node. */
export function selectFallbackRq(k: SchedCore, p: Task, cpu: number): number {
  const node = k.machine.cpus[cpu].node;
  let any = -1;
  for (const rq of k.rqs) {
    if (!rq.online || !p.cpusAllowed[rq.cpu]) continue;
    if (k.machine.cpus[rq.cpu].node === node) return rq.cpu;
    if (any < 0) any = rq.cpu;
  }
  if (any < 0) throw new Error(`task ${p.comm}/${p.pid}: no online CPU in its affinity mask`);
  return any;
}

/**
 * try_to_wake_up's p->on_cpu handling and the split of its work between waker and target exist
 * from v5.8 (c6e7bd7afaeb "sched: Optimize ttwu() spinning on p->on_cpu", WF_ON_CPU 2ebb17717550;
 * 5.19 core.c). Earlier eras keep the model's older, simpler path (their ledgers unchanged).
 */
function onCpuEra(k: SchedCore): boolean {
  return ERA_TRAITS[k.era].ttwuOnCpu;
}

/**
 * ttwu_do_activate's share of the wakeup bookkeeping (enqueue_task, check_preempt_curr,
 * task_woken) in the v5.8+ path: charged to the CPU that activates (the waker on a direct
 * enqueue, the target in sched_ttwu_pending). Choice: half of costs.wakeupNs, whose source
 * lumps select_task_rq_fair with the enqueue; the total on a direct wakeup is unchanged.
 */
function activateShareNs(k: SchedCore): number {
  return k.machine.costs.wakeupNs / 2;
}

/**
 * try_to_wake_up(p) from `wakerCpu` (-1 = no CPU context, e.g. setup). Returns false if p was
 * not sleeping. Costs go to k.chargeNs (the waker's time).
 */
export function tryToWakeUp(
  k: SchedCore,
  p: Task,
  wakeFlags: number,
  wakerCpu: number,
  waker: Task | null,
): boolean {
  if (p.state === TASK_RUNNING) return false;
  const v58 = onCpuEra(k);
  // v5.8+: the selection half is charged where select_task_rq runs (the on_cpu wakelist skips it).
  if (!v58) k.chargeNs += k.machine.costs.wakeupNs;
  p.stats.wakeups++;
  const site = recordWakeeSite(k.era);
  const current =
    site === "none" || p.schedClass !== "fair" ? null : wakeCurrent(k, wakerCpu, waker);
  if (current && site === "task_waking") recordWakee(k, current, p);
  if (k.trace) {
    k.trace.push({
      type: "sched_waking",
      t: k.now,
      cpu: wakerCpu < 0 ? p.cpu : wakerCpu,
      comm: p.comm,
      pid: p.pid,
      prio: p.prio,
      targetCpu: p.cpu,
    });
  }
  if (v58) {
    // ttwu_runnable: still queued (it set its state but has not reached __schedule's dequeue):
    // under task_rq's lock, check_preempt_curr unless it runs, then TASK_RUNNING. No migration.
    if (p.onRq && ttwuRunnable(k, p, wakerCpu)) return true;
    p.state = TASK_RUNNING; // TASK_WAKING: nobody else may wake it now
    const t = k.now + k.chargeNs;
    if (p.onCpuUntil > t && p.cpu !== wakerCpu && wakerCpu >= 0) {
      // smp_load_acquire(&p->on_cpu) && ttwu_queue_wakelist(p, task_cpu(p), wake_flags | WF_ON_CPU)
      if (ttwuQueueWakelist(k, p, p.cpu, wakeFlags | WF_ON_CPU, wakerCpu)) return true;
      // smp_cond_load_acquire(&p->on_cpu, !VAL): spin until its CPU has switched it out.
      const spin = p.onCpuUntil - (k.now + k.chargeNs);
      if (spin > 0) {
        bump(k.counters.other, "ttwu_on_cpu_spin");
        bump(k.counters.other, "ttwu_on_cpu_spin_ns", spin);
        k.chargeNs += spin;
      }
    }
  } else {
    p.state = TASK_RUNNING; // TASK_WAKING: nobody else may wake it now
  }
  if (v58) k.chargeNs += k.machine.costs.wakeupNs - activateShareNs(k);
  // select_task_rq -> select_task_rq_fair: record_wakee(p) first (4.8+), for a task it places
  if (current && site === "select" && p.nrCpusAllowed > 1) recordWakee(k, current, p);
  const cpu = selectTaskRq(k, p, p.cpu, wakeFlags | WF_TTWU, wakerCpu);
  if (cpu !== p.cpu) {
    wakeFlags |= WF_MIGRATED;
    k.setTaskCpu(p, cpu, "wakeup");
  }
  if (v58) ttwuQueue58(k, p, cpu, wakeFlags, wakerCpu);
  else ttwuQueue(k, p, cpu, wakeFlags, wakerCpu);
  return true;
}

/**
 * ttwu_runnable (v5.8+; ttwu_remote before): p is still on its runqueue. A delayed sleeper
 * (DELAY_DEQUEUE, v6.12) is requeued where it slept, or, when that CPU runs others and p may
 * run elsewhere, dequeued for good so the wakeup goes on to select_task_rq (Mike Galbraith,
 * "sched/fair: Dequeue sched_delayed tasks when waking to a busy CPU", d68803506ffb, v6.12-rc7).
 * Returns false in that last case.
 */
function ttwuRunnable(k: SchedCore, p: Task, wakerCpu: number): boolean {
  const rq = k.rqs[p.cpu];
  lockRq(k, rq, wakerCpu, "ttwu_runnable");
  if (p.se.schedDelayed) {
    if (rq.nrRunning > 1 && p.nrCpusAllowed > 1) {
      bump(k.counters.wakePath, "delayed_dequeue");
      k.dequeueTask(rq, p, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
      p.onRq = 0; // __block_task
      unlockRq(k, rq);
      return false;
    }
    // ENQUEUE_DELAYED adds nothing to nr_running: p never left
    bump(k.counters.wakePath, "delayed_requeue");
    p.stats.sleepNs += k.now - p.lastStateChange;
    p.lastStateChange = k.now;
    k.classFor(p).enqueueTask(rq, p, ENQUEUE_DELAYED);
  } else bump(k.counters.wakePath, "runnable");
  if (rq.curr !== p) k.checkPreemptCurr(rq, p);
  p.state = TASK_RUNNING; // ttwu_do_wakeup
  unlockRq(k, rq);
  return true;
}

/**
 * ttwu_queue_wakelist (v5.8+): if ttwu_queue_cond allows, llist_add p to the target's wakelist;
 * the target activates it in sched_ttwu_pending. Only the first entry of an empty list notifies
 * the target (send_call_function_single_ipi: set_nr_if_polling, else an IPI). A target still
 * switching its previous task out has not re-entered the idle loop, so its idle task is not
 * polling yet: that notification is an IPI.
 */
function ttwuQueueWakelist(
  k: SchedCore,
  p: Task,
  cpu: number,
  wakeFlags: number,
  wakerCpu: number,
): boolean {
  if (!k.features.TTWU_QUEUE || wakerCpu < 0) return false;
  if (!k.ttwuQueueCond({ k, p, cpu, thisCpu: wakerCpu, wakeFlags })) return false;
  if (cpu === wakerCpu) return false; // WARN_ON_ONCE(cpu == smp_processor_id())
  const rq = k.rqs[cpu];
  const onCpu = (wakeFlags & WF_ON_CPU) !== 0;
  const sameLlc = k.domains.sdLlcId[wakerCpu] === k.domains.sdLlcId[cpu];
  bump(k.counters.wakePath, onCpu ? "wakelist_on_cpu" : sameLlc ? "wakelist_llc" : "wakelist");
  // __ttwu_queue_wakelist: WRITE_ONCE(rq->ttwu_pending, 1); llist_add: the list head's line.
  k.chargeNs += k.cache.cacheLineNs(wakerCpu, cpu);
  const wasIdle = idleBeforeWrite(rq);
  rq.wakeList.push(p);
  rq.ttwuPending = 1;
  busyVisibleNow(k, rq, wasIdle); // idle_cpu() reads ttwu_pending: the CPU is claimed from here
  if (rq.wakeList.length !== 1) return true;
  const sent = k.now + k.chargeNs;
  const switching = rq.curr === null && sent < rq.switchDoneAt;
  if (!switching) {
    k.kickCpu(rq, "call_function_single");
    return true;
  }
  bump(k.counters.ipis, "call_function_single");
  k.chargeNs += k.machine.costs.ipiSendNs;
  // The target has interrupts off until finish_task_switch: an IPI that reaches it earlier is
  // handled then; one that comes later finds it in its idle state.
  let arrive = sent + k.machine.costs.ipiDeliveryNs;
  if (arrive >= rq.switchDoneAt) arrive += exitLatencyNs(k.machine.idleStates, rq, arrive);
  else arrive = rq.switchDoneAt;
  k.eq.push(arrive, EV_WAKE_ARRIVE, cpu, 1);
  return true;
}

function ttwuQueue58(
  k: SchedCore,
  p: Task,
  cpu: number,
  wakeFlags: number,
  wakerCpu: number,
): void {
  if (ttwuQueueWakelist(k, p, cpu, wakeFlags, wakerCpu)) return;
  const rq = k.rqs[cpu];
  const local = cpu === wakerCpu;
  bump(k.counters.wakePath, local ? "local" : "remote");
  // rq_lock; update_rq_clock; ttwu_do_activate (enqueue, check_preempt_curr) under it. Other
  // CPUs see the target idle until the enqueue is done, after any wait for its lock.
  const wasIdle = idleBeforeWrite(rq);
  lockRq(k, rq, wakerCpu, local ? "ttwu_local" : "ttwu_remote");
  ttwuDoActivate(k, rq, p, ENQUEUE_WAKEUP, wasIdle);
  unlockRq(k, rq);
}

function ttwuQueue(k: SchedCore, p: Task, cpu: number, wakeFlags: number, wakerCpu: number): void {
  const rq = k.rqs[cpu];
  if (k.features.TTWU_QUEUE && k.ttwuQueueCond({ k, p, cpu, thisCpu: wakerCpu, wakeFlags })) {
    // __ttwu_queue_wakelist: llist_add; only the first entry of an empty list sends the IPI.
    bump(k.counters.wakePath, (wakeFlags & WF_ON_CPU) !== 0 ? "wakelist_on_cpu" : "wakelist");
    k.chargeNs += k.cache.cacheLineNs(wakerCpu, cpu);
    const wasIdle = idleBeforeWrite(rq);
    rq.wakeList.push(p);
    rq.ttwuPending = 1;
    busyVisibleNow(k, rq, wasIdle); // idle_cpu() tests !llist_empty(&rq->wake_list) (v3.2-v5.7)
    if (rq.wakeList.length === 1) k.kickCpu(rq, "call_function_single");
    return;
  }
  const local = cpu === wakerCpu;
  bump(k.counters.wakePath, local ? "local" : "remote");
  // ttwu_queue: rq_lock; ttwu_do_activate (enqueue, check_preempt_curr, task_woken) under it.
  const wasIdle = idleBeforeWrite(rq);
  lockRq(k, rq, wakerCpu, local ? "ttwu_local" : "ttwu_remote");
  ttwuDoActivate(k, rq, p, ENQUEUE_WAKEUP, wasIdle);
  unlockRq(k, rq);
}

/** wake_up_new_task: fork placement, then activate. */
export function wakeUpNewTask(k: SchedCore, p: Task, cpu?: number): void {
  p.state = TASK_RUNNING;
  p.lastStateChange = k.now;
  const parentCpu = k.thisCpu;
  const target =
    cpu ?? selectTaskRq(k, p, parentCpu >= 0 ? parentCpu : firstOnline(k), WF_FORK, parentCpu);
  p.cpu = target;
  const rq = k.rqs[target];
  const wasIdle = idleBeforeWrite(rq);
  k.classFor(p).postInitEntity?.(rq, p);
  k.activateTask(rq, p, ENQUEUE_INITIAL);
  // The forker's enqueue under the target's lock: other CPUs see the target busy from here.
  busyVisibleNow(k, rq, wasIdle);
  if (k.trace)
    k.trace.push({
      type: "sched_wakeup_new", // trace_sched_wakeup_new (kernel/sched/core.c wake_up_new_task)
      t: k.now,
      cpu: parentCpu < 0 ? target : parentCpu,
      comm: p.comm,
      pid: p.pid,
      prio: p.prio,
      targetCpu: target,
    });
  k.checkPreemptCurr(rq, p, WF_FORK); // wake_up_new_task: wakeup_preempt(rq, p, WF_FORK)
  k.classFor(p).taskWoken?.(rq, p);
}

function firstOnline(k: SchedCore): number {
  const rq = k.rqs.find((r) => r.online);
  if (!rq) throw new Error("no online CPU");
  return rq.cpu;
}

/**
 * sched_ttwu_pending clears rq->ttwu_pending after its enqueue from v6.2 (d6962c4fe8f9, "sched:
 * Clear ttwu_pending after enqueue", Tianchen Ding, Link
 * 20221104023601.12844-1-dtcccc@linux.alibaba.com). Before, the clear came first: v5.8-v6.1
 * WRITE_ONCE(rq->ttwu_pending, 0) before rq_lock_irqsave (126c2092e5c8, "sched: Add
 * rq::ttwu_pending"), and up to v5.7 llist_del_all(&rq->wake_list), which idle_cpu() tested.
 */
const clearsPendingAfterEnqueue = eraAtLeastFn("6.2");

/** sched_ttwu_pending: activate tasks queued on this CPU's wakelist. */
export function schedTtwuPending(k: SchedCore, rq: Rq): void {
  if (rq.wakeList.length === 0) return;
  const list = rq.wakeList.splice(0, rq.wakeList.length);
  const early = !clearsPendingAfterEnqueue(k.era);
  // Before v6.2 the CPU looks idle again from this clear until its first enqueue (if nothing
  // else runs or is queued on it): a waker scanning then can pick it once more.
  const clearedAt = k.now + k.chargeNs;
  const idleAgain = early && rq.curr === null && rq.nrRunning === 0;
  if (idleAgain) keepSeenState(rq);
  if (early) rq.ttwuPending = 0;
  // The target activates the whole list under its own rq lock (rq_lock_irqsave in
  // sched_ttwu_pending, v5.19 and v6.19 core.c).
  lockRq(k, rq, rq.cpu, "ttwu_pending");
  for (let i = 0; i < list.length; i++)
    ttwuDoActivate(k, rq, list[i], ENQUEUE_WAKEUP, i === 0 && idleAgain, clearedAt);
  if (!early) rq.ttwuPending = 0;
  unlockRq(k, rq);
}

/**
 * ttwu_do_activate: enqueue a woken task and see whether it preempts. `wasIdle`: rq was idle
 * before this wakeup claimed it (seen idle by others from `idleFrom` until the enqueue).
 */
export function ttwuDoActivate(
  k: SchedCore,
  rq: Rq,
  p: Task,
  flags: number,
  wasIdle = false,
  idleFrom = 0,
): void {
  ttwuAvgIdle(k, rq); // ttwu_do_wakeup's avg_idle sample (avg_idle.ts)
  p.stats.sleepNs += k.now - p.lastStateChange;
  if (onCpuEra(k)) k.chargeNs += activateShareNs(k);
  k.activateTask(rq, p, flags);
  busyVisibleNow(k, rq, wasIdle, idleFrom); // nr_running is seen from here
  p.state = TASK_RUNNING;
  k.checkPreemptCurr(rq, p);
  if (k.trace) {
    k.trace.push({
      type: "sched_wakeup",
      t: k.now,
      cpu: k.thisCpu < 0 ? rq.cpu : k.thisCpu,
      comm: p.comm,
      pid: p.pid,
      prio: p.prio,
      targetCpu: rq.cpu,
    });
  }
  k.classFor(p).taskWoken?.(rq, p);
}
