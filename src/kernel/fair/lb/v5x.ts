// The 5.6 balancer decisions (Vincent Guittot's 5.5 rework plus Mel Gorman's 5.6 NUMA rule,
// which is the "fair.numa_imbalance" hook here): group_type / migration_type, PELT load
// (cpu_load = cfs_rq->avg.load_avg), util and task counts. Later eras reuse it with switches
// (docs/balancer-history.md lists each with its commit): 5.7 runnable_avg in the
// classification and no pull by a local group busier than busiest; 5.10 no migrate_util inside
// an LLC (LB_LLC_SPREAD); 5.12 active balance only for migrate_task failures; 5.18
// adjust_numa_imbalance before the >> 1; 6.3 no pull by a local group above average; 6.5/6.6
// group_smt_balance and the SMT tie rules (LB_SMT_BALANCE, v66.ts) and sibling_imbalance
// (LB_SIBLING_IMBALANCE, v66.ts). 6.10 renamed find_busiest_group / find_busiest_queue /
// load_balance to sched_balance_find_src_group / _src_rq / sched_balance_rq; the model keeps
// the older names. Misfit tasks on SD_ASYM_CPUCAPACITY domains: misfit.ts. Not modelled: EAS,
// 6.0+ sched_reduced_capacity (misfit-like pulls from CPUs that RT/IRQ pressure reduced), NUMA
// balancing's fbq_type, asym packing priorities beyond lower-CPU-first.
import type { SchedGroup } from "../../topology/sched_domain";
import { SD_ASYM_PACKING, SD_NUMA, SD_PREFER_SIBLING } from "../../topology/sched_domain";
import {
  type CalculateImbalanceCtx,
  type FbgResult,
  type FindBusiestGroupCtx,
  type FindBusiestQueueCtx,
  GROUP_TYPES_56,
  type GroupClassifyCtx,
  type GroupType56,
  type ImbalanceResult,
  type LbEnv,
  type LbRq,
  type NeedActiveBalanceCtx,
  type NumaImbalanceCtx,
  SCHED_LOAD_SCALE,
  type SdLbStats56,
  type SgLbStats56,
} from "./types";
import { checkCpuCapacity, cpuUtil, lbHook, schedAsymPrefer } from "./common";
import { eraAtLeastFn } from "../../features";
import { idleImbalanceSlack } from "./v48";
import { siblingImbalance, smtBalance, smtGroup, smtVsNonsmtGroups } from "./v66";
import { SD_SHARE_PKG_RESOURCES } from "../../topology/sched_domain";
import { asymDomain, biggerGroupNotBusy, misfitCannotHelp, skipBiggerSingleTaskRq } from "./misfit";

const atLeast57 = eraAtLeastFn("5.7");

const UINT_MAX = 4294967295;
const ULONG_MAX = 2 ** 64 - 1;
export const groupTypeRank = (t: GroupType56): number => GROUP_TYPES_56.indexOf(t);
/** unsigned long subtraction: wraps instead of going negative (as the kernel's does). */
const usub = (a: number, b: number): number => (a >= b ? a - b : ULONG_MAX - (b - a) + 1);

function emptySgs(): SgLbStats56 {
  return {
    avgLoad: 0,
    groupLoad: 0,
    groupCapacity: 0,
    groupUtil: 0,
    groupRunnable: 0,
    sumNrRunning: 0,
    sumHNrRunning: 0,
    idleCpus: 0,
    groupWeight: 0,
    groupType: "group_has_spare",
    groupAsymPacking: false,
    groupMisfitTaskLoad: 0,
  };
}

/**
 * The load update_sg_lb_stats and find_busiest_queue read: cpu_load(rq), the cfs_rq's load_avg
 * with its blocked load, in every 5.x era (Vincent Guittot, b0fb1eb4f04a "sched/fair: Use load
 * instead of runnable load in load_balance()", v5.5; 5.6 still kept runnable_load_avg, for NUMA
 * statistics only).
 */
export function cpuLoad56(rq: LbRq): number {
  return rq.cfsLoadAvg;
}

/** group_has_capacity (5.6; 5.7+ also refuses when runnable exceeds capacity). */
export function groupHasCapacity56(env: LbEnv, sgs: SgLbStats56): boolean {
  const pct = env.sd.imbalancePct;
  if (sgs.sumNrRunning < sgs.groupWeight) return true;
  if (env.features.LB_GROUP_RUNNABLE && sgs.groupCapacity * pct < sgs.groupRunnable * 100)
    return false;
  return sgs.groupCapacity * 100 > sgs.groupUtil * pct;
}

