// checkInvariants on hand-corrupted states: each invariant it enforces fails, naming itself.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { run, wait } from "../../../src/kernel/ops";
import { TASK_INTERRUPTIBLE, TASK_RUNNING } from "../../../src/kernel/sched";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { boot } from "../boot";

/** Two CPUs: cpu0 runs a and b (b queued), cpu1 runs c; s sleeps on cpu1. */
function state(): { k: Kernel; a: Task; b: Task; c: Task; s: Task } {
  const m = machineBuilder().sockets(1).cores(2).build();
  const k = boot(m, "5.19");
  const hog = function* () {
    yield run(Infinity);
  };
  const s = k.spawn({
    comm: "s",
    cpu: 1,
    cpus: [1],
    program: function* () {
      for (;;) yield wait();
    },
  });
  k.runUntil(100_000);
  const a = k.spawn({ comm: "a", cpu: 0, cpus: [0], program: hog });
  const b = k.spawn({ comm: "b", cpu: 0, cpus: [0], program: hog });
  const c = k.spawn({ comm: "c", cpu: 1, cpus: [1], program: hog });
  k.runUntil(1_000_000);
  k.checkInvariants(); // the uncorrupted state passes
  const curr0 = k.rqs[0].curr!;
  return { k, a: curr0, b: curr0 === a ? b : a, c, s };
}

const CASES: [string, (x: ReturnType<typeof state>) => void, RegExp][] = [
  [
    "a task current on two CPUs",
    ({ k, a }) => {
      k.rqs[1].curr = a;
    },
    /is current on two CPUs/,
  ],
  [
    "curr's task_cpu disagrees with its rq",
    ({ a }) => {
      a.cpu = 1;
    },
    /runs on cpu0 but task_cpu is 1/,
  ],
  [
    "nr_running off the class sum",
    ({ k }) => {
      k.rqs[0].nrRunning++;
    },
    /cpu0 nr_running 3 != class sum 2/,
  ],
  [
    "a task missing from the cfs tree",
    ({ k, b }) => {
      k.rqs[0].cfs.queue.splice(k.rqs[0].cfs.queue.indexOf(b), 1);
    },
    /cpu0 cfs tree holds 1, nr_running 2/,
  ],
  [
    "a lost task",
    ({ s }) => {
      s.state = TASK_RUNNING; // neither sleeping, queued nor on a wakelist
    },
    /s\/\d+ is lost/,
  ],
  [
    "a queued task marked sleeping",
    ({ b }) => {
      b.state = TASK_INTERRUPTIBLE;
    },
    /[ab]\/\d+ is queued but sleeping/,
  ],
  [
    "the overload count",
    ({ k }) => {
      k.nrOverloaded = 0;
    },
    /1 runqueues hold 2\+ tasks, root domain counts 0/,
  ],
];

for (const [name, corrupt, msg] of CASES) {
  test(`checkInvariants catches ${name}`, () => {
    const x = state();
    corrupt(x);
    assert.throws(
      () => x.k.checkInvariants(),
      (e: Error) => {
        assert.match(e.message, /^invariant: /);
        assert.match(e.message, msg);
        return true;
      },
    );
  });
}
