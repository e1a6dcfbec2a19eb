// select_task_rq_fair of 5.6, 5.19 and 6.19 (kernel/sched/fair.c).
//
// Wakeups (WF_TTWU): want_affine = !wake_wide(p) && this_cpu allowed; the first SD_WAKE_AFFINE
// domain of this_cpu spanning prev_cpu runs wake_affine():
//   wake_affine_idle: an idle waking CPU sharing the LLC with prev gives prev if idle, else
//     this_cpu; a sync wakeup from a CPU running only the waker gives this_cpu; 5.11+ (Julia
//     Lawall, "Check for idle core in wake_affine") then takes an idle prev;
//   wake_affine_weight (WA_WEIGHT): cfs load_avg of this_cpu (minus the waker's if sync) plus p
//     against prev's minus p, scaled by the other CPU's capacity, prev biased by
//     (100 + (imbalance_pct - 100) / 2) under WA_BIAS; a sync tie goes to this_cpu.
// Then select_idle_sibling(p, prev, target): target or prev if idle (or only running
// SCHED_IDLE tasks), recent_used_cpu, and a scan of target's LLC: 5.6 select_idle_core (whole
// idle SMT cores, while sd_llc_shared->has_idle_cores), select_idle_cpu (SIS_PROP depth from
// avg_idle / avg_scan_cost), select_idle_smt; 5.19/6.19 select_idle_smt of prev when no idle
// core is known, then one select_idle_cpu pass that looks for idle cores (has_idle_cores) or
// idle CPUs (depth: SIS_PROP in 5.19, SIS_UTIL's nr_idle_scan in 6.19).
// Forks/execs: find_idlest_cpu / find_idlest_group of 5.5+ (find_idlest.ts).
//
// Modelling choices (simplified, with the kernel's inputs):
// - A scan's cost (cpu_clock() delta in the kernel) is one cache-line transfer per runqueue
//   looked at, at the machine's cacheLineNs for the distance, charged to the waker as it goes
//   (so its clock, which idle_cpu()'s windows read, moves on during the walk); the same time
//   feeds avg_scan_cost where the era measures it. select_idle_core's walk of a core's siblings,
//   and the idle_cpu() / cpu_load() reads of target, prev and recent_used_cpu in wake_affine and
//   select_idle_sibling, charge the waker the same way (lines.ts).
// - 5.19 SIS_PROP: rq->wake_avg_idle / wake_stamp are kept per CPU here; the reset the kernel
//   does in ttwu_do_wakeup (avg_idle / 2, wake_stamp = jiffies) happens when a scan first sees
//   a new idle period of the CPU, with wake_stamp = the jiffy the CPU went idle.
// - 6.6/6.19 SIS_UTIL: nr_idle_scan is what update_idle_cpu_scan last wrote at the end of a
//   periodic or idle balance pass of the LLC domain (sum of the groups' group_util, imbalance_pct
//   of sd_llc; updateIdleCpuScan below, called through the balancer's env).
// - Idle tests read another CPU as an unlocked reader at the waker's clock: a CPU another waker
//   has claimed looks idle until the claim is visible (core/idle_cpu.ts).
// - has_idle_cores is set as a CPU goes idle with every SMT sibling idle and cleared by a scan
//   that finds no idle core, as in the kernel (see WakeState).
// - Clusters (6.8+, sched_cluster_active): the cluster pass of select_idle_cpu and the deferred
//   prev / recent_used_cpu of another cluster are in cluster.ts.
// - Asymmetric capacities: 5.6 wake_cap, 5.7+ asym_fits_cpu and select_idle_capacity (capacity.ts).
// - Not modelled: EAS, per-CPU kthread stacking, core scheduling cookies,
//   delayed dequeue, PF_EXITING.
import { SCHED_CAPACITY_SCALE } from "../../sched";
import { WF_FORK, WF_SYNC, schedIdlePolicyUsed } from "../../sched";
import type { Task } from "../../sched";
import {
  SD_BALANCE_WAKE,
  SD_LOAD_BALANCE,
  SD_WAKE_AFFINE,
  type SchedDomain,
} from "../../topology/sched_domain";
import type { SchedCore } from "../../core/api";
import {
  countIdlestPlacement,
  countWakePlacement,
  currentOn,
  cpusShareCache,
  idleCpu,
  idleOrSchedIdle,
  schedIdleCpu,
  sdFlagOf,
  selectIdleCore,
  updateAvg,
  wakeState,
  type SelectIdleSiblingCtx,
  type SelectTaskRqCtx,
  type WakeAffineCtx,
  type WakeState,
} from "./common";
import { findIdlestCpu5x } from "./find_idlest";
import { taskUtilEst } from "../util_est";
import { clusterGroupCpus, cpusShareResources, scanCluster } from "./cluster";
import { asymFitsCpu, selectIdleCapacity, syncTaskUtil, wakeCap } from "./capacity";
import { LINE, type WakerLines, wakerLines } from "./lines";
import { seenIdleByte, seenNrRunning } from "../../core/idle_cpu";

