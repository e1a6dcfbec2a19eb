// The slow path of select_task_rq_fair: fork/exec balancing (and wakeup balancing when a domain
// has SD_BALANCE_WAKE). find_idlest_group picks the group to push the task to, find_idlest_cpu
// the CPU in it, and the outer loop walks down the domains of the chosen CPU.
//   2.6.29 kernel/sched.c: sched_balance_self, find_idlest_group (cpu_load[] via source/target_load
//          at forkexec_idx, avg_load over __cpu_power, imbalance_pct/2 local bias),
//          find_idlest_cpu (weighted_cpuload, ties to this_cpu).
//   4.8 fair.c: the same with sgc->capacity and PELT runnable load; find_idlest_cpu prefers the
//          idle CPU in the shallowest idle state, most recently idled.
//   5.5+ fair.c (Vincent Guittot's rework): update_sg_wakeup_stats, group_type classification,
//          update_pick_idlest, the NUMA rules, find_idlest_group_cpu.
import { ERA_TRAITS } from "../../features";
import { SCHED_CAPACITY_SCALE } from "../../sched";
import type { SchedCore } from "../../core/api";
import type { Task } from "../../sched";
import type { SchedDomain, SchedGroup } from "../../topology/sched_domain";
import {
  SD_ASYM_CPUCAPACITY,
  SD_BALANCE_WAKE,
  SD_NUMA,
  SD_POWERSAVINGS_BALANCE,
} from "../../topology/sched_domain";
import { fitsCapacity } from "./capacity";
import { taskUtilEst } from "../util_est";
import { rqLoadWeight2629, sourceLoad, targetLoad } from "../cpu_load";
import { sgDivCpuPower } from "../lb/v2629";
import { adjustNumaImbalance } from "../lb/v5x";
import { currIsIdleTask, inIdleWindow, seenIdleStampOf } from "../../core/idle_cpu";
import {
  idleCpu,
  intersectsAllowed,
  schedIdleCpu,
  wakeState,
  type FindIdlestGroupCtx,
  type FindIdlestGroupStats,
} from "./common";

/** 2.6.29 has no LB_BIAS switch: source/target_load always bias with cpu_load[]. */
const ALWAYS_BIAS = { LB_BIAS: true };

function allowed(p: Task, cpu: number): boolean {
  return p.cpusAllowed[cpu] === 1;
}

/** The CPU's cpuidle exit latency while idle (idle_get_state), or -1 when it has none. */
function idleExitLatency(k: SchedCore, cpu: number): number {
  const rq = k.rqs[cpu];
  if (rq.curr !== null || rq.idleStateIdx < 0) return -1;
  return k.machine.idleStates[rq.idleStateIdx].exitLatencyNs;
}

// ---------------------------------------------------------------------------------------------
// 2.6.29 and 4.8: load-based find_idlest_group

/**
 * The load-based find_idlest_group of 2.6.29 and 3.x-4.9: the group with the least average
 * load (biased toward our own domain: source_load for the local group, target_load for others)
 * unless the local group is within half the imbalance_pct of it.
 */
function findIdlestGroupByLoad(
  ctx: FindIdlestGroupCtx,
  loadIdx: number,
  bias: { LB_BIAS: boolean },
  avgOf: (group: SchedGroup, load: number) => number,
): SchedGroup | null {
  const { k, p, sd, thisCpu } = ctx;
  const imbalance = 100 + Math.floor((sd.imbalancePct - 100) / 2);
  let idlest: SchedGroup | null = null;
  let minLoad = Infinity;
  let thisLoad = 0;
  for (const group of sd.groups) {
    if (!intersectsAllowed(group.cpus, p)) continue;
    const local = group.cpus.includes(thisCpu);
    let load = 0;
    for (const i of group.cpus) {
      const rq = k.lbRq(i);
      // Bias balancing toward cpus of our domain
      load += local ? sourceLoad(rq, loadIdx, k.era, bias) : targetLoad(rq, loadIdx, k.era, bias);
    }
    const avgLoad = avgOf(group, load);
    if (local) thisLoad = avgLoad;
    else if (avgLoad < minLoad) {
      minLoad = avgLoad;
      idlest = group;
    }
  }
  if (!idlest || 100 * thisLoad < imbalance * minLoad) return null;
  return idlest;
}

