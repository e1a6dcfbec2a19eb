// cfs_rq->runnable_load_avg is kept until v5.7 ("sched/fair: Replace runnable_load_avg by
// load_avg"), but from v5.5 the balancer and the wakeup path read cpu_load(), load_avg with the
// blocked load: b0fb1eb4f04a "sched/fair: Use load instead of runnable load in load_balance()" and
// 11f10e5420f6 "... in wakeup path" (Vincent Guittot, v5.5). 3.19 and 4.8 read runnable_load_avg.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Era } from "../../../src/kernel/features";
import { findBusiestQueue56, updateSgLbStats56 } from "../../../src/kernel/fair/lb/v5x";
import { wakeAffineWeight } from "../../../src/kernel/fair/wake/v5x";
import { peltFormOf } from "../../../src/kernel/fair/pelt_form";
import { cfsLoad38 } from "../../../src/kernel/fair/pelt_v38";
import { machineBuilder } from "../../../src/machine/builder";
import { run, wait } from "../../../src/kernel/ops";
import { boot } from "../boot";
import { domain, env, group, hogs, rq } from "./lb_fixtures";

test("runnable_load_avg is kept beside load_avg in 3.19, 4.8 and 5.6, not from 5.7", () => {
  const m = machineBuilder().cores(2).build();
  for (const era of ["3.19", "4.8", "5.6", "5.10", "5.19"] as Era[]) {
    const k = boot(m, era);
    const sleeper = k.spawn({
      comm: "s",
      cpu: 0,
      cpus: [0],
      program: function* () {
        yield run(20_000_000);
        for (;;) yield wait();
      },
    });
    k.spawn({
      comm: "h",
      cpu: 0,
      cpus: [0],
      program: function* () {
        yield run(Infinity);
      },
    });
    k.runUntil(60_000_000);
    const cfs = k.rqs[0].cfs;
    if (era === "5.10" || era === "5.19") {
      assert.equal(cfs.runnableLoad, null, era);
      continue;
    }
    assert.ok(cfs.runnableLoad, era);
    // the blocked sleeper's load stays in load_avg (3.19: blocked_load_avg), not in the runnable load
    assert.ok(sleeper.se.avg.loadAvg > 100, `${era} sleeper load ${sleeper.se.avg.loadAvg}`);
    const blocked =
      era === "3.19" ? cfsLoad38(cfs).blockedLoadAvg : cfs.avg.loadAvg - cfs.runnableLoad.avg;
    assert.ok(blocked > 100, `${era}: blocked ${blocked}, runnable ${cfs.runnableLoad.avg}`);
  }
  assert.ok(peltFormOf("5.6") && peltFormOf("5.10"));
});

test("5.6 update_sg_lb_stats sums cpu_load, blocked load included (b0fb1eb4f04a, v5.5)", () => {
  const sd = domain({ cpu: 1, level: "MC", groups: [group([1]), group([0])] });
  // one hog (1024 of runnable load) on a CPU whose load_avg also carries 1976 of blocked load
  const rqs = [rq(0, hogs(1), { cfsLoadAvg: 3000 }), rq(1, [])];
  const load = (era: Era) =>
    updateSgLbStats56(env({ era, sd, dstCpu: 1, idle: "CPU_IDLE", rqs }), group([0])).groupLoad;
  assert.equal(load("5.6"), 3000);
  assert.equal(load("5.10"), 3000);
});

test("5.6 find_busiest_queue (migrate_load) compares cpu_load: a CPU's blocked load makes it the busiest", () => {
  const sd = domain({ cpu: 2, level: "MC", groups: [group([2]), group([0, 1])] });
  // cpu0: two tasks (2048 runnable) and a big blocked load on top; cpu1: three tasks, 3072
  const rqs = [rq(0, hogs(2), { cfsLoadAvg: 6000 }), rq(1, hogs(3)), rq(2, [])];
  const pick = (era: Era) => {
    const e = env({ era, sd, dstCpu: 2, idle: "CPU_IDLE", rqs });
    e.migrationType = "migrate_load";
    e.imbalance = 1024;
    return findBusiestQueue56({ env: e, group: group([0, 1]) })?.cpu;
  };
  assert.equal(pick("5.6"), 0);
  assert.equal(pick("5.10"), 0);
});

test("5.6 wake_affine_weight reads cpu_load (11f10e5420f6, v5.5): prev's blocked load counts against it, the runnable sum is not read", () => {
  const m = machineBuilder().cores(4).llc("package").build();
  const at = (era: Era) => {
    const k = boot(m, era);
    const p = k.spawn({
      comm: "p",
      cpu: 1,
      program: function* () {
        for (;;) yield wait();
      },
    });
    k.runUntil(1_000_000);
    const sd = k.domains.domains[0].find((d) => d.level === "MC")!;
    // hand-set loads: 2048 of blocked load on prev beside 1024 runnable on the waker's CPU
    const [thisCfs, prevCfs] = [k.rqs[0].cfs, k.rqs[1].cfs];
    thisCfs.avg.loadAvg = 1024;
    prevCfs.avg.loadAvg = 2048 + p.se.avg.loadAvg;
    // 5.6's runnable sums say the opposite (nothing queued on prev); they must not be read
    if (thisCfs.runnableLoad) thisCfs.runnableLoad.avg = 4096;
    if (prevCfs.runnableLoad) prevCfs.runnableLoad.avg = 0;
    return wakeAffineWeight(k, sd, p, 0, 1, false);
  };
  // this = 1024 + p vs prev = 2048: prev's blocked load pulls the wakee to the waker's CPU 0
  assert.equal(at("5.6"), 0);
  assert.equal(at("5.10"), 0);
});
