// The 2.6.29 balancer (kernel/sched.c): the monolithic find_busiest_group with __cpu_power,
// find_busiest_queue, load_balance and load_balance_newidle. Power-savings balancing
// (sched_mc_power_savings > 0) is not modelled; where the kernel branches on it, the branch
// for sched_mc_power_savings = 0 is taken and marked.
import type { SchedGroup } from "../../topology/sched_domain";
import { SD_SHARE_CPUCAPACITY } from "../../topology/sched_domain";
import {
  type FbgResult,
  type FindBusiestGroupCtx,
  type FindBusiestQueueCtx,
  LBF_ALL_PINNED,
  type LbDecision,
  type LbEnv,
  type LbMigration,
  type LbPassOutcome,
  type LbRq,
  type LoadBalanceResult,
  SCHED_LOAD_SCALE,
  SCHED_NR_MIGRATE_BREAK,
  type SgStats2629,
} from "./types";
import { sourceLoad, targetLoad, weightedCpuload } from "../cpu_load";
import {
  cpuAvgLoadPerTask,
  getSdLoadIdx,
  lbAccountPass,
  lbHook,
  lbNoteFailure,
  parentPowersavings,
  taskAllowedOn,
} from "./common";
import { balanceTasks2629 } from "./detach";

/** reciprocal_value(__cpu_power), as kept in sg->reciprocal_cpu_power. */
function reciprocalValue(b: number): number {
  return Math.floor((2 ** 32 + b - 1) / b);
}

/** sg_div_cpu_power: a / __cpu_power through reciprocal_divide (u32 operands, as 2.6.29). */
export function sgDivCpuPower(group: SchedGroup, a: number): number {
  const r = BigInt(reciprocalValue(group.capacity));
  return Number((BigInt(a >>> 0) * r) >> 32n);
}

interface Tally {
  stats: SgStats2629;
  balanceCpu: number;
}

/** One group's tally: loads biased toward the local group (target_load) and away from others. */
function tallyGroup(env: LbEnv, group: SchedGroup, loadIdx: number): Tally {
  const local = group.cpus.includes(env.dstCpu);
  let balanceCpu = local ? group.cpus[0] : -1;
  let firstIdleCpu = false;
  let load = 0;
  let sumNrRunning = 0;
  let sumWeightedLoad = 0;
  let sumAvgLoadPerTask = 0;
  let maxCpuLoad = 0;
  let minCpuLoad = Infinity;
  for (const i of group.cpus) {
    if (!env.cpus.has(i)) continue;
    const rq = env.rq(i);
    let l: number;
    if (local) {
      if (rq.idle && !firstIdleCpu) {
        firstIdleCpu = true;
        balanceCpu = i;
      }
      l = targetLoad(rq, loadIdx, env.era, env.features);
    } else {
      l = sourceLoad(rq, loadIdx, env.era, env.features);
      maxCpuLoad = Math.max(maxCpuLoad, l);
      minCpuLoad = Math.min(minCpuLoad, l);
    }
    load += l;
    sumNrRunning += rq.nrRunning;
    sumWeightedLoad += weightedCpuload(rq, env.era);
    sumAvgLoadPerTask += cpuAvgLoadPerTask(rq, env.era);
  }
  const avgLoad = sgDivCpuPower(group, load * SCHED_LOAD_SCALE);
  // "unbalanced when the imbalance is larger than the average weight of two tasks"
  const avgLoadPerTask = sgDivCpuPower(group, sumAvgLoadPerTask * SCHED_LOAD_SCALE);
  const spread = minCpuLoad === Infinity ? 1 : maxCpuLoad - minCpuLoad; // 0 - ~0UL wraps to 1
  return {
    balanceCpu,
    stats: {
      group,
      local,
      avgLoad,
      load,
      sumNrRunning,
      sumWeightedLoad,
      groupCapacity: Math.floor(group.capacity / SCHED_LOAD_SCALE),
      groupImb: spread > 2 * avgLoadPerTask,
    },
  };
}

/**
 * find_busiest_group (2.6.29). A remote group is a candidate only with the highest avg_load so
 * far and more tasks than its capacity (__cpu_power / 1024) or an internal imbalance. The
 * imbalance is the load that brings busiest down and this group up to the domain average.
 */