/** find_idlest_group, 2.6.29 (kernel/sched.c): group loads over __cpu_power at forkexec_idx. */
export function findIdlestGroup2629(ctx: FindIdlestGroupCtx): SchedGroup | null {
  return findIdlestGroupByLoad(ctx, ctx.sd.forkexecIdx, ALWAYS_BIAS, (g, load) =>
    sgDivCpuPower(g, load * SCHED_CAPACITY_SCALE),
  );
}

/** find_idlest_group, 3.x-4.9: the same over sgc->capacity, load index by sd_flag. */
export function findIdlestGroup48(ctx: FindIdlestGroupCtx): SchedGroup | null {
  const loadIdx = ctx.sdFlag & SD_BALANCE_WAKE ? ctx.sd.wakeIdx : ctx.sd.forkexecIdx;
  return findIdlestGroupByLoad(ctx, loadIdx, ctx.k.features, (g, load) =>
    Math.floor((load * SCHED_CAPACITY_SCALE) / g.capacity),
  );
}

/** find_idlest_cpu, 2.6.29: the least weighted_cpuload (rq->load.weight, RT included), ties to this_cpu. */
export function findIdlestCpu2629(
  k: SchedCore,
  group: SchedGroup,
  p: Task,
  thisCpu: number,
): number {
  let minLoad = Infinity;
  let idlest = -1;
  for (const i of group.cpus) {
    if (!allowed(p, i)) continue;
    const load = rqLoadWeight2629(k.rqs[i]);
    if (load < minLoad || (load === minLoad && i === thisCpu)) {
      minLoad = load;
      idlest = i;
    }
  }
  return idlest;
}

/** weighted_cpuload in 3.x/4.x: cfs_rq->runnable_load_avg (the PELT load of queued tasks). */
export function runnableLoad48(k: SchedCore, cpu: number): number {
  const tasks = k.rqs[cpu].cfs.tasks;
  let s = 0;
  for (let i = 0; i < tasks.length; i++) s += tasks[i].se.avg.loadAvg;
  return s;
}

/**
 * find_idlest_cpu, 3.16-4.x: among idle CPUs the one in the shallowest idle state, the most
 * recently idled on a tie; if none is idle, the least loaded (ties to this_cpu).
 */
export function findIdlestCpu48(k: SchedCore, group: SchedGroup, p: Task, thisCpu: number): number {
  let minLoad = Infinity;
  let minExitLatency = Infinity;
  let latestIdleTimestamp = 0;
  let leastLoadedCpu = thisCpu;
  let shallowestIdleCpu = -1;
  for (const i of group.cpus) {
    if (!allowed(p, i)) continue;
    if (idleCpu(k, i)) {
      const lat = idleExitLatency(k, i);
      const stamp = seenIdleStampOf(k, k.rqs[i]);
      if (lat >= 0 && lat < minExitLatency) {
        minExitLatency = lat;
        latestIdleTimestamp = stamp;
        shallowestIdleCpu = i;
      } else if ((lat < 0 || lat === minExitLatency) && stamp > latestIdleTimestamp) {
        latestIdleTimestamp = stamp;
        shallowestIdleCpu = i;
      }
    } else if (shallowestIdleCpu === -1) {
      const load = runnableLoad48(k, i);
      if (load < minLoad || (load === minLoad && i === thisCpu)) {
        minLoad = load;
        leastLoadedCpu = i;
      }
    }
  }
  return shallowestIdleCpu !== -1 ? shallowestIdleCpu : leastLoadedCpu;
}

/** The highest domain of `cpu` narrower than `weight` that carries `sdFlag` (the slow path's
 *  "now try balancing at a lower domain level of new_cpu"). */
function flaggedDomainBelow(
  k: SchedCore,
  cpu: number,
  weight: number,
  sdFlag: number,
): SchedDomain | null {
  let sd: SchedDomain | null = null;
  for (const tmp of k.domains.domains[cpu]) {
    if (weight <= tmp.spanWeight) break;
    if (tmp.flags & sdFlag) sd = tmp;
  }
  return sd;
}

/**
 * The 2.6.29 sched_balance_self / 3.x-4.x select_task_rq_fair slow-path loop: find the idlest
 * group at the highest flagged level, its idlest CPU, then go on in that CPU's lower domains.
 */
