import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DO_ATTACH,
  DO_DETACH,
  LOAD_AVG_MAX,
  type PeltCfsRq,
  type PeltEntity,
  __updateLoadAvgBlockedSe,
  __updateLoadAvgSe,
  accumulatePeltSegments,
  decayLoad,
  dequeueRunnableLoad48,
  enqueueRunnableLoad48,
  migrateTaskRqFairPelt,
  runnable_avg_yN_inv,
  updateCfsRqLoadAvg,
  updateLoadAvg,
} from "../../../src/kernel/fair/pelt";
import { createPeltRemoved, createSchedAvg } from "../../../src/kernel/sched";

const MS = 1_000_000;

function entity(weight = 1024): PeltEntity {
  return { avg: createSchedAvg(), weight, onRq: false };
}

/** Drive an entity with a run/sleep pattern, updating every `stepNs`. Returns util samples at each step. */
function drive(
  se: PeltEntity,
  from: number,
  to: number,
  stepNs: number,
  running: (t: number) => boolean,
): number[] {
  const samples: number[] = [];
  for (let t = from + stepNs; t <= to; t += stepNs) {
    // the state over (t - step, t] is the state at its start, as the kernel updates at transitions
    const r = running(t - stepNs);
    se.onRq = r;
    __updateLoadAvgSe(t, se, r);
    samples.push(se.avg.utilAvg);
  }
  return samples;
}

test("decay_load: y^32 = 1/2 and the table is decreasing", () => {
  // val >> (n / 32), then * y^0 = 0xffffffff / 2^32: one less than the exact half, as in the kernel
  assert.equal(decayLoad(1 << 20, 32), (1 << 19) - 1);
  assert.equal(decayLoad(1000, 64), 249);
  assert.equal(decayLoad(LOAD_AVG_MAX, 0), LOAD_AVG_MAX - 1); // 0xffffffff / 2^32 rounds down
  for (let i = 1; i < 32; i++) assert.ok(runnable_avg_yN_inv[i] < runnable_avg_yN_inv[i - 1]);
  assert.equal(decayLoad(12345, 32 * 63 + 1), 0);
  // y^16 = 1/sqrt(2)
  assert.ok(Math.abs(decayLoad(1_000_000, 16) / 1_000_000 - Math.SQRT1_2) < 1e-6);
});

test("accumulate segments: a full history sums to LOAD_AVG_MAX", () => {
  // d1 = 1024 remainder of an old period, then p-1 full periods, d3 = 0
  const s = accumulatePeltSegments(2000, 1024, 0);
  assert.ok(Math.abs(s - (LOAD_AVG_MAX - 1024)) <= 2, `sum ${s}`);
});

test("an always-running entity converges to util ~1024 and load_avg ~weight", () => {
  const se = entity(1024);
  drive(se, 0, 1000 * MS, MS, () => true);
  assert.ok(se.avg.utilAvg >= 1000 && se.avg.utilAvg <= 1024, `util ${se.avg.utilAvg}`);
  assert.ok(se.avg.loadAvg >= 1000 && se.avg.loadAvg <= 1024, `load ${se.avg.loadAvg}`);
  assert.ok(se.avg.runnableAvg >= 1000 && se.avg.runnableAvg <= 1024);
  const nice5 = entity(335);
  drive(nice5, 0, 1000 * MS, MS, () => true);
  assert.ok(nice5.avg.loadAvg >= 325 && nice5.avg.loadAvg <= 335, `load ${nice5.avg.loadAvg}`);
});

test("a 50% duty cycle (4 ms on, 4 ms off) converges to util ~512", () => {
  const se = entity();
  const on = (t: number) => Math.floor(t / (4 * MS)) % 2 === 0;
  const samples = drive(se, 0, 2000 * MS, MS / 4, on);
  const last = samples.slice(-4 * 8 * 10); // the last 10 cycles
  const mean = last.reduce((s, v) => s + v, 0) / last.length;
  assert.ok(Math.abs(mean - 512) / 512 < 0.03, `mean util ${mean}`);
  for (const v of last) assert.ok(Math.abs(v - 512) / 512 < 0.1, `sample ${v}`);
  // load follows the runnable fraction the same way
  assert.ok(Math.abs(se.avg.loadAvg - 512) / 512 < 0.1, `load ${se.avg.loadAvg}`);
});

