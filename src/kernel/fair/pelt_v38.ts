// PELT in its first form, v3.8 ... v4.2 (kernel/sched/fair.c, read in v3.19): Paul Turner's
// per-entity load tracking (9d85f21c94f7 "sched: Track the runnable average on a per-task entity
// basis", 9ee474f55664 "sched: Maintain the load contribution of blocked entities", v3.8), until
// 9d89c257dfb9 (v4.3) rewrote it into the sched_avg load_sum / util_sum of pelt_v48.ts.
//   - an entity keeps two geometric sums in 1024-ns units: runnable_avg_sum (time runnable) and
//     runnable_avg_period (all time); its load is load_avg_contrib = runnable_avg_sum * weight /
//     (runnable_avg_period + 1), so a new entity is not ignored while its period is short;
//   - the position in the current period is runnable_avg_period % 1024; an update accrues the
//     rest of that period, decays both sums by periods + 1 and adds __compute_runnable_contrib;
//     last_runnable_update = now (the sub-1024-ns remainder is dropped);
//   - the cfs_rq keeps no sums: runnable_load_avg is the sum of its queued entities'
//     load_avg_contrib (each change of a queued contrib is added as a delta), blocked_load_avg
//     that of its sleepers, decayed as a whole once per 2^20 ns of cfs_rq clock
//     (update_cfs_rq_blocked_load), which counts the decays in decay_counter;
//   - a sleeper records decay_counter in decay_count; at its wakeup its contrib is decayed by the
//     decays since (__synchronize_entity_decay) and taken out of blocked_load_avg; a waking
//     migration leaves it in removed_load and carries -decays to the new CPU, which ages the
//     entity over that many 2^20 ns as not runnable;
//   - there is no util_avg (v4.1 added utilization_avg_contrib to this form; the model runs the
//     3.19 code) and no CPU scaling (scale_cpu).
// Without task groups (the model has none) task_h_load is load_avg_contrib and the tg_* terms
// are absent. update_blocked_averages is modelled as a CONFIG_FAIR_GROUP_SCHED kernel runs it for
// the root cfs_rq (update_cfs_rq_blocked_load(cfs_rq, 1)); without that option it is empty.
//
// Fields: an entity's sched_avg is a SchedAvg38 whose lastUpdateTime is last_runnable_update,
// loadSum runnable_avg_sum and loadAvg load_avg_contrib (what every reader of a task's load
// reads); the cfs_rq's runnableLoad is a CfsLoad38 whose avg is runnable_load_avg.
import { createSchedAvg, type RunnableLoad48, type SchedAvg } from "../sched";
import { decayLoad, type PeltCfsRq, type PeltEntity } from "./pelt";
import { computeRunnableContrib } from "./pelt_v48";

/** The v3.8 struct sched_avg (see the field map above). */
export interface SchedAvg38 extends SchedAvg {
  /** runnable_avg_period: the decayed sum of all the time tracked (1024-ns units). */
  runnableAvgPeriod: number;
  /**
   * decay_count: the cfs_rq's decay_counter when the entity went to sleep (> 0); the decays
   * carried by a waking migration (< 0); 0 for a queued, new or balancer-moved entity.
   */
  decayCount: number;
}

/** The v3.8 cfs_rq fields: avg is runnable_load_avg (sum is unused, 0). */
export interface CfsLoad38 extends RunnableLoad48 {
  /** blocked_load_avg: the load_avg_contrib of the entities that sleep on this cfs_rq. */
  blockedLoadAvg: number;
  /** decay_counter: 2^20-ns decays applied to blocked_load_avg, from 1 (init_cfs_rq). */
  decayCounter: number;
  /** last_decay: the cfs_rq clock >> 20 at the last decay. */
  lastDecay: number;
  /** removed_load: contribs of sleepers that woke on another CPU, subtracted at the next update. */
  removedLoad: number;
}

/** A fresh v3.8 sched_avg. */
export function createSchedAvg38(): SchedAvg38 {
  return { ...createSchedAvg(), runnableAvgPeriod: 0, decayCount: 0 };
}

/** The entity's sched_avg as SchedAvg38 (one not yet tracked in this form starts empty). */
export function avg38(se: PeltEntity): SchedAvg38 {
  const a = se.avg as SchedAvg38;
  if (a.runnableAvgPeriod === undefined) {
    const b = createSchedAvg38();
    se.avg = b;
    return b;
  }
  return a;
}