const INT_MAX = 0x7fffffff;

/** The select_idle_sibling/select_idle_cpu of v5.19 (the changes since 5.6 taken together). */
const isLate = (k: SchedCore): boolean => k.features.SIS_SINGLE_SCAN;

/**
 * available_idle_cpu(cpu) || sched_idle_cpu(cpu) as the waker on `thisCpu` reads it: the line of
 * cpu's runqueue that holds curr and nr_running is charged to the waker first (lines.ts).
 */
function readIdle(k: SchedCore, lines: WakerLines, thisCpu: number, cpu: number): boolean {
  lines.charge(thisCpu, cpu, LINE.IDLE);
  return idleOrSchedIdle(k, cpu);
}

/** wake_affine_idle: -1 stands for nr_cpumask_bits (no opinion). */
export function wakeAffineIdle(
  k: SchedCore,
  thisCpu: number,
  prevCpu: number,
  sync: boolean,
  lines: WakerLines = wakerLines(k),
): number {
  // If this_cpu is idle, the wakeup comes from an interrupt: only move if the cache is shared,
  // and an idle cache-affine prev is kept.
  if (idleCpu(k, thisCpu) && cpusShareCache(k, thisCpu, prevCpu)) {
    lines.charge(thisCpu, prevCpu, LINE.IDLE);
    return idleCpu(k, prevCpu) ? prevCpu : thisCpu;
  }
  if (sync && seenNrRunning(k, k.rqs[thisCpu]) === 1) return thisCpu;
  if (!isLate(k)) return -1;
  lines.charge(thisCpu, prevCpu, LINE.IDLE);
  return idleCpu(k, prevCpu) ? prevCpu : -1;
}

/**
 * wake_affine_weight: -1 stands for nr_cpumask_bits. Loads are cpu_load(), load_avg with the
 * blocked load, in every 5.x era (11f10e5420f6 "sched/fair: Use load instead of runnable load in
 * wakeup path", v5.5).
 */
export function wakeAffineWeight(
  k: SchedCore,
  sd: SchedDomain,
  p: Task,
  thisCpu: number,
  prevCpu: number,
  sync: boolean,
  lines: WakerLines = wakerLines(k),
): number {
  let thisEffLoad = k.rqs[thisCpu].cfs.avg.loadAvg;
  if (sync) {
    const current = currentOn(k, thisCpu);
    const currentLoad = current ? current.se.avg.loadAvg : 0;
    if (currentLoad > thisEffLoad) return thisCpu;
    thisEffLoad -= currentLoad;
  }
  const taskLoad = p.se.avg.loadAvg;
  thisEffLoad += taskLoad;
  if (k.features.WA_BIAS) thisEffLoad *= 100;
  thisEffLoad *= k.rqs[prevCpu].cpuCapacity;
  lines.charge(thisCpu, prevCpu, LINE.CFS_AVG); // cpu_load(cpu_rq(prev_cpu)); capacity_of is rarely written
  let prevEffLoad = k.rqs[prevCpu].cfs.avg.loadAvg - taskLoad;
  if (k.features.WA_BIAS) prevEffLoad *= 100 + Math.floor((sd.imbalancePct - 100) / 2);
  prevEffLoad *= k.rqs[thisCpu].cpuCapacity;
  // If sync, a tie lets select_idle_sibling consider stacking the wakee on the waker.
  if (sync) prevEffLoad += 1;
  return thisEffLoad < prevEffLoad ? thisCpu : -1;
}

