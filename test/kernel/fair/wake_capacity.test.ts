// Wakeups on a big.LITTLE machine: a task too big for a little CPU is woken onto an idle big CPU
// from 5.6 (wake_cap, then the slow path over the SD_BALANCE_WAKE domains) and from 5.7
// (select_idle_capacity over sd_asym_cpucapacity); 4.8 has no capacity awareness and keeps the
// idle prev. A small task stays where it was.
import { test } from "node:test";
import assert from "node:assert/strict";
import { run, setAffinity, wait, wake } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import { bigLittleKernel } from "../../support/big_little";
import type { Task } from "../../../src/kernel/sched";
import { fitsCapacity } from "../../../src/kernel/fair/wake/capacity";

// 4 little CPUs (capacity 462) and 4 big ones, an L2 per cluster and no L3.
const kernel = (era: Era): Kernel => bigLittleKernel(era);

/**
 * A task on little cpu1 that runs `runNs`, then sleeps until a waker pinned to cpu0 wakes it
 * `sleepNs` later (the task wakes the waker just before it sleeps). It is pinned to cpu1 while it
 * runs (else the balancer pulls it to a big CPU as a misfit task, 5.x) and allowed everywhere
 * from its sleep on. By default the wakeup comes before any update of cpu1's blocked load: such
 * an update (a NOHZ statistics pass, nohz_blocked.ts) syncs the idle CPU's scaled PELT clock with
 * the task clock, and the task's util_avg, synced to it at the wakeup, decays by the time the
 * little CPU ran slow. util_est (v4.17+) keeps the task big across that.
 */
function scenario(
  k: Kernel,
  runNs: number,
  sleepNs = 50_000,
): { t: Task; atWake: { cpu: number; util: number } } {
  let waker = 0;
  const atWake = { cpu: -1, util: -1 };
  const t = k.spawn({
    comm: "task",
    cpu: 1,
    cpus: [1],
    program: function* () {
      yield run(runNs);
      yield setAffinity([0, 1, 2, 3, 4, 5, 6, 7]);
      yield wake(waker, false);
      for (;;) yield wait();
    },
  });
  waker = k.spawn({
    comm: "waker",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield wait();
      yield run(sleepNs);
      atWake.cpu = t.cpu;
      atWake.util = t.se.avg.utilAvg;
      yield wake(t.pid, false);
      yield run(Infinity);
    },
  }).pid;
  return { t, atWake };
}

test("fits_capacity: util must stay below ~80% of the capacity", () => {
  assert.equal(fitsCapacity(369, 462), true);
  assert.equal(fitsCapacity(370, 462), false);
  assert.equal(fitsCapacity(819, 1024), true);
  assert.equal(fitsCapacity(820, 1024), false);
});

test("a task too big for the little CPUs is woken on a big CPU from 5.6; 4.8 keeps its idle prev", () => {
  for (const era of ["4.8", "5.6", "5.19", "6.19"] as Era[]) {
    const k = kernel(era);
    // 100 ms of work takes ~222 ms at capacity 462 (the model runs a CPU at capacity / 1024)
    const { t, atWake } = scenario(k, 100_000_000);
    k.runUntil(240_000_000);
    assert.equal(atWake.cpu, 1, `${era}: ran on its little CPU`);
    assert.ok(atWake.util > 0.8 * 462, `${era}: util ${atWake.util} does not fit 462`);
    if (era === "4.8") assert.equal(t.cpu, 1, era);
    else assert.ok(t.cpu >= 4, `${era}: woken on big cpu${t.cpu}`);
  }
});

test("a small task is woken on its idle little prev in every era", () => {
  for (const era of ["5.6", "5.19", "6.19"] as Era[]) {
    const k = kernel(era);
    const { t } = scenario(k, 2_000_000);
    k.runUntil(240_000_000);
    assert.equal(t.cpu, 1, era);
  }
});

test("with three of four big CPUs busy, the big task still goes to the idle big CPU (5.6: group_misfit_task in find_idlest_group)", () => {
  for (const era of ["5.6", "5.19", "6.19"] as Era[]) {
    const k = kernel(era);
    for (const cpu of [4, 5, 6])
      k.spawn({
        comm: `hog${cpu}`,
        cpu,
        cpus: [cpu],
        program: function* () {
          yield run(Infinity);
        },
      });
    const { t } = scenario(k, 100_000_000);
    k.runUntil(240_000_000);
    // 5.6 without the misfit type would keep it in the little cluster (3 idle CPUs against 1).
    assert.equal(t.cpu, 7, era);
  }
});

test("util_est: a big task woken 8 ms after it slept on a little CPU still goes to a big CPU; with UTIL_EST off it fits the little one", () => {
  for (const era of ["5.6", "5.19", "6.19"] as Era[]) {
    for (const utilEst of [true, false]) {
      const k = kernel(era);
      k.features.UTIL_EST = utilEst;
      const { t, atWake } = scenario(k, 100_000_000, 8_000_000);
      k.runUntil(240_000_000);
      assert.equal(atWake.cpu, 1, `${era}: ran on its little CPU`);
      // a NOHZ statistics pass decays cpu1 in the 8 ms, and the wakeup syncs the task's util_avg
      // to it: util_avg alone then fits 462 (923 -> 62 on 5.19)
      if (utilEst) {
        assert.ok(t.se.avg.utilEst > 0.8 * 462, `${era}: util_est ${t.se.avg.utilEst}`);
        assert.ok(t.cpu >= 4, `${era}: woken on big cpu${t.cpu} through util_est`);
      } else {
        assert.equal(t.se.avg.utilEst, 0, era);
        assert.equal(t.cpu, 1, `${era}: without util_est it fits its little prev`);
      }
    }
  }
});
