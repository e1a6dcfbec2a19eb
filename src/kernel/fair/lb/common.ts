// Shared pieces of the balancer: lb_env construction, hook lookup, per-CPU helpers
// (cpu_util, check_cpu_capacity, should_we_balance), balance intervals
// (get_sd_balance_interval, max_load_balance_interval) and the nr_balance_failed /
// balance_interval accounting at the end of load_balance().
import { ERA_TRAITS, type Era, FEATURES, type Features, type Tunables } from "../../features";
import type { SchedDomain } from "../../topology/sched_domain";
import { SD_POWERSAVINGS_BALANCE } from "../../topology/sched_domain";
import {
  type CpuIdleType,
  type GetSdBalanceIntervalCtx,
  type LbEnv,
  type LbFamily,
  type LbHookLookup,
  type LbHookName,
  type LbHookSignatures,
  type LbPassOutcome,
  type LbRq,
  type LbTask,
  MAX_PINNED_INTERVAL,
  SCHED_NR_MIGRATE_BREAK,
} from "./types";

/** Parameters of createLbEnv; the rest of struct lb_env starts zeroed as in load_balance(). */
export interface LbEnvInit {
  era: Era;
  features: Features;
  tunables: Tunables;
  sd: SchedDomain;
  dstCpu: number;
  idle: CpuIdleType;
  now: number;
  rq: (cpu: number) => LbRq;
  /** per_cpu(sd_llc_size, dstCpu); default 1. */
  sdLlcSize?: number;
  /** cpu_active_mask; default: the whole domain span. */
  activeCpus?: Iterable<number> | null;
  hooks?: LbHookLookup | null;
  preemptible?: boolean;
  /** sched_balance_running's try-lock for SD_SERIALIZE domains; default none. */
  serialize?: (() => boolean) | null;
  /** update_idle_cpu_scan's write of the LLC's nr_idle_scan (SIS_UTIL); default none. */
  updateIdleCpuScan?: ((sumUtil: number) => void) | null;
}

/** env->cpus of all-active spans, by span array (a domain's span never changes once built). */
const SPAN_SETS = new WeakMap<readonly number[], Set<number>>();

/** cpumask_clear_cpu(cpu, env->cpus), copying a shared span Set first. */
export function lbCpusClear(env: LbEnv, cpu: number): void {
  if (env.cpusShared) {
    env.cpus = new Set(env.cpus);
    env.cpusShared = false;
  }
  env.cpus.delete(cpu);
}

/** load_balance()'s env setup: cpus = sched_domain_span(sd) & cpu_active_mask. */
export function createLbEnv(init: LbEnvInit): LbEnv {
  const active = init.activeCpus ? new Set(init.activeCpus) : null;
  // With every CPU of the span active, env->cpus is the span itself: one Set per span array,
  // shared by every pass (copied on the first cpumask_clear_cpu, lbCpusClear), instead of a
  // fresh copy of a whole-machine span per pass.
  let cpus: Set<number>;
  if (active) cpus = new Set(init.sd.span.filter((c) => active.has(c)));
  else {
    let shared = SPAN_SETS.get(init.sd.span);
    if (!shared) {
      shared = new Set(init.sd.span);
      SPAN_SETS.set(init.sd.span, shared);
    }
    cpus = shared;
  }
  return {
    era: init.era,
    features: init.features,
    tunables: init.tunables,
    sd: init.sd,
    srcCpu: -1,
    dstCpu: init.dstCpu,
    idle: init.idle,
    imbalance: 0,
    migrationType: "migrate_load",
    flags: 0,
    loop: 0,
    loopBreak: SCHED_NR_MIGRATE_BREAK,
    loopMax: 0,
    cpus,
    cpusShared: !active,
    dstGrpmask: init.sd.groups[0]?.cpus ?? [init.dstCpu],
    newDstCpu: -1,
    now: init.now,
    rq: init.rq,
    sdLlcSize: init.sdLlcSize ?? 1,
    hooks: init.hooks ?? null,
    preemptible: init.preemptible ?? false,
    serialize: init.serialize ?? null,
    updateIdleCpuScan: init.updateIdleCpuScan ?? null,
  };
}