/** group_is_overloaded (5.6; 5.7+ also when runnable exceeds capacity). */
export function groupIsOverloaded56(env: LbEnv, sgs: SgLbStats56): boolean {
  const pct = env.sd.imbalancePct;
  if (sgs.sumNrRunning <= sgs.groupWeight) return false;
  if (sgs.groupCapacity * 100 < sgs.groupUtil * pct) return true;
  return env.features.LB_GROUP_RUNNABLE && sgs.groupCapacity * pct < sgs.groupRunnable * 100;
}

/**
 * group_classify (5.5+): overloaded > imbalanced > asym_packing > (6.6+ smt_balance) > misfit >
 * fully_busy > has_spare.
 */
export function groupClassify56(ctx: GroupClassifyCtx): GroupType56 {
  const { env, group, sgs } = ctx;
  if (groupIsOverloaded56(env, sgs)) return "group_overloaded";
  if (group.imbalance) return "group_imbalanced";
  if (sgs.groupAsymPacking) return "group_asym_packing";
  if (sgs.groupSmtBalance) return "group_smt_balance";
  if (sgs.groupMisfitTaskLoad) return "group_misfit_task";
  if (!groupHasCapacity56(env, sgs)) return "group_fully_busy";
  return "group_has_spare";
}

/** update_sg_lb_stats (5.6): avg_load is only computed for overloaded groups. */
export function updateSgLbStats56(env: LbEnv, group: SchedGroup): SgLbStats56 {
  const sgs = emptySgs();
  const localGroup = group.cpus.includes(env.dstCpu);
  const asym = asymDomain(env);
  for (const i of group.cpus) {
    if (!env.cpus.has(i)) continue;
    const rq = env.rq(i);
    sgs.groupLoad += cpuLoad56(rq);
    sgs.groupUtil += cpuUtil(rq, env.era);
    sgs.groupRunnable += rq.cfsRunnableAvg;
    sgs.sumHNrRunning += rq.cfsHNrRunning;
    sgs.sumNrRunning += rq.nrRunning;
    if (!rq.nrRunning && rq.idle) {
      sgs.idleCpus++;
      continue; // an idle CPU can't have a misfit task
    }
    // Check for a misfit task on the CPU (not in the local group: no point pulling from ourselves)
    if (!localGroup && asym && sgs.groupMisfitTaskLoad < (rq.misfitTaskLoad ?? 0))
      sgs.groupMisfitTaskLoad = rq.misfitTaskLoad ?? 0;
  }
  if (
    env.sd.flags & SD_ASYM_PACKING &&
    env.idle !== "CPU_NOT_IDLE" &&
    sgs.sumHNrRunning &&
    schedAsymPrefer(env.dstCpu, group.cpus[0])
  ) {
    sgs.groupAsymPacking = true;
  }
  sgs.groupCapacity = group.capacity;
  sgs.groupWeight = group.weight;
  // Check for loaded SMT group to be balanced to dst CPU (6.6+)
  if (
    env.features.LB_SMT_BALANCE &&
    !group.cpus.includes(env.dstCpu) &&
    smtBalance(env, sgs, group)
  )
    sgs.groupSmtBalance = true;
  sgs.groupType = lbHook(env.hooks, "fair.group_classify", groupClassify56)({ env, group, sgs });
  if (sgs.groupType === "group_overloaded")
    sgs.avgLoad = Math.floor((sgs.groupLoad * SCHED_LOAD_SCALE) / sgs.groupCapacity);
  return sgs;
}

/**
 * update_sd_pick_busiest (5.6): a group with CFS tasks; higher group_type wins; within a type:
 * overloaded/fully_busy by avg_load, the first imbalanced, asym by preference, has_spare by
 * fewer idle CPUs then more running tasks.
 */