export function findBusiestGroup2629(ctx: FindBusiestGroupCtx): FbgResult {
  const { env } = ctx;
  const sd = env.sd;
  const loadIdx = getSdLoadIdx(sd, env.idle);
  let maxLoad = 0,
    thisLoad = 0,
    totalLoad = 0,
    totalPwr = 0;
  let busiest: SchedGroup | null = null;
  let thisGroup: SchedGroup | null = null;
  let busiestLoadPerTask = 0,
    busiestNrRunning = 0,
    thisLoadPerTask = 0,
    thisNrRunning = 0;
  let groupImb = false;
  const stats: SgStats2629[] = [];
  for (const group of sd.groups) {
    const { stats: sgs, balanceCpu } = tallyGroup(env, group, loadIdx);
    stats.push(sgs);
    // First idle cpu or the first cpu of the local group balances at this and higher levels.
    if (env.idle !== "CPU_NEWLY_IDLE" && sgs.local && balanceCpu !== env.dstCpu) {
      return { balanced: true, reason: "should_we_balance", stopBalancing: true, stats };
    }
    totalLoad += sgs.load;
    totalPwr += group.capacity;
    if (sgs.local) {
      thisLoad = sgs.avgLoad;
      thisGroup = group;
      thisNrRunning = sgs.sumNrRunning;
      thisLoadPerTask = sgs.sumWeightedLoad;
    } else if (sgs.avgLoad > maxLoad && (sgs.sumNrRunning > sgs.groupCapacity || sgs.groupImb)) {
      maxLoad = sgs.avgLoad;
      busiest = group;
      busiestNrRunning = sgs.sumNrRunning;
      busiestLoadPerTask = sgs.sumWeightedLoad;
      groupImb = sgs.groupImb;
    }
    // power savings group_min/group_leader tracking: skipped unless SD_POWERSAVINGS_BALANCE
    // and the CPU is idle; sched_mc_power_savings = 0 leaves the flag clear.
  }
  if (!busiest) return { balanced: true, reason: "no_busiest", stats };
  if (thisLoad >= maxLoad) return { balanced: true, reason: "local_ge_busiest", stats };
  if (busiestNrRunning === 0) return { balanced: true, reason: "busiest_no_tasks", stats };
  const avgLoad = Math.floor((SCHED_LOAD_SCALE * totalLoad) / totalPwr);
  if (thisLoad >= avgLoad) return { balanced: true, reason: "local_ge_domain_avg", stats };
  if (100 * maxLoad <= sd.imbalancePct * thisLoad)
    return { balanced: true, reason: "imbalance_pct", stats };

  busiestLoadPerTask = Math.floor(busiestLoadPerTask / busiestNrRunning);
  if (groupImb) busiestLoadPerTask = Math.min(busiestLoadPerTask, avgLoad);
  // Negative imbalances (we are busier) cannot be fixed by pulling.
  if (maxLoad <= busiestLoadPerTask)
    return { balanced: true, reason: "max_load_le_load_per_task", stats };

  const local = thisGroup!;
  let imbalance = 0;
  let small = maxLoad < avgLoad; // smp nice: max_load can be below avg (skipped groups)
  if (!small) {
    const maxPull = Math.min(maxLoad - avgLoad, maxLoad - busiestLoadPerTask);
    imbalance = Math.floor(
      Math.min(maxPull * busiest.capacity, (avgLoad - thisLoad) * local.capacity) /
        SCHED_LOAD_SCALE,
    );
    small = imbalance < busiestLoadPerTask;
  }
  if (small) {
    // small_imbalance: move one task if it narrows the gap or increases the power used
    let imbn = 2;
    if (thisNrRunning) {
      thisLoadPerTask = Math.floor(thisLoadPerTask / thisNrRunning);
      if (busiestLoadPerTask > thisLoadPerTask) imbn = 1;
    } else {
      thisLoadPerTask = cpuAvgLoadPerTask(env.rq(env.dstCpu), env.era);
    }
    if (maxLoad - thisLoad + busiestLoadPerTask >= busiestLoadPerTask * imbn) {
      imbalance = busiestLoadPerTask;
    } else {
      let pwrNow =
        busiest.capacity * Math.min(busiestLoadPerTask, maxLoad) +
        local.capacity * Math.min(thisLoadPerTask, thisLoad);
      pwrNow = Math.floor(pwrNow / SCHED_LOAD_SCALE);
      let pwrMove = 0;
      let tmp = sgDivCpuPower(busiest, busiestLoadPerTask * SCHED_LOAD_SCALE);
      if (maxLoad > tmp) pwrMove += busiest.capacity * Math.min(busiestLoadPerTask, maxLoad - tmp);
      if (maxLoad * busiest.capacity < busiestLoadPerTask * SCHED_LOAD_SCALE)
        tmp = sgDivCpuPower(local, maxLoad * busiest.capacity);
      else tmp = sgDivCpuPower(local, busiestLoadPerTask * SCHED_LOAD_SCALE);
      pwrMove += local.capacity * Math.min(thisLoadPerTask, thisLoad + tmp);
      pwrMove = Math.floor(pwrMove / SCHED_LOAD_SCALE);
      if (pwrMove > pwrNow) imbalance = busiestLoadPerTask;
    }
  }
  return {
    balanced: false,
    busiestGroup: busiest,
    imbalance,
    migrationType: "migrate_load",
    forced: false,
    stats,
  };
}

