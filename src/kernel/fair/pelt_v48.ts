// PELT as v4.3 ... v4.10 kept it: __update_load_avg() and its callers in kernel/sched/fair.c
// (9d89c257dfb9 "sched/fair: Rewrite runnable load and utilization average tracking", v4.3;
// read here in the v4.8 form). It differs from the accumulate_sum form of pelt.ts (a481db34b9be,
// v4.11, and later changes) in ways that move the sign of small load differences:
//   - an entity's load_sum is weighted (weight x contrib), and every average divides its sum by
//     LOAD_AVG_MAX, not by a divider that follows period_contrib, so an average sags through
//     each period and jumps at its boundary;
//   - the part of delta that completes the current period is accrued before the sums decay by
//     periods + 1; full periods come from __compute_runnable_contrib's table;
//   - last_update_time = now: the sub-1024-ns remainder of each update is dropped;
//   - cfs_rq->runnable_load_sum accrues with the queued weight in the same call;
//   - a migrating task, queued or not, leaves through remove_entity_load_avg (removed_load_avg,
//     subtracted at the cfs_rq's next update as r x LOAD_AVG_MAX from the sum); attach adds the
//     entity's sums as they are, without realigning them on the cfs_rq's period;
//   - a new task is attached by post_init_entity_util_avg (7dc603c9028e, v4.8), with
//     period_contrib 1023 and load_sum = load_avg x LOAD_AVG_MAX from init_entity_runnable_average.
// Frequency invariance is not modelled (scale_freq = 1024); scale_cpu is the arch capacity.
import { createPeltRemoved, type SchedAvg } from "../sched";
import { decayLoad, LOAD_AVG_MAX, LOAD_AVG_PERIOD, type PeltCfsRq, type PeltEntity } from "./pelt";

/** LOAD_AVG_MAX_N: the number of full periods that produce LOAD_AVG_MAX. */
const LOAD_AVG_MAX_N = 345;

/** runnable_avg_yN_sum[n] = floor(1024 \Sum_{k=1..n} y^k) (fair.c v4.8). */
const runnable_avg_yN_sum: readonly number[] = [
  0, 1002, 1982, 2941, 3880, 4798, 5697, 6576, 7437, 8279, 9103, 9909, 10698, 11470, 12226, 12966,
  13690, 14398, 15091, 15769, 16433, 17082, 17718, 18340, 18949, 19545, 20128, 20698, 21256, 21802,
  22336, 22859, 23371,
];

/** __compute_runnable_contrib(n): \Sum_{k=1..n} 1024 y^k, by halving per 32 periods. */
export function computeRunnableContrib(n: number): number {
  if (n <= LOAD_AVG_PERIOD) return runnable_avg_yN_sum[n];
  if (n >= LOAD_AVG_MAX_N) return LOAD_AVG_MAX;
  let contrib = 0;
  do {
    contrib = Math.floor(contrib / 2); // y^LOAD_AVG_PERIOD = 1/2
    contrib += runnable_avg_yN_sum[LOAD_AVG_PERIOD];
    n -= LOAD_AVG_PERIOD;
  } while (n > LOAD_AVG_PERIOD);
  return decayLoad(contrib, n) + runnable_avg_yN_sum[n];
}

/** cfs_rq->runnable_load_sum / _avg, created on first use. */
function runnableLoadOf(cfs: PeltCfsRq): { sum: number; avg: number } {
  cfs.runnableLoad ??= { sum: 0, avg: 0 };
  return cfs.runnableLoad;
}

/**
 * __update_load_avg(now, cpu, sa, weight, running, cfs_rq): advance the sums to `now` (ns);
 * `rl` is the cfs_rq's runnable load when `sa` is the cfs_rq's own. Returns whether a period
 * boundary was crossed (the averages were recomputed).
 */
export function __updateLoadAvg48(
  now: number,
  sa: SchedAvg,
  weight: number,
  running: boolean,
  rl: { sum: number; avg: number } | null,
  scaleCpu: number,
): boolean {
  let delta = now - sa.lastUpdateTime;
  if (delta < 0) {
    sa.lastUpdateTime = now; // time went backwards
    return false;
  }
  delta = Math.floor(delta / 1024); // 1024 ns ~ 1 us
  if (!delta) return false;
  sa.lastUpdateTime = now;
  let decayed = false;
  let deltaW = sa.periodContrib; // already accumulated against the current period
  if (delta + deltaW >= 1024) {
    decayed = true;
    sa.periodContrib = 0;
    // complete the current period and accrue it
    deltaW = 1024 - deltaW;
    if (weight) {
      sa.loadSum += weight * deltaW;
      if (rl) rl.sum += weight * deltaW;
    }
    if (running) sa.utilSum += deltaW * scaleCpu;
    delta -= deltaW;
    const periods = Math.floor(delta / 1024);
    delta %= 1024;
    sa.loadSum = decayLoad(sa.loadSum, periods + 1);
    if (rl) rl.sum = decayLoad(rl.sum, periods + 1);
    sa.utilSum = decayLoad(sa.utilSum, periods + 1);
    const contrib = computeRunnableContrib(periods);
    if (weight) {
      sa.loadSum += weight * contrib;
      if (rl) rl.sum += weight * contrib;
    }
    if (running) sa.utilSum += contrib * scaleCpu;
  }
  // the remainder of delta, accrued against the new current period
  if (weight) {
    sa.loadSum += weight * delta;
    if (rl) rl.sum += weight * delta;
  }
  if (running) sa.utilSum += delta * scaleCpu;
  sa.periodContrib += delta;
  if (decayed) {
    sa.loadAvg = Math.floor(sa.loadSum / LOAD_AVG_MAX);
    if (rl) rl.avg = Math.floor(rl.sum / LOAD_AVG_MAX);
    sa.utilAvg = Math.floor(sa.utilSum / LOAD_AVG_MAX);
  }
  return decayed;
}