export function updateSdPickBusiest56(
  env: LbEnv,
  sds: SdLbStats56,
  sg: SchedGroup,
  sgs: SgLbStats56,
): boolean {
  const busiest = sds.busiestStat;
  if (!sgs.sumHNrRunning) return false;
  // Don't try to pull misfit tasks we can't help
  if (
    sgs.groupType === "group_misfit_task" &&
    (misfitCannotHelp(env, sg, sds.local) || sds.localStat.groupType !== "group_has_spare")
  )
    return false;
  const r = groupTypeRank(sgs.groupType);
  const rb = groupTypeRank(busiest.groupType);
  if (r > rb) return true;
  if (r < rb) return false;
  if (!pickSameType(env, sds, sg, sgs)) return false;
  // No more than one task per CPU on bigger CPUs: moving them to smaller ones harms throughput
  return !(
    groupTypeRank(sgs.groupType) <= groupTypeRank("group_fully_busy") &&
    biggerGroupNotBusy(env, sg, sds.local)
  );
}

/** update_sd_pick_busiest's switch: between two groups of the same type, is `sg` busier? */
function pickSameType(env: LbEnv, sds: SdLbStats56, sg: SchedGroup, sgs: SgLbStats56): boolean {
  const busiest = sds.busiestStat;
  const smt = env.features.LB_SMT_BALANCE;
  switch (sgs.groupType) {
    case "group_overloaded":
      return sgs.avgLoad > busiest.avgLoad;
    case "group_smt_balance":
      // Spare CPUs on either SMT group: has_spare handling; else fully_busy (450e749707bc)
      if (sgs.idleCpus !== 0 || busiest.idleCpus !== 0) return pickHasSpare(sgs, busiest);
      return pickFullyBusy(sds, sgs, smt);
    case "group_fully_busy":
      return pickFullyBusy(sds, sgs, smt);
    case "group_imbalanced":
      return false;
    case "group_asym_packing":
      return !schedAsymPrefer(sg.cpus[0], sds.busiest!.cpus[0]);
    case "group_misfit_task":
      return sgs.groupMisfitTaskLoad >= busiest.groupMisfitTaskLoad;
    case "group_has_spare":
      // 6.6+: do not pick an SMT group running one task over a non-SMT group (the core would
      // go idle)
      if (smt && smtVsNonsmtGroups(sds.busiest, sg))
        return !(smtGroup(sg) && sgs.sumHNrRunning <= 1);
      return pickHasSpare(sgs, busiest);
  }
}

/**
 * fully_busy: avg_load is not computed (0), so the first such group wins; 6.5+ (5fd6d7f43958,
 * under LB_SMT_BALANCE) keeps an SMT busiest on a tie and lets a later group replace a non-SMT one.
 */
function pickFullyBusy(sds: SdLbStats56, sgs: SgLbStats56, smt: boolean): boolean {
  const busiest = sds.busiestStat;
  if (!smt) return sgs.avgLoad > busiest.avgLoad;
  if (sgs.avgLoad < busiest.avgLoad) return false;
  // SMT sched groups need more help than non-SMT groups.
  return !(sgs.avgLoad === busiest.avgLoad && smtGroup(sds.busiest));
}

/** has_spare: the group with fewer idle CPUs, then more running tasks. */
function pickHasSpare(sgs: SgLbStats56, busiest: SgLbStats56): boolean {
  if (sgs.idleCpus > busiest.idleCpus) return false;
  return !(sgs.idleCpus === busiest.idleCpus && sgs.sumNrRunning <= busiest.sumNrRunning);
}

/** update_sd_lb_stats (5.6). prefer_sibling: the child domain has SD_PREFER_SIBLING. */
export function updateSdLbStats56(env: LbEnv): SdLbStats56 {
  const sd = env.sd;
  const sds: SdLbStats56 = {
    busiest: null,
    local: null,
    totalLoad: 0,
    totalCapacity: 0,
    avgLoad: 0,
    preferSibling: false,
    busiestStat: { ...emptySgs(), idleCpus: UINT_MAX },
    localStat: emptySgs(),
  };
  let sumUtil = 0;
  for (const sg of sd.groups) {
    const sgs = updateSgLbStats56(env, sg);
    sumUtil += sgs.groupUtil;
    if (sg.cpus.includes(env.dstCpu)) {
      sds.local = sg;
      sds.localStat = sgs;
    } else if (updateSdPickBusiest56(env, sds, sg, sgs)) {
      sds.busiest = sg;
      sds.busiestStat = sgs;
    }
    sds.totalLoad += sgs.groupLoad;
    sds.totalCapacity += sgs.groupCapacity;
  }
  sds.preferSibling = sd.child !== null && (sd.child.flags & SD_PREFER_SIBLING) !== 0;
  env.updateIdleCpuScan?.(sumUtil); // v6.0+: update_idle_cpu_scan(env, sum_util)
  return sds;
}