/** find_busiest_queue (2.6.29): the most loaded rq, skipping a lone task heavier than the imbalance. */
export function findBusiestQueue2629(ctx: FindBusiestQueueCtx): LbRq | null {
  const { env, group } = ctx;
  let busiest: LbRq | null = null;
  let maxLoad = 0;
  for (const i of group.cpus) {
    if (!env.cpus.has(i)) continue;
    const rq = env.rq(i);
    const wl = weightedCpuload(rq, env.era);
    if (rq.nrRunning === 1 && wl > env.imbalance) continue;
    if (wl > maxLoad) {
      maxLoad = wl;
      busiest = rq;
    }
  }
  return busiest;
}

/** sd_idle: an SMT domain whose CPUs are all idle lets an idle sibling pull (2.6.29). */
function smtSdIdle(env: LbEnv, initial: boolean, fbg: FbgResult): boolean {
  if (!initial) return false;
  const groups =
    fbg.balanced && fbg.reason === "should_we_balance" ? [env.sd.groups[0]] : env.sd.groups;
  for (const g of groups)
    for (const i of g.cpus) if (env.cpus.has(i) && env.rq(i).nrRunning) return false;
  return true;
}

const smtBusyReturn = (env: LbEnv, sdIdle: boolean): boolean =>
  !sdIdle && (env.sd.flags & SD_SHARE_CPUCAPACITY) !== 0 && !parentPowersavings(env.sd);

/**
 * load_balance (2.6.29, periodic: CPU_IDLE or CPU_NOT_IDLE) and load_balance_newidle
 * (CPU_NEWLY_IDLE), with the domain's balance state updated as the kernel does.
 * ldMoved -1: an SMT sibling is busy, the caller treats this CPU as not idle above.
 */
