// Prefer-sibling in the 4.x update_sd_lb_stats (lb/v48.ts): with SD_PREFER_SIBLING on the child
// domain and room in the local group, v4.1 ... v4.11 mark a group running more than one task as
// full ("sgs->sum_nr_running > 1", fair.c v4.8.17); only v4.12 compared it with the local group
// (> local + 1). 3.19 lowers the group's capacity factor to one instead (fair.c v3.19).
import { test } from "node:test";
import assert from "node:assert/strict";
import { SD_PREFER_SIBLING } from "../../../src/kernel/topology/sched_domain";
import { findBusiestGroup48, updateSdLbStats48 } from "../../../src/kernel/fair/lb/v48";
import type { Era } from "../../../src/kernel/features";
import { BASE_FLAGS, domain, env, group, hogs, rq } from "./lb_fixtures";

// Two cores of one CPU each under a child with SD_PREFER_SIBLING: the local pair {0, 1} runs one
// task, the other pair {2, 3} two, one per CPU. cpu1 is idle and balances.
function setup(era: Era) {
  const child = domain({
    level: "MC",
    cpu: 1,
    groups: [group([1]), group([0])],
    flags: BASE_FLAGS | SD_PREFER_SIBLING,
  });
  const sd = domain({ level: "DIE", cpu: 1, groups: [group([0, 1]), group([2, 3])], child });
  const rqs = [rq(0, hogs(1)), rq(1, []), rq(2, hogs(1)), rq(3, hogs(1))];
  return env({ era, sd, dstCpu: 1, idle: "CPU_IDLE", rqs });
}

test("prefer-sibling: a group with two tasks beside a local group with one is full in 4.8 (> 1) and in 3.19 (factor 1)", () => {
  for (const era of ["3.19", "4.8"] as const) {
    const sds = updateSdLbStats48(setup(era));
    assert.equal(sds.localStat.sumNrRunning, 1);
    assert.equal(sds.busiestStat.sumNrRunning, 2);
    // 2 > 1 (4.8); 3.19: min(2 cores, 1) = 1 < 2 tasks. v4.12's 2 > 1 + 1 would not be
    assert.equal(sds.busiestStat.groupType, "group_overloaded", era);
    if (era === "3.19") assert.equal(sds.busiestStat.groupCapacityFactor, 1);
  }
});

test("prefer-sibling: the full group lets an idle CPU pull although it has no more idle CPUs than busiest + 1", () => {
  // without the overload mark, CPU_IDLE would call it balanced: local idle_cpus 1 <= 0 + 1
  const r = findBusiestGroup48({ env: setup("4.8") });
  assert.equal(r.balanced, false);
  assert.ok(!r.balanced && r.imbalance > 0);
});
