// Task programs' system calls as exec.ts carries them out.
import assert from "node:assert/strict";
import { test } from "node:test";
import { machineBuilder } from "../../../src/machine/builder";
import { call, run, setAffinity } from "../../../src/kernel/ops";
import { boot } from "../boot";

/** A task pinned to cpu0 runs 1 ms, calls sched_setaffinity(mask), notes where and when it is. */
function afterSetAffinity(mask: number[]) {
  const k = boot(machineBuilder().sockets(2).cores(2).build(), "5.19");
  let cpuAfter = -1;
  let at = -1;
  const p = k.spawn({
    comm: "m",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(1_000_000);
      yield setAffinity(mask);
      yield call(() => {
        cpuAfter = p.cpu;
        at = k.now;
      });
      yield run(Infinity);
    },
  });
  k.runUntil(3_000_000);
  return { k, p, cpuAfter, at };
}

test("sched_setaffinity to a mask without the running CPU moves the task at once", () => {
  const { k, p, cpuAfter, at } = afterSetAffinity([2]);
  assert.equal(cpuAfter, 2);
  assert.equal(k.rqs[2].curr, p);
  assert.equal(k.rqs[0].curr, null);
  // within a few microseconds of the call, not at cpu0's next tick or balance pass
  assert.ok(at < 1_000_000 + 100_000, `moved at ${at}`);
});

test("sched_setaffinity to a mask that keeps the running CPU does not move the task", () => {
  const { k, p, cpuAfter } = afterSetAffinity([0, 2]);
  assert.equal(cpuAfter, 0);
  assert.equal(k.rqs[0].curr, p);
});
