// find_idlest_group of the 5.x family per release (kernel/sched/fair.c): v5.9's tie-break on
// group_util between non-local groups with as many idle CPUs (Peter Puhov, "sched/fair:
// update_pick_idlest() Select group with lowest group_util when idle_cpus are equal"); 5.6 keeps
// the first such group.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Era } from "../../../src/kernel/features";
import { findIdlestGroup5x, findIdlestGroupCtx } from "../../../src/kernel/fair/wake/find_idlest";
import { SD_BALANCE_FORK } from "../../../src/kernel/topology/sched_domain";
import { Task } from "../../../src/kernel/sched";
import { machineBuilder } from "../../../src/machine/builder";
import { run, wait } from "../../../src/kernel/ops";
import { boot } from "../boot";

test("find_idlest_group: two idle groups tie on idle CPUs; 5.9+ takes the one with less util, 5.6 the first", () => {
  const m = machineBuilder().cores(3).build(); // MC: groups {0}, {1}, {2}
  const pick = (era: Era) => {
    const k = boot(m, era);
    // the forking parent keeps CPU 0 busy; CPU 1 ran a task for 30 ms that now sleeps (blocked util)
    k.spawn({
      comm: "parent",
      cpu: 0,
      cpus: [0],
      program: function* () {
        yield run(Infinity);
      },
    });
    k.spawn({
      comm: "was-busy",
      cpu: 1,
      cpus: [1],
      program: function* () {
        yield run(30_000_000);
        for (;;) yield wait();
      },
    });
    k.runUntil(32_000_000);
    assert.ok(k.rqs[1].cfs.avg.utilAvg > k.rqs[2].cfs.avg.utilAvg + 100, "CPU 1 keeps util");
    const sd = k.domains.domains[0].find((d) => d.level === "MC")!;
    const child = new Task(999, "child", "child", function* () {}, 3);
    const g = findIdlestGroup5x(findIdlestGroupCtx(k, child, sd, 0, SD_BALANCE_FORK));
    return g?.cpus[0];
  };
  assert.equal(pick("5.6"), 1, "5.6: the first group with the most idle CPUs");
  assert.equal(pick("5.10"), 2, "5.10: the lower group_util among equals");
});
