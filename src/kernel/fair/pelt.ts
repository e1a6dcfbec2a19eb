// Per-entity load tracking: kernel/sched/pelt.c, sched-pelt.h and the attach/detach/update
// parts of fair.c. Time is in ns; PELT works in 1024-ns units and 1024-unit periods (~1 ms).
// Without task groups a task's h_load is its own load_avg, so the cgroup propagation is absent.
import {
  createPeltRemoved,
  createSchedAvg,
  type PeltRemoved,
  SCHED_CAPACITY_SCALE,
  type SchedAvg,
} from "../sched";

export const LOAD_AVG_PERIOD = 32;
export const LOAD_AVG_MAX = 47742;
/** LOAD_AVG_MAX * y == LOAD_AVG_MAX - 1024: the smallest divider (pelt.h). */
export const PELT_MIN_DIVIDER = LOAD_AVG_MAX - 1024;

/**
 * rq_clock_pelt() at simulated time `now`. The kernel's clock counts from boot, so it is never
 * 0 when a task is created and last_update_time == 0 can mean "not attached" (set by
 * migrate_task_rq_fair, read by update_load_avg's DO_ATTACH). A run starts at t = 0, so PELT's
 * clock is offset: choice, one PELT period (1024 x 1024 ns), which keeps the period boundaries
 * where an unshifted clock puts them. Without it, a task attached at t = 0 copies the cfs_rq's
 * last_update_time of 0, is never aged, and is attached again at every enqueue.
 */
export function rqClockPelt(now: number): number {
  return now + PELT_CLOCK_OFFSET_NS;
}
const PELT_CLOCK_OFFSET_NS = 1024 * 1024;
/** runnable_avg_yN_inv[n] = y^n * 2^32 with y^32 = 0.5 (sched-pelt.h, generated). */
export const runnable_avg_yN_inv: readonly number[] = [
  0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796,
  0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46,
  0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
  0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
];

const TWO32 = 4294967296;

/** mul_u64_u32_shr(val, mul, 32), exact for the sums PELT keeps (val < 2^36 without BigInt). */
function mulU64U32Shr32(val: number, mul: number): number {
  if (val < 2 ** 36) {
    const hi = Math.floor(mul / 65536);
    const lo = mul - hi * 65536;
    const t1 = val * hi; // < 2^52
    const q1 = Math.floor(t1 / 65536);
    const r1 = t1 - q1 * 65536;
    return q1 + Math.floor((r1 * 65536 + val * lo) / TWO32);
  }
  return Number((BigInt(Math.floor(val)) * BigInt(mul)) >> 32n);
}

/** decay_load: val * y^n, using y^32 = 1/2 and the 32-entry table. */
export function decayLoad(val: number, n: number): number {
  if (n > LOAD_AVG_PERIOD * 63) return 0;
  let localN = n;
  if (localN >= LOAD_AVG_PERIOD) {
    val = Math.floor(val / 2 ** Math.floor(localN / LOAD_AVG_PERIOD));
    localN %= LOAD_AVG_PERIOD;
  }
  return mulU64U32Shr32(val, runnable_avg_yN_inv[localN]);
}

/** __accumulate_pelt_segments: c1 = d1 y^p, c2 = 1024 sum_{n=1}^{p-1} y^n, c3 = d3. */
export function accumulatePeltSegments(periods: number, d1: number, d3: number): number {
  const c1 = decayLoad(d1, periods);
  const c2 = LOAD_AVG_MAX - decayLoad(LOAD_AVG_MAX, periods) - 1024;
  return c1 + c2 + d3;
}

/**
 * accumulate_sum: decay the sums over the crossed periods, then add this update's contribution
 * (d1 remainder of the old period, full periods d2, d3 of the current one). Returns periods.
 */
export function accumulateSum(
  delta: number,
  sa: SchedAvg,
  load: number,
  runnable: number,
  running: boolean,
  scaleCpu = SCHED_CAPACITY_SCALE,
): number {
  let contrib = delta; // p == 0 -> delta < 1024
  delta += sa.periodContrib;
  const periods = Math.floor(delta / 1024);
  if (periods) {
    sa.loadSum = decayLoad(sa.loadSum, periods);
    sa.runnableSum = decayLoad(sa.runnableSum, periods);
    sa.utilSum = decayLoad(sa.utilSum, periods);
    delta %= 1024;
    // !load implies !runnable and !running (___update_load_sum), so contrib is unused then
    if (load) contrib = accumulatePeltSegments(periods, 1024 - sa.periodContrib, delta);
  }
  sa.periodContrib = delta;
  if (load) sa.loadSum += load * contrib;
  if (runnable) sa.runnableSum += runnable * contrib * SCHED_CAPACITY_SCALE;
  // 4.1-5.0: util_sum += contrib * scale_cpu (pelt_clock.ts); 1024 otherwise
  if (running) sa.utilSum += contrib * scaleCpu;
  return periods;
}