/** The cfs_rq's v3.8 load fields, created on first use. */
export function cfsLoad38(cfs: PeltCfsRq): CfsLoad38 {
  const rl = cfs.runnableLoad as CfsLoad38 | null | undefined;
  if (rl && rl.decayCounter !== undefined) return rl;
  const c: CfsLoad38 = {
    sum: 0,
    avg: 0,
    blockedLoadAvg: 0,
    decayCounter: 1,
    lastDecay: 0,
    removedLoad: 0,
  };
  cfs.runnableLoad = c;
  return c;
}

/** decay_load of v3.19, which returns val for n == 0 (pelt.ts' has no such test). */
function decayLoad38(val: number, n: number): number {
  return n ? decayLoad(val, n) : val;
}

/** 2^20 ns: the unit of last_decay and decay_count (cfs_rq_clock_task >> 20). */
const DECAY_UNIT_NS = 1 << 20;

/**
 * __update_entity_runnable_avg(now, sa, runnable): advance both sums to `now` (ns). Returns
 * whether a period boundary was crossed (load_avg_contrib must be recomputed).
 */
export function __updateEntityRunnableAvg(now: number, sa: SchedAvg38, runnable: boolean): boolean {
  let delta = now - sa.lastUpdateTime;
  if (delta < 0) {
    sa.lastUpdateTime = now; // time went backwards
    return false;
  }
  delta = Math.floor(delta / 1024); // 1024 ns ~ 1 us
  if (!delta) return false;
  sa.lastUpdateTime = now;
  let decayed = false;
  // delta_w is the amount already accumulated against our next period
  let deltaW = sa.runnableAvgPeriod % 1024;
  if (delta + deltaW >= 1024) {
    decayed = true;
    // complete the current period and accrue it
    deltaW = 1024 - deltaW;
    if (runnable) sa.loadSum += deltaW;
    sa.runnableAvgPeriod += deltaW;
    delta -= deltaW;
    const periods = Math.floor(delta / 1024);
    delta %= 1024;
    sa.loadSum = decayLoad38(sa.loadSum, periods + 1);
    sa.runnableAvgPeriod = decayLoad38(sa.runnableAvgPeriod, periods + 1);
    const contrib = computeRunnableContrib(periods);
    if (runnable) sa.loadSum += contrib;
    sa.runnableAvgPeriod += contrib;
  }
  // remainder of delta accrued against u_0'
  if (runnable) sa.loadSum += delta;
  sa.runnableAvgPeriod += delta;
  return decayed;
}

/** __update_task_entity_contrib: runnable_avg_sum * weight / (runnable_avg_period + 1). */
export function __updateTaskEntityContrib(se: PeltEntity): void {
  const sa = avg38(se);
  sa.loadAvg = Math.floor((sa.loadSum * se.weight) / (sa.runnableAvgPeriod + 1));
}

/** __update_entity_load_avg_contrib (task entities): the new contrib minus the old one. */
function __updateEntityLoadAvgContrib(se: PeltEntity): number {
  const old = se.avg.loadAvg;
  __updateTaskEntityContrib(se);
  return se.avg.loadAvg - old;
}

/**
 * subtract_blocked_load_contrib: blocked_load_avg -= contrib, 0 if that would not leave a
 * positive value; the kernel compares the long contrib as unsigned, so a negative one zeroes it.
 */
export function subtractBlockedLoadContrib(c: CfsLoad38, loadContrib: number): void {
  if (loadContrib >= 0 && loadContrib < c.blockedLoadAvg) c.blockedLoadAvg -= loadContrib;
  else c.blockedLoadAvg = 0;
}

/**
 * update_entity_load_avg(se, update_cfs_rq): age the entity (runnable while on_rq) and, when a
 * period boundary was crossed, recompute its contrib and (update_cfs_rq) pass the change on to
 * runnable_load_avg, or to blocked_load_avg for an entity not on the rq.
 */
export function updateEntityLoadAvg(
  now: number,
  cfs: PeltCfsRq,
  se: PeltEntity,
  updateCfsRq: boolean,
): void {
  if (!__updateEntityRunnableAvg(now, avg38(se), se.onRq)) return;
  const contribDelta = __updateEntityLoadAvgContrib(se);
  if (!updateCfsRq) return;
  const c = cfsLoad38(cfs);
  if (se.onRq) c.avg += contribDelta;
  else subtractBlockedLoadContrib(c, -contribDelta);
}

/**
 * update_cfs_rq_blocked_load(cfs_rq, force_update): once per 2^20 ns of clock (or when forced),
 * fold in removed_load, decay blocked_load_avg by the elapsed units and count them in
 * decay_counter. Returns whether it decayed.
 */
