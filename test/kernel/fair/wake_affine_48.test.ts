// 4.8 wake_affine with the 4.x runnable_load_avg (seed 000): the sync adjustment subtracts the
// waker's load_avg from its CPU's runnable_load_avg, two PELT sums kept apart. 3.19 weighs the
// waker and the wakee by se->load.weight instead.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { preset } from "../../../src/machine/presets";
import { run, wait } from "../../../src/kernel/ops";
import { wakeAffine48 } from "../../../src/kernel/fair/wake/v48";
import type { Era } from "../../../src/kernel/features";

function setup(era: Era = "4.8") {
  const m = preset("xeon-x5472");
  const k = buildKernel({
    machine: m,
    online: m.online,
    era,
    patches: [],
    seed: "t",
    trace: false,
  });
  const wakee = k.spawn({
    comm: "wakee",
    cpu: 4,
    program: function* () {
      yield run(20_000_000);
      for (;;) yield wait();
    },
  });
  const waker = k.spawn({
    comm: "waker",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(Infinity);
    },
  });
  k.runUntil(200_000_000); // both near steady state; the wakee asleep on cpu4 for 180 ms
  const die = k.domains.domains[0].find((d) => d.level === "DIE")!;
  return { k, wakee, waker, die };
}

test("4.8: the waker's CPU runs a runnable_load_avg of its own, tracking the waker's load_avg", () => {
  const { k, waker } = setup();
  const rl = k.rqs[0].cfs.runnableLoad!;
  assert.ok(rl, "4.x keeps cfs_rq->runnable_load_avg");
  // each average is its sum over LOAD_AVG_MAX, recomputed at its own period boundaries (v4.8):
  // between them they differ by up to ~2% of the weight
  assert.ok(Math.abs(rl.avg - waker.se.avg.loadAvg) <= 25, `${rl.avg} vs ${waker.se.avg.loadAvg}`);
  // the sleeping wakee's CPU: nothing runnable, at most the residue max_t(avg - se avg, 0) left
  // at the wakee's dequeue, where the two averages were recomputed at different instants
  assert.ok(k.rqs[4].cfs.runnableLoad!.avg <= 25);
  // from v5.7 no such sum is kept (5.6 keeps it: runnable_load_56.test.ts)
  const m = preset("numa-2x12x2");
  const k56 = buildKernel({
    machine: m,
    online: m.online,
    era: "5.10",
    patches: [],
    seed: "t",
    trace: false,
  });
  k56.spawn({
    comm: "x",
    cpu: 0,
    program: function* () {
      yield run(Infinity);
    },
  });
  k56.runUntil(5_000_000);
  assert.equal(k56.rqs[0].cfs.runnableLoad, null);
});

test("4.8 wake_affine: this_load - waker load_avg <= 0 pulls; a positive residue keeps the wakee on its idle prev", () => {
  const { k, wakee, waker, die } = setup();
  const rl = k.rqs[0].cfs.runnableLoad!;
  const prevRl = k.rqs[4].cfs.runnableLoad!;
  const ctx = { k, p: wakee, sd: die, thisCpu: 0, prevCpu: 4, sync: true };
  prevRl.avg = 0;
  rl.avg = waker.se.avg.loadAvg; // no residue: this_load 0, the "always affine" branch
  assert.equal(wakeAffine48(ctx), 0);
  rl.avg = waker.se.avg.loadAvg - 2; // negative: still affine
  assert.equal(wakeAffine48(ctx), 0);
  rl.avg = waker.se.avg.loadAvg + 1; // 100 * (1 + w) <= 112 * 0 fails: stay on prev
  assert.equal(wakeAffine48(ctx), 4);
  // with load on prev the same residue is affine again: 100 * (1 + w) <= 112 * load
  prevRl.avg = wakee.se.avg.loadAvg;
  assert.equal(wakeAffine48(ctx), 0);
});

test("3.19 wake_affine weighs the wakee and the sync waker by load.weight, not by their PELT load", () => {
  for (const era of ["3.19", "4.8"] as const) {
    const { k, wakee, waker, die } = setup(era);
    const rl = k.rqs[0].cfs.runnableLoad!;
    const prevRl = k.rqs[4].cfs.runnableLoad!;
    const pct = 100 + Math.floor((die.imbalancePct - 100) / 2);
    // a wakee of weight 1024 whose load has decayed to 1, equal loads of 1000 on both CPUs:
    // 100 x (1000 + 1) <= pct x 1000 is affine, 100 x (1000 + 1024) is not
    wakee.se.avg.loadAvg = 1;
    rl.avg = 1000;
    prevRl.avg = 1000;
    const ctx = { k, p: wakee, sd: die, thisCpu: 0, prevCpu: 4, sync: false };
    assert.ok(pct * 1000 >= 100 * 1001 && pct * 1000 < 100 * 2024, `${pct}`);
    assert.equal(wakeAffine48(ctx), era === "3.19" ? 4 : 0, era);
    // sync: the waker's load of 1000 off this_cpu. Its weight (1024) leaves this_load < 0, the
    // always-affine branch (3.19); its load_avg (set to 500) leaves 500 to weigh (4.8)
    waker.se.avg.loadAvg = 500;
    wakee.se.avg.loadAvg = 1000;
    prevRl.avg = 100;
    assert.equal(wakeAffine48({ ...ctx, sync: true }), era === "3.19" ? 0 : 4, `${era} sync`);
  }
});