export function idlestLoop(
  k: SchedCore,
  p: Task,
  start: SchedDomain | null,
  cpu: number,
  sdFlag: number,
): number {
  const findGroup = wakeState(k).findIdlestGroup;
  const findCpu = ERA_TRAITS[k.era].family === "2.6" ? findIdlestCpu2629 : findIdlestCpu48;
  let sd = start;
  while (sd) {
    if (!(sd.flags & sdFlag)) {
      sd = sd.child;
      continue;
    }
    const group = findGroup(findIdlestGroupCtx(k, p, sd, cpu, sdFlag));
    if (!group) {
      sd = sd.child;
      continue;
    }
    const newCpu = findCpu(k, group, p, cpu);
    if (newCpu === -1 || newCpu === cpu) {
      // Now try balancing at a lower domain level of cpu
      sd = sd.child;
      continue;
    }
    // Now try balancing at a lower domain level of new_cpu
    cpu = newCpu;
    sd = flaggedDomainBelow(k, cpu, sd.spanWeight, sdFlag);
  }
  return cpu;
}

/** sched_balance_self (2.6.29): the highest domain of cpu with the flag, below power savings. */
export function schedBalanceSelf(k: SchedCore, p: Task, cpu: number, flag: number): number {
  let sd: SchedDomain | null = null;
  for (const tmp of k.domains.domains[cpu]) {
    // If power savings logic is enabled for a domain, stop there.
    if (tmp.flags & SD_POWERSAVINGS_BALANCE) break;
    if (tmp.flags & flag) sd = tmp;
  }
  return idlestLoop(k, p, sd, cpu, flag);
}

// ---------------------------------------------------------------------------------------------
// 5.5+: group_type-based find_idlest_group

const HAS_SPARE = 0;
const FULLY_BUSY = 1;
const MISFIT_TASK = 2;
const IMBALANCED = 4;
const OVERLOADED = 5;

/** struct sg_lb_stats as update_sg_wakeup_stats fills it. */
interface WakeupSgs {
  avgLoad: number;
  groupLoad: number;
  groupUtil: number;
  groupRunnable: number;
  groupCapacity: number;
  groupWeight: number;
  sumNrRunning: number;
  sumHNrRunning: number;
  idleCpus: number;
  groupType: number;
  /** group_misfit_task_load: SD_ASYM_CPUCAPACITY and p fits no CPU of the group. */
  groupMisfit: boolean;
  /** sgc->max_capacity: the largest capacity_of in the group. */
  maxCapacity: number;
}

/** p still contributes to cpu's signals: it last ran there and has been attached (not new). */
function contributes(p: Task, cpu: number): boolean {
  return p.cpu === cpu && p.se.avg.lastUpdateTime !== 0;
}