test("after a 0 -> 1 step util reaches ~50% in 32 ms and ~75% in 64 ms", () => {
  const se = entity();
  drive(se, 0, 32 * MS, MS / 8, () => true);
  assert.ok(Math.abs(se.avg.utilAvg - 512) / 512 < 0.05, `util at 32 ms ${se.avg.utilAvg}`);
  drive(se, 32 * MS, 64 * MS, MS / 8, () => true);
  assert.ok(Math.abs(se.avg.utilAvg - 768) / 768 < 0.05, `util at 64 ms ${se.avg.utilAvg}`);
});

test("an idle (blocked) entity halves in 32 ms", () => {
  const se = entity();
  drive(se, 0, 1000 * MS, MS, () => true);
  const before = se.avg.utilAvg;
  const loadBefore = se.avg.loadAvg;
  se.onRq = false;
  __updateLoadAvgBlockedSe(1000 * MS + 32 * 1024 * 1024, se); // exactly 32 PELT periods later
  assert.ok(
    Math.abs(se.avg.utilAvg - before / 2) <= 0.02 * before,
    `${before} -> ${se.avg.utilAvg}`,
  );
  assert.ok(Math.abs(se.avg.loadAvg - loadBefore / 2) <= 0.02 * loadBefore);
});

test("cfs_rq aggregate: attach adds, the rq tracks its weight, detach/remove subtract", () => {
  const cfs: PeltCfsRq = {
    avg: createSchedAvg(),
    removed: createPeltRemoved(),
    loadWeight: 0,
    hNrRunning: 0,
    curr: null,
  };
  const a = entity();
  const b = entity();
  // a ran alone elsewhere for a while and is fully loaded
  drive(a, 0, 500 * MS, MS, () => true);
  a.avg.lastUpdateTime = 0; // migrated: attach at enqueue
  updateCfsRqLoadAvg(500 * MS, cfs);
  a.onRq = true;
  cfs.loadWeight = 1024;
  cfs.hNrRunning = 1;
  cfs.curr = a;
  updateLoadAvg(500 * MS, cfs, a, true, DO_ATTACH);
  assert.equal(cfs.avg.loadAvg, a.avg.loadAvg);
  assert.equal(cfs.avg.utilAvg, a.avg.utilAvg);
  // b joins fresh (load_avg starts at its weight in the kernel; util 0)
  b.avg.loadAvg = 1024;
  b.onRq = true;
  cfs.loadWeight = 2048;
  cfs.hNrRunning = 2;
  updateLoadAvg(500 * MS, cfs, b, false, DO_ATTACH);
  // both runnable for 300 ms: the rq's load_avg tracks its weight, util stays ~1024 (one CPU)
  for (let t = 501 * MS; t <= 800 * MS; t += MS) {
    updateLoadAvg(t, cfs, a, true);
    updateLoadAvg(t, cfs, b, false);
  }
  assert.ok(Math.abs(cfs.avg.loadAvg - 2048) / 2048 < 0.05, `cfs load ${cfs.avg.loadAvg}`);
  assert.ok(Math.abs(cfs.avg.utilAvg - 1024) / 1024 < 0.05, `cfs util ${cfs.avg.utilAvg}`);
  assert.ok(
    Math.abs(cfs.avg.runnableAvg - 2048) / 2048 < 0.05,
    `cfs runnable ${cfs.avg.runnableAvg}`,
  );
  // the balancer moves b: detached under the lock, attached elsewhere later
  const loadBefore = cfs.avg.loadAvg;
  cfs.loadWeight = 1024;
  cfs.hNrRunning = 1;
  migrateTaskRqFairPelt(800 * MS, cfs, b, true);
  assert.equal(b.avg.lastUpdateTime, 0);
  assert.ok(cfs.avg.loadAvg <= loadBefore - b.avg.loadAvg + 1);
  // a blocks and wakes up on another CPU: removed lazily at the next update
  a.onRq = false;
  cfs.loadWeight = 0;
  cfs.hNrRunning = 0;
  cfs.curr = null;
  updateLoadAvg(801 * MS, cfs, a, false, DO_DETACH);
  assert.ok(cfs.avg.loadAvg < 60, `left ${cfs.avg.loadAvg}`);
});

