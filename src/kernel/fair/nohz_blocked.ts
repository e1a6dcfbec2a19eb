// The blocked load of idle CPUs (fair.c, v4.17 on: Vincent Guittot's NOHZ_STATS_KICK series).
// The balancer and the wakeup path read another CPU's cfs_rq averages as its last update left
// them (cpu_load, cpu_util_cfs, cpu_runnable: cfs_rq->avg as stored). A busy CPU updates its own
// at every enqueue, dequeue and tick; an idle CPU's stay where its last task left them, "blocked
// load", until someone runs update_blocked_averages(cpu) for it:
//
// - the CPU itself, at the start of its periodic balance (run_rebalance_domains) and of its newly
//   idle balance (after newidle_balance's gates), in every era from 4.x (balance.ts);
// - the idle load balancer, for every idle CPU of nohz.idle_cpus_mask (update_nohz_stats, at most
//   once a jiffy per CPU unless forced), in a NOHZ_STATS_KICK pass of _nohz_idle_balance. A kick
//   to balance carries NOHZ_STATS_KICK too (NOHZ_KICK_MASK); a kick for the statistics alone
//   comes from a busy CPU's tick while nohz.has_blocked is set and nohz.next_blocked has passed,
//   which a pass sets LOAD_AVG_PERIOD (32 ms) ahead;
// - a CPU going newly idle without pulling, when avg_idle >= sysctl_sched_migration_cost:
//   nohz_newidle_balance runs the statistics pass locally (5.6 from newidle's early exit only,
//   v5.13 on from do_idle's nohz_run_idle_balance after any newidle pass that pulled nothing);
// - before v5.13, a newly idle balance pass itself (LBF_NOHZ_STATS): update_sg_lb_stats runs
//   update_nohz_stats(rq, false) for each CPU it reads while nohz.has_blocked is set.
//
// v5.13 (0826530de3cb "sched/fair: Remove update of blocked load from newidle_balance",
// c6f886546cb8 "sched/fair: Trigger the update of blocked load on newly idle cpu", and the
// removal of update_nohz_stats' `force`) is where the two forms part. The model's 4.x eras keep
// their v4.8 rules (update_blocked_averages of the balancing CPU and of each due CPU only).
import type { SchedCore } from "../core/api";
import { eraAtLeastFn } from "../features";
import type { Rq } from "../sched";
import { jiffiesAt, msecsToJiffies } from "./lb/common";
import { peltScaleCpu, rqClockPeltOf } from "./pelt_clock";
import { updateCfsRqLoadAvgOf } from "./pelt_form";
import { spanHas } from "./wake/common";

/** LOAD_AVG_PERIOD: the PELT half-life, 32 ms; nohz.next_blocked's step. */
export const LOAD_AVG_PERIOD_MS = 32;

/** nohz_flags bits of a kick (kernel/sched/sched.h): run rebalance_domains. */
export const NOHZ_BALANCE_KICK = 1;
/** Update the blocked load of the idle CPUs. */
export const NOHZ_STATS_KICK = 2;
/** v5.16+ (efd984c481ab): update nohz.next_balance (balance.ts). */
export const NOHZ_NEXT_KICK = 8;
/** NOHZ_KICK_MASK: a balance kick updates the statistics (and v5.16+ nohz.next_balance) too. */
export const NOHZ_KICK_MASK = NOHZ_BALANCE_KICK | NOHZ_STATS_KICK | NOHZ_NEXT_KICK;

const atLeast513 = eraAtLeastFn("5.13");

/**
 * rq->nohz_tick_stopped, membership of nohz.idle_cpus_mask: an online idle CPU whose tick is
 * stopped. nohz_balance_enter_idle runs where the tick stops (tick_nohz_stop_sched_tick up to
 * v4.16, tick_nohz_idle_stop_tick from v4.17; kernel/time/tick-sched.c), so a CPU that idles
 * with its tick (core/idle_call.ts) is neither balanced by the NOHZ idle balancer nor out of
 * its LLC's nr_busy_cpus; up to v4.16 every idle CPU is in the mask. The mask is left at idle
 * exit here, not at the first busy tick (nohz_balance_exit_idle).
 */
export function inNohzIdleMask(rq: Rq): boolean {
  return rq.online && !rq.tickRunning && rq.isIdle();
}

/**
 * update_blocked_averages(cpu): the cfs_rq averages of `rq` decayed to now, as the balancing CPU
 * does for itself in every PELT era and the idle load balancer for idle CPUs (v4.17+).
 */
