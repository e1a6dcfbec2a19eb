// idle_cpu() while a CPU switches to idle: rq->curr is the blocking task until __schedule's pick
// (with its newidle balance) is done, in every era.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { run } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import { TASK_INTERRUPTIBLE } from "../../../src/kernel/sched";
import { idleCpu } from "../../../src/kernel/fair/wake/common";
import { boot } from "../boot";

const T = 1_000_000;
const NEWIDLE_NS = 20_000;

for (const era of ["2.6.29", "5.6", "5.19", "6.19"] as Era[]) {
  test(`${era}: a CPU in its newidle balance is not idle_cpu() until the pick is done`, () => {
    const m = machineBuilder().sockets(1).cores(2).build();
    const k = boot(m, era);
    const hog = k.spawn({
      comm: "hog",
      cpu: 1,
      cpus: [1],
      program: function* () {
        yield run(Infinity);
      },
    });
    k.runUntil(T);
    const rq = k.rqs[1];
    assert.equal(rq.curr, hog);
    // The hog blocks; pick_next_task_fair's newidle balance takes NEWIDLE_NS on CPU 1.
    k.newIdleHooks.push((r) => {
      if (r === rq) k.chargeNs += NEWIDLE_NS;
    });
    hog.state = TASK_INTERRUPTIBLE;
    k.chargeNs = 0;
    k.schedule(rq);
    assert.equal(rq.curr, null, "the model has switched to idle at the event's instant");
    // Another CPU's context at the same instant: CPU 1 still runs __schedule with hog current.
    k.chargeNs = 0;
    assert.equal(rq.isIdle(), false);
    assert.equal(idleCpu(k, 1), false);
    // A context whose clock has passed the pick (and the lock taken before it) sees it idle.
    k.chargeNs = NEWIDLE_NS + 1_000;
    assert.equal(rq.isIdle(), true);
    assert.equal(idleCpu(k, 1), true);
    k.chargeNs = 0;
  });
}
