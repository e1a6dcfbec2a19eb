// RT placement (kernel/sched/rt.c): find_lowest_rq, select_task_rq_rt and the decision points a
// published patch changes there.
//
// Seed 004 (Tim Chen, Jan 2015) turns `curr->prio <= p->prio` into `<` in select_task_rq_rt and
// task_woken_rt: that test is the hook "rt.wakeup_push_cond". His earlier commit (v4.0, "Reduce
// rq lock contention by eliminating locking of non-feasible target") added "only if p outranks
// the target's highest_prio.curr" to select_task_rq_rt and find_lock_lowest_rq: the hook
// "rt.target_feasible", absent (always true) in the 2.6.29 and 3.19 baselines.
import { WF_FORK, WF_TTWU } from "../sched";
import type { SchedCore } from "../core/api";
import type { Rq } from "../sched";
import type { Task } from "../sched";
import { eraAtLeast, eraAtLeastFn } from "../features";
import { defineHook } from "../hooks";
import { bump } from "../counters";
import { MAX_RT_PRIO } from "../sched";
import { SD_WAKE_AFFINE } from "../topology/sched_domain";

const atLeast519 = eraAtLeastFn("5.19");

/** rt_task(): by priority, so the stopper (prio 0) counts, as in the kernel. */
export function rtTask(p: Task): boolean {
  return p.prio < MAX_RT_PRIO;
}

/** select_task_rq_rt(p, prev_cpu, wake_flags): the CPU a waking or forked RT task goes to. */
export interface SelectTaskRqRtCtx {
  k: SchedCore;
  p: Task;
  prevCpu: number;
  wakerCpu: number;
  wakeFlags: number;
}

/** The curr-vs-wakee test of select_task_rq_rt / task_woken_rt. */
export interface WakeupPushCondCtx {
  k: SchedCore;
  /** The rq p wakes on (select_task_rq_rt: task_cpu(p); task_woken_rt: the rq it was queued on). */
  rq: Rq;
  /** That rq's running RT task. */
  curr: Task;
  /** The waking task. */
  p: Task;
  site: "select_task_rq" | "task_woken";
}

/** The "p outranks the target's highest_prio.curr" test (v4.0+). */
export interface TargetFeasibleCtx {
  k: SchedCore;
  p: Task;
  /** The CPU find_lowest_rq returned. */
  target: number;
  site: "select_task_rq" | "find_lock_lowest_rq";
}

/** find_lowest_rq(task): the CPU running the least important work task may preempt. */
export interface FindLowestRqCtx {
  k: SchedCore;
  task: Task;
  /** task_cpu(task) (for a fork: the parent's CPU). */
  taskCpu: number;
  /** smp_processor_id(); -1 outside any CPU context. */
  thisCpu: number;
}

declare module "../hooks" {
  interface HookTypes {
    /** select_task_rq_rt: the CPU a waking or forked RT task is placed on. */
    "rt.select_task_rq": (ctx: SelectTaskRqRtCtx) => number;
    /** select_task_rq_rt / task_woken_rt: move the wakee away from an RT curr that is at least as important (curr->prio <= p->prio). */
    "rt.wakeup_push_cond": (ctx: WakeupPushCondCtx) => boolean;
    /** select_task_rq_rt / find_lock_lowest_rq: use (or lock) find_lowest_rq's CPU only if p outranks its highest_prio.curr (v4.0+). */
    "rt.target_feasible": (ctx: TargetFeasibleCtx) => boolean;
    /** find_lowest_rq: the CPU running the least important work that p may preempt (-1: none). */
    "rt.find_lowest_rq": (ctx: FindLowestRqCtx) => number;
  }
}

/** cpumask_first_and(mask, span): span is ascending. */
function firstAnd(mask: Uint8Array, span: readonly number[]): number {
  for (const cpu of span) if (mask[cpu]) return cpu;
  return -1;
}

/** cpumask_any_and_distribute: the next CPU of mask ∩ set after this CPU's previous pick. */
function anyAndDistribute(k: SchedCore, mask: Uint8Array, inSet: (cpu: number) => boolean): number {
  const rd = k.rt.rd;
  const n = mask.length;
  const me = Math.max(k.thisCpu, 0);
  const prev = rd.distributePrev[me];
  for (let i = 1; i <= n; i++) {
    const cpu = (prev + i) % n;
    if (mask[cpu] && inSet(cpu)) {
      rd.distributePrev[me] = cpu;
      return cpu;
    }
  }
  return -1;
}

/**
 * find_lowest_rq: CPUs of the lowest cpupri level below the task; prefer task_cpu (cache hot),
 * then this CPU if a wake-affine domain of task_cpu holds it, then the first (5.10+: the next,
 * distributed) such CPU domain by domain; else this CPU or any CPU of the mask.
 */
