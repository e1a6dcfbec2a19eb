// cpu_load[] of v3.19 (kernel/sched/proc.c __update_cpu_load) against v4.8's cpu_load_update: an
// idle CPU's catch-up after missed ticks. 3.19 decays every index over the missed ticks; v4.7+
// also carries the load recorded in cpu_load[0] (the tickless load) through them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { run, wait } from "../../../src/kernel/ops";
import {
  cpuLoadUpdateIdle,
  createCpuLoadState,
  decayLoadMissed,
  updateCpuLoadActive319,
  updateIdleCpuLoad319,
} from "../../../src/kernel/fair/cpu_load";
import { box } from "./wake_fixtures";

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

test("a 3.19 kernel's nohz idle balance catches an idle CPU up with __update_cpu_load; 4.8 with the tickless term", () => {
  for (const era of ["3.19", "4.8"] as const) {
    const m = box();
    const k = buildKernel({
      machine: m,
      online: m.online,
      era,
      patches: [],
      seed: "t",
      trace: false,
    });
    // two hogs on cpu0 keep its tick and the nohz kicks going; cpu5 runs 100 ms, then idles
    for (const comm of ["a", "b"])
      k.spawn({
        comm,
        cpu: 0,
        cpus: [0],
        program: function* () {
          yield run(Infinity);
        },
      });
    k.spawn({
      comm: "t",
      cpu: 5,
      cpus: [5],
      program: function* () {
        yield run(100_000_000);
        for (;;) yield wait();
      },
    });
    k.runUntil(101_000_000);
    const rq = k.rqs[5];
    const before = [...rq.cpuLoad];
    const { lastLoadUpdateTick: last, nrLoadUpdates: n } = rq;
    assert.ok(before[1] > 900, `${era}: cpu5 was busy (${before})`);
    k.runUntil(105_000_000);
    assert.equal(rq.nrLoadUpdates, n + 1, `${era}: one catch-up`);
    const missed = rq.lastLoadUpdateTick - last - 1;
    assert.ok(missed >= 1, `${era}: ticks were missed`);
    const want = before.map((l, i) => {
      if (i === 0) return 0;
      let old = decayLoadMissed(l, missed, i);
      if (era === "4.8") old = old - decayLoadMissed(before[0], missed, i) + before[0];
      return Math.floor((old * (2 ** i - 1)) / 2 ** i);
    });
    assert.deepEqual(rq.cpuLoad, want, era);
  }
});