export function updateBlockedAverages(k: SchedCore, rq: Rq): void {
  updateCfsRqLoadAvgOf(k.era)(rqClockPeltOf(k, rq), rq.cfs, peltScaleCpu(k, rq));
}

/** nohz.has_blocked, nohz.next_blocked and each rq's has_blocked_load / last update tick. */
export class NohzBlockedLoad {
  /** nohz.has_blocked: some idle CPU may still carry load to decay. */
  hasBlocked = false;
  /** nohz.next_blocked, in jiffies (0 at boot: the first stats kick is due at once). */
  nextBlocked = 0;
  /** rq->has_blocked_load per CPU. */
  private readonly rqHasBlocked: Uint8Array;
  /** rq->last_blocked_load_update_tick per CPU (jiffies). */
  private readonly lastUpdateTick: Float64Array;
  /** Before v5.13: update_nohz_stats(rq, force) and LBF_NOHZ_STATS. */
  readonly before513: boolean;

  constructor(
    private readonly k: SchedCore,
    private readonly hz: number,
  ) {
    this.rqHasBlocked = new Uint8Array(k.rqs.length);
    this.lastUpdateTick = new Float64Array(k.rqs.length);
    this.before513 = !atLeast513(k.era);
    // nohz_balance_enter_idle: "Each time a cpu enter idle, we assume that it has blocked load".
    k.tickStopHooks.push((rq) => {
      this.rqHasBlocked[rq.cpu] = 1;
      this.hasBlocked = true;
    });
  }

  private jiffies(): number {
    return jiffiesAt(this.k.now, this.hz);
  }

  /**
   * update_blocked_averages(cpu): rq's cfs_rq averages decayed to now; the tick of the update
   * is recorded and has_blocked_load cleared once they are all zero (cfs_rq_has_blocked).
   */
  updateBlockedAverages(rq: Rq): void {
    const k = this.k;
    this.lastUpdateTick[rq.cpu] = this.jiffies();
    updateBlockedAverages(k, rq);
    const a = rq.cfs.avg;
    if (a.loadAvg === 0 && a.utilAvg === 0) this.rqHasBlocked[rq.cpu] = 0;
  }

  /**
   * update_nohz_stats(rq[, force]): an idle CPU of the mask with blocked load is updated, at most
   * once a jiffy unless forced. True while it still has blocked load (or was skipped for the
   * jiffy), so the caller keeps nohz.has_blocked set.
   */
  updateNohzStats(rq: Rq, force: boolean): boolean {
    if (!this.rqHasBlocked[rq.cpu]) return false;
    if (!inNohzIdleMask(rq)) return false;
    if (!force && !(this.jiffies() > this.lastUpdateTick[rq.cpu])) return true;
    this.updateBlockedAverages(rq);
    return this.rqHasBlocked[rq.cpu] === 1;
  }

  /** nohz_balancer_kick's first test: a kick for the statistics is due. */
  statsKickDue(): boolean {
    return this.hasBlocked && this.jiffies() > this.nextBlocked;
  }

  /** A NOHZ_STATS_KICK pass of _nohz_idle_balance starts: nohz.has_blocked is cleared first. */
  statsPassBegin(): void {
    this.hasBlocked = false;
  }

  /**
   * The pass has run update_nohz_stats on every idle CPU of the mask (`blocked`: one still
   * carries load): nohz.next_blocked moves LOAD_AVG_PERIOD ahead and has_blocked is set again
   * while load remains.
   */
  statsPassEnd(blocked: boolean): void {
    this.nextBlocked = this.jiffies() + msecsToJiffies(LOAD_AVG_PERIOD_MS, this.hz);
    if (blocked) this.hasBlocked = true;
  }

  /**
   * nohz_newidle_balance's tests: a CPU going idle runs a statistics pass itself when it expects
   * to stay idle long enough (avg_idle >= sysctl_sched_migration_cost) and one is due
   * (nohz.has_blocked set, nohz.next_blocked reached).
   */
  newidleStatsDue(rq: Rq): boolean {
    if (rq.avgIdle < this.k.tunables.sched_migration_cost_ns) return false;
    return this.hasBlocked && this.jiffies() >= this.nextBlocked;
  }

  /** LBF_NOHZ_AGAIN's end (before v5.13): a newidle pass whose domain spans every idle CPU of the mask and left blocked load moves nohz.next_blocked. */
  newidlePassLeftBlocked(span: readonly number[]): void {
    for (const rq of this.k.rqs) if (inNohzIdleMask(rq) && !spanHas(span, rq.cpu)) return;
    this.nextBlocked = this.jiffies() + msecsToJiffies(LOAD_AVG_PERIOD_MS, this.hz);
  }
}
