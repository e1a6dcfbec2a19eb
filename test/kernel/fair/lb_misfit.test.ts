// The balancer's misfit path (v4.20+, modelled from 5.6) on hand-built big.LITTLE domains: an
// idle big CPU classifies a little group running a task too big for it as group_misfit_task,
// migrates exactly that task (migrate_misfit), and kicks the stopper when it is running; the 4.x
// balancer (4.8) has no such type. End to end: a busy task forked on a little CPU ends on a big
// one through the nohz kick and the balancer in 5.6/5.19/6.19, and stays put in 4.8.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SD_ASYM_CPUCAPACITY, type SchedDomain } from "../../../src/kernel/topology/sched_domain";
import type { Era } from "../../../src/kernel/features";
import type { LbRq } from "../../../src/kernel/fair/lb/types";
import { findBusiestGroup, loadBalance } from "../../../src/kernel/fair/lb/load_balance";
import {
  findBusiestQueue56,
  needActiveBalance56,
  updateSdLbStats56,
} from "../../../src/kernel/fair/lb/v5x";
import { BASE_FLAGS, domain, env, group, rq, task } from "./lb_fixtures";
import { run } from "../../../src/kernel/ops";
import { bigLittleKernel } from "../../support/big_little";

const LITTLE = 462;
const ERAS_5X: Era[] = ["5.6", "5.19", "6.19"];

/** DIE over a little pair (cpus 0-1) and a big pair (cpus 4-5), as cpu `dst` sees it. */
function bigLittleDie(dst: number, asym = true): SchedDomain {
  const little = group([0, 1], 2 * LITTLE);
  const big = group([4, 5]);
  return domain({
    level: "DIE",
    cpu: dst,
    groups: dst < 4 ? [little, big] : [big, little],
    flags: BASE_FLAGS | (asym ? SD_ASYM_CPUCAPACITY : 0),
    imbalancePct: 117,
  });
}

const little = (cpu: number, tasks: ReturnType<typeof task>[], misfit: number): LbRq =>
  rq(cpu, tasks, { cpuCapacity: LITTLE, cpuCapacityOrig: LITTLE, misfitTaskLoad: misfit });

/** cpu0 (little) runs one hog flagged misfit; everything else is idle. */
function oneMisfit(): LbRq[] {
  return [little(0, [task()], 1024), little(1, [], 0), rq(4, []), rq(5, [])];
}

test("misfit: an idle big CPU sees the little group as group_misfit_task and pulls it with migrate_misfit", () => {
  for (const era of ERAS_5X) {
    const e = env({ era, sd: bigLittleDie(4), dstCpu: 4, idle: "CPU_IDLE", rqs: oneMisfit() });
    const sds = updateSdLbStats56(e);
    assert.deepEqual(sds.busiest?.cpus, [0, 1], era);
    assert.equal(sds.busiestStat.groupType, "group_misfit_task", era);
    assert.equal(sds.busiestStat.groupMisfitTaskLoad, 1024, era);
    const e2 = env({ era, sd: bigLittleDie(4), dstCpu: 4, idle: "CPU_IDLE", rqs: oneMisfit() });
    const r = findBusiestGroup({ env: e2 });
    assert.ok(!r.balanced, era);
    assert.equal(r.migrationType, "migrate_misfit", era);
    assert.equal(r.imbalance, 1, era);
    const q = findBusiestQueue56({ env: e2, group: r.busiestGroup });
    assert.equal(q?.cpu, 0, era);
    // the misfit task runs alone: detach_tasks cannot take it, the stopper must
    e2.srcCpu = 0;
    assert.equal(needActiveBalance56({ env: e2 }), true, era);
    const res = loadBalance(
      env({ era, sd: bigLittleDie(4), dstCpu: 4, idle: "CPU_IDLE", rqs: oneMisfit() }),
    );
    assert.deepEqual(res.activeBalance, { busiestCpu: 0, pushCpu: 4 }, era);
  }
});

