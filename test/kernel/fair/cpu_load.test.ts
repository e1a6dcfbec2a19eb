// cpu_load[] of v3.19 (kernel/sched/proc.c __update_cpu_load) against v4.8's cpu_load_update: an
// idle CPU's catch-up after missed ticks. 3.19 decays every index over the missed ticks; v4.7+
// also carries the load recorded in cpu_load[0] at tick stop (the tickless load) through them.
// The catch-ups run from nohz_idle_balance for a due idle CPU (update_idle_cpu_load /
// cpu_load_update_idle) and at tick restart (update_cpu_load_nohz / cpu_load_update_nohz_stop).
import { test } from "node:test";
import assert from "node:assert/strict";
import { type Op, run, sleep, wait } from "../../../src/kernel/ops";
import type { Kernel } from "../../../src/kernel/core/core";
import {
  cpuLoadUpdateIdle,
  createCpuLoadState,
  decayLoadMissed,
  updateCpuLoadActive319,
  updateCpuLoadNohz319,
  updateIdleCpuLoad319,
} from "../../../src/kernel/fair/cpu_load";
import { box } from "./wake_fixtures";
import { boot } from "../boot";

test("update_idle_cpu_load (3.19): the missed ticks decay every index, with no tickless term", () => {
  const s319 = createCpuLoadState();
  const s48 = createCpuLoadState();
  for (let j = 1; j <= 300; j++) {
    updateCpuLoadActive319(s319, 2048, j);
    s48.lastLoadUpdateTick = j;
  }
  assert.deepEqual(s319.cpuLoad, [2048, 2048, 2048, 2048, 2048]);
  s48.cpuLoad = [...s319.cpuLoad];
  // idle, 10 jiffies later: 9 ticks missed, then one update with load 0
  updateIdleCpuLoad319(s319, 0, 310);
  cpuLoadUpdateIdle(s48, 0, 310);
  assert.equal(s319.lastLoadUpdateTick, 310);
  assert.deepEqual(s319.cpuLoad, [
    0,
    0, // idx 1 halves per tick: gone after 8
    (decayLoadMissed(2048, 9, 2) * 3) >> 2,
    (decayLoadMissed(2048, 9, 3) * 7) >> 3,
    (decayLoadMissed(2048, 9, 4) * 15) >> 4,
  ]);
  // 4.8: cpu_load[0] = 2048 was the load at nohz entry; its decay is put back, so every index
  // starts the update from 2048
  assert.deepEqual(s48.cpuLoad, [0, 1024, 1536, 1792, 1920]);
  // a CPU with load, or already up to date, is left alone
  updateIdleCpuLoad319(s319, 0, 310);
  assert.equal(s319.nrLoadUpdates, 301);
  updateIdleCpuLoad319(s319, 5, 320);
  assert.equal(s319.lastLoadUpdateTick, 310);
});

test("update_cpu_load_nohz (3.19): catch up with load 0, not twice in a jiffy", () => {
  const s = createCpuLoadState();
  for (let j = 1; j <= 300; j++) updateCpuLoadActive319(s, 2048, j);
  updateCpuLoadNohz319(s, 304); // 3 ticks missed
  assert.deepEqual(s.cpuLoad, [
    0,
    (decayLoadMissed(2048, 3, 1) * 1) >> 1,
    (decayLoadMissed(2048, 3, 2) * 3) >> 2,
    (decayLoadMissed(2048, 3, 3) * 7) >> 3,
    (decayLoadMissed(2048, 3, 4) * 15) >> 4,
  ]);
  updateCpuLoadNohz319(s, 304);
  assert.equal(s.nrLoadUpdates, 301);
  assert.equal(s.lastLoadUpdateTick, 304);
});

/** cpu0 runs two hogs (its tick sends the nohz kicks); cpu5 runs `prog`. */
function withHogs(era: "3.19" | "4.8", prog: () => Generator<Op, void>): Kernel {
  const k = boot(box(), era);
  for (const comm of ["a", "b"])
    k.spawn({
      comm,
      cpu: 0,
      cpus: [0],
      program: function* () {
        yield run(Infinity);
      },
    });
  k.spawn({ comm: "t", cpu: 5, cpus: [5], program: prog });
  return k;
}

function* busyThenIdle(): Generator<Op, void> {
  yield run(100_000_000);
  for (;;) yield wait();
}

/** __update_cpu_load / cpu_load_update after `missed` ticks, from `before`, with this_load. */
function catchUp(before: number[], missed: number, thisLoad: number, tickless: number): number[] {
  return before.map((l, i) => {
    if (i === 0) return thisLoad;
    let old = decayLoadMissed(l, missed, i);
    if (tickless) old = old - decayLoadMissed(tickless, missed, i) + tickless;
    const scale = 2 ** i;
    const nl = thisLoad > old ? thisLoad + scale - 1 : thisLoad;
    return Math.floor((old * (scale - 1) + nl) / scale);
  });
}

