// Wakeup and fork placement for the fair class (select_task_rq_fair). This is a simple
// placement: prev if idle, else an idle CPU in prev's LLC, else prev; forks go to the least
// loaded allowed CPU. The era-faithful versions (wake_affine, wake_wide, select_idle_sibling of
// 4.8/5.x, sched_balance_self of 2.6.29) replace it through the same hook.
import type { Kernel } from "./core";
import type { Task } from "./task";
import { defineHook } from "./hooks";

export interface SelectTaskRqCtx {
  k: Kernel;
  p: Task;
  prevCpu: number;
  /** The waking (or forking) CPU; -1 outside any CPU context. */
  wakerCpu: number;
  wakeFlags: number;
}

declare module "./hooks" {
  interface HookTypes {
    "fair.select_task_rq": (ctx: SelectTaskRqCtx) => number;
  }
}

const WF_FORK = 0x02;

/** idle_cpu(): nothing running, nothing queued, no wakelist entry pending. */
export function idleCpu(k: Kernel, cpu: number): boolean {
  return k.rqs[cpu].isIdle();
}

/** The least loaded allowed online CPU (ties: fewer tasks, then lower number). */
export function leastLoadedCpu(k: Kernel, p: Task): number {
  let best = -1;
  let bestNr = Infinity;
  let bestLoad = Infinity;
  for (const rq of k.rqs) {
    if (!rq.online || !p.cpusAllowed[rq.cpu]) continue;
    const nr = rq.nrRunning + rq.ttwuPending;
    const load = rq.cfs.loadWeight;
    if (nr < bestNr || (nr === bestNr && load < bestLoad)) {
      best = rq.cpu;
      bestNr = nr;
      bestLoad = load;
    }
  }
  return best;
}

export function simpleSelectTaskRqFair(ctx: SelectTaskRqCtx): number {
  const { k, p, prevCpu, wakeFlags } = ctx;
  if (wakeFlags & WF_FORK) return leastLoadedCpu(k, p);
  if (p.cpusAllowed[prevCpu] && k.rqs[prevCpu].online && idleCpu(k, prevCpu)) return prevCpu;
  const llc = k.domains.sdLlc[prevCpu];
  if (llc) {
    for (const cpu of llc.span) {
      if (p.cpusAllowed[cpu] && idleCpu(k, cpu)) return cpu;
    }
  }
  return prevCpu;
}

defineHook("fair.select_task_rq", "select_task_rq_fair: the CPU a waking or forked fair task is placed on", () => simpleSelectTaskRqFair);