test("misfit: no misfit pull without SD_ASYM_CPUCAPACITY, from the local group, or to a CPU no bigger", () => {
  for (const era of ERAS_5X) {
    // the same machine without the flag: a lone running task is left where it is
    const flat = env({
      era,
      sd: bigLittleDie(4, false),
      dstCpu: 4,
      idle: "CPU_IDLE",
      rqs: oneMisfit(),
    });
    const r = findBusiestGroup({ env: flat });
    assert.ok(r.balanced || r.migrationType !== "migrate_misfit", era);
    // cpu1 (little, idle) balancing: the misfit is in its own group
    const local = env({ era, sd: bigLittleDie(1), dstCpu: 1, idle: "CPU_IDLE", rqs: oneMisfit() });
    assert.equal(updateSdLbStats56(local).localStat.groupMisfitTaskLoad, 0, era);
    // a little destination in another little group cannot help the misfit
    const l2 = group([2, 3], 2 * LITTLE);
    const sd = domain({
      level: "DIE",
      cpu: 2,
      groups: [l2, group([0, 1], 2 * LITTLE)],
      flags: BASE_FLAGS | SD_ASYM_CPUCAPACITY,
      imbalancePct: 117,
    });
    const rqs = [little(0, [task()], 1024), little(1, [], 0), little(2, [], 0), little(3, [], 0)];
    const sds = updateSdLbStats56(env({ era, sd, dstCpu: 2, idle: "CPU_IDLE", rqs }));
    assert.notEqual(sds.busiestStat.groupType, "group_misfit_task", era);
  }
});

test("misfit: migrate_misfit detaches exactly the task that does not fit the little CPU", () => {
  for (const era of ERAS_5X) {
    // cpu0 runs a small task (just picked; misfit_task_load still holds the big one's load); a
    // big one (util 1000 > 80% of 462) waits, and another small one, which the 5.x walk from the
    // tail meets first: it fits cpu0 and stays. cpu0's util/runnable sums are those of a
    // saturated little CPU, so the pair is not overloaded (which would outrank misfit).
    const small = task({ utilAvg: 100, loadAvg: 100 });
    const big = task({ utilAvg: 1000, loadAvg: 1000 });
    const small2 = task({ utilAvg: 120, loadAvg: 120 });
    const cpu0 = rq(0, [small, big, small2], {
      cpuCapacity: LITTLE,
      cpuCapacityOrig: LITTLE,
      misfitTaskLoad: 1000,
      cfsUtilAvg: LITTLE,
      cfsRunnableAvg: 900,
    });
    const rqs = [cpu0, little(1, [], 0), rq(4, []), rq(5, [])];
    const res = loadBalance(env({ era, sd: bigLittleDie(4), dstCpu: 4, idle: "CPU_IDLE", rqs }));
    assert.equal(res.decision.balanced, false, era);
    if (!res.decision.balanced) assert.equal(res.decision.migrationType, "migrate_misfit", era);
    assert.deepEqual(
      res.migrations.map((m) => m.task.pid),
      [big.pid],
      era,
    );
  }
});

test("misfit: 5.14+ capacity_greater vs 5.6 fits_capacity for a destination only slightly bigger", () => {
  // dst capacity 500 vs a little group of 462: 5.6 asks 462 * 1280 < 500 * 1024 (no: 591360 >
  // 512000), 5.14+ asks 500 * 1024 > 462 * 1078 (yes: 512000 > 498036)
  const mid = group([4, 5], 1000);
  const sd = domain({
    level: "DIE",
    cpu: 4,
    groups: [mid, group([0, 1], 2 * LITTLE)],
    flags: BASE_FLAGS | SD_ASYM_CPUCAPACITY,
    imbalancePct: 117,
  });
  const rqs = () => [
    little(0, [task()], 1024),
    little(1, [], 0),
    rq(4, [], { cpuCapacity: 500, cpuCapacityOrig: 500 }),
    rq(5, [], { cpuCapacity: 500, cpuCapacityOrig: 500 }),
  ];
  const type = (era: Era) =>
    updateSdLbStats56(env({ era, sd, dstCpu: 4, idle: "CPU_IDLE", rqs: rqs() })).busiest;
  assert.equal(type("5.6"), null);
  assert.deepEqual(type("5.19")?.cpus, [0, 1]);
});

test("misfit end to end: a busy task forked on a little CPU moves to a big one from 5.6 on, not in 4.8", () => {
  for (const era of ["4.8", ...ERAS_5X] as Era[]) {
    const k = bigLittleKernel(era);
    const hog = function* () {
      yield run(Infinity);
    };
    const t = k.spawn({ comm: "h", cpu: 1, program: hog });
    k.runUntil(300_000_000);
    if (era === "4.8") assert.equal(t.cpu, 1, era);
    else {
      assert.ok(t.cpu >= 4, `${era}: on cpu${t.cpu}`);
    }
  }
});
