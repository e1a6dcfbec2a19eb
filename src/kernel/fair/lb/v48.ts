// The 4.8 balancer decisions (kernel/sched/fair.c of v4.8): update_sg_lb_stats with
// cpu_load[]-biased loads, group_classify (overloaded / imbalanced / other),
// update_sd_pick_busiest, find_busiest_group's chain with the CPU_IDLE idle-CPU test,
// calculate_imbalance + fix_small_imbalance, find_busiest_queue and need_active_balance.
// 3.19 runs this code with its capacity in tasks (ERA_TRAITS.capacityFactor, capacity_factor.ts:
// group_capacity_factor, group_has_free_capacity) where 4.1+ read utilization.
import type { SchedGroup } from "../../topology/sched_domain";
import { SD_ASYM_PACKING, SD_PREFER_SIBLING } from "../../topology/sched_domain";
import {
  type CalculateImbalanceCtx,
  type FbgResult,
  type FindBusiestGroupCtx,
  type FindBusiestQueueCtx,
  type GroupType48,
  type IdleImbalanceSlackCtx,
  type ImbalanceResult,
  type LbEnv,
  type LbRq,
  type NeedActiveBalanceCtx,
  SCHED_LOAD_SCALE,
  type SdLbStats48,
  type SgLbStats48,
} from "./types";
import { sourceLoad, targetLoad, weightedCpuload } from "../cpu_load";
import { checkCpuCapacity, cpuAvgLoadPerTask, cpuUtil, getSdLoadIdx, lbHook } from "./common";
import { cpuCapacityFactor, sgCapacityFactor } from "./capacity_factor";
import { ERA_TRAITS, eraAtLeastFn } from "../../features";

const atLeast412 = eraAtLeastFn("4.12");

const ULONG_MAX = 2 ** 64 - 1;
const typeRank = (t: GroupType48): number =>
  t === "group_other" ? 0 : t === "group_imbalanced" ? 1 : 2;

function emptySgs(): SgLbStats48 {
  return {
    avgLoad: 0,
    groupLoad: 0,
    sumWeightedLoad: 0,
    loadPerTask: 0,
    groupCapacity: 0,
    groupUtil: 0,
    sumNrRunning: 0,
    idleCpus: 0,
    groupWeight: 0,
    groupType: "group_other",
    groupNoCapacity: false,
    groupCapacityFactor: 0,
    groupHasFreeCapacity: false,
  };
}

/** The 3.19 balancer counts capacity in tasks (sg_capacity_factor) instead of utilization. */
const capacityInTasks = (env: LbEnv): boolean => ERA_TRAITS[env.era].capacityFactor;

/** group_has_capacity (4.1+) or, in 3.19, group_has_free_capacity. */
function hasCapacity(env: LbEnv, sgs: SgLbStats48): boolean {
  return capacityInTasks(env) ? sgs.groupHasFreeCapacity : groupHasCapacity48(env, sgs);
}

/** group_has_capacity: fewer tasks than CPUs, or utilisation clearly below capacity. */
export function groupHasCapacity48(env: LbEnv, sgs: SgLbStats48): boolean {
  if (sgs.sumNrRunning < sgs.groupWeight) return true;
  return sgs.groupCapacity * 100 > sgs.groupUtil * env.sd.imbalancePct;
}

/** group_is_overloaded: more tasks than CPUs and utilisation above capacity. */
export function groupIsOverloaded48(env: LbEnv, sgs: SgLbStats48): boolean {
  if (sgs.sumNrRunning <= sgs.groupWeight) return false;
  return sgs.groupCapacity * 100 < sgs.groupUtil * env.sd.imbalancePct;
}

/** group_classify (4.x; 3.19's overloaded is sum_nr_running > group_capacity_factor). */
export function groupClassify48(group: SchedGroup, sgs: SgLbStats48): GroupType48 {
  if (sgs.groupNoCapacity) return "group_overloaded";
  if (group.imbalance) return "group_imbalanced"; // sg_imbalanced: sgc->imbalance
  return "group_other";
}

/**
 * update_sg_lb_stats (4.8): target_load for the local group, source_load for the others. 3.19
 * sums no utilization; its group is overloaded above sg_capacity_factor tasks and has free
 * capacity below it.
 */
