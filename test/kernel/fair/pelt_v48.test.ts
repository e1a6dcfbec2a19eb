// PELT in the v4.3 ... v4.10 form (fair.c v4.8 __update_load_avg and its callers).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  LOAD_AVG_MAX,
  type PeltCfsRq,
  type PeltEntity,
  __updateLoadAvgSe,
} from "../../../src/kernel/fair/pelt";
import {
  __updateLoadAvg48,
  computeRunnableContrib,
  dequeueEntityLoadAvg48,
  enqueueEntityLoadAvg48,
  initEntityRunnableAverage48,
  migrateTaskRqFair48,
  updateCfsRqLoadAvg48,
} from "../../../src/kernel/fair/pelt_v48";
import { peltFormOf } from "../../../src/kernel/fair/pelt_form";
import { createPeltRemoved, createSchedAvg } from "../../../src/kernel/sched";

const US = 1024; // one PELT unit, ns
const PERIOD = 1024 * US;

function entity(weight = 1024): PeltEntity {
  return { avg: createSchedAvg(), weight, onRq: true };
}

function cfsRq(): PeltCfsRq {
  return {
    avg: createSchedAvg(),
    removed: createPeltRemoved(),
    loadWeight: 0,
    hNrRunning: 0,
    curr: null,
    runnableLoad: { sum: 0, avg: 0 },
  };
}

/** Run an entity on the CPU from t0 to t1, updating every `step` ns (the v4.8 form). */
function run48(se: PeltEntity, t0: number, t1: number, step: number): void {
  se.avg.lastUpdateTime = t0;
  for (let t = t0 + step; t <= t1; t += step)
    __updateLoadAvg48(t, se.avg, se.weight, true, null, 1024);
}

test("__compute_runnable_contrib: the table up to 32 periods, halving beyond, LOAD_AVG_MAX from 345", () => {
  assert.equal(computeRunnableContrib(0), 0);
  assert.equal(computeRunnableContrib(1), 1002);
  assert.equal(computeRunnableContrib(32), 23371);
  // 64 periods: 23371 / 2 decayed by y^32 (mul by 0xffffffff >> 32 rounds down) + 23371
  assert.equal(computeRunnableContrib(64), 11684 + 23371);
  assert.equal(computeRunnableContrib(345), LOAD_AVG_MAX);
  assert.equal(computeRunnableContrib(1000), LOAD_AVG_MAX);
  for (let n = 33; n < 345; n++)
    assert.ok(computeRunnableContrib(n) >= computeRunnableContrib(n - 1), `non-decreasing at ${n}`);
  // the halving loop rounds down to 46714 just before the jump to the limit
  assert.equal(computeRunnableContrib(344), 46714);
});

test("an entity's load_sum is weighted: the same history gives weight x the nice-0 sum", () => {
  const a = entity(1024);
  const b = entity(3121); // nice -5
  run48(a, PERIOD, 40 * PERIOD + 300 * US, 250 * US);
  run48(b, PERIOD, 40 * PERIOD + 300 * US, 250 * US);
  // equal up to decay_load's rounding down of each sum
  assert.ok(Math.abs(b.avg.loadSum / 3121 / (a.avg.loadSum / 1024) - 1) < 1e-6);
  assert.ok(b.avg.loadSum > 3 * a.avg.loadSum);
  assert.equal(a.avg.loadAvg, Math.floor(a.avg.loadSum / LOAD_AVG_MAX));
  assert.equal(b.avg.loadAvg, Math.floor(b.avg.loadSum / LOAD_AVG_MAX));
});

test("an always-running entity's load_avg sags below its weight early in a period (LOAD_AVG_MAX divider); the 4.11+ form does not", () => {
  const old = entity();
  run48(old, PERIOD, 400 * PERIOD, 100 * US); // saturated
  // one update just past a period boundary: the new period holds a few units only
  const t = 401 * PERIOD + 4 * US;
  __updateLoadAvg48(t, old.avg, 1024, true, null, 1024);
  assert.ok(old.avg.periodContrib < 10);
  assert.ok(old.avg.loadAvg <= 1002 && old.avg.loadAvg >= 995, `4.8 load_avg ${old.avg.loadAvg}`);
  assert.ok(old.avg.utilAvg <= 1002, `4.8 util_avg ${old.avg.utilAvg}`);
  // the same history in the accumulate_sum form divides by LOAD_AVG_MAX - 1024 + period_contrib
  const now = entity();
  now.avg.lastUpdateTime = PERIOD;
  for (let u = PERIOD + 100 * US; u <= 400 * PERIOD; u += 100 * US) __updateLoadAvgSe(u, now, true);
  __updateLoadAvgSe(t, now, true);
  assert.ok(now.avg.loadAvg >= 1022, `4.11+ load_avg ${now.avg.loadAvg}`);
});

test("last_update_time = now: the sub-unit remainder of an update is dropped, not carried", () => {
  const se = entity();
  se.avg.lastUpdateTime = PERIOD;
  __updateLoadAvg48(PERIOD + 1500, se.avg, 1024, true, null, 1024);
  assert.equal(se.avg.lastUpdateTime, PERIOD + 1500);
  assert.equal(se.avg.periodContrib, 1); // one 1024-ns unit accrued, 476 ns lost
  assert.equal(se.avg.loadSum, 1024);
  // below one unit: nothing happens, last_update_time stays
  __updateLoadAvg48(PERIOD + 1500 + 1000, se.avg, 1024, true, null, 1024);
  assert.equal(se.avg.lastUpdateTime, PERIOD + 1500);
});