/** update_sg_wakeup_stats: the group's load/util/runnable/counts without p's own contribution. */
function updateSgWakeupStats(k: SchedCore, sd: SchedDomain, group: SchedGroup, p: Task): WakeupSgs {
  // 070f5e860ee2 (runnable in group_classify) and Tao Zhou's avg_load condition fix: both v5.7,
  // each with its switch (features_folded.ts)
  const f = k.features;
  const s: WakeupSgs = {
    avgLoad: 0,
    groupLoad: 0,
    groupUtil: 0,
    groupRunnable: 0,
    groupCapacity: group.capacity,
    groupWeight: group.weight,
    sumNrRunning: 0,
    sumHNrRunning: 0,
    idleCpus: 0,
    groupType: HAS_SPARE,
    groupMisfit: false,
    maxCapacity: 0,
  };
  // Asymmetric capacities (5.5+): the task fits no CPU of the group (sgc->max_capacity in 5.x,
  // per CPU in 6.x: the same without uclamp).
  const asym = (sd.flags & SD_ASYM_CPUCAPACITY) !== 0;
  if (asym) {
    for (const i of group.cpus) s.maxCapacity = Math.max(s.maxCapacity, k.rqs[i].cpuCapacity);
    s.groupMisfit = !fitsCapacity(taskUtilEst(p), s.maxCapacity);
  }
  const t = k.now + k.chargeNs;
  for (const i of group.cpus) {
    const rq = k.rqs[i];
    // Read without the rq's lock: a CPU another CPU has claimed but whose enqueue (or
    // ttwu_pending store) is not visible yet reads as it was (core/idle_cpu.ts).
    const win = rq.busyVisibleAt > t && inIdleWindow(k, rq);
    const avg = rq.cfs.avg;
    let load = win ? rq.seenLoadAvg : avg.loadAvg;
    let util = win ? rq.seenUtilAvg : avg.utilAvg;
    let runnable = win ? rq.seenRunnableAvg : avg.runnableAvg;
    // cpu_util_without's UTIL_EST part: the cfs_rq's estimate, less p's when it is counted there
    let estimated = win ? rq.seenUtilEst : avg.utilEst;
    let local = 0;
    if (contributes(p, i)) {
      load = Math.max(0, load - p.se.avg.loadAvg); // cpu_load_without
      util = Math.max(0, util - p.se.avg.utilAvg); // cpu_util_without
      runnable = Math.max(0, runnable - p.se.avg.runnableAvg); // cpu_runnable_without
      if (p.onRq || rq.curr === p) estimated = Math.max(0, estimated - p.se.avg.utilEst);
      if (p.onRq) local = 1; // task_running_on_cpu
    }
    s.groupLoad += load;
    s.groupUtil += Math.min(Math.max(util, estimated), rq.cpuCapacityOrig);
    s.groupRunnable += runnable;
    if (win) {
      s.idleCpus++; // nr_running, h_nr_running and ttwu_pending all read 0, the idle task current
      continue;
    }
    s.sumHNrRunning += rq.cfs.hNrRunning - local;
    const nr = rq.nrRunning - local;
    s.sumNrRunning += nr;
    // idle_cpu_without(i, p); a CPU still in __schedule before its pick has its old curr
    const idleCurr = rq.curr === null ? currIsIdleTask(k, i) : rq.curr === p;
    if (!nr && idleCurr && rq.ttwuPending === 0) s.idleCpus++;
  }
  s.groupType = groupClassifyWakeup(sd.imbalancePct, group, s, f.LB_GROUP_RUNNABLE);
  // 5.5/5.6 compute avg_load for `group_type < group_fully_busy` (has_spare only; fixed in v5.7,
  // "sched/fair: Fix condition of avg_load calculation", to fully_busy and overloaded).
  const wantAvg = f.FIG_AVG_LOAD_BUSY
    ? s.groupType === FULLY_BUSY || s.groupType === OVERLOADED
    : s.groupType < FULLY_BUSY;
  if (wantAvg) s.avgLoad = Math.floor((s.groupLoad * SCHED_CAPACITY_SCALE) / s.groupCapacity);
  return s;
}

/**
 * group_classify(imbalance_pct, group, sgs) as the wakeup path calls it (the same rules as
 * lb/v5x.ts: overloaded / imbalanced / fully_busy / has_spare; 5.7+ also looks at runnable).
 * group_misfit_task on SD_ASYM_CPUCAPACITY domains; asym_packing is not modelled.
 */
function groupClassifyWakeup(
  pct: number,
  group: SchedGroup,
  s: WakeupSgs,
  runnable: boolean,
): number {
  const runnableOver = runnable && s.groupCapacity * pct < s.groupRunnable * 100;
  if (s.sumNrRunning > s.groupWeight && (s.groupCapacity * 100 < s.groupUtil * pct || runnableOver))
    return OVERLOADED;
  if (group.imbalance) return IMBALANCED;
  if (s.groupMisfit) return MISFIT_TASK;
  const hasCapacity =
    s.sumNrRunning < s.groupWeight || (!runnableOver && s.groupCapacity * 100 > s.groupUtil * pct);
  return hasCapacity ? HAS_SPARE : FULLY_BUSY;
}

/**
 * update_pick_idlest: lower type wins; then lower avg_load, or more idle CPUs (v5.9+, Peter Puhov's
 * "Select group with lowest group_util when idle_cpus are equal": then lower util).
 */