/**
 * ___update_load_sum: advance the sums to `now` (ns). Returns true when a period boundary was
 * crossed, i.e. when the averages must be recomputed.
 */
export function ___updateLoadSum(
  now: number,
  sa: SchedAvg,
  load: number,
  runnable: number,
  running: boolean,
  scaleCpu = SCHED_CAPACITY_SCALE,
): boolean {
  let delta = now - sa.lastUpdateTime;
  if (delta < 0) {
    sa.lastUpdateTime = now; // time went backwards
    return false;
  }
  delta = Math.floor(delta / 1024); // 1024 ns ~ 1 us
  if (!delta) return false;
  sa.lastUpdateTime += delta * 1024;
  if (!load) {
    runnable = 0;
    running = false;
  }
  return accumulateSum(delta, sa, load, runnable, running, scaleCpu) > 0;
}

/** get_pelt_divider: the maximum sum at this position in the current period. */
export function getPeltDivider(sa: SchedAvg): number {
  return PELT_MIN_DIVIDER + sa.periodContrib;
}

/** ___update_load_avg: averages from sums; `load` is the entity weight (1 for a cfs_rq). */
export function ___updateLoadAvg(sa: SchedAvg, load: number): void {
  const divider = getPeltDivider(sa);
  sa.loadAvg = Math.floor((load * sa.loadSum) / divider);
  sa.runnableAvg = Math.floor(sa.runnableSum / divider);
  sa.utilAvg = Math.floor(sa.utilSum / divider);
}

// ---------------------------------------------------------------------------------------------
// Entities and cfs_rq aggregates (fair.c), without task groups.

/** The part of a sched_entity PELT needs. A task is runnable exactly when it is on_rq. */
export interface PeltEntity {
  avg: SchedAvg;
  /** se->load.weight in 1024 units (se_weight). */
  weight: number;
  /** se->on_rq. */
  onRq: boolean;
  /** se->sched_delayed (v6.12+): still on_rq, but not runnable (se_runnable, v6.14 form). */
  schedDelayed?: boolean;
}

/** cfs_rq->removed: contributions of tasks that left while blocked, applied at the next update. */
/** The part of a cfs_rq PELT needs. Structural: the core's CfsRq can carry these fields. */
export interface PeltCfsRq {
  avg: SchedAvg;
  removed: PeltRemoved;
  /** cfs_rq->load.weight: sum of the queued entities' weights (1024 units). */
  loadWeight: number;
  /** cfs_rq->h_nr_running (h_nr_queued since v6.14). */
  hNrRunning: number;
  /** Delayed entities (v6.12+): runnable_avg follows h_nr_queued - these (h_nr_runnable). */
  hNrDelayed?: number;
  /** cfs_rq->curr (non-null while a task of this cfs_rq runs). */
  curr: unknown | null;
  /** 4.x runnable_load_sum / runnable_load_avg (null or absent in other eras). */
  runnableLoad?: { sum: number; avg: number } | null;
}

/** __update_load_avg_blocked_se: decay a sleeping entity (e.g. before reading its util). */
export function __updateLoadAvgBlockedSe(now: number, se: PeltEntity): boolean {
  if (___updateLoadSum(now, se.avg, 0, 0, false)) {
    ___updateLoadAvg(se.avg, se.weight);
    return true;
  }
  return false;
}

/** __update_load_avg_se: load and runnable are on_rq, running is cfs_rq->curr == se. */
export function __updateLoadAvgSe(
  now: number,
  se: PeltEntity,
  running: boolean,
  scaleCpu = SCHED_CAPACITY_SCALE,
): boolean {
  const onRq = se.onRq ? 1 : 0;
  if (___updateLoadSum(now, se.avg, onRq, se.schedDelayed ? 0 : onRq, running, scaleCpu)) {
    ___updateLoadAvg(se.avg, se.weight);
    se.avg.utilEstUnchanged = false; // cfs_se_util_change (v4.19+): util_avg moved
    return true;
  }
  return false;
}

