// Wakeup and fork placement of 2.6.29 (kernel/sched.c, kernel/sched_fair.c).
//
// Forks: sched_fork calls sched_balance_self(cpu, SD_BALANCE_FORK) on the parent's CPU
// (find_idlest.ts). Wakeups: try_to_wake_up calls select_task_rq_fair(p, sync):
//   - prev == this_cpu: wake_idle(prev);
//   - this_sd = the lowest domain of this_cpu spanning prev_cpu;
//   - wake_affine(): pull to this_cpu if the waker's CPU, minus the waker for a sync wakeup,
//     plus the wakee stays within imbalance_pct/2 of prev's load (cpu_load[wake_idx-1]
//     biased), or if this_cpu is lightly loaded (tl_per_task test);
//   - SD_WAKE_BALANCE passive balancing: this_cpu if prev is loaded beyond imbalance_pct/2;
//   - otherwise wake_idle(prev): with SD_WAKE_IDLE domains, the first idle CPU of the span.
// No select_idle_sibling, no wake_wide, no wakelist in this era.
import { WF_SYNC } from "../../sched";
import type { SchedCore } from "../../core/api";
import type { Task } from "../../sched";
import type { SchedDomain } from "../../topology/sched_domain";
import {
  SD_BALANCE_WAKE,
  SD_WAKE_AFFINE,
  SD_WAKE_BALANCE,
  SD_WAKE_IDLE,
} from "../../topology/sched_domain";
import { sourceLoad, targetLoad } from "../cpu_load";
import { cpuAvgLoadPerTask } from "../lb/common";
import { bump } from "../../counters";
import {
  countIdlestPlacement,
  countWakePlacement,
  currentOn,
  idleCpu,
  sdFlagOf,
  spanHas,
  wakeState,
  type SelectIdleSiblingCtx,
  type SelectTaskRqCtx,
  type WakeAffineCtx,
  type WakeState,
} from "./common";
import { schedBalanceSelf } from "./find_idlest";
import { LINE } from "./lines";

/** 2.6.29 source_load/target_load always bias with cpu_load[] (LB_BIAS came later). */
const ALWAYS_BIAS = { LB_BIAS: true };

/** The loads wake_affine and the passive-balance test compare (computed by the caller in 2.6.29). */
function wakeLoads(
  k: SchedCore,
  sd: SchedDomain,
  thisCpu: number,
  prevCpu: number,
): { load: number; thisLoad: number; imbalance: number } {
  const idx = sd.wakeIdx;
  return {
    load: sourceLoad(k.lbRq(prevCpu), idx, k.era, ALWAYS_BIAS),
    thisLoad: targetLoad(k.lbRq(thisCpu), idx, k.era, ALWAYS_BIAS),
    imbalance: 100 + Math.floor((sd.imbalancePct - 100) / 2),
  };
}

/**
 * wake_affine (2.6.29). Loads are rq->load.weight based (cpu_load[wake_idx - 1] biased); a sync
 * wakeup subtracts the waker's weight from this_cpu. The avg_overlap test that cancels sync for
 * tasks running > migration_cost after a wakeup is not modelled (Task has no avg_overlap):
 * sync wakeups stay sync. Arithmetic is signed where the kernel's unsigned long could wrap.
 */
export function wakeAffine2629(ctx: WakeAffineCtx): number {
  const { k, p, sd, thisCpu, prevCpu } = ctx;
  if (!(sd.flags & SD_WAKE_AFFINE)) return prevCpu; // (AFFINE_WAKEUPS is on by default)
  // source_load(prev_cpu): prev's cpu_load[] and rq->load.weight, lines the waker pays for
  const lines = wakeState(k).lines;
  lines.charge(thisCpu, prevCpu, LINE.LOAD);
  lines.charge(thisCpu, prevCpu, LINE.CFS_AVG);
  const { load, thisLoad, imbalance } = wakeLoads(k, sd, thisCpu, prevCpu);
  let tl = thisLoad;
  const sync = ctx.sync;
  if (sync) {
    // If sync wakeup then subtract the (maximum possible) effect of the currently running task
    // from the load of the current CPU (effective_load of the root group is the weight itself).
    const current = currentOn(k, thisCpu);
    tl -= current ? current.se.weight : 0;
  }
  const weight = p.se.weight;
  const balanced = 100 * (tl + weight) <= imbalance * load;
  // If the currently running task will sleep within a reasonable amount of time then attract
  // this newly woken task.
  if (sync && balanced) return thisCpu;
  const tlPerTask = cpuAvgLoadPerTask(k.lbRq(thisCpu), k.era);
  if (
    balanced ||
    (tl <= load && tl + targetLoad(k.lbRq(prevCpu), sd.wakeIdx, k.era, ALWAYS_BIAS) <= tlPerTask)
  )
    return thisCpu;
  return prevCpu;
}