/**
 * The NUMA allowance in the has_spare branch. Era defaults: 5.6 and older none (the model's 5.6
 * is the tree before b396f52326de, seed 003's patch); 5.10 that rule (0 when
 * busiest->sum_nr_running <= 2); 5.18+ adjust_numa_imbalance with imb_numa_nr.
 */
export function numaImbalance(ctx: NumaImbalanceCtx): number {
  if (!(ctx.sd.flags & SD_NUMA)) return ctx.imbalance;
  if (ctx.env.features.LB_IMB_NUMA_NR)
    return adjustNumaImbalance(ctx.imbalance, ctx.dstRunning, ctx.imbNumaNr);
  if (atLeast57(ctx.env.era)) return numaImbalanceSmallPair56(ctx);
  return ctx.imbalance;
}

/** NUMA_IMBALANCE_MIN (5.18+). */
export const NUMA_IMBALANCE_MIN = 2;

/** adjust_numa_imbalance (5.18+): ignore a small imbalance while the destination is lightly used. */
export function adjustNumaImbalance(
  imbalance: number,
  dstRunning: number,
  imbNumaNr: number,
): number {
  if (dstRunning > imbNumaNr) return imbalance;
  if (imbalance <= NUMA_IMBALANCE_MIN) return 0;
  return imbalance;
}

/** Seed 003's rule as merged in 5.6 ("Allow a small load imbalance between low utilisation SD_NUMA domains"). */
export function numaImbalanceSmallPair56(ctx: NumaImbalanceCtx): number {
  const imbalanceMin = 2;
  if (ctx.sd.flags & SD_NUMA && ctx.busiestSumNrRunning <= imbalanceMin) return 0;
  return ctx.imbalance;
}

/** calculate_imbalance (5.6): choose what to migrate (load, util, tasks, misfit) and how much. */
export function calculateImbalance56(env: LbEnv, sds: SdLbStats56): ImbalanceResult {
  const local = sds.localStat;
  const busiest = sds.busiestStat;
  if (busiest.groupType === "group_misfit_task")
    return { migrationType: "migrate_misfit", imbalance: 1 };
  if (busiest.groupType === "group_asym_packing")
    return { migrationType: "migrate_task", imbalance: busiest.sumHNrRunning };
  // 6.6+: reduce the number of tasks sharing CPU capacity
  if (busiest.groupType === "group_smt_balance")
    return { migrationType: "migrate_task", imbalance: 1 };
  // group_imb: move any task; the next pass balances back
  if (busiest.groupType === "group_imbalanced")
    return { migrationType: "migrate_task", imbalance: 1 };

  if (local.groupType === "group_has_spare") {
    // 5.10+ (LB_LLC_SPREAD): inside an LLC spread tasks as the wakeup path does, by count
    const llcSpread = env.features.LB_LLC_SPREAD && (env.sd.flags & SD_SHARE_PKG_RESOURCES) !== 0;
    if (groupTypeRank(busiest.groupType) > groupTypeRank("group_fully_busy") && !llcSpread) {
      // busiest overloaded: fill local's spare capacity
      const imbalance = Math.max(local.groupCapacity, local.groupUtil) - local.groupUtil;
      if (env.idle !== "CPU_NOT_IDLE" && imbalance === 0)
        return { migrationType: "migrate_task", imbalance: 1 };
      return { migrationType: "migrate_util", imbalance };
    }
    const late = env.features.LB_IMB_NUMA_NR; // the >> 1 moved after the NUMA adjustment (5.18)
    let imbalance: number;
    if (busiest.groupWeight === 1 || sds.preferSibling) {
      // spread running tasks evenly over the groups (6.6+: per core, sibling_imbalance)
      imbalance = env.features.LB_SIBLING_IMBALANCE
        ? siblingImbalance(env, sds, busiest, local)
        : Math.max(0, busiest.sumNrRunning - local.sumNrRunning);
    } else {
      // no overload: even out the number of idle CPUs
      imbalance = Math.max(0, local.idleCpus - busiest.idleCpus);
    }
    if (!late) imbalance >>= 1;
    imbalance = lbHook(
      env.hooks,
      "fair.numa_imbalance",
      numaImbalance,
    )({
      env,
      sd: env.sd,
      imbalance,
      halved: !late,
      busiestSumNrRunning: busiest.sumNrRunning,
      localSumNrRunning: local.sumNrRunning,
      dstRunning: local.sumNrRunning + 1,
      imbNumaNr: env.sd.imbNumaNr,
    });
    if (late) imbalance >>= 1;
    return { migrationType: "migrate_task", imbalance };
  }

  // local is fully busy (or worse) but has to take load: avg_load is needed now
  if (groupTypeRank(local.groupType) < groupTypeRank("group_overloaded")) {
    local.avgLoad = Math.floor((local.groupLoad * SCHED_LOAD_SCALE) / local.groupCapacity);
    // 5.7+ (111688ca1c4a): local more loaded than busiest pulls nothing; 5.6 wraps below
    if (env.features.LB_FULLY_BUSY_NO_PULL && local.avgLoad >= busiest.avgLoad)
      return { migrationType: "migrate_load", imbalance: 0 };
    sds.avgLoad = Math.floor((sds.totalLoad * SCHED_LOAD_SCALE) / sds.totalCapacity);
    // 6.3+ (91dcf1e8068e): nor does a local group above the domain average
    if (env.features.LB_LOCAL_ABOVE_SD_AVG && local.avgLoad >= sds.avgLoad)
      return { migrationType: "migrate_load", imbalance: 0 };
  }
  const imbalance = Math.floor(
    Math.min(
      usub(busiest.avgLoad, sds.avgLoad) * busiest.groupCapacity,
      usub(sds.avgLoad, local.avgLoad) * local.groupCapacity,
    ) / SCHED_LOAD_SCALE,
  );
  return { migrationType: "migrate_load", imbalance };
}