const subPositive = (a: number, b: number): number => (a > b ? a - b : 0);

/**
 * update_cfs_rq_load_avg(now, cfs_rq): fold in removed_load_avg / removed_util_avg (r x
 * LOAD_AVG_MAX off the sums), then advance the cfs_rq with its queued weight. Returns
 * decayed || removed load.
 */
export function updateCfsRqLoadAvg48(now: number, cfs: PeltCfsRq, scaleCpu: number): boolean {
  const sa = cfs.avg;
  const r = cfs.removed;
  let removed = false;
  if (r.loadAvg) {
    sa.loadAvg = subPositive(sa.loadAvg, r.loadAvg);
    sa.loadSum = subPositive(sa.loadSum, r.loadAvg * LOAD_AVG_MAX);
    removed = true;
  }
  if (r.utilAvg) {
    sa.utilAvg = subPositive(sa.utilAvg, r.utilAvg);
    sa.utilSum = subPositive(sa.utilSum, r.utilAvg * LOAD_AVG_MAX);
  }
  if (r.nr) cfs.removed = createPeltRemoved();
  const decayed = __updateLoadAvg48(
    now,
    sa,
    cfs.loadWeight,
    cfs.curr !== null,
    runnableLoadOf(cfs),
    scaleCpu,
  );
  return decayed || removed;
}

/** update_load_avg(se): age the entity (weight while on_rq), then its cfs_rq. */
export function updateLoadAvg48(
  now: number,
  cfs: PeltCfsRq,
  se: PeltEntity,
  running: boolean,
  scaleCpu: number,
): boolean {
  __updateLoadAvg48(now, se.avg, se.onRq ? se.weight : 0, running, null, scaleCpu);
  return updateCfsRqLoadAvg48(now, cfs, scaleCpu);
}

/** attach_entity_load_avg with ATTACH_AGE_LOAD: age to the cfs_rq's clock if attached, add. */
export function attachEntityLoadAvg48(cfs: PeltCfsRq, se: PeltEntity, scaleCpu: number): void {
  const a = se.avg;
  if (a.lastUpdateTime) __updateLoadAvg48(cfs.avg.lastUpdateTime, a, 0, false, null, scaleCpu);
  a.lastUpdateTime = cfs.avg.lastUpdateTime;
  cfs.avg.loadAvg += a.loadAvg;
  cfs.avg.loadSum += a.loadSum;
  cfs.avg.utilAvg += a.utilAvg;
  cfs.avg.utilSum += a.utilSum;
}

/**
 * enqueue_entity_load_avg: a migrated entity (last_update_time 0) is not aged; the cfs_rq is
 * updated; the entity's load joins runnable_load_avg / _sum; a migrated one is attached.
 */
export function enqueueEntityLoadAvg48(
  now: number,
  cfs: PeltCfsRq,
  se: PeltEntity,
  running: boolean,
  scaleCpu: number,
): void {
  const sa = se.avg;
  const migrated = !sa.lastUpdateTime;
  if (!migrated) __updateLoadAvg48(now, sa, se.onRq ? se.weight : 0, running, null, scaleCpu);
  updateCfsRqLoadAvg48(now, cfs, scaleCpu);
  const rl = runnableLoadOf(cfs);
  rl.avg += sa.loadAvg;
  rl.sum += sa.loadSum;
  if (migrated) attachEntityLoadAvg48(cfs, se, scaleCpu);
}

/** dequeue_entity_load_avg: update_load_avg, then max_t(..., 0) off the runnable load. */
export function dequeueEntityLoadAvg48(
  now: number,
  cfs: PeltCfsRq,
  se: PeltEntity,
  running: boolean,
  scaleCpu: number,
): void {
  updateLoadAvg48(now, cfs, se, running, scaleCpu);
  const rl = runnableLoadOf(cfs);
  rl.avg = Math.max(rl.avg - se.avg.loadAvg, 0);
  rl.sum = Math.max(rl.sum - se.avg.loadSum, 0);
}

/**
 * migrate_task_rq_fair (v4.8): remove_entity_load_avg for every migration, queued (after
 * dequeue) or waking: age the entity to the old cfs_rq's last update, queue its load and util
 * in removed_*_avg; last_update_time = 0 tells the new CPU to attach it.
 */
export function migrateTaskRqFair48(oldCfs: PeltCfsRq, se: PeltEntity, scaleCpu: number): void {
  __updateLoadAvg48(oldCfs.avg.lastUpdateTime, se.avg, 0, false, null, scaleCpu);
  oldCfs.removed.nr++;
  oldCfs.removed.loadAvg += se.avg.loadAvg;
  oldCfs.removed.utilAvg += se.avg.utilAvg;
  se.avg.lastUpdateTime = 0;
}

/** init_entity_runnable_average (v4.8): full load, util 0, period_contrib 1023. */
export function initEntityRunnableAverage48(se: PeltEntity): void {
  const sa = se.avg;
  sa.lastUpdateTime = 0;
  sa.periodContrib = 1023;
  sa.loadAvg = se.weight;
  sa.loadSum = sa.loadAvg * LOAD_AVG_MAX;
  sa.utilAvg = 0;
  sa.utilSum = 0;
}