/** __update_load_avg_cfs_rq: the cfs_rq's own sums are driven by its weight, h_nr and curr. */
export function __updateLoadAvgCfsRq(
  now: number,
  cfs: PeltCfsRq,
  scaleCpu = SCHED_CAPACITY_SCALE,
): boolean {
  const rl = cfs.runnableLoad;
  // 4.x: runnable_load_sum decays over the same periods and accrues the same weight x contrib
  // as the cfs_rq's load_sum in __update_load_avg(..., cfs_rq) (fair.c v4.8), so its step is
  // the load_sum's step with its own starting value.
  const periods = rl ? periodsUntil(now, cfs.avg) : 0;
  const loadSum0 = cfs.avg.loadSum;
  const runnable = cfs.hNrRunning - (cfs.hNrDelayed ?? 0);
  const decayed = ___updateLoadSum(
    now,
    cfs.avg,
    cfs.loadWeight,
    runnable,
    cfs.curr !== null,
    scaleCpu,
  );
  if (rl) {
    rl.sum = decayLoad(rl.sum, periods) + (cfs.avg.loadSum - decayLoad(loadSum0, periods));
    // runnable_load_avg is recomputed only when a period boundary was crossed, as load_avg is
    if (decayed) rl.avg = Math.floor(rl.sum / getPeltDivider(cfs.avg));
  }
  if (decayed) {
    ___updateLoadAvg(cfs.avg, 1);
    return true;
  }
  return false;
}

/** The period boundaries ___update_load_sum will cross going to `now` (0 if it will not run). */
function periodsUntil(now: number, sa: SchedAvg): number {
  const delta = now - sa.lastUpdateTime;
  if (delta < 0) return 0;
  return Math.floor((Math.floor(delta / 1024) + sa.periodContrib) / 1024);
}

/** 4.x enqueue_entity_load_avg: the entity's load joins runnable_load_avg / _sum. */
export function enqueueRunnableLoad48(cfs: PeltCfsRq, se: PeltEntity): void {
  const rl = cfs.runnableLoad;
  if (!rl) return;
  rl.avg += se.avg.loadAvg;
  rl.sum += se.weight * se.avg.loadSum;
}

/** 4.x dequeue_entity_load_avg: max_t(long, avg - se load_avg, 0), the same for the sum. */
export function dequeueRunnableLoad48(cfs: PeltCfsRq, se: PeltEntity): void {
  const rl = cfs.runnableLoad;
  if (!rl) return;
  rl.avg = Math.max(rl.avg - se.avg.loadAvg, 0);
  rl.sum = Math.max(rl.sum - se.weight * se.avg.loadSum, 0);
}

const subPositive = (a: number, b: number): number => (a > b ? a - b : 0);

/** update_cfs_rq_load_avg: fold in removed contributions, then advance the cfs_rq sums. */
export function updateCfsRqLoadAvg(
  now: number,
  cfs: PeltCfsRq,
  scaleCpu = SCHED_CAPACITY_SCALE,
): boolean {
  let decayed = false;
  const sa = cfs.avg;
  if (cfs.removed.nr) {
    const divider = getPeltDivider(sa);
    const r = cfs.removed;
    sa.loadAvg = subPositive(sa.loadAvg, r.loadAvg);
    sa.loadSum = Math.max(
      subPositive(sa.loadSum, r.loadAvg * divider),
      sa.loadAvg * PELT_MIN_DIVIDER,
    );
    sa.utilAvg = subPositive(sa.utilAvg, r.utilAvg);
    sa.utilSum = Math.max(
      subPositive(sa.utilSum, r.utilAvg * divider),
      sa.utilAvg * PELT_MIN_DIVIDER,
    );
    sa.runnableAvg = subPositive(sa.runnableAvg, r.runnableAvg);
    sa.runnableSum = Math.max(
      subPositive(sa.runnableSum, r.runnableAvg * divider),
      sa.runnableAvg * PELT_MIN_DIVIDER,
    );
    cfs.removed = createPeltRemoved();
    decayed = true;
  }
  return __updateLoadAvgCfsRq(now, cfs, scaleCpu) || decayed;
}

/** enqueue_load_avg: add the entity's load to the cfs_rq (load_sum is weighted). */
export function enqueueLoadAvg(cfs: PeltCfsRq, se: PeltEntity): void {
  cfs.avg.loadAvg += se.avg.loadAvg;
  cfs.avg.loadSum += se.weight * se.avg.loadSum;
}

/** dequeue_load_avg. */
export function dequeueLoadAvg(cfs: PeltCfsRq, se: PeltEntity): void {
  cfs.avg.loadAvg = subPositive(cfs.avg.loadAvg, se.avg.loadAvg);
  cfs.avg.loadSum = Math.max(
    subPositive(cfs.avg.loadSum, se.weight * se.avg.loadSum),
    cfs.avg.loadAvg * PELT_MIN_DIVIDER,
  );
}

/**
 * attach_entity_load_avg: align the entity on the cfs_rq's period (same clock) and add its
 * averages; sums are rebuilt from the averages with the cfs_rq's divider.
 */