/** wake_affine (4.15+): WA_IDLE, then WA_WEIGHT; prev_cpu when neither picks a CPU. */
export function wakeAffine5x(ctx: WakeAffineCtx): number {
  const { k, p, sd, thisCpu, prevCpu, sync } = ctx;
  const lines = wakerLines(k);
  let target = -1;
  if (k.features.WA_IDLE) target = wakeAffineIdle(k, thisCpu, prevCpu, sync, lines);
  if (k.features.WA_WEIGHT && target === -1)
    target = wakeAffineWeight(k, sd, p, thisCpu, prevCpu, sync, lines);
  return target === -1 ? prevCpu : target;
}

/**
 * rq->wake_avg_idle (5.13+): reset to avg_idle / 2 when the CPU wakes from idle
 * (ttwu_do_activate, core/ttwu.ts), halved for every jiffy since wake_stamp, and debited with the
 * time of each SIS_PROP scan (in selectIdleCpu).
 */
function wakeAvgIdle(k: SchedCore, cpu: number): number {
  const rq = k.rqs[cpu];
  // If we're busy, the assumption that the last idle period predicts the future is flawed; age
  // away the remaining predicted idle time.
  const now = Math.floor(k.now / k.tickNs);
  while (rq.wakeStamp < now && rq.wakeAvgIdle) {
    rq.wakeStamp++;
    rq.wakeAvgIdle = Math.floor(rq.wakeAvgIdle / 2);
  }
  return rq.wakeAvgIdle;
}

/**
 * update_idle_cpu_scan (v6.0+, 70fb5ccf2ebb "sched/fair: Introduce SIS_UTIL to search idle CPU
 * based on sum of util_avg", Chen Yu): called at the end of update_sd_lb_stats with the sum of the
 * groups' group_util (cpu_util_cfs, util_est included), it returns early for SIS_UTIL off, a
 * CPU_NEWLY_IDLE pass, or a domain that is not dst_cpu's LLC, and otherwise writes
 * sd_llc_shared->nr_idle_scan = llc_weight * (1 - x^2 * pct^2 / (10000 * 1024) / 1024), x =
 * sum_util / llc_weight. So a wakeup reads what the last periodic or idle balance of that LLC left,
 * not the LLC's utilization at the wakeup; balance.ts passes this as env.updateIdleCpuScan.
 */
export function updateIdleCpuScan(
  k: SchedCore,
  llc: SchedDomain,
  dstCpu: number,
  sumUtil: number,
): void {
  const st = wakeState(k);
  const llcWeight = llc.spanWeight;
  const pct = llc.imbalancePct;
  const x = Math.floor(sumUtil / llcWeight);
  const tmp = Math.min(
    Math.floor((x * x * pct * pct) / (10000 * SCHED_CAPACITY_SCALE)),
    SCHED_CAPACITY_SCALE,
  );
  const y = Math.floor(((SCHED_CAPACITY_SCALE - tmp) * llcWeight) / SCHED_CAPACITY_SCALE);
  st.nrIdleScan[k.domains.sdLlcId[dstCpu]] = y;
}

/** 5.6 select_idle_core: the first whole-idle SMT core of the LLC, wrapping from target. */
function selectIdleCore56(
  k: SchedCore,
  st: WakeState,
  p: Task,
  sd: SchedDomain,
  target: number,
): number {
  if (!st.smtActive) return -1;
  const llcId = k.domains.sdLlcId[target];
  if (!st.hasIdleCores[llcId]) return -1;
  const span = sd.span;
  const n = span.length;
  const gen = st.nextGen();
  const level = st.scanRow;
  let idx = st.llcPos[target]; // sd is target's sd_llc
  for (let j = 0; j < n; j++, idx++) {
    if (idx === n) idx = 0;
    const core = span[idx];
    if (!p.cpusAllowed[core] || st.seen[core] === gen) continue;
    const m = st.smtMask[core];
    let idle = true;
    for (let i = 0; i < m.length; i++) {
      k.chargeNs += st.lineNs[level[m[i]]]; // the waker reads the sibling's idle state
      if (!seenIdleByte(k, st.idle[m[i]], m[i])) {
        idle = false;
        break;
      }
    }
    for (let i = 0; i < m.length; i++) st.seen[m[i]] = gen;
    if (idle) return st.noteSis("idle_core", core);
  }
  // Failed to find an idle core; stop looking for one.
  st.hasIdleCores[llcId] = 0;
  return -1;
}