function updatePickIdlest(idlest: WakeupSgs, s: WakeupSgs, utilTie: boolean): boolean {
  if (s.groupType < idlest.groupType) return true;
  if (s.groupType > idlest.groupType) return false;
  switch (s.groupType) {
    case OVERLOADED:
    case FULLY_BUSY:
      return !(idlest.avgLoad <= s.avgLoad);
    case IMBALANCED:
      return false; // not used in the slow wakeup path
    case MISFIT_TASK:
      // Select group with the highest max capacity
      return !(idlest.maxCapacity >= s.maxCapacity);
    case HAS_SPARE:
      if (!utilTie) return !(idlest.idleCpus >= s.idleCpus);
      if (idlest.idleCpus > s.idleCpus) return false;
      if (idlest.idleCpus === s.idleCpus && idlest.groupUtil <= s.groupUtil) return false;
      return true;
  }
  return true;
}

const GROUP_TYPE_NAMES: Record<number, FindIdlestGroupStats["groupType"]> = {
  [HAS_SPARE]: "group_has_spare",
  [FULLY_BUSY]: "group_fully_busy",
  [MISFIT_TASK]: "group_misfit_task",
  [IMBALANCED]: "group_imbalanced",
  [OVERLOADED]: "group_overloaded",
};

/**
 * The hook context of find_idlest_group, its groupStats() computed on first call (as
 * update_sg_wakeup_stats does for each group p may run on) and cached.
 */
export function findIdlestGroupCtx(
  k: SchedCore,
  p: Task,
  sd: SchedDomain,
  thisCpu: number,
  sdFlag: number,
): FindIdlestGroupCtx {
  let stats: FindIdlestGroupStats[] | null = null;
  const groupStats = (): FindIdlestGroupStats[] => {
    stats ??= sd.groups
      .filter((g) => intersectsAllowed(g.cpus, p))
      .map((group) => {
        const s = updateSgWakeupStats(k, sd, group, p);
        return {
          group,
          local: group.cpus.includes(thisCpu),
          idleCpus: s.idleCpus,
          sumNrRunning: s.sumNrRunning,
          sumHNrRunning: s.sumHNrRunning,
          groupLoad: s.groupLoad,
          groupUtil: s.groupUtil,
          groupRunnable: s.groupRunnable,
          groupCapacity: s.groupCapacity,
          groupWeight: s.groupWeight,
          groupType: GROUP_TYPE_NAMES[s.groupType],
          avgLoad: s.avgLoad,
        };
      });
    return stats;
  };
  return { k, p, sd, thisCpu, sdFlag, groupStats };
}

/** find_idlest_group (5.5+): the idlest group by type, then the local-vs-idlest decision. */
export function findIdlestGroup5x(ctx: FindIdlestGroupCtx): SchedGroup | null {
  const { k, p, sd, thisCpu } = ctx;
  const late = k.features.FIG_IMB_NUMA_NR; // the NUMA imbalance allowance of v5.18
  const utilTie = k.features.FIG_UTIL_TIE; // v5.9
  let idlest: SchedGroup | null = null;
  let local: SchedGroup | null = null;
  let localSgs: WakeupSgs | null = null;
  let idlestSgs: WakeupSgs = {
    avgLoad: 0xffffffff,
    groupLoad: 0,
    groupUtil: 0,
    groupRunnable: 0,
    groupCapacity: 0,
    groupWeight: 0,
    sumNrRunning: 0,
    sumHNrRunning: 0,
    idleCpus: 0,
    groupType: OVERLOADED,
    groupMisfit: false,
    maxCapacity: 0,
  };
  for (const group of sd.groups) {
    if (!intersectsAllowed(group.cpus, p)) continue;
    const isLocal = group.cpus.includes(thisCpu);
    const sgs = updateSgWakeupStats(k, sd, group, p);
    if (isLocal) {
      local = group;
      localSgs = sgs;
    } else if (updatePickIdlest(idlestSgs, sgs, utilTie)) {
      idlest = group;
      idlestSgs = sgs;
    }
  }
  if (!idlest) return null; // There is no idlest group to push tasks to
  if (!local || !localSgs) return idlest; // The local group has been skipped because of CPU affinity
  if (localSgs.groupType < idlestSgs.groupType) return null;
  if (localSgs.groupType > idlestSgs.groupType) return idlest;
  switch (localSgs.groupType) {
    case OVERLOADED:
    case FULLY_BUSY: {
      const imbalance = Math.floor((SCHED_CAPACITY_SCALE * (sd.imbalancePct - 100)) / 100);
      // Across NUMA nodes, add the imbalance to the remote load and consider staying local.
      if (sd.flags & SD_NUMA && idlestSgs.avgLoad + imbalance >= localSgs.avgLoad) return null;
      if (idlestSgs.avgLoad >= localSgs.avgLoad + imbalance) return null;
      if (100 * localSgs.avgLoad <= sd.imbalancePct * idlestSgs.avgLoad) return null;
      break;
    }
    case IMBALANCED:
      return null;
    case MISFIT_TASK:
      // Select group with the highest max capacity
      if (localSgs.maxCapacity >= idlestSgs.maxCapacity) return null;
      break;
    case HAS_SPARE:
      if (sd.flags & SD_NUMA) {
        if (!late) {
          // 5.6: keep the task on this node to stay close to its wakeup source.
          if (localSgs.idleCpus) return null;
        } else {
          // 5.18+: allow an imbalance of up to imb_numa_nr tasks (p->nr_cpus_allowed != NR_CPUS
          // is true for any task on a kernel built with a larger NR_CPUS, so the local span
          // always caps it).
          let spanAllowed = 0;
          for (const c of local.cpus) if (allowed(p, c)) spanAllowed++;
          const imbNumaNr = Math.min(spanAllowed, sd.imbNumaNr);
          const imbalance = Math.abs(localSgs.idleCpus - idlestSgs.idleCpus);
          if (!adjustNumaImbalance(imbalance, localSgs.sumNrRunning + 1, imbNumaNr)) return null;
        }
      }
      // Select group with highest number of idle CPUs.
      if (localSgs.idleCpus >= idlestSgs.idleCpus) return null;
      break;
  }
  return idlest;
}