// A task spawned at t = 0 must be attached like any other: last_update_time 0 means "not
// attached", and the kernel's clock is never 0 when a task is created, so ours must not be.
test("util_avg of a 100% busy task spawned at t = 0 converges toward its CPU's capacity", async () => {
  const { runIteration } = await import("../../../src/experiment/run");
  const { preset } = await import("../../../src/machine/presets");
  const { hogs } = await import("../../../src/workload/basic");
  for (const era of ["4.8", "5.19", "6.19"] as const) {
    const m = preset("core2-2x2");
    const { kernel: k } = runIteration({
      machine: m,
      online: m.online,
      era,
      patches: [],
      workload: hogs({ n: 4, seconds: 1, cpus: undefined }),
      variant: "v",
      iteration: 0,
      seed: "pelt0",
      durationNs: 1e9,
      warmupNs: 0,
      trace: false,
    });
    for (const rq of k.rqs) {
      const cap = rq.cpuCapacityOrig;
      assert.ok(
        rq.cfs.avg.utilAvg <= cap,
        `${era} cpu${rq.cpu}: util ${rq.cfs.avg.utilAvg} > ${cap}`,
      );
      assert.ok(
        rq.cfs.avg.utilAvg >= 0.95 * cap,
        `${era} cpu${rq.cpu}: util ${rq.cfs.avg.utilAvg}`,
      );
    }
    for (const p of k.tasks.filter((t) => t.role === "hog")) {
      assert.notEqual(p.se.avg.lastUpdateTime, 0, `${era} ${p.comm}: never attached`);
      assert.ok(p.se.avg.utilAvg >= 0.95 * 1024, `${era} ${p.comm}: util ${p.se.avg.utilAvg}`);
    }
  }
});

test("4.x runnable_load_avg: its own PELT sum of the queued weight, not the entities' load_avg", () => {
  const cfs: PeltCfsRq = {
    avg: createSchedAvg(),
    removed: createPeltRemoved(),
    loadWeight: 0,
    hNrRunning: 0,
    curr: null,
    runnableLoad: { sum: 0, avg: 0 },
  };
  const rl = cfs.runnableLoad!;
  const a = entity();
  const b = entity();
  // enqueue_entity: update_load_avg (attach), enqueue_entity_load_avg, account the weight
  const enqueue = (t: number, se: PeltEntity) => {
    updateLoadAvg(t, cfs, se, false, DO_ATTACH);
    enqueueRunnableLoad48(cfs, se);
    se.onRq = true;
    cfs.loadWeight += se.weight;
    cfs.hNrRunning++;
  };
  const dequeue = (t: number, se: PeltEntity) => {
    updateLoadAvg(t, cfs, se, false);
    dequeueRunnableLoad48(cfs, se);
    se.onRq = false;
    cfs.loadWeight -= se.weight;
    cfs.hNrRunning--;
  };
  enqueue(MS, a);
  // a runs alone for 200 ms, updated every 0.3 ms as the tick and wakeups would
  let t = MS;
  for (; t < 200 * MS; t += 300_000) updateLoadAvg(t, cfs, a, true);
  // the two sums follow the same weight: within a unit or two of each other, both near 1024
  assert.ok(Math.abs(rl.avg - a.avg.loadAvg) <= 2, `${rl.avg} vs ${a.avg.loadAvg}`);
  assert.ok(rl.avg > 950, `${rl.avg}`);
  // b joins for 20 ms and leaves: what it takes out is its own load_avg at that moment, so the
  // runnable sum keeps a residue of the rounding and timing of the two (clamped at 0)
  enqueue(t, b);
  for (const end = t + 20 * MS; t < end; t += 300_000) {
    updateLoadAvg(t, cfs, a, true);
    updateLoadAvg(t, cfs, b, false);
  }
  const both = rl.avg;
  assert.ok(both > a.avg.loadAvg + 200, `with b queued: ${both} vs a ${a.avg.loadAvg}`);
  dequeue(t, b);
  for (const end = t + 5 * MS; t < end; t += 300_000) updateLoadAvg(t, cfs, a, true);
  const residue = rl.avg - a.avg.loadAvg;
  assert.ok(Math.abs(residue) <= 8, `residue ${residue}`);
  // the 5.x-style load_avg of the cfs_rq keeps b's blocked load; runnable_load_avg does not
  assert.ok(cfs.avg.loadAvg > rl.avg + 100, `${cfs.avg.loadAvg} vs ${rl.avg}`);
  // and every queued entity gone leaves at most a residue
  dequeue(t, a);
  assert.ok(rl.avg >= 0 && rl.avg <= 8, `${rl.avg}`);
});