export function updateSgLbStats48(
  env: LbEnv,
  group: SchedGroup,
  loadIdx: number,
  localGroup: boolean,
): SgLbStats48 {
  const sgs = emptySgs();
  const inTasks = capacityInTasks(env);
  for (const i of group.cpus) {
    if (!env.cpus.has(i)) continue;
    const rq = env.rq(i);
    const load = localGroup
      ? targetLoad(rq, loadIdx, env.era, env.features)
      : sourceLoad(rq, loadIdx, env.era, env.features);
    sgs.groupLoad += load;
    if (!inTasks) sgs.groupUtil += cpuUtil(rq, env.era);
    sgs.sumNrRunning += rq.cfsHNrRunning;
    sgs.sumWeightedLoad += weightedCpuload(rq, env.era);
    if (!rq.nrRunning && rq.idle) sgs.idleCpus++;
  }
  sgs.groupCapacity = group.capacity;
  sgs.avgLoad = Math.floor((sgs.groupLoad * SCHED_LOAD_SCALE) / sgs.groupCapacity);
  if (sgs.sumNrRunning) sgs.loadPerTask = Math.floor(sgs.sumWeightedLoad / sgs.sumNrRunning);
  sgs.groupWeight = group.weight;
  if (inTasks) {
    sgs.groupCapacityFactor = sgCapacityFactor(env.sd, group);
    sgs.groupNoCapacity = sgs.sumNrRunning > sgs.groupCapacityFactor;
    sgs.groupHasFreeCapacity = sgs.groupCapacityFactor > sgs.sumNrRunning;
  } else {
    sgs.groupNoCapacity = groupIsOverloaded48(env, sgs);
  }
  sgs.groupType = groupClassify48(group, sgs);
  return sgs;
}

/** update_sd_pick_busiest (4.8): higher group_type wins, then higher avg_load; ASYM_PACKING. */
export function updateSdPickBusiest48(
  env: LbEnv,
  sds: SdLbStats48,
  sg: SchedGroup,
  sgs: SgLbStats48,
): boolean {
  const busiest = sds.busiestStat;
  if (typeRank(sgs.groupType) > typeRank(busiest.groupType)) return true;
  if (typeRank(sgs.groupType) < typeRank(busiest.groupType)) return false;
  if (sgs.avgLoad <= busiest.avgLoad) return false;
  if (!(env.sd.flags & SD_ASYM_PACKING)) return true;
  if (env.idle === "CPU_NOT_IDLE") return true;
  // ASYM_PACKING moves work to the lowest numbered CPUs
  if (sgs.sumNrRunning && env.dstCpu < sg.cpus[0]) {
    if (!sds.busiest) return true;
    if (sds.busiest.cpus[0] < sg.cpus[0]) return true;
  }
  return false;
}

/**
 * The task count above which prefer-sibling marks a group full: 1 in v4.1 ... v4.11 (fair.c
 * v4.8.17, v4.11: "sgs->sum_nr_running > 1"); from v4.12 one more than the local group runs
 * ("sgs->sum_nr_running > local->sum_nr_running + 1", fair.c v4.12, v4.15, v4.19).
 */
function preferSiblingFloor(env: LbEnv, local: SgLbStats48): number {
  return atLeast412(env.era) ? local.sumNrRunning + 1 : 1;
}

