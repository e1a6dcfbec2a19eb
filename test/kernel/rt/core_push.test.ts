// RT push driven by the core alone: tasks are spawned and woken through the kernel, and
// try_to_wake_up (task_woken_rt) and __schedule (the post_schedule / balance_callback push) do
// the pushing; the test only reads where the tasks ended up and the counters.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { machineBuilder } from "../../../src/machine/builder";
import { patch, type Patch } from "../../../src/patch/patch";
import { run, sleep } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";

const MS = 1_000_000;
const hog = function* () {
  yield run(Infinity);
};

/** One socket, four cores, one LLC; explicit costs so preset changes cannot move the outcome. */
function kernel(era: Era, patches: Patch[] = []): Kernel {
  const m = machineBuilder()
    .sockets(1)
    .cores(4)
    .costs({ ipiSendNs: 200, ipiDeliveryNs: 1500, contextSwitchNs: 1200, wakeupNs: 400 })
    .idleStates([{ name: "C1", exitLatencyNs: 1000, targetResidencyNs: 2000, polling: false }])
    .build();
  return buildKernel({ machine: m, online: m.online, era, patches, seed: "t", trace: false });
}

function cfsHogs(k: Kernel, cpus: number[]): void {
  for (const c of cpus) k.spawn({ comm: `c${c}`, program: hog, cpu: c, cpus: [c] });
}

// select_task_rq_rt reads rq->curr without the rq lock; when that read saw nothing to move away
// from, the wakee is queued behind curr and task_woken_rt (under the lock) pushes it. The patch
// makes the unlocked read miss, leaving task_woken_rt to do the push.
const selectMissed = patch("select_task_rq_rt's unlocked read missed curr").replace(
  "rt.wakeup_push_cond",
  (ctx, base) => (ctx.site === "select_task_rq" ? false : base(ctx)),
);

for (const era of ["3.19", "6.19"] as const) {
  test(`task_woken_rt (${era}): a woken RT task queued behind an equal-prio curr is pushed by try_to_wake_up`, () => {
    const k = kernel(era, [selectMissed]);
    const w: Task = k.spawn({
      comm: "w50",
      policy: "fifo",
      rtPriority: 50,
      cpu: 0,
      program: function* () {
        yield sleep(3 * MS);
        yield run(Infinity);
      },
    });
    k.runUntil(MS / 2);
    assert.equal(w.onRq, 0, "w sleeps");
    // a is not pinned: select_task_rq_rt moves a wakee away from a pinned curr regardless.
    const a = k.spawn({
      comm: "a50",
      policy: "fifo",
      rtPriority: 50,
      cpu: 0,
      program: hog,
    });
    cfsHogs(k, [1, 2, 3]);
    k.runUntil(2 * MS);
    assert.equal(k.rqs[0].curr, a);
    assert.equal(k.counters.migrations.rt_push, undefined);
    k.runUntil(4 * MS); // w wakes at ~3 ms on cpu0, behind a
    assert.equal(w.stats.wakeups, 1);
    assert.notEqual(w.cpu, 0, "pushed off cpu0");
    assert.equal(k.rqs[w.cpu].curr, w, "and running there");
    assert.equal(k.counters.migrations.rt_push, 1);
    assert.equal(k.rqs[0].curr, a);
    k.checkInvariants();
  });

  test(`post_schedule push (${era}): the RT task preempted by a higher one moves to a CFS CPU after the switch`, () => {
    const k = kernel(era);
    const a = k.spawn({ comm: "a50", policy: "fifo", rtPriority: 50, cpu: 0, program: hog });
    cfsHogs(k, [1, 2, 3]);
    k.runUntil(MS);
    assert.equal(k.rqs[0].curr, a);
    // b is pinned to cpu0 (select_task_rq_rt leaves it there) and preempts a.
    const b = k.spawn({
      comm: "b60",
      policy: "fifo",
      rtPriority: 60,
      cpu: 0,
      cpus: [0],
      program: hog,
    });
    k.runUntil(2 * MS);
    assert.equal(k.rqs[0].curr, b);
    assert.notEqual(a.cpu, 0, "a was pushed off cpu0");
    assert.equal(k.rqs[a.cpu].curr, a, "a runs, having preempted a CFS hog");
    assert.equal(k.counters.migrations.rt_push, 1);
    k.checkInvariants();
  });
}