/** The 5.x calculate_imbalance hook body. */
export function calculateImbalance56Hook(ctx: CalculateImbalanceCtx): ImbalanceResult {
  if (ctx.family !== "5.x") throw new Error("calculateImbalance56Hook: 5.x statistics expected");
  return calculateImbalance56(ctx.env, ctx.sds);
}

/**
 * find_busiest_group (5.6) with the decision matrix of the rework: misfit/asym/imbalanced
 * force; local busier type => balanced; overloaded local compares avg_load; prefer-sibling
 * forces when busiest runs 2+ more tasks; a non-overloaded busiest is balanced if this CPU is
 * busy, if the idle CPU counts differ by at most the slack, or if it has a single task.
 * Returns busiest only when the computed imbalance is non-zero.
 */
export function findBusiestGroup56(ctx: FindBusiestGroupCtx): FbgResult {
  const { env } = ctx;
  const sds = updateSdLbStats56(env);
  const local = sds.localStat;
  const busiest = sds.busiestStat;
  const stats = sds;
  const balanced = (reason: Extract<FbgResult, { balanced: true }>["reason"]): FbgResult => {
    env.imbalance = 0;
    return { balanced: true, reason, stats };
  };
  if (!sds.busiest) return balanced("no_busiest");
  const bt = busiest.groupType;
  let forced =
    bt === "group_misfit_task" || bt === "group_asym_packing" || bt === "group_imbalanced";
  if (!forced) {
    if (groupTypeRank(local.groupType) > groupTypeRank(bt)) return balanced("local_busier_type");
    if (local.groupType === "group_overloaded") {
      if (local.avgLoad >= busiest.avgLoad) return balanced("local_ge_busiest");
      sds.avgLoad = Math.floor((sds.totalLoad * SCHED_LOAD_SCALE) / sds.totalCapacity);
      if (local.avgLoad >= sds.avgLoad) return balanced("local_ge_domain_avg");
      if (100 * busiest.avgLoad <= env.sd.imbalancePct * local.avgLoad)
        return balanced("imbalance_pct");
    }
    // Try to move all excess tasks to the child's sibling domain.
    if (
      sds.preferSibling &&
      local.groupType === "group_has_spare" &&
      (env.features.LB_SIBLING_IMBALANCE
        ? siblingImbalance(env, sds, busiest, local) > 1
        : busiest.sumNrRunning > local.sumNrRunning + 1)
    ) {
      forced = true;
    } else if (bt !== "group_overloaded") {
      if (env.idle === "CPU_NOT_IDLE") return balanced("busy_dst_not_overloaded");
      // 6.6+: let a non-SMT CPU pull from an SMT core whose threads share it
      if (bt === "group_smt_balance" && smtVsNonsmtGroups(sds.local, sds.busiest)) forced = true;
    }
    if (!forced && bt !== "group_overloaded") {
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
      if (busiest.groupWeight > 1 && local.idleCpus <= busiest.idleCpus + slack)
        return balanced("idle_cpus");
      if (busiest.sumHNrRunning === 1) return balanced("busiest_single_task");
    }
  }
  const res = lbHook(
    env.hooks,
    "fair.calculate_imbalance",
    calculateImbalance56Hook,
  )({ env, family: "5.x", sds });
  env.imbalance = res.imbalance;
  env.migrationType = res.migrationType;
  if (!res.imbalance) return balanced("zero_imbalance");
  return {
    balanced: false,
    busiestGroup: sds.busiest,
    imbalance: res.imbalance,
    migrationType: res.migrationType,
    forced,
    stats,
  };
}