/** The implementation in force for a hook: the registry's (era default or patch) or `dflt`. */
export function lbHook<K extends LbHookName>(
  hooks: LbHookLookup | null,
  name: K,
  dflt: LbHookSignatures[K],
): LbHookSignatures[K] {
  return hooks ? hooks.get(name) : dflt;
}

export function family(env: LbEnv): LbFamily {
  return ERA_TRAITS[env.era].family;
}

/** cpumask_test_cpu(cpu, p->cpus_allowed). */
export function taskAllowedOn(p: LbTask, cpu: number): boolean {
  return p.cpusAllowed === null || p.cpusAllowed.has(cpu);
}

/** cpu_util(cpu): util_avg (max util_est in 5.x), capped at capacity_orig. */
export function cpuUtil(rq: LbRq, era: Era): number {
  let util = rq.cfsUtilAvg;
  if (ERA_TRAITS[era].family === "5.x") util = Math.max(util, rq.cfsUtilEst ?? 0);
  return Math.min(util, rq.cpuCapacityOrig);
}

/** check_cpu_capacity: capacity noticeably reduced by RT/IRQ (imbalance_pct threshold). */
export function checkCpuCapacity(rq: LbRq, sd: SchedDomain): boolean {
  return rq.cpuCapacity * sd.imbalancePct < rq.cpuCapacityOrig * 100;
}

/** get_sd_load_idx (2.6.x/4.x): cpu_load[] index by idle type. */
export function getSdLoadIdx(sd: SchedDomain, idle: CpuIdleType): number {
  if (idle === "CPU_NOT_IDLE") return sd.busyIdx;
  if (idle === "CPU_NEWLY_IDLE") return sd.newidleIdx;
  return sd.idleIdx;
}

/** cpu_avg_load_per_task: 2.6.29 rq->load.weight / nr_running; 4.x weighted_cpuload / h_nr_running. */
export function cpuAvgLoadPerTask(rq: LbRq, era: Era): number {
  if (ERA_TRAITS[era].family === "2.6")
    return rq.nrRunning ? Math.floor(rq.loadWeight / rq.nrRunning) : 0;
  return rq.cfsHNrRunning ? Math.floor(rq.runnableLoadAvg / rq.cfsHNrRunning) : 0;
}

/** sched_asym_prefer with the default arch_asym_cpu_priority (-cpu): lower CPU numbers win. */
export function schedAsymPrefer(a: number, b: number): boolean {
  return a < b;
}

/**
 * should_we_balance (4.x+): newidle always; otherwise only the first idle CPU of the local
 * group, or the group's balance CPU when none is idle, balances this level and above.
 */
export function shouldWeBalance(env: LbEnv): boolean {
  if (!env.cpus.has(env.dstCpu)) return false;
  if (env.idle === "CPU_NEWLY_IDLE") return true;
  const sg = env.sd.groups[0];
  for (const cpu of sg.cpus) {
    if (!env.cpus.has(cpu)) continue;
    if (env.rq(cpu).idle) return cpu === env.dstCpu;
  }
  return sg.balanceCpu === env.dstCpu;
}

/** test_sd_parent(sd, SD_POWERSAVINGS_BALANCE) (2.6.x). */
export function parentPowersavings(sd: SchedDomain): boolean {
  return sd.parent !== null && (sd.parent.flags & SD_POWERSAVINGS_BALANCE) !== 0;
}

// ---------------------------------------------------------------------------------------------
// Intervals.

/** msecs_to_jiffies for HZ dividing 1000: round up. */
export function msecsToJiffies(ms: number, hz: number): number {
  return Math.ceil((ms * hz) / 1000);
}

/**
 * max_load_balance_interval in jiffies: 2.6.29 clamps at HZ*NR_CPUS/10 (NR_CPUS, the config
 * maximum: pass it as nrCpus); later kernels use update_max_interval(): HZ*num_online_cpus()/10.
 */
export function maxLoadBalanceInterval(era: Era, hz: number, nrCpus: number): number {
  void era;
  return Math.floor((hz * nrCpus) / 10);
}

/**
 * get_sd_balance_interval: balance_interval (ms) x busy_factor when the CPU is busy, in
 * jiffies, at least 1 and at most max_load_balance_interval. 5.10+ takes one jiffy off busy
 * intervals so that levels do not all fire on the same tick.
 */
