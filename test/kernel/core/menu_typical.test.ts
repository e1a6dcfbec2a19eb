// menu's repeating-pattern detector (drivers/cpuidle/governors/menu.c get_typical_interval) per
// era on hand-built rings, and its use in the idle-state choice: one 45 ms tick-wakeup sample
// among short idles is discarded as an outlier (v5.19), where the 1/8 running average alone
// would jump to ~5.6 ms and pick a deep state; 2.6.29 (before v2.6.35's detector) ignores the ring.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ERA_TRAITS } from "../../../src/kernel/features";
import { recordIdle, selectIdleState, TICK_WAKEUP_SAMPLE_NS } from "../../../src/kernel/core/idle";
import {
  getTypicalInterval,
  menuPredictNs,
  NO_TYPICAL_INTERVAL,
  type TypicalIntervalForm,
} from "../../../src/kernel/core/menu_typical";
import { Rq } from "../../../src/kernel/sched";
import { primeThenSleep, STATES, twoCores } from "./idle_fixture";

const FORMS: TypicalIntervalForm[] = ["v3.13", "v4.6", "v6.6", "v6.15"];

test("get_typical_interval: equal intervals give that value in every form; 'none' gives none", () => {
  for (const f of FORMS) assert.equal(getTypicalInterval(f, new Array(8).fill(37)), 37, f);
  assert.equal(getTypicalInterval("none", new Array(8).fill(37)), NO_TYPICAL_INTERVAL);
});

test("get_typical_interval: seven short idles and one 45 ms tick sample give the short average", () => {
  const ring = [20, 22, 18, 21, 19, 45_000, 20, 23];
  // avg of the seven = 143 / 7 = 20 (do_div floors); the 45 ms sample is the discarded outlier.
  for (const f of FORMS) assert.equal(getTypicalInterval(f, ring), 20, f);
});

test("get_typical_interval: a spread ring has none up to v6.6; v6.15 returns the remaining max", () => {
  const ring = [10, 100, 1000, 10000, 20, 200, 2000, 20000];
  for (const f of ["v3.13", "v4.6", "v6.6"] as const)
    assert.equal(getTypicalInterval(f, ring), NO_TYPICAL_INTERVAL, f);
  // 85975daeaa4d: at the 3/4 stop with at least INTERVALS / 2 samples left, "return max".
  assert.equal(getTypicalInterval("v6.15", ring), 2000);
});

test("get_typical_interval: outliers are discarded only while more than 3/4 of the samples remain", () => {
  // 45000 out (7 left), then 2000 out (6 left): still spread, and 6 * 4 <= 8 * 3 stops the
  // discarding, so the five 100s are never reached alone.
  const ring = [100, 100, 100, 100, 100, 1000, 2000, 45_000];
  assert.equal(getTypicalInterval("v4.6", ring), NO_TYPICAL_INTERVAL);
  assert.equal(getTypicalInterval("v3.13", ring), NO_TYPICAL_INTERVAL);
  assert.equal(getTypicalInterval("v6.15", ring), 1000, "v6.15: the max of the six left");
  // One more short sample in place of 1000: 45000 and 2000 out leave six within variance 400.
  assert.equal(getTypicalInterval("v4.6", [100, 100, 100, 100, 100, 110, 2000, 45_000]), 101);
  // avg > 6 * stddev needs divisor * 4 >= INTERVALS * 3: 5 left of 8 are not enough.
  const few = [1000, 1000, 1000, 1100, 1100, 45_000, 45_000, 45_000];
  assert.equal(getTypicalInterval("v4.6", few), NO_TYPICAL_INTERVAL);
});

test("get_typical_interval: v3.13's int_sqrt tests stddev <= 20, v4.6 variance <= 400", () => {
  // avg 20, variance 420 (int_sqrt 20): typical in v3.13; v4.6 discards the 41s and returns the
  // zeros' average.
  const ring = [0, 0, 0, 0, 41, 41, 41, 41];
  assert.equal(getTypicalInterval("v3.13", ring), 20);
  assert.equal(getTypicalInterval("v4.6", ring), 0);
  assert.equal(getTypicalInterval("v6.6", [0, 0, 0, 0, 0, 0, 0, 0]), NO_TYPICAL_INTERVAL, "!max");
});

test("menuPredictNs per era: the typical interval replaces (3.19) or caps (4.8+) the average", () => {
  const rq = new Rq(0);
  rq.avgIdleNs = 800_000;
  rq.idleIntervalsUs.set([50, 50, 50, 50, 50, 50, 50, 45_000]);
  assert.equal(menuPredictNs(ERA_TRAITS["2.6.29"], rq), 800_000, "2.6.29: no detector");
  assert.equal(menuPredictNs(ERA_TRAITS["3.19"], rq), 50_000);
  assert.equal(menuPredictNs(ERA_TRAITS["5.19"], rq), 50_000);
  rq.avgIdleNs = 30_000;
  assert.equal(menuPredictNs(ERA_TRAITS["3.19"], rq), 50_000, "3.19: predicted_us = avg");
  assert.equal(menuPredictNs(ERA_TRAITS["4.8"], rq), 30_000, "4.8+: the lower of the two");
  rq.idleIntervalsUs.fill(10);
  assert.equal(menuPredictNs(ERA_TRAITS["5.19"], rq), 10_000);
  rq.avgIdleNs = 5_000;
  assert.equal(menuPredictNs(ERA_TRAITS["5.19"], rq), 5_000);
  assert.equal(menuPredictNs(ERA_TRAITS["6.6"], rq), 10_000, "6.6: <= 15 us, no timer term");
});

/** cpu0 after seven 50 us idles and one tick wakeup (45 ms sample), then going idle. */
function afterTickSample(era: "5.19" | "2.6.29") {
  const k = twoCores(era, STATES);
  const rq = k.rqs[0];
  primeThenSleep(k, () => {
    rq.avgIdleNs = 50_000;
    for (let i = 0; i < 7; i++) recordIdle(rq, 50_000);
    recordIdle(rq, TICK_WAKEUP_SAMPLE_NS);
  });
  k.runUntil(700_000); // idle since ~0.5 ms
  assert.equal(rq.curr, null);
  return rq;
}

test("5.19: one tick-wakeup sample among short idles does not make the next idle pick a deep state", () => {
  const rq = afterTickSample("5.19");
  assert.ok(rq.avgIdleNs > 5_000_000, "the running average jumped past 5 ms");
  assert.equal(selectIdleState(STATES, rq), 3, "the average alone would pick C6");
  assert.equal(rq.idleStateIdx, 1, "C1: the typical 50 us interval");
  assert.equal(rq.tickRunning, true, "a 50 us prediction keeps the tick");
});

test("2.6.29 (before the detector) ignores the ring: the average picks the deep state", () => {
  const rq = afterTickSample("2.6.29");
  assert.equal(rq.idleStateIdx, 3);
});