/** find_idlest_group_cpu (5.x): a SCHED_IDLE-only CPU, else the shallowest idle, else least loaded. */
export function findIdlestGroupCpu5x(
  k: SchedCore,
  group: SchedGroup,
  p: Task,
  thisCpu: number,
): number {
  if (group.weight === 1) return group.cpus[0];
  let minLoad = Infinity;
  let minExitLatency = Infinity;
  let latestIdleTimestamp = 0;
  let leastLoadedCpu = thisCpu;
  let shallowestIdleCpu = -1;
  for (const i of group.cpus) {
    if (!allowed(p, i)) continue;
    const rq = k.rqs[i];
    if (schedIdleCpu(rq)) return i;
    if (idleCpu(k, i)) {
      const lat = idleExitLatency(k, i);
      const stamp = seenIdleStampOf(k, rq); // rq->idle_stamp, not yet cleared inside a window
      if (lat >= 0 && lat < minExitLatency) {
        minExitLatency = lat;
        latestIdleTimestamp = stamp;
        shallowestIdleCpu = i;
      } else if ((lat < 0 || lat === minExitLatency) && stamp > latestIdleTimestamp) {
        latestIdleTimestamp = stamp;
        shallowestIdleCpu = i;
      }
    } else if (shallowestIdleCpu === -1) {
      const load = rq.cfs.avg.loadAvg;
      if (load < minLoad) {
        minLoad = load;
        leastLoadedCpu = i;
      }
    }
  }
  return shallowestIdleCpu !== -1 ? shallowestIdleCpu : leastLoadedCpu;
}

/** find_idlest_cpu (5.x): the slow-path loop of select_task_rq_fair. */
export function findIdlestCpu5x(
  k: SchedCore,
  p: Task,
  sd: SchedDomain,
  cpu: number,
  prevCpu: number,
  sdFlag: number,
): number {
  if (!intersectsAllowed(sd.span, p)) return prevCpu;
  const findGroup = wakeState(k).findIdlestGroup;
  let newCpu = cpu;
  let cur: SchedDomain | null = sd;
  while (cur) {
    if (!(cur.flags & sdFlag)) {
      cur = cur.child;
      continue;
    }
    const group = findGroup(findIdlestGroupCtx(k, p, cur, cpu, sdFlag));
    if (!group) {
      cur = cur.child;
      continue;
    }
    newCpu = findIdlestGroupCpu5x(k, group, p, cpu);
    if (newCpu === cpu) {
      cur = cur.child;
      continue;
    }
    cpu = newCpu;
    cur = flaggedDomainBelow(k, cpu, cur.spanWeight, sdFlag);
  }
  return newCpu;
}