/** update_sd_lb_stats (4.8), including the prefer-sibling capacity clamp. */
export function updateSdLbStats48(env: LbEnv): SdLbStats48 {
  const sd = env.sd;
  const sds: SdLbStats48 = {
    busiest: null,
    local: null,
    totalRunning: 0,
    totalLoad: 0,
    totalCapacity: 0,
    avgLoad: 0,
    busiestStat: emptySgs(),
    localStat: emptySgs(),
  };
  const preferSibling = sd.child !== null && (sd.child.flags & SD_PREFER_SIBLING) !== 0;
  const loadIdx = getSdLoadIdx(sd, env.idle);
  for (const sg of sd.groups) {
    const localGroup = sg.cpus.includes(env.dstCpu);
    const sgs = updateSgLbStats48(env, sg, loadIdx, localGroup);
    if (localGroup) {
      sds.local = sg;
      sds.localStat = sgs;
    } else {
      // Move excess tasks to siblings while the local group has room for them.
      if (capacityInTasks(env)) {
        // 3.19: lower the group's capacity factor to one (group_has_free_capacity is kept)
        if (preferSibling && sds.local && sds.localStat.groupHasFreeCapacity) {
          sgs.groupCapacityFactor = Math.min(sgs.groupCapacityFactor, 1);
          sgs.groupNoCapacity = sgs.sumNrRunning > sgs.groupCapacityFactor;
          sgs.groupType = groupClassify48(sg, sgs);
        }
      } else if (
        preferSibling &&
        sds.local &&
        groupHasCapacity48(env, sds.localStat) &&
        sgs.sumNrRunning > preferSiblingFloor(env, sds.localStat)
      ) {
        sgs.groupNoCapacity = true;
        sgs.groupType = groupClassify48(sg, sgs);
      }
      if (updateSdPickBusiest48(env, sds, sg, sgs)) {
        sds.busiest = sg;
        sds.busiestStat = sgs;
      }
    }
    sds.totalRunning += sgs.sumNrRunning;
    sds.totalLoad += sgs.groupLoad;
    sds.totalCapacity += sgs.groupCapacity;
  }
  return sds;
}

/** check_asym_packing (4.8): an idle lower-numbered CPU pulls everything from busiest. */
function checkAsymPacking48(env: LbEnv, sds: SdLbStats48): boolean {
  if (!(env.sd.flags & SD_ASYM_PACKING) || env.idle === "CPU_NOT_IDLE" || !sds.busiest)
    return false;
  if (env.dstCpu > sds.busiest.cpus[0]) return false;
  env.imbalance = Math.round(
    (sds.busiestStat.avgLoad * sds.busiestStat.groupCapacity) / SCHED_LOAD_SCALE,
  );
  return true;
}

/**
 * fix_small_imbalance: the computed imbalance is below one task; move one if the gap is at
 * least a task (imbn = 2 with an empty local group) or if it increases capacity used.
 */
export function fixSmallImbalance48(
  env: LbEnv,
  sds: SdLbStats48,
  busiestLoadPerTask: number,
): number {
  const local = sds.localStat;
  const busiest = sds.busiestStat;
  let localLoadPerTask = local.loadPerTask;
  let imbn = 2;
  if (!local.sumNrRunning) localLoadPerTask = cpuAvgLoadPerTask(env.rq(env.dstCpu), env.era);
  else if (busiestLoadPerTask > localLoadPerTask) imbn = 1;
  const scaledBusyLoadPerTask = Math.floor(
    (busiestLoadPerTask * SCHED_LOAD_SCALE) / busiest.groupCapacity,
  );
  if (busiest.avgLoad + scaledBusyLoadPerTask >= local.avgLoad + scaledBusyLoadPerTask * imbn)
    return busiestLoadPerTask;

  let capaNow = busiest.groupCapacity * Math.min(busiestLoadPerTask, busiest.avgLoad);
  capaNow += local.groupCapacity * Math.min(localLoadPerTask, local.avgLoad);
  capaNow = Math.floor(capaNow / SCHED_LOAD_SCALE);
  let capaMove = 0;
  if (busiest.avgLoad > scaledBusyLoadPerTask) {
    capaMove +=
      busiest.groupCapacity * Math.min(busiestLoadPerTask, busiest.avgLoad - scaledBusyLoadPerTask);
  }
  let tmp: number;
  if (busiest.avgLoad * busiest.groupCapacity < busiestLoadPerTask * SCHED_LOAD_SCALE) {
    tmp = Math.floor((busiest.avgLoad * busiest.groupCapacity) / local.groupCapacity);
  } else {
    tmp = Math.floor((busiestLoadPerTask * SCHED_LOAD_SCALE) / local.groupCapacity);
  }
  capaMove += local.groupCapacity * Math.min(localLoadPerTask, local.avgLoad + tmp);
  capaMove = Math.floor(capaMove / SCHED_LOAD_SCALE);
  return capaMove > capaNow ? busiestLoadPerTask : env.imbalance;
}