/**
 * wake_idle (2.6.29, ARCH_HAS_SCHED_WAKE_IDLE with CONFIG_SCHED_SMT): cpu itself if idle or if
 * it already runs more than one fair task; otherwise the first idle allowed CPU of each
 * SD_WAKE_IDLE domain going up. No x86 domain sets SD_WAKE_IDLE by default in 2.6.29 (and
 * SD_WAKE_IDLE_FAR is not modelled), so this returns cpu unless a patch sets the flag. The
 * sched_mc_power_savings >= 2 branch is not modelled (power savings off).
 * Used as the 2.6.29 default of "fair.select_idle_sibling" (prev = target = new_cpu).
 */
export function wakeIdle2629(ctx: SelectIdleSiblingCtx): number {
  const { k, p, target: cpu, thisCpu } = ctx;
  // idle_cpu(cpu) and cpu_rq(cpu)->cfs.nr_running: lines of cpu's rq the waker pays for
  const st = wakeState(k);
  const lines = st.lines;
  lines.charge(thisCpu, cpu, LINE.IDLE);
  if (idleCpu(k, cpu)) return cpu;
  lines.charge(thisCpu, cpu, LINE.CFS_HEAD);
  if (k.rqs[cpu].cfs.nrRunning > 1) return cpu;
  for (const sd of k.domains.domains[cpu]) {
    if (!(sd.flags & SD_WAKE_IDLE)) break;
    for (const i of sd.span) {
      if (p.cpusAllowed[i] && k.rqs[i].online) lines.charge(thisCpu, i, LINE.IDLE);
      if (p.cpusAllowed[i] && k.rqs[i].online && idleCpu(k, i))
        return i === cpu ? cpu : st.noteSis("wake_idle", i);
    }
  }
  return cpu;
}

/** select_task_rq_fair of 2.6.29 (wakeups) and sched_balance_self (forks, execs). */
export function selectTaskRqFair2629(ctx: SelectTaskRqCtx): number {
  const { k, p, prevCpu, wakeFlags } = ctx;
  const sdFlag = sdFlagOf(wakeFlags);
  const thisCpu = ctx.wakerCpu >= 0 ? ctx.wakerCpu : prevCpu;
  if (sdFlag !== SD_BALANCE_WAKE) {
    const cpu = schedBalanceSelf(k, p, thisCpu, sdFlag);
    countIdlestPlacement(k, sdFlag, cpu, thisCpu);
    return cpu;
  }
  const st = wakeState(k);
  st.lines.begin();
  st.sisReason = null;
  const cpu = selectWake2629(k, st, p, prevCpu, thisCpu, (wakeFlags & WF_SYNC) !== 0);
  if (cpu === WAKE_AFFINE || cpu === WAKE_BALANCE) {
    // wake_affine or passive balancing chose this_cpu directly (no wake_idle after them).
    bump(
      k.counters.wakePlacement,
      cpu === WAKE_BALANCE ? "wake_balance" : idleCpu(k, thisCpu) ? "affine" : "affine_busy",
    );
    return thisCpu;
  }
  countWakePlacement(k, st, cpu, prevCpu, thisCpu);
  return cpu;
}

const WAKE_AFFINE = -1;
const WAKE_BALANCE = -2;

/** The decision itself: a CPU from wake_idle, or WAKE_AFFINE / WAKE_BALANCE meaning this_cpu. */
function selectWake2629(
  k: SchedCore,
  st: WakeState,
  p: Task,
  prevCpu: number,
  thisCpu: number,
  sync: boolean,
): number {
  const wakeIdle = st.selectIdleSibling;
  if (prevCpu === thisCpu) return wakeIdle({ k, p, prev: prevCpu, target: prevCpu, thisCpu });
  // this_sd is the first domain that both this_cpu and prev_cpu are present in
  let thisSd: SchedDomain | null = null;
  for (const sd of k.domains.domains[thisCpu]) {
    if (spanHas(sd.span, prevCpu)) {
      thisSd = sd;
      break;
    }
  }
  if (!p.cpusAllowed[thisCpu] || !thisSd)
    return wakeIdle({ k, p, prev: prevCpu, target: prevCpu, thisCpu });
  if (st.wakeAffine({ k, p, sd: thisSd, thisCpu, prevCpu, sync }) === thisCpu) return WAKE_AFFINE;
  // Start passive balancing when half the imbalance_pct limit is reached.
  if (thisSd.flags & SD_WAKE_BALANCE) {
    const { load, thisLoad, imbalance } = wakeLoads(k, thisSd, thisCpu, prevCpu);
    if (imbalance * thisLoad <= 100 * load) return WAKE_BALANCE;
  }
  return wakeIdle({ k, p, prev: prevCpu, target: prevCpu, thisCpu });
}