/**
 * select_idle_cpu. 5.6: up to nr CPUs of the LLC from target (SIS_PROP: nr from
 * avg_idle / 512 against this_sd->avg_scan_cost). 5.19/6.19: from target + 1; with a known idle
 * core it looks for whole idle cores (remembering the first idle CPU on the way), otherwise for
 * any idle CPU within nr (SIS_PROP in 5.19, SIS_UTIL in 6.19).
 */
function selectIdleCpu(
  k: SchedCore,
  st: WakeState,
  p: Task,
  sd: SchedDomain,
  hasIdleCore: boolean,
  target: number,
  thisCpu: number,
): number {
  const late = st.late519;
  if (!k.domains.sdLlc[thisCpu]) return -1;
  const sis = k.counters.selectIdleCpu; // sis_* schedstats (counters.ts)
  sis.calls++;
  let nr = INT_MAX;
  const prop = k.features.SIS_PROP && !hasIdleCore;
  if (prop) {
    const avgIdle = late ? wakeAvgIdle(k, thisCpu) : Math.floor(k.rqs[thisCpu].avgIdle / 512);
    const avgCost = st.avgScanCost[thisCpu] + 1;
    const spanAvg = sd.spanWeight * avgIdle;
    nr = spanAvg > 4 * avgCost ? Math.floor(spanAvg / avgCost) : 4;
  }
  if (late && k.features.SIS_UTIL) {
    // Incremented because !--nr is the condition to stop the scan.
    nr = st.nrIdleScan[k.domains.sdLlcId[target]] + 1; // READ_ONCE(sd_share->nr_idle_scan) + 1
    sis.nrIdleScanSum += nr - 1;
    sis.nrIdleScanCalls++;
    // An overloaded LLC is unlikely to have an idle cpu/core.
    if (nr === 1) {
      sis.nrIdleScanZero++;
      sis.failed++;
      return -1;
    }
  }
  const span = st.llcSpan[target]; // sd.span (sd is target's sd_llc)
  const n = span.length;
  const allowed = p.cpusAllowed;
  const rqs = k.rqs;
  let idleCpuFound = -1;
  let time = 0;
  // 6.8+: target's cluster first; its CPUs then leave the LLC pass (st.seen === gen).
  const cluster = clusterGroupCpus(k, sd);
  const gen = cluster || hasIdleCore ? st.nextGen() : -1;
  if (cluster) {
    const c = scanCluster(k, st, p, cluster, target, thisCpu, hasIdleCore, nr, gen);
    if (c.result !== null) {
      if (c.result < 0) sis.failed++;
      return c.result;
    }
    nr = c.nr;
    idleCpuFound = c.idleCpu;
    time = c.time;
  }
  // for_each_cpu_wrap from target (+1 in 5.19+); sd is target's sd_llc, which holds target.
  let idx = late ? st.llcPos[target] + 1 : st.llcPos[target];
  const idleB = st.idle;
  const schedIdle = schedIdlePolicyUsed();
  if (!hasIdleCore) {
    // The kernel's walk, CPU by CPU (its length is the kernel's: nr or the first idle CPU); a
    // step reads the waker's share-level row and the idle bytes, not the rq. Each step's line is
    // charged to the waker as it reads it.
    const level = st.scanRow;
    const lineNs = st.lineNs;
    for (let j = 0; j < n; j++, idx++) {
      if (idx === n) idx = 0;
      const cpu = span[idx];
      if (!allowed[cpu] || (cluster && st.seen[cpu] === gen)) continue;
      sis.scanned++;
      if (--nr <= 0) {
        sis.failed++;
        return -1; // !--nr (5.x), --nr <= 0 (6.x): nr only steps down by one
      }
      const l = lineNs[level[cpu]];
      time += l;
      k.chargeNs += l;
      // available_idle_cpu || sched_idle_cpu (false everywhere while no task has SCHED_IDLE)
      if (seenIdleByte(k, idleB[cpu], cpu) || (schedIdle && schedIdleCpu(rqs[cpu]))) {
        idleCpuFound = cpu;
        break;
      }
    }
  } else {
    st.idleCpuSeen = idleCpuFound;
    for (let j = 0; j < n; j++, idx++) {
      if (idx === n) idx = 0;
      const cpu = span[idx];
      if (!allowed[cpu] || st.seen[cpu] === gen) continue;
      sis.scanned += st.smtMask[cpu].length; // the core's CPUs
      // select_idle_core(p, cpu, cpus, &idle_cpu): the whole core idle, or remember an idle CPU
      if (selectIdleCore(k, st, allowed, cpu, gen, schedIdle) >= 0)
        return st.noteSis("idle_core", cpu);
    }
    idleCpuFound = st.idleCpuSeen;
  }
  if (hasIdleCore) st.hasIdleCores[k.domains.sdLlcId[target]] = 0;
  // this_sd->avg_scan_cost: 5.6 always; 5.19 when SIS_PROP limited the scan, which also
  // accounts the scan's cost against the predicted idle time.
  if (!late || prop) st.avgScanCost[thisCpu] = updateAvg(st.avgScanCost[thisCpu], time);
  if (late && prop) {
    const rq = k.rqs[thisCpu];
    rq.wakeAvgIdle -= Math.min(rq.wakeAvgIdle, time);
  }
  if (idleCpuFound === -1) {
    sis.failed++;
    return -1;
  }
  return st.noteSis("idle_sibling", idleCpuFound);
}

