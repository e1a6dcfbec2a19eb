// select_task_rq_fair of 4.8 (kernel/sched/fair.c, the form of v4.3 ... v4.8; 3.19 runs the
// v3.19 form in v319.ts, with the pre-4.3 wake_wide, wakeWide312, asked from wake_affine).
//
// Wakeups (SD_BALANCE_WAKE):
//   1. record_wakee (done in try_to_wake_up, ttwu.ts) feeds wake_wide(): spread when the
//      smaller of waker/wakee flips is >= sd_llc_size and the larger >= smaller * sd_llc_size;
//   2. want_affine = !wake_wide(p) && this_cpu is allowed;
//   3. walk this_cpu's domains: the first SD_WAKE_AFFINE one spanning prev_cpu is affine_sd
//      (it wins over any SD_BALANCE_WAKE domain below it);
//   4. wake_affine(affine_sd): effective loads at wake_idx (source_load(prev),
//      target_load(this)), a sync wakeup subtracts the waker's load_avg (3.19: load.weight), then
//      100 * capacity(prev) * (this_load + p) <= (100 + (pct - 100) / 2) * capacity(this) * prev_load
//      (or this_load <= 0) makes this_cpu the target;
//   5. select_idle_sibling(p, target) of 4.8: target if idle; prev if idle and cache-affine;
//      else a group of sd_llc (or a lower domain) whose CPUs are all idle (none of them target).
// Forks/execs (and wakeups on SD_BALANCE_WAKE domains): find_idlest_group / find_idlest_cpu.
import { ERA_TRAITS } from "../../features";
import { WF_SYNC } from "../../sched";
import {
  SD_BALANCE_WAKE,
  SD_LOAD_BALANCE,
  SD_WAKE_AFFINE,
  type SchedDomain,
} from "../../topology/sched_domain";
import { sourceLoad, targetLoad } from "../cpu_load";
import {
  countIdlestPlacement,
  countWakePlacement,
  currentOn,
  cpusShareCache,
  idleCpu,
  intersectsAllowed,
  sdFlagOf,
  spanHas,
  wakeState,
  type SelectIdleSiblingCtx,
  type SelectTaskRqCtx,
  type WakeAffineCtx,
  type WakeWideCtx,
} from "./common";
import { idlestLoop } from "./find_idlest";
import { LINE } from "./lines";

/**
 * wake_wide (4.3+, Mike Galbraith's "Beef up wake_wide()"): a waker/wakee pair is "wide" when one side flips
 * between at least sd_llc_size partners and the other flips sd_llc_size times more often.
 */
export function wakeWide(ctx: WakeWideCtx): boolean {
  let master = ctx.waker ? ctx.waker.wakeeFlips : 0;
  let slave = ctx.p.wakeeFlips;
  const factor = ctx.factor;
  if (master < slave) {
    const t = master;
    master = slave;
    slave = t;
  }
  return !(slave < factor || master < slave * factor);
}

/**
 * wake_wide of v3.12-v4.2 (Michael Wang's "smarter wake-affine logic"; kernel/sched/fair.c,
 * called from wake_affine, which then returns 0; v319.ts asks it there): wide when the wakee
 * flips more often than sd_llc_size and the waker more than sd_llc_size times as often as the
 * wakee. 3.19 then leaves prev_cpu as select_idle_sibling's target.
 */
export function wakeWide312(ctx: WakeWideCtx): boolean {
  const factor = ctx.factor;
  const wakee = ctx.p.wakeeFlips;
  if (wakee <= factor) return false;
  const waker = ctx.waker ? ctx.waker.wakeeFlips : 0;
  return waker > factor * wakee;
}

/**
 * wake_affine (4.8): weights are PELT load_avg (task_h_load without groups); 3.19 weighs the
 * waker and the wakee by se->load.weight ("weight = p->se.load.weight", fair.c v3.19) against
 * the same runnable_load_avg based loads. effective_load of the root group is the weight itself,
 * so a sync wakeup takes the waker's weight off this_cpu and leaves prev's load alone.
 */