/** find_busiest_queue (5.6), per migration type: load/capacity, util, CFS task count, misfit. */
export function findBusiestQueue56(ctx: FindBusiestQueueCtx): LbRq | null {
  const { env, group } = ctx;
  let busiest: LbRq | null = null;
  let busiestUtil = 0,
    busiestLoad = 0,
    busiestCapacity = 1,
    busiestNr = 0;
  for (const i of group.cpus) {
    if (!env.cpus.has(i)) continue;
    const rq = env.rq(i);
    const capacity = rq.cpuCapacity;
    const nrRunning = rq.cfsHNrRunning;
    if (skipBiggerSingleTaskRq(env, capacity, nrRunning)) continue;
    switch (env.migrationType) {
      case "migrate_load": {
        const load = cpuLoad56(rq);
        if (nrRunning === 1 && load > env.imbalance && !checkCpuCapacity(rq, env.sd)) break;
        if (load * busiestCapacity > busiestLoad * capacity) {
          busiestLoad = load;
          busiestCapacity = capacity;
          busiest = rq;
        }
        break;
      }
      case "migrate_util": {
        const util = cpuUtil(rq, env.era);
        if (busiestUtil < util) {
          busiestUtil = util;
          busiest = rq;
        }
        break;
      }
      case "migrate_task":
        if (busiestNr < nrRunning) {
          busiestNr = nrRunning;
          busiest = rq;
        }
        break;
      case "migrate_misfit": {
        const misfit = rq.misfitTaskLoad ?? 0;
        if (misfit > busiestLoad) {
          busiestLoad = misfit;
          busiest = rq;
        }
        break;
      }
    }
  }
  return busiest;
}

/**
 * voluntary_active_balance (5.6): ASYM_PACKING with an idle dst; a single CFS task on a CPU
 * whose capacity RT/IRQ reduced; a misfit task.
 */
export function voluntaryActiveBalance56(env: LbEnv): boolean {
  const sd = env.sd;
  if (
    env.idle !== "CPU_NOT_IDLE" &&
    sd.flags & SD_ASYM_PACKING &&
    schedAsymPrefer(env.dstCpu, env.srcCpu)
  )
    return true;
  const src = env.rq(env.srcCpu);
  if (env.idle !== "CPU_NOT_IDLE" && src.cfsHNrRunning === 1) {
    if (
      checkCpuCapacity(src, sd) &&
      src.cpuCapacity * sd.imbalancePct < env.rq(env.dstCpu).cpuCapacity * 100
    )
      return true;
  }
  return env.migrationType === "migrate_misfit";
}

/**
 * need_active_balance: 5.6 = voluntary || nr_balance_failed > cache_nice_tries + 2;
 * 5.12+ (e9b9734b7465) keeps the failure rule only for migrate_task (imbalanced_active_balance).
 */
export function needActiveBalance56(ctx: NeedActiveBalanceCtx): boolean {
  const { env } = ctx;
  const sd = env.sd;
  if (voluntaryActiveBalance56(env)) return true;
  const failedEnough = sd.nrBalanceFailed > sd.cacheNiceTries + 2;
  if (env.features.LB_ACTIVE_MIGRATE_TASK)
    return env.migrationType === "migrate_task" && failedEnough;
  return failedEnough;
}