/** select_idle_smt: 5.6 any idle sibling of target; 5.19+ an idle sibling of prev other than prev. */
function selectIdleSmt(
  k: SchedCore,
  st: WakeState,
  p: Task,
  cpu: number,
  skipSelf: boolean,
  thisCpu: number,
): number {
  const m = st.smtMask[cpu];
  for (let i = 0; i < m.length; i++) {
    const c = m[i];
    if ((skipSelf && c === cpu) || !p.cpusAllowed[c]) continue;
    if (readIdle(k, st.lines, thisCpu, c)) return st.noteSis("idle_smt", c);
  }
  return -1;
}

/** select_idle_sibling of 5.6 / 5.19 / 6.19 (symmetric capacity). */
export function selectIdleSibling5x(ctx: SelectIdleSiblingCtx): number {
  const { k, p, prev, target, thisCpu } = ctx;
  const st = wakeState(k);
  const late = st.late519;
  st.scanRow = st.levelRow(thisCpu); // the waker's distance to each CPU the scans look at
  // 5.7+ on asymmetric systems: each candidate must also fit p's utilization (capacity.ts).
  const asym = st.asymWakeup57 && k.domains.asymCpucapacity;
  let util = 0;
  if (asym) {
    syncTaskUtil(k, p);
    util = taskUtilEst(p);
  }
  const lines = st.lines;
  if (readIdle(k, lines, thisCpu, target) && (!asym || asymFitsCpu(k, util, target))) return target;
  // If the previous CPU is cache affine and idle, don't be stupid (6.8+ with clusters: only in
  // target's cluster; an idle prev elsewhere in the LLC waits for the scan to find nothing).
  const clusters = k.domains.clusterActive;
  let prevAff = -1;
  if (
    prev !== target &&
    cpusShareCache(k, prev, target) &&
    readIdle(k, lines, thisCpu, prev) &&
    (!asym || asymFitsCpu(k, util, prev))
  ) {
    if (!clusters || cpusShareResources(k, prev, target)) return prev;
    prevAff = prev;
  }
  // Check a recently used CPU as a potential idle candidate (replaced by prev: 5.12+ always,
  // 5.6 only when it is used). From 89aafd67f28c (5.12) the affinity test reads
  // p->recent_used_cpu, which is prev by then, so 5.19 may return a CPU p may not use and
  // select_task_rq falls back; Miaohe Lin's ae2ad293d6be (v6.5) tests recent_used_cpu.
  let recent = st.recentUsedCpu(p);
  if (late) st.setRecentUsedCpu(p, prev);
  if (
    recent >= 0 &&
    recent !== prev &&
    recent !== target &&
    cpusShareCache(k, recent, target) &&
    readIdle(k, lines, thisCpu, recent) &&
    p.cpusAllowed[late && !st.recentMaskFixed ? prev : recent] &&
    (!asym || asymFitsCpu(k, util, recent))
  ) {
    if (!late) st.setRecentUsedCpu(p, prev);
    if (!clusters || cpusShareResources(k, recent, target))
      return st.noteSis("recent_used", recent);
  } else recent = -1;
  // For asymmetric CPU capacity systems, the domain of interest is sd_asym_cpucapacity.
  if (asym) {
    const sda = k.domains.sdAsymCpucapacity[target];
    if (sda) {
      const c = selectIdleCapacity(k, p, sda, target);
      return c >= 0 ? st.noteSis("idle_capacity", c) : target;
    }
  }
  const sd = k.domains.sdLlc[target];
  if (!sd) return target;
  let i: number;
  if (!late) {
    i = selectIdleCore56(k, st, p, sd, target);
    if (i >= 0) return i;
    i = selectIdleCpu(k, st, p, sd, false, target, thisCpu);
    if (i >= 0) return i;
    if (st.smtActive) {
      i = selectIdleSmt(k, st, p, target, false, thisCpu);
      if (i >= 0) return i;
    }
    return target;
  }
  let hasIdleCore = false;
  if (st.smtActive) {
    hasIdleCore = st.hasIdleCores[k.domains.sdLlcId[target]] === 1;
    if (!hasIdleCore && cpusShareCache(k, prev, target)) {
      i = selectIdleSmt(k, st, p, prev, true, thisCpu);
      if (i >= 0) return i;
    }
  }
  i = selectIdleCpu(k, st, p, sd, hasIdleCore, target, thisCpu);
  if (i >= 0) return i;
  // Clusters: prev, then recent_used_cpu, when no idle CPU was found (both -1 otherwise).
  if (prevAff >= 0) return prevAff;
  if (recent >= 0) return st.noteSis("recent_used", recent);
  return target;
}