export function wakeAffine48(ctx: WakeAffineCtx): number {
  const { k, p, sd, thisCpu, prevCpu } = ctx;
  const idx = sd.wakeIdx;
  // source_load(prev_cpu, idx): the waker reads prev's cpu_load[] (the head of struct rq) and
  // weighted_cpuload (cfs.runnable_load_avg): two lines it pays for (lines.ts)
  const lines = wakeState(k).lines;
  lines.charge(thisCpu, prevCpu, LINE.LOAD);
  lines.charge(thisCpu, prevCpu, LINE.CFS_AVG);
  const load = sourceLoad(k.lbRq(prevCpu), idx, k.era, k.features);
  let thisLoad = targetLoad(k.lbRq(thisCpu), idx, k.era, k.features);
  const loadWeight = ERA_TRAITS[k.era].pelt38;
  if (ctx.sync) {
    const current = currentOn(k, thisCpu);
    if (current) thisLoad -= loadWeight ? current.se.weight : current.se.avg.loadAvg;
  }
  const weight = loadWeight ? p.se.weight : p.se.avg.loadAvg;
  // In low-load situations, where prev_cpu is idle and this_cpu is idle due to the sync cause
  // above having dropped this_load to 0, we'll always have an imbalance; that's good too.
  let thisEffLoad = 100 * k.rqs[prevCpu].cpuCapacity;
  let prevEffLoad = (100 + Math.floor((sd.imbalancePct - 100) / 2)) * k.rqs[thisCpu].cpuCapacity;
  if (thisLoad > 0) {
    thisEffLoad *= thisLoad + weight;
    prevEffLoad *= load;
  }
  return thisEffLoad <= prevEffLoad ? thisCpu : prevCpu;
}

/**
 * select_idle_sibling (v3.x-4.8; the same code in v3.19 and v4.8.17): target, an idle
 * cache-affine prev, or an all-idle group. v4.9 rewrote it (10e2f1acd010).
 */
export function selectIdleSibling48(ctx: SelectIdleSiblingCtx): number {
  const { k, p, prev, target, thisCpu } = ctx;
  // Every idle_cpu() of another CPU is a line of its rq the waker pays for (lines.ts).
  const st = wakeState(k);
  const lines = st.lines;
  lines.charge(thisCpu, target, LINE.IDLE);
  if (idleCpu(k, target)) return target;
  // If the previous cpu is cache affine and idle, don't be stupid.
  if (prev !== target && cpusShareCache(k, prev, target)) {
    lines.charge(thisCpu, prev, LINE.IDLE);
    if (idleCpu(k, prev)) return prev;
  }
  // Otherwise, iterate the domains and find an eligible idle cpu: a completely idle group at a
  // higher domain is preferred over an idle CPU at a lower one (SMT siblings contend).
  for (let sd: SchedDomain | null = k.domains.sdLlc[target]; sd; sd = sd.child) {
    for (const sg of sd.groups) {
      if (!intersectsAllowed(sg.cpus, p)) continue;
      let allIdle = true;
      for (const i of sg.cpus) {
        if (i !== target) lines.charge(thisCpu, i, LINE.IDLE);
        if (i === target || !idleCpu(k, i)) {
          allIdle = false;
          break;
        }
      }
      if (!allIdle) continue;
      for (const i of sg.cpus) if (p.cpusAllowed[i]) return st.noteSis("idle_sibling", i);
    }
  }
  return target;
}

/** select_task_rq_fair (4.8). */
export function selectTaskRqFair48(ctx: SelectTaskRqCtx): number {
  const { k, p, prevCpu, wakeFlags } = ctx;
  const st = wakeState(k);
  st.lines.begin();
  const cpu = ctx.wakerCpu >= 0 ? ctx.wakerCpu : prevCpu;
  const sdFlag = sdFlagOf(wakeFlags);
  const sync = (wakeFlags & WF_SYNC) !== 0;
  let newCpu = prevCpu;
  let wantAffine = false;
  if (sdFlag & SD_BALANCE_WAKE) {
    wantAffine =
      !st.wakeWide({ k, p, waker: currentOn(k, ctx.wakerCpu), factor: k.domains.sdLlcSize[cpu] }) &&
      p.cpusAllowed[cpu] === 1;
  }
  let affineSd: SchedDomain | null = null;
  let sd: SchedDomain | null = null;
  for (const tmp of k.domains.domains[cpu]) {
    if (!(tmp.flags & SD_LOAD_BALANCE)) break;
    // If both cpu and prev_cpu are part of this domain, cpu is a valid SD_WAKE_AFFINE target.
    if (wantAffine && tmp.flags & SD_WAKE_AFFINE && spanHas(tmp.span, prevCpu)) {
      affineSd = tmp;
      break;
    }
    if (tmp.flags & sdFlag) sd = tmp;
    else if (!wantAffine) break;
  }
  if (affineSd) {
    sd = null; // Prefer wake_affine over balance flags
    if (
      cpu !== prevCpu &&
      st.wakeAffine({ k, p, sd: affineSd, thisCpu: cpu, prevCpu, sync }) === cpu
    )
      newCpu = cpu;
  }
  if (!sd) {
    if (sdFlag & SD_BALANCE_WAKE) {
      st.sisReason = null;
      newCpu = st.selectIdleSibling({ k, p, prev: prevCpu, target: newCpu, thisCpu: cpu });
      countWakePlacement(k, st, newCpu, prevCpu, cpu);
    } else {
      countIdlestPlacement(k, sdFlag, newCpu, cpu);
    }
    return newCpu;
  }
  newCpu = idlestLoop(k, p, sd, cpu, sdFlag);
  countIdlestPlacement(k, sdFlag, newCpu, cpu);
  return newCpu;
}