export function attachEntityLoadAvg(cfs: PeltCfsRq, se: PeltEntity): void {
  const divider = getPeltDivider(cfs.avg);
  const a = se.avg;
  a.lastUpdateTime = cfs.avg.lastUpdateTime;
  a.periodContrib = cfs.avg.periodContrib;
  a.utilSum = a.utilAvg * divider;
  a.runnableSum = a.runnableAvg * divider;
  a.loadSum = a.loadAvg * divider;
  a.loadSum = se.weight < a.loadSum ? Math.floor(a.loadSum / se.weight) : 1;
  enqueueLoadAvg(cfs, se);
  cfs.avg.utilAvg += a.utilAvg;
  cfs.avg.utilSum += a.utilSum;
  cfs.avg.runnableAvg += a.runnableAvg;
  cfs.avg.runnableSum += a.runnableSum;
}

/** detach_entity_load_avg: remove the entity's contribution now (its rq lock is held). */
export function detachEntityLoadAvg(cfs: PeltCfsRq, se: PeltEntity): void {
  dequeueLoadAvg(cfs, se);
  const sa = cfs.avg;
  sa.utilAvg = subPositive(sa.utilAvg, se.avg.utilAvg);
  sa.utilSum = Math.max(subPositive(sa.utilSum, se.avg.utilSum), sa.utilAvg * PELT_MIN_DIVIDER);
  sa.runnableAvg = subPositive(sa.runnableAvg, se.avg.runnableAvg);
  sa.runnableSum = Math.max(
    subPositive(sa.runnableSum, se.avg.runnableSum),
    sa.runnableAvg * PELT_MIN_DIVIDER,
  );
}

/** sync_entity_load_avg: bring a blocked entity up to the cfs_rq's last update. */
export function syncEntityLoadAvg(cfs: PeltCfsRq, se: PeltEntity): void {
  __updateLoadAvgBlockedSe(cfs.avg.lastUpdateTime, se);
}

/**
 * remove_entity_load_avg: a blocked task migrates (wakeup on another CPU) without the old rq
 * lock; its contribution is queued in cfs_rq->removed and subtracted at the next update.
 */
export function removeEntityLoadAvg(cfs: PeltCfsRq, se: PeltEntity): void {
  syncEntityLoadAvg(cfs, se);
  cfs.removed.nr++;
  cfs.removed.loadAvg += se.avg.loadAvg;
  cfs.removed.utilAvg += se.avg.utilAvg;
  cfs.removed.runnableAvg += se.avg.runnableAvg;
}

/** update_load_avg() flags. UPDATE_TG is accepted and ignored (no task groups). */
export const UPDATE_TG = 0x1;
export const SKIP_AGE_LOAD = 0x2;
export const DO_ATTACH = 0x4;
export const DO_DETACH = 0x8;

/**
 * update_load_avg(cfs_rq, se, flags): age the entity (unless new/migrated), age the cfs_rq,
 * then attach a migrated entity (DO_ATTACH, at enqueue) or detach one (DO_DETACH).
 * `running` is cfs_rq->curr == se. Returns whether the cfs_rq averages changed.
 */
export function updateLoadAvg(
  now: number,
  cfs: PeltCfsRq,
  se: PeltEntity,
  running: boolean,
  flags = 0,
  scaleCpu = SCHED_CAPACITY_SCALE,
): boolean {
  if (se.avg.lastUpdateTime && !(flags & SKIP_AGE_LOAD))
    __updateLoadAvgSe(now, se, running, scaleCpu);
  const decayed = updateCfsRqLoadAvg(now, cfs, scaleCpu);
  if (!se.avg.lastUpdateTime && flags & DO_ATTACH) {
    attachEntityLoadAvg(cfs, se);
    return true;
  }
  if (flags & DO_DETACH) {
    detachEntityLoadAvg(cfs, se);
    return true;
  }
  return decayed;
}

/**
 * migrate_task_rq_fair's PELT part: a queued task moved by the balancer is detached under the
 * old rq lock (TASK_ON_RQ_MIGRATING); a waking task is removed lazily. Either way the new CPU
 * sees last_update_time == 0 and attaches it at enqueue.
 */
export function migrateTaskRqFairPelt(
  now: number,
  oldCfs: PeltCfsRq,
  se: PeltEntity,
  queued: boolean,
  scaleCpu = SCHED_CAPACITY_SCALE,
): void {
  if (queued) {
    updateLoadAvg(now, oldCfs, se, false, DO_DETACH, scaleCpu);
  } else {
    removeEntityLoadAvg(oldCfs, se);
  }
  se.avg.lastUpdateTime = 0;
}

/**
 * init_entity_runnable_average: a new task starts with load_avg = weight (so it is not
 * ignored by the balancer), util 0 (post_init_entity_util_avg may raise it; not modelled).
 */
export function initEntityRunnableAverage(se: PeltEntity): void {
  se.avg = createSchedAvg();
  se.avg.loadAvg = se.weight;
}