export function updateCfsRqBlockedLoad(now: number, cfs: PeltCfsRq, forceUpdate: boolean): boolean {
  const c = cfsLoad38(cfs);
  const nowUnits = Math.floor(now / DECAY_UNIT_NS);
  const decays = nowUnits - c.lastDecay;
  if (!decays && !forceUpdate) return false;
  if (c.removedLoad) {
    const removed = c.removedLoad;
    c.removedLoad = 0;
    subtractBlockedLoadContrib(c, removed);
  }
  if (decays) {
    c.blockedLoadAvg = decayLoad38(c.blockedLoadAvg, decays);
    c.decayCounter += decays;
    c.lastDecay = nowUnits;
  }
  return decays > 0;
}

/**
 * __synchronize_entity_decay: decay a sleeper's contrib by the cfs_rq's decays since it slept.
 * Returns the decays; decay_count is cleared only when there were some.
 */
export function __synchronizeEntityDecay(cfs: PeltCfsRq, se: PeltEntity): number {
  const sa = avg38(se);
  const decays = cfsLoad38(cfs).decayCounter - sa.decayCount;
  if (!decays) return 0;
  sa.loadAvg = decayLoad38(sa.loadAvg, decays);
  sa.decayCount = 0;
  return decays;
}

/**
 * enqueue_entity_load_avg(cfs_rq, se, wakeup): a new or migrated entity (decay_count <= 0)
 * starts its clock here, aged first over the decays a waking migration carried; a local wakeup
 * decays its contrib by the cfs_rq's decays, leaves blocked_load_avg and is aged over its sleep.
 * The contrib joins runnable_load_avg; then the blocked load, forced unless a wakeup.
 */
export function enqueueEntityLoadAvg38(
  now: number,
  cfs: PeltCfsRq,
  se: PeltEntity,
  wakeup: boolean,
): void {
  const sa = avg38(se);
  if (sa.decayCount <= 0) {
    sa.lastUpdateTime = now;
    if (sa.decayCount) {
      // a wake-up migration: approximate the time asleep by the carried decays
      sa.lastUpdateTime -= -sa.decayCount * DECAY_UNIT_NS;
      updateEntityLoadAvg(now, cfs, se, false);
      sa.decayCount = 0;
    }
    wakeup = false;
  } else {
    __synchronizeEntityDecay(cfs, se);
  }
  const c = cfsLoad38(cfs);
  // migrated tasks did not contribute to our blocked load
  if (wakeup) {
    subtractBlockedLoadContrib(c, sa.loadAvg);
    updateEntityLoadAvg(now, cfs, se, false);
  }
  c.avg += sa.loadAvg;
  updateCfsRqBlockedLoad(now, cfs, !wakeup);
}

/**
 * dequeue_entity_load_avg(cfs_rq, se, sleep): age the entity (still on_rq), update the blocked
 * load (forced unless a sleep), take the contrib out of runnable_load_avg; a sleeper's goes to
 * blocked_load_avg and it records decay_counter.
 */
export function dequeueEntityLoadAvg38(
  now: number,
  cfs: PeltCfsRq,
  se: PeltEntity,
  sleep: boolean,
): void {
  updateEntityLoadAvg(now, cfs, se, true);
  updateCfsRqBlockedLoad(now, cfs, !sleep);
  const c = cfsLoad38(cfs);
  const sa = avg38(se);
  c.avg -= sa.loadAvg;
  if (sleep) {
    c.blockedLoadAvg += sa.loadAvg;
    sa.decayCount = c.decayCounter;
  } // migrations, e.g. sleep=0 leave decay_count == 0
}

/**
 * migrate_task_rq_fair (v3.19): an entity with a decay_count (a sleeper waking elsewhere, or a
 * queued one woken locally before any decay and moved since) is synchronized with the old
 * cfs_rq, carries -decays, and leaves its contrib in the old cfs_rq's removed_load.
 */
export function migrateTaskRqFair38(oldCfs: PeltCfsRq, se: PeltEntity): void {
  const sa = avg38(se);
  if (!sa.decayCount) return;
  const decays = __synchronizeEntityDecay(oldCfs, se);
  sa.decayCount = decays ? -decays : 0;
  cfsLoad38(oldCfs).removedLoad += sa.loadAvg;
}

/**
 * init_task_runnable_average (wake_up_new_task, after the fork placement): both sums start at
 * sched_slice >> 10 on the chosen CPU's cfs_rq, so a new task weighs about its full weight;
 * decay_count 0 has enqueue treat it as migrated.
 */
export function initTaskRunnableAverage(se: PeltEntity, sliceNs: number): void {
  const sa = avg38(se);
  sa.decayCount = 0;
  const slice = Math.floor(sliceNs / 1024);
  sa.loadSum = slice;
  sa.runnableAvgPeriod = slice;
  __updateTaskEntityContrib(se);
}
