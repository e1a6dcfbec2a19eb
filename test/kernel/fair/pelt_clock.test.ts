// PELT CPU invariance on a big.LITTLE machine (little CPUs of capacity 462): 4.1-5.0 scale the
// running contribution by the CPU's capacity (a task always running on a little CPU settles at
// 462); 5.1+ scale time instead (rq_clock_pelt runs at 462/1024 of the task clock while busy, so
// an always-running task still tends to 1024, more slowly; a periodic task's util follows its
// work, not its time; a saturated rq's idle gap is lost idle time). 3.19 has neither, nor any
// util_avg (its load_avg_contrib counts runnable time), and every 1024-capacity CPU keeps the
// unscaled clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { run, sleep, wait } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import { BIG_LITTLE_CAPACITIES, bigLittleKernel } from "../../support/big_little";
import { rqClockPelt } from "../../../src/kernel/fair/pelt";
import { rqClockPeltOf } from "../../../src/kernel/fair/pelt_clock";

const MS = 1_000_000;

function kernel(era: Era, caps = BIG_LITTLE_CAPACITIES): Kernel {
  return bigLittleKernel(era, caps);
}

const hog = function* () {
  yield run(Number.POSITIVE_INFINITY);
};
/** 2 ms of work (at capacity 1024), then 8 ms asleep, forever. */
const periodic = function* () {
  for (;;) {
    yield run(2 * MS);
    yield sleep(8 * MS);
  }
};

test("pelt invariance: a task always running on a 462 CPU settles near 462 in 4.8, tends to 1024 from 5.1; 3.19 has no util, and its load is not scaled", () => {
  const at = (era: Era, ms: number, what: "utilAvg" | "loadAvg" = "utilAvg") => {
    const k = kernel(era);
    const h = k.spawn({ comm: "h", cpu: 1, cpus: [1], program: hog });
    const b = k.spawn({ comm: "b", cpu: 5, cpus: [5], program: hog });
    k.runUntil(ms * MS);
    return { little: h.se.avg[what], big: b.se.avg[what] };
  };
  const u48 = at("4.8", 800);
  // v4.8 divides a saturated sum by LOAD_AVG_MAX when it crosses a boundary: 1002 .. 1024 x scale
  assert.ok(u48.little <= 462 && u48.little >= 450, `4.8 little ${u48.little}`);
  assert.ok(u48.big <= 1024 && u48.big >= 1002, `4.8 big ${u48.big}`);
  assert.deepEqual(at("3.19", 800), { little: 0, big: 0 });
  // load_avg_contrib = runnable_avg_sum x 1024 / (runnable_avg_period + 1): runnable all the time
  assert.deepEqual(at("3.19", 800, "loadAvg"), { little: 1023, big: 1023 });
  for (const era of ["5.19", "6.19"] as Era[]) {
    // 50 ms of task clock are ~22.6 ms of rq_clock_pelt on the little CPU: from the fork's
    // util (half the spare capacity), 1024 - (1024 - 231) * y^22.6 ~ 539 (the unscaled clock
    // would give ~833)
    const early = at(era, 50);
    assert.ok(early.little >= 505 && early.little <= 545, `${era} little at 50 ms ${early.little}`);
    assert.ok(early.big > early.little + 250, `${era} big at 50 ms ${early.big}`);
    assert.ok(at(era, 800).little >= 1020, era);
  }
});

test("pelt invariance: from 5.1 a periodic task's util on a little CPU follows its work, not its longer run time", () => {
  const util = (era: Era, what: "utilAvg" | "loadAvg" = "utilAvg") => {
    const k = kernel(era);
    const p = k.spawn({ comm: "p", cpu: 2, cpus: [2], program: periodic });
    const pb = k.spawn({ comm: "pb", cpu: 6, cpus: [6], program: periodic });
    k.runUntil(800 * MS);
    return { little: p.se.avg[what], big: pb.se.avg[what] };
  };
  // 3.19 (no util): 4.4 ms runnable in every 12.4 ms period counts as ~35% of the time
  const raw = util("3.19", "loadAvg");
  assert.ok(raw.little > 1.5 * raw.big, `3.19 ${raw.little} vs big ${raw.big}`);
  for (const era of ["5.19", "6.19"] as Era[]) {
    // the same 2 ms of work, spread over a longer period (12.4 ms): at most the big CPU's util
    const u = util(era);
    assert.ok(u.little <= u.big && u.little >= 0.7 * u.big, `${era} ${u.little} vs big ${u.big}`);
  }
});

test("rq_clock_pelt (5.1+): scaled while busy, synced when idle, lost idle time after saturation; unscaled on 1024 CPUs", () => {
  const k = kernel("6.19");
  // 20 ms of work on cpu1 (~44 ms of time), then asleep: not saturated, the clock syncs
  const short = k.spawn({
    comm: "s",
    cpu: 1,
    cpus: [1],
    program: function* () {
      yield run(20 * MS);
      yield wait();
    },
  });
  // a hog on cpu2 for 600 ms of work (~1330 ms), then asleep: saturated
  const long = k.spawn({
    comm: "l",
    cpu: 2,
    cpus: [2],
    program: function* () {
      yield run(600 * MS);
      yield wait();
    },
  });
  k.spawn({ comm: "b", cpu: 5, cpus: [5], program: hog });
  k.runUntil(30 * MS);
  // busy: 30 ms of task clock are ~13.5 ms of PELT clock
  const busy = rqClockPeltOf(k, k.rqs[1]) - rqClockPelt(0);
  assert.ok(Math.abs(busy - (30 * MS * 462) / 1024) < 0.2 * MS, `busy clock ${busy}`);
  assert.equal(rqClockPeltOf(k, k.rqs[5]), rqClockPelt(k.now), "a 1024 CPU keeps the task clock");
  k.runUntil(1500 * MS);
  assert.equal(k.rqs[1].curr, null, "s sleeps");
  assert.equal(k.rqs[2].curr, null, "l sleeps");
  assert.equal(rqClockPeltOf(k, k.rqs[1]), rqClockPelt(k.now), "idle after light use: synced");
  const lag = rqClockPelt(k.now) - rqClockPeltOf(k, k.rqs[2]);
  // the ~730 ms the saturated little CPU ran beyond its 600 ms of work are lost idle time
  assert.ok(lag > 700 * MS && lag < 760 * MS, `lost idle time ${lag / MS} ms`);
  void short;
  void long;
});

test("pelt invariance: a symmetric machine's busy task reaches 1024 from 4.11's divider, 1002-1024 in 4.8", () => {
  for (const era of ["4.8", "5.19", "6.19"] as Era[]) {
    const k = kernel(era, [1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024]);
    const h = k.spawn({ comm: "h", cpu: 1, cpus: [1], program: hog });
    k.runUntil(800 * MS);
    const u = h.se.avg.utilAvg;
    if (era === "4.8") assert.ok(u >= 1002 && u <= 1024, `4.8 ${u}`);
    else assert.equal(u, 1024, era);
    assert.equal(rqClockPeltOf(k, k.rqs[1]), rqClockPelt(k.now), era);
  }
});