test("nohz idle balance: a due idle CPU is caught up, with 4.8's tickless load recorded at tick stop", () => {
  for (const era of ["3.19", "4.8"] as const) {
    const k = withHogs(era, busyThenIdle);
    k.runUntil(101_000_000);
    const rq = k.rqs[5];
    const before = [...rq.cpuLoad];
    const { lastLoadUpdateTick: last, nrLoadUpdates: n } = rq;
    assert.ok(before[1] > 900, `${era}: cpu5 was busy (${before})`);
    // 4.8's cpu_load_update_nohz_start put the idle CPU's weighted_cpuload in cpu_load[0]; 3.19
    // keeps the last tick's load there
    if (era === "4.8") assert.equal(before[0], k.lbRq(5).runnableLoadAvg);
    else assert.ok(before[0] > 900, `3.19: cpu_load[0] from the last tick (${before})`);
    while (rq.nrLoadUpdates === n && k.now < 300_000_000) k.runUntil(k.now + 1_000_000);
    assert.equal(rq.nrLoadUpdates, n + 1, `${era}: one catch-up`);
    assert.ok(rq.isIdle(), `${era}: by the nohz idle balance`);
    const missed = rq.lastLoadUpdateTick - last - 1;
    assert.ok(missed >= 1, `${era}: ticks were missed`);
    assert.deepEqual(rq.cpuLoad, catchUp(before, missed, 0, era === "4.8" ? before[0] : 0), era);
    // the balancing CPU (the first idle one) does not update its own cpu_load[]
    assert.ok((k.counters.other.nohz_kick ?? 0) > 0, `${era}: kicks`);
    assert.equal(k.rqs[1].nrLoadUpdates, 0, `${era}: the ilb, never busy`);
  }
});

test("nohz idle balance: no catch-up for an idle CPU that is not due", () => {
  for (const era of ["3.19", "4.8"] as const) {
    const k = withHogs(era, busyThenIdle);
    k.runUntil(101_000_000);
    const rq = k.rqs[5];
    rq.nextBalance = 1e15;
    const n = rq.nrLoadUpdates;
    k.runUntil(300_000_000);
    assert.equal(rq.nrLoadUpdates, n, era);
  }
});

test("nohz idle balance: weighted_cpuload is cfs.runnable_load_avg; an idle CPU with some left is not caught up", () => {
  for (const era of ["3.19", "4.8"] as const) {
    const k = withHogs(era, busyThenIdle);
    k.runUntil(101_000_000);
    const rq = k.rqs[5];
    // a runnable_load_avg left on the idle CPU (rq->load.weight is 0): 300, with 4.8's sum
    assert.equal(rq.cfs.loadWeight, 0);
    const rl = rq.cfs.runnableLoad!;
    rl.avg = 300;
    if (era === "4.8") rl.sum = 300 * 47742; // LOAD_AVG_MAX
    const n = rq.nrLoadUpdates;
    k.runUntil(160_000_000);
    assert.ok(k.lbRq(5).runnableLoadAvg > 0, `${era}: still some load`);
    assert.equal(rq.nrLoadUpdates, n, era);
  }
});

test("tick restart after nohz idle: 3.19 catches up with load 0, 4.8 with weighted_cpuload and the tickless load", () => {
  for (const era of ["3.19", "4.8"] as const) {
    const k = withHogs(era, function* () {
      yield run(100_000_000);
      yield sleep(20_000_000);
      yield run(Infinity);
    });
    k.runUntil(101_000_000);
    const rq = k.rqs[5];
    rq.nextBalance = 1e15; // no nohz idle balance for cpu5: only the restart catches it up
    k.runUntil(119_500_000);
    const before = [...rq.cpuLoad];
    const { lastLoadUpdateTick: last, nrLoadUpdates: n } = rq;
    assert.ok(before[1] > 900, `${era}: cpu5 was busy (${before})`);
    assert.ok(rq.isIdle());
    k.runUntil(120_300_000); // woken at 120 ms, before its next tick
    assert.ok(!rq.isIdle(), `${era}: t runs again`);
    assert.equal(rq.nrLoadUpdates, n + 1, `${era}: one catch-up at tick restart`);
    const missed = rq.lastLoadUpdateTick - last - 1;
    assert.ok(missed >= 10, `${era}: ticks were missed (${missed})`);
    const thisLoad = era === "4.8" ? k.lbRq(5).runnableLoadAvg : 0;
    if (era === "4.8") assert.ok(thisLoad > 0, "4.8: t's load");
    assert.deepEqual(
      rq.cpuLoad,
      catchUp(before, missed, thisLoad, era === "4.8" ? before[0] : 0),
      era,
    );
  }
});
