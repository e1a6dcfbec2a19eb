// Task programs' system calls as exec.ts carries them out.
import assert from "node:assert/strict";
import { test } from "node:test";
import { machineBuilder } from "../../../src/machine/builder";
import { call, run, setAffinity } from "../../../src/kernel/ops";
import { boot } from "../boot";

function kernel() {
  const m = machineBuilder().sockets(2).cores(2).build();
  return boot(m, "5.19");
}

test("sched_setaffinity to a mask without the running CPU moves the task at once", () => {
  const k = kernel();
  let cpuAfter = -1;
  let movedAt = -1;
  const p = k.spawn({
    comm: "m",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(1_000_000);
      yield setAffinity([2]);
      yield call(() => {
        cpuAfter = p.cpu;
        movedAt = k.now;
      });
      yield run(Infinity);
    },
  });
  k.runUntil(3_000_000);
  assert.equal(cpuAfter, 2);
  assert.equal(k.rqs[2].curr, p);
  assert.equal(k.rqs[0].curr, null);
  // within a few microseconds of the call, not at cpu0's next tick or balance pass
  assert.ok(movedAt < 1_000_000 + 100_000, `moved at ${movedAt}`);
});

test("sched_setaffinity to a mask that keeps the running CPU does not move the task", () => {
  const k = kernel();
  let cpuAfter = -1;
  const p = k.spawn({
    comm: "m",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(1_000_000);
      yield setAffinity([0, 2]);
      yield call(() => {
        cpuAfter = p.cpu;
      });
      yield run(Infinity);
    },
  });
  k.runUntil(3_000_000);
  assert.equal(cpuAfter, 0);
  assert.equal(k.rqs[0].curr, p);
});