export function getSdBalanceInterval(ctx: GetSdBalanceIntervalCtx): number {
  const { sd, cpuBusy, era, hz, maxInterval } = ctx;
  const lessJiffy = ctx.features
    ? ctx.features.LB_INTERVAL_LESS_JIFFY
    : FEATURES.LB_INTERVAL_LESS_JIFFY.default.includes(era);
  let interval = sd.balanceInterval;
  if (cpuBusy) interval *= sd.busyFactor;
  interval = msecsToJiffies(interval, hz);
  if (cpuBusy && lessJiffy) interval -= 1;
  return Math.min(Math.max(interval, 1), maxInterval);
}

/** jiffies at time `ns`. */
export function jiffiesAt(ns: number, hz: number): number {
  return Math.floor((ns * hz) / 1e9);
}

/** time_after_eq(jiffies, sd->last_balance + interval); sd.lastBalance is in ns. */
export function sdBalanceDue(
  sd: SchedDomain,
  nowNs: number,
  intervalJiffies: number,
  hz: number,
): boolean {
  return jiffiesAt(nowNs, hz) >= jiffiesAt(sd.lastBalance, hz) + intervalJiffies;
}

// ---------------------------------------------------------------------------------------------
// nr_balance_failed and balance_interval after a pass.

/**
 * The failure count of a pass that found an imbalance but moved nothing: only periodic
 * balancing counts (4.x+; 2.6.29's load_balance counts every failure it sees). It comes first
 * because need_active_balance reads it.
 */
export function lbNoteFailure(sd: SchedDomain, idle: CpuIdleType, era: Era): void {
  if (ERA_TRAITS[era].family === "2.6" || idle !== "CPU_NEWLY_IDLE") sd.nrBalanceFailed++;
}

/**
 * The tail of load_balance() (after lbNoteFailure for failed/one_pinned passes): a kicked
 * active balance sets nr_balance_failed to cache_nice_tries + 1 so that the next passes may
 * pull cache-hot tasks; a balanced pass or a move resets it. The interval resets to
 * min_interval after an unbalanced pass that did not kick the stopper (5.x: or kicked it
 * voluntarily), and doubles (up to max_interval, or MAX_PINNED_INTERVAL when pinned) after a
 * balanced/pinned pass or a kick. 5.x does not grow it on newidle. 2.6.29's
 * load_balance_newidle is accounted by its caller (see lb/v2629.ts).
 */
export function lbAccountPass(
  sd: SchedDomain,
  outcome: LbPassOutcome,
  idle: CpuIdleType,
  era: Era,
  features?: Pick<Features, "LB_ACTIVE_LB">,
): void {
  const activeLb = features ? features.LB_ACTIVE_LB : FEATURES.LB_ACTIVE_LB.default.includes(era);
  const fam = ERA_TRAITS[era].family;
  const newidle = idle === "CPU_NEWLY_IDLE";
  const growInterval = (allPinned: boolean): void => {
    if (fam === "5.x" && newidle) return;
    if (
      (allPinned && sd.balanceInterval < MAX_PINNED_INTERVAL) ||
      sd.balanceInterval < sd.maxInterval
    ) {
      sd.balanceInterval *= 2;
    }
  };
  switch (outcome.kind) {
    case "moved":
      sd.nrBalanceFailed = 0;
      sd.balanceInterval = sd.minInterval;
      return;
    case "failed":
      // Before v5.13 a kick forced the next passes to take cache-hot tasks; from v5.13 only the
      // stopper does (LBF_ACTIVE_LB in can_migrate_task).
      if (outcome.needActive && !activeLb) sd.nrBalanceFailed = sd.cacheNiceTries + 1;
      if (!outcome.activeKicked || (fam === "5.x" && outcome.voluntary)) {
        sd.balanceInterval = sd.minInterval;
      } else if (sd.balanceInterval < sd.maxInterval) {
        sd.balanceInterval *= 2;
      }
      return;
    case "one_pinned":
      growInterval(true);
      return;
    case "balanced":
      sd.nrBalanceFailed = 0;
      growInterval(outcome.allPinned);
      return;
  }
}
