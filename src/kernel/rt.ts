// The RT class (kernel/sched/rt.c): per-priority FIFO lists, SCHED_RR time slices, preemption
// by priority. Push/pull balancing and cpupri belong to the RT-mix experiment and hook in here.
import type { Kernel } from "./core";
import type { Rq } from "./rq";
import type { Task } from "./task";
import { MAX_RT_PRIO } from "./prio";
import { defineHook } from "./hooks";

export class RtClass {
  constructor(private readonly k: Kernel) {}

  updateCurr(rq: Rq): void {
    const curr = rq.curr;
    if (!curr || curr.schedClass !== "rt") return;
    const now = this.k.now;
    const delta = now - curr.se.execStart;
    if (delta <= 0) return;
    curr.se.execStart = now;
    curr.se.sumExecRuntime += delta;
  }

  enqueueTask(rq: Rq, p: Task, head = false): void {
    const rt = rq.rt;
    const q = rt.queues[p.prio];
    if (head) q.unshift(p);
    else q.push(p);
    p.se.onRq = true;
    rt.rtNrRunning++;
    if (p.nrCpusAllowed > 1) rt.rtNrMigratory++;
    if (p.prio < rt.highestPrio) rt.highestPrio = p.prio;
    rt.overloaded = rt.rtNrRunning > 1 && rt.rtNrMigratory > 0;
  }

  dequeueTask(rq: Rq, p: Task): void {
    const rt = rq.rt;
    if (rq.curr === p) this.updateCurr(rq);
    const q = rt.queues[p.prio];
    const i = q.indexOf(p);
    if (i >= 0) q.splice(i, 1);
    p.se.onRq = false;
    rt.rtNrRunning--;
    if (p.nrCpusAllowed > 1) rt.rtNrMigratory--;
    this.recomputeHighest(rq);
    rt.overloaded = rt.rtNrRunning > 1 && rt.rtNrMigratory > 0;
  }

  private recomputeHighest(rq: Rq): void {
    const rt = rq.rt;
    rt.highestPrio = MAX_RT_PRIO;
    if (rt.rtNrRunning === 0) return;
    for (let prio = 0; prio < MAX_RT_PRIO; prio++) {
      if (rt.queues[prio].length > 0) {
        rt.highestPrio = prio;
        return;
      }
    }
  }

  /** pick_next_task_rt: the head of the highest non-empty priority list. The running task stays
   *  at the head of its list while it runs (as in the kernel), so it is picked again unless
   *  something better arrived. */
  pickNextTask(rq: Rq): Task | null {
    const rt = rq.rt;
    if (rt.rtNrRunning === 0) return null;
    const p = rt.queues[rt.highestPrio][0];
    p.se.execStart = this.k.now;
    return p;
  }

  putPrevTask(rq: Rq, p: Task): void {
    if (rq.curr === p) this.updateCurr(rq);
  }

  taskTick(rq: Rq, curr: Task): void {
    this.updateCurr(rq);
    if (curr.policy !== "rr") return;
    curr.rtTimeSlice -= 1_000_000_000 / this.k.tunables.hz;
    if (curr.rtTimeSlice > 0) return;
    curr.rtTimeSlice = this.k.tunables.rr_timeslice_ns;
    // Requeue to the tail when others share its priority (task_tick_rt).
    const q = rq.rt.queues[curr.prio];
    if (q.length > 1) {
      q.splice(q.indexOf(curr), 1);
      q.push(curr);
      this.k.reschedCurr(rq);
    }
  }

  /** check_preempt_curr_rt: strictly higher priority preempts. */
  checkPreemptCurr(rq: Rq, p: Task): void {
    const curr = rq.curr;
    if (!curr || curr.schedClass === "fair" || curr.schedClass === "idle") {
      this.k.reschedCurr(rq);
      return;
    }
    if (curr.schedClass === "rt" && p.prio < curr.prio) this.k.reschedCurr(rq);
  }

  yieldTask(rq: Rq, p: Task): void {
    const q = rq.rt.queues[p.prio];
    const i = q.indexOf(p);
    if (i >= 0 && q.length > 1) {
      q.splice(i, 1);
      q.push(p);
    }
  }
}

export interface SelectTaskRqRtCtx {
  k: Kernel;
  p: Task;
  prevCpu: number;
  wakerCpu: number;
  wakeFlags: number;
}

declare module "./hooks" {
  interface HookTypes {
    "rt.select_task_rq": (ctx: SelectTaskRqRtCtx) => number;
  }
}

/** Placeholder until cpupri/find_lowest_rq land: stay on prev unless a strictly lower-priority
 *  idle CPU is free in the allowed set. */
function simpleSelectTaskRqRt(ctx: SelectTaskRqRtCtx): number {
  const { k, p, prevCpu } = ctx;
  const curr = k.rqs[prevCpu].curr;
  if (!curr || curr.prio > p.prio) return prevCpu;
  for (const rq of k.rqs) {
    if (rq.online && p.cpusAllowed[rq.cpu] && rq.curr === null && rq.nrRunning === 0) return rq.cpu;
  }
  return prevCpu;
}

defineHook("rt.select_task_rq", "select_task_rq_rt: the CPU a waking RT task is placed on", () => simpleSelectTaskRqRt);