/** calculate_imbalance (4.8): pull toward the domain average without going below capacity. */
export function calculateImbalance48(env: LbEnv, sds: SdLbStats48): ImbalanceResult {
  const local = sds.localStat;
  const busiest = sds.busiestStat;
  let busiestLoadPerTask = busiest.loadPerTask;
  if (busiest.groupType === "group_imbalanced")
    busiestLoadPerTask = Math.min(busiestLoadPerTask, sds.avgLoad);
  const done = (imbalance: number): ImbalanceResult => ({
    imbalance,
    migrationType: "migrate_load",
  });
  if (busiest.avgLoad <= sds.avgLoad || local.avgLoad >= sds.avgLoad) {
    env.imbalance = 0;
    return done(fixSmallImbalance48(env, sds, busiestLoadPerTask));
  }
  let loadAboveCapacity = ULONG_MAX;
  // If there aren't any idle cpus, avoid creating some.
  if (
    busiest.groupType === "group_overloaded" &&
    local.groupType === "group_overloaded" &&
    capacityInTasks(env)
  ) {
    // 3.19: the tasks above the capacity factor, in load per capacity
    loadAboveCapacity = Math.floor(
      ((busiest.sumNrRunning - busiest.groupCapacityFactor) * SCHED_LOAD_SCALE * 1024) /
        busiest.groupCapacity,
    );
  } else if (busiest.groupType === "group_overloaded" && local.groupType === "group_overloaded") {
    loadAboveCapacity = busiest.sumNrRunning * SCHED_LOAD_SCALE;
    if (loadAboveCapacity > busiest.groupCapacity) {
      loadAboveCapacity -= busiest.groupCapacity;
      loadAboveCapacity = Math.floor(
        (loadAboveCapacity * SCHED_LOAD_SCALE) / busiest.groupCapacity,
      );
    } else {
      loadAboveCapacity = ULONG_MAX;
    }
  }
  const maxPull = Math.min(busiest.avgLoad - sds.avgLoad, loadAboveCapacity);
  env.imbalance = Math.floor(
    Math.min(maxPull * busiest.groupCapacity, (sds.avgLoad - local.avgLoad) * local.groupCapacity) /
      SCHED_LOAD_SCALE,
  );
  if (env.imbalance < busiestLoadPerTask)
    return done(fixSmallImbalance48(env, sds, busiestLoadPerTask));
  return done(env.imbalance);
}

/** The 4.x calculate_imbalance hook body. */
export function calculateImbalance48Hook(ctx: CalculateImbalanceCtx): ImbalanceResult {
  if (ctx.family !== "4.x") throw new Error("calculateImbalance48Hook: 4.x statistics expected");
  return calculateImbalance48(ctx.env, ctx.sds);
}

/** The idle-CPU slack of the CPU_IDLE test; the kernel's constant is 1 (seed 000 makes it 2). */
export function idleImbalanceSlack(ctx: IdleImbalanceSlackCtx): number {
  void ctx;
  return 1;
}

/**
 * find_busiest_group (4.8). Balanced when: no busiest or it has no tasks; local avg_load >=
 * busiest's or >= the domain average; CPU_IDLE and busiest not overloaded with
 * local->idle_cpus <= busiest->idle_cpus + slack; otherwise (NOT_IDLE/NEWLY_IDLE) when
 * 100*busiest avg <= imbalance_pct*local avg. Forced: imbalanced busiest, or newidle with
 * room here and an overloaded busiest.
 */