export function findLowestRqDefault(ctx: FindLowestRqCtx): number {
  const { k, task, taskCpu } = ctx;
  if (task.nrCpusAllowed === 1) return -1;
  const rd = k.rt.rd;
  const mask = rd.lowestMask;
  if (!rd.find(task, mask)) return -1;
  if (mask[taskCpu]) return taskCpu;
  const thisCpu = ctx.thisCpu >= 0 && mask[ctx.thisCpu] ? ctx.thisCpu : -1;
  const distribute = atLeast519(k.era);
  for (const sd of k.domains.domains[taskCpu] ?? []) {
    if (!(sd.flags & SD_WAKE_AFFINE)) continue;
    // "this_cpu" is cheaper to preempt than a remote processor.
    if (thisCpu !== -1 && sd.span.includes(thisCpu)) return thisCpu;
    const best = distribute
      ? anyAndDistribute(k, mask, (c) => sd.span.includes(c))
      : firstAnd(mask, sd.span);
    if (best >= 0) return best;
  }
  if (thisCpu !== -1) return thisCpu;
  if (distribute) return anyAndDistribute(k, mask, () => true);
  for (let cpu = 0; cpu < mask.length; cpu++) if (mask[cpu]) return cpu;
  return -1;
}

export function findLowestRq(k: SchedCore, task: Task, taskCpu = task.cpu): number {
  return k.hooks.get("rt.find_lowest_rq")({ k, task, taskCpu, thisCpu: k.thisCpu });
}

/**
 * select_task_rq_rt (wakeups and forks only): if the CPU p wakes on runs an RT task that is
 * pinned or at least as important (`<=`, the seed-004 test), look for a lower-priority CPU.
 */
export function selectTaskRqRtDefault(ctx: SelectTaskRqRtCtx): number {
  const { k, p, prevCpu, wakeFlags } = ctx;
  if (!(wakeFlags & (WF_TTWU | WF_FORK))) return prevCpu;
  const rq = k.rqs[prevCpu];
  const curr = rq.curr; // unlocked read
  if (!curr || !rtTask(curr)) return prevCpu;
  const push =
    curr.nrCpusAllowed < 2 ||
    k.hooks.get("rt.wakeup_push_cond")({ k, rq, curr, p, site: "select_task_rq" });
  if (!push) return prevCpu;
  bump(k.counters.other, "rt_select_find_lowest");
  const target = k.hooks.get("rt.find_lowest_rq")({
    k,
    task: p,
    taskCpu: prevCpu,
    thisCpu: ctx.wakerCpu,
  });
  if (target === -1) return prevCpu;
  if (!k.hooks.get("rt.target_feasible")({ k, p, target, site: "select_task_rq" })) {
    bump(k.counters.other, "rt_select_infeasible");
    return prevCpu;
  }
  if (target !== prevCpu) bump(k.counters.wakePlacement, "rt_lowest");
  // cpupri_find takes the lowest level first: the target has RT queued (p will preempt a lower RT
  // task, which then becomes pushable there) only if no allowed CPU is at IDLE/NORMAL.
  if (k.rqs[target].rt.highestPrio < MAX_RT_PRIO) bump(k.counters.other, "rt_select_onto_rt");
  return target;
}

/** curr is at least as important as the wakee (3.19 and still in 6.19). */
export function wakeupPushCondDefault(ctx: WakeupPushCondCtx): boolean {
  return ctx.curr.prio <= ctx.p.prio;
}

/** v4.0+: only a target whose best queued RT task is less important than p (an unlocked read). */
export function targetFeasible40(ctx: TargetFeasibleCtx): boolean {
  return ctx.p.prio < ctx.k.rt.rd.visibleHighestPrio(ctx.k.rqs[ctx.target]);
}

defineHook(
  "rt.select_task_rq",
  "select_task_rq_rt: the CPU a waking or forked RT task is placed on",
  () => selectTaskRqRtDefault,
);
defineHook(
  "rt.wakeup_push_cond",
  "select_task_rq_rt / task_woken_rt: move the wakee away from an RT curr that is at least as important (curr->prio <= p->prio)",
  () => wakeupPushCondDefault,
);
defineHook(
  "rt.target_feasible",
  "select_task_rq_rt / find_lock_lowest_rq: use (or lock) find_lowest_rq's CPU only if p outranks its highest_prio.curr (v4.0+)",
  (era) => (eraAtLeast(era, "4.8") ? targetFeasible40 : () => true),
);
defineHook(
  "rt.find_lowest_rq",
  "find_lowest_rq: the CPU running the least important work that p may preempt (-1: none)",
  () => findLowestRqDefault,
);