/** select_task_rq_fair (5.6 / 5.19 / 6.19). */
export function selectTaskRqFair5x(ctx: SelectTaskRqCtx): number {
  const { k, p, prevCpu, wakeFlags } = ctx;
  const st = wakeState(k);
  st.lines.begin();
  const cpu = ctx.wakerCpu >= 0 ? ctx.wakerCpu : prevCpu;
  const sdFlag = sdFlagOf(wakeFlags);
  const wake = sdFlag === SD_BALANCE_WAKE;
  const sync = (wakeFlags & WF_SYNC) !== 0;
  const current = currentOn(k, ctx.wakerCpu);
  let newCpu = prevCpu;
  let wantAffine = false;
  if (wake) {
    wantAffine =
      !st.wakeWide({ k, p, waker: current, factor: k.domains.sdLlcSize[cpu] }) &&
      (st.asymWakeup57 || !wakeCap(k, p, cpu, prevCpu)) &&
      p.cpusAllowed[cpu] === 1;
  } else if (wakeFlags & WF_FORK) {
    st.setRecentUsedCpu(p, prevCpu); // wake_up_new_task: p->recent_used_cpu = task_cpu(p)
  }
  let sd: SchedDomain | null = null;
  const doms = k.domains.domains[cpu];
  for (let d = 0; d < doms.length; d++) {
    const tmp = doms[d];
    if (!(tmp.flags & SD_LOAD_BALANCE)) break;
    // If both 'cpu' and 'prev_cpu' are part of this domain, cpu is a valid SD_WAKE_AFFINE target.
    if (wantAffine && tmp.flags & SD_WAKE_AFFINE && st.spanHas(cpu, d, prevCpu)) {
      if (cpu !== prevCpu) newCpu = st.wakeAffine({ k, p, sd: tmp, thisCpu: cpu, prevCpu, sync });
      sd = null; // Prefer wake_affine over balance flags
      break;
    }
    if (tmp.flags & sdFlag) sd = tmp;
    else if (!wantAffine) break;
  }
  if (sd) {
    // Slow path
    newCpu = findIdlestCpu5x(k, p, sd, cpu, prevCpu, sdFlag);
    countIdlestPlacement(k, sdFlag, newCpu, cpu);
    return newCpu;
  }
  if (!wake) {
    countIdlestPlacement(k, sdFlag, newCpu, cpu);
    return newCpu;
  }
  // Fast path
  st.sisReason = null;
  newCpu = st.selectIdleSibling({ k, p, prev: prevCpu, target: newCpu, thisCpu: cpu });
  countWakePlacement(k, st, newCpu, prevCpu, cpu);
  if (!st.late519 && wantAffine && current) st.setRecentUsedCpu(current, cpu);
  return newCpu;
}