test("the period-completing part accrues before the decay: one update across a boundary", () => {
  const se = entity();
  se.avg.lastUpdateTime = PERIOD;
  se.avg.periodContrib = 1000;
  se.avg.loadSum = 1024 * 1000;
  // 24 units finish the period, then 2 full periods, then 10 units
  __updateLoadAvg48(PERIOD + (24 + 2048 + 10) * US, se.avg, 1024, false, null, 1024);
  // decay_load(1024 * 1024, 3) + 1024 * contrib(2) + 1024 * 10
  const decayed3 = Math.floor((1024 * 1024 * 0xefe4b99a) / 2 ** 32);
  assert.equal(se.avg.loadSum, decayed3 + 1024 * 1982 + 1024 * 10);
  assert.equal(se.avg.periodContrib, 10);
  assert.equal(se.avg.loadAvg, Math.floor(se.avg.loadSum / LOAD_AVG_MAX));
  assert.equal(se.avg.utilSum, 0); // not running
});

test("cfs_rq: runnable_load_sum accrues the queued weight in the same call as load_sum", () => {
  const cfs = cfsRq();
  cfs.avg.lastUpdateTime = PERIOD;
  cfs.loadWeight = 2048;
  updateCfsRqLoadAvg48(3 * PERIOD + 7 * US, cfs, 1024);
  assert.ok(cfs.runnableLoad);
  assert.equal(cfs.runnableLoad.sum, cfs.avg.loadSum);
  assert.equal(cfs.runnableLoad.avg, cfs.avg.loadAvg);
});

test("enqueue of a migrated entity: not aged, attached with its sums as they are, runnable load added", () => {
  const cfs = cfsRq();
  cfs.avg.lastUpdateTime = 10 * PERIOD + 300 * US;
  cfs.avg.periodContrib = 300;
  const se = entity();
  run48(se, PERIOD, 9 * PERIOD + 50 * US, 100 * US);
  const { loadSum, loadAvg, periodContrib } = se.avg;
  se.avg.lastUpdateTime = 0; // migrate_task_rq_fair
  se.onRq = false; // enqueue_entity_load_avg runs before se->on_rq = 1
  const now = 10 * PERIOD + 300 * US;
  enqueueEntityLoadAvg48(now, cfs, se, false, 1024);
  assert.equal(se.avg.loadSum, loadSum);
  assert.equal(se.avg.periodContrib, periodContrib); // not realigned on the cfs_rq's period
  assert.equal(se.avg.lastUpdateTime, cfs.avg.lastUpdateTime);
  assert.equal(cfs.avg.loadAvg, loadAvg);
  assert.equal(cfs.avg.loadSum, loadSum);
  assert.deepEqual(cfs.runnableLoad, { sum: loadSum, avg: loadAvg });
  // dequeue takes the entity's (updated) load back out of the runnable load, clamped at 0
  se.onRq = true;
  cfs.loadWeight = 1024;
  dequeueEntityLoadAvg48(now + 2 * PERIOD, cfs, se, false, 1024);
  assert.ok(cfs.runnableLoad);
  assert.ok(cfs.runnableLoad.avg >= 0 && cfs.runnableLoad.sum >= 0);
  assert.ok(cfs.avg.loadAvg > 0, "load_avg keeps the blocked entity's load");
});

test("migration removes the load lazily: removed_load_avg, then r x LOAD_AVG_MAX off the sum at the next update", () => {
  const cfs = cfsRq();
  const se = entity();
  initEntityRunnableAverage48(se);
  assert.equal(se.avg.periodContrib, 1023);
  assert.equal(se.avg.loadSum, 1024 * LOAD_AVG_MAX);
  cfs.avg.lastUpdateTime = 5 * PERIOD;
  se.avg.lastUpdateTime = 5 * PERIOD;
  cfs.avg.loadAvg = 1500;
  cfs.avg.loadSum = 1500 * LOAD_AVG_MAX;
  migrateTaskRqFair48(cfs, se, 1024);
  assert.equal(se.avg.lastUpdateTime, 0);
  assert.equal(cfs.removed.loadAvg, 1024);
  assert.equal(cfs.avg.loadAvg, 1500, "nothing subtracted before the cfs_rq's next update");
  // an update within the same unit: no decay, but the removal counts as a change
  assert.equal(updateCfsRqLoadAvg48(5 * PERIOD + 100, cfs, 1024), true);
  assert.equal(cfs.avg.loadAvg, 476);
  assert.equal(cfs.avg.loadSum, 476 * LOAD_AVG_MAX);
  assert.equal(cfs.removed.nr, 0);
});

test("each era runs its release's PELT form", () => {
  const v48 = peltFormOf("4.8");
  assert.ok(v48?.attachNew, "4.8 attaches new tasks in post_init_entity_util_avg");
  assert.equal(v48?.postInitWeightShift, 10);
  for (const era of ["3.19", "5.6", "5.19", "6.19"] as const) {
    const f = peltFormOf(era);
    assert.ok(f && !f.attachNew, era);
  }
  assert.equal(peltFormOf("2.6.29"), null);
});