export function findBusiestGroup48(ctx: FindBusiestGroupCtx): FbgResult {
  const { env } = ctx;
  const sds = updateSdLbStats48(env);
  const local = sds.localStat;
  const busiest = sds.busiestStat;
  const stats = sds;
  const balanced = (reason: Extract<FbgResult, { balanced: true }>["reason"]): FbgResult => {
    env.imbalance = 0;
    return { balanced: true, reason, stats };
  };
  if (checkAsymPacking48(env, sds)) {
    return {
      balanced: false,
      busiestGroup: sds.busiest!,
      imbalance: env.imbalance,
      migrationType: "migrate_load",
      forced: true,
      stats,
    };
  }
  if (!sds.busiest || busiest.sumNrRunning === 0)
    return balanced(sds.busiest ? "busiest_no_tasks" : "no_busiest");
  sds.avgLoad = Math.floor((SCHED_LOAD_SCALE * sds.totalLoad) / sds.totalCapacity);
  let forced = busiest.groupType === "group_imbalanced";
  // SD_BALANCE_NEWIDLE trumps SMP nice when underutilized (3.19: by free capacity in tasks)
  const busiestFull = capacityInTasks(env)
    ? !busiest.groupHasFreeCapacity
    : busiest.groupNoCapacity;
  if (!forced && env.idle === "CPU_NEWLY_IDLE" && hasCapacity(env, local) && busiestFull)
    forced = true;
  if (!forced) {
    if (local.avgLoad >= busiest.avgLoad) return balanced("local_ge_busiest");
    if (local.avgLoad >= sds.avgLoad) return balanced("local_ge_domain_avg");
    if (env.idle === "CPU_IDLE") {
      const slack = lbHook(
        env.hooks,
        "fair.idle_imbalance_slack",
        idleImbalanceSlack,
      )({
        env,
        sdLlcSize: env.sdLlcSize,
        localIdleCpus: local.idleCpus,
        busiestIdleCpus: busiest.idleCpus,
        busiestGroupWeight: busiest.groupWeight,
      });
      if (busiest.groupType !== "group_overloaded" && local.idleCpus <= busiest.idleCpus + slack)
        return balanced("idle_cpus");
    } else if (100 * busiest.avgLoad <= env.sd.imbalancePct * local.avgLoad) {
      return balanced("imbalance_pct");
    }
  }
  const res = lbHook(
    env.hooks,
    "fair.calculate_imbalance",
    calculateImbalance48Hook,
  )({ env, family: "4.x", sds });
  env.imbalance = res.imbalance;
  env.migrationType = res.migrationType;
  return {
    balanced: false,
    busiestGroup: sds.busiest,
    imbalance: res.imbalance,
    migrationType: res.migrationType,
    forced,
    stats,
  };
}

/**
 * find_busiest_queue (4.8): max weighted_cpuload / capacity; a CPU with a single task heavier
 * than the imbalance is skipped unless its capacity is reduced (check_cpu_capacity). 3.19 skips
 * it when the CPU has a capacity factor (capacity_factor.ts).
 */
export function findBusiestQueue48(ctx: FindBusiestQueueCtx): LbRq | null {
  const { env, group } = ctx;
  const inTasks = capacityInTasks(env);
  let busiest: LbRq | null = null;
  let busiestLoad = 0;
  let busiestCapacity = 1;
  for (const i of group.cpus) {
    if (!env.cpus.has(i)) continue;
    const rq = env.rq(i);
    const capacity = rq.cpuCapacity;
    const wl = weightedCpuload(rq, env.era);
    const reduced = inTasks
      ? !cpuCapacityFactor(env.sd, group, capacity)
      : checkCpuCapacity(rq, env.sd);
    if (rq.nrRunning === 1 && wl > env.imbalance && !reduced) continue;
    if (wl * busiestCapacity > busiestLoad * capacity) {
      busiestLoad = wl;
      busiestCapacity = capacity;
      busiest = rq;
    }
  }
  return busiest;
}

/**
 * need_active_balance (4.8): ASYM_PACKING on newidle; an idle dst and a source with one CFS
 * task on RT/IRQ-reduced capacity; otherwise nr_balance_failed > cache_nice_tries + 2.
 */
export function needActiveBalance48(ctx: NeedActiveBalanceCtx): boolean {
  const { env } = ctx;
  const sd = env.sd;
  if (env.idle === "CPU_NEWLY_IDLE" && sd.flags & SD_ASYM_PACKING && env.srcCpu > env.dstCpu)
    return true;
  const src = env.rq(env.srcCpu);
  if (env.idle !== "CPU_NOT_IDLE" && src.cfsHNrRunning === 1) {
    if (
      checkCpuCapacity(src, sd) &&
      src.cpuCapacity * sd.imbalancePct < env.rq(env.dstCpu).cpuCapacity * 100
    )
      return true;
  }
  return sd.nrBalanceFailed > sd.cacheNiceTries + 2;
}