export function loadBalance2629(env: LbEnv): LoadBalanceResult {
  const sd = env.sd;
  const newidle = env.idle === "CPU_NEWLY_IDLE";
  const thisCpu = env.dstCpu;
  const smtDomain = (sd.flags & SD_SHARE_CPUCAPACITY) !== 0 && !parentPowersavings(sd);
  const sdIdleInit = newidle ? smtDomain : env.idle !== "CPU_NOT_IDLE" && smtDomain;
  env.cpus = new Set(
    sd.span.length ? Array.from({ length: Math.max(...sd.span) + 1 }, (_, i) => i) : [],
  ); // cpumask_setall
  env.cpusShared = false;
  const findGroup = lbHook(env.hooks, "fair.find_busiest_group", findBusiestGroup2629);
  const findQueue = lbHook(env.hooks, "fair.find_busiest_queue", findBusiestQueue2629);
  const migrations: LbMigration[] = [];
  let allPinned = false;
  const result = (
    decision: LbDecision,
    outcome: LbPassOutcome,
    ldMoved: number,
    cont = true,
    activeBalance: LoadBalanceResult["activeBalance"] = null,
  ): LoadBalanceResult => ({
    decision,
    outcome,
    migrations,
    activeBalance,
    continueBalancing: cont,
    ldMoved,
    flags: env.flags,
  });

  for (;;) {
    // redo
    env.flags = 0;
    const fbg = findGroup({ env });
    const sdIdle = smtSdIdle(env, sdIdleInit, fbg);
    let decision: LbDecision | null = null;
    let busiest: LbRq | null = null;
    if (fbg.balanced) {
      decision = { balanced: true, reason: fbg.reason };
    } else {
      env.imbalance = fbg.imbalance;
      env.migrationType = "migrate_load";
      busiest = findQueue({ env, group: fbg.busiestGroup });
      if (!busiest) decision = { balanced: true, reason: "no_busiest_queue" };
      else
        decision = {
          balanced: false,
          busiestGroup: fbg.busiestGroup,
          busiestCpu: busiest.cpu,
          imbalance: env.imbalance,
          migrationType: "migrate_load",
        };
    }
    const stop = fbg.balanced && fbg.stopBalancing === true;
    if (decision.balanced || !busiest) {
      // out_balanced
      if (newidle) {
        if (smtBusyReturn(env, sdIdle))
          return result(decision, { kind: "balanced", allPinned }, -1);
        sd.nrBalanceFailed = 0;
        return result(decision, { kind: "balanced", allPinned }, 0);
      }
      lbAccountPass(sd, { kind: "balanced", allPinned }, env.idle, env.era, env.features);
      return result(
        decision,
        { kind: "balanced", allPinned },
        smtBusyReturn(env, sdIdle) ? -1 : 0,
        !stop,
      );
    }
    env.srcCpu = busiest.cpu;
    let moved = 0;
    if (busiest.nrRunning > 1) {
      const pulled = balanceTasks2629(env, busiest);
      for (const task of pulled) migrations.push({ task, srcCpu: busiest.cpu, dstCpu: thisCpu });
      moved = pulled.length > 0 ? 1 : 0;
      allPinned = (env.flags & LBF_ALL_PINNED) !== 0;
      if (allPinned) {
        env.cpus.delete(busiest.cpu);
        if (env.cpus.size > 0) {
          env.loop = 0;
          env.loopBreak = SCHED_NR_MIGRATE_BREAK;
          continue; // redo
        }
        if (!newidle) {
          const d: LbDecision = { balanced: true, reason: "all_pinned" };
          lbAccountPass(sd, { kind: "balanced", allPinned: true }, env.idle, env.era, env.features);
          return result(
            d,
            { kind: "balanced", allPinned: true },
            smtBusyReturn(env, sdIdle) ? -1 : 0,
          );
        }
      }
    }
    if (newidle) {
      if (moved) {
        sd.nrBalanceFailed = 0;
        return result(decision, { kind: "moved" }, moved);
      }
      // failure: only power-savings mode (sched_mc_power_savings >= 2) goes on to kick
      return result(
        decision,
        { kind: "failed", needActive: false, activeKicked: false, voluntary: false },
        -1,
      );
    }
    if (moved) {
      lbAccountPass(sd, { kind: "moved" }, env.idle, env.era, env.features);
      return result(decision, { kind: "moved" }, moved);
    }
    lbNoteFailure(sd, env.idle, env.era);
    const needActive = sd.nrBalanceFailed > sd.cacheNiceTries + 2;
    let active: LoadBalanceResult["activeBalance"] = null;
    if (needActive) {
      // don't kick the migration thread if busiest's current task cannot run here
      if (busiest.curr && !taskAllowedOn(busiest.curr, thisCpu)) {
        const outcome: LbPassOutcome = { kind: "one_pinned" };
        lbAccountPass(sd, outcome, env.idle, env.era, env.features);
        return result(decision, outcome, smtBusyReturn(env, sdIdle) ? -1 : 0);
      }
      if (!busiest.activeBalance) active = { busiestCpu: busiest.cpu, pushCpu: thisCpu };
    }
    const outcome: LbPassOutcome = {
      kind: "failed",
      needActive,
      activeKicked: active !== null,
      voluntary: false,
    };
    lbAccountPass(sd, outcome, env.idle, env.era, env.features);
    return result(decision, outcome, smtBusyReturn(env, sdIdle) ? -1 : 0, true, active);
  }
}
