// CFS buddies: pick_next_entity's next/last preference and check_preempt_wakeup's marking per era.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { preset } from "../../../src/machine/presets";
import { call, run, wait, wake } from "../../../src/kernel/ops";
import { CfsRq, Task } from "../../../src/kernel/sched";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Policy } from "../../../src/kernel/prio";

function kernel(era: Era): Kernel {
  return buildKernel({
    machine: preset("core2-2x2"),
    online: [true, true, true, true],
    era,
    patches: [],
    seed: "t",
    trace: false,
  });
}

const forever = function* () {
  yield run(Infinity);
};

/** A queued fair task with the given vruntime (hand-built, not on any runqueue of a kernel). */
function entity(pid: number, vruntime: number): Task {
  const t = new Task(pid, `t${pid}`, "t", forever, 4);
  t.se.vruntime = vruntime;
  t.se.onRq = true;
  return t;
}

test("pick_next_entity: a buddy runs instead of the leftmost unless that is unfair; next before last", () => {
  for (const era of ["2.6.29", "4.8", "5.19"] as Era[]) {
    const k = kernel(era);
    const gran = k.cfsTiming.wakeupGranularity; // nice 0: virtual = real
    const pick = (cfs: CfsRq) => k.fair.policy.pickNext(k, cfs);
    const left = entity(1, 0);
    const near = entity(2, gran / 2);
    const far = entity(3, 2 * gran);
    const cfs = new CfsRq();
    cfs.queue.push(left, near, far);
    assert.equal(pick(cfs), left, `${era}: no buddy`);
    cfs.next = near;
    assert.equal(pick(cfs), near, `${era}: next within wakeup_gran of the leftmost`);
    cfs.next = far;
    assert.equal(pick(cfs), left, `${era}: next too far right`);
    cfs.last = near;
    assert.equal(pick(cfs), near, `${era}: last, when next is too far`);
    cfs.next = near;
    cfs.last = entity(4, gran / 4);
    assert.equal(pick(cfs), near, `${era}: next wins over last`);
  }
});

/**
 * `hogs` hogs pinned to cpu1, then a task pinned there is woken from cpu0 (same L2, so no
 * wakelist); returns cpu1's buddies right after check_preempt_wakeup, before cpu1 reschedules.
 */
function buddiesAfterWakeup(era: Era, hogs: number, policy: Policy) {
  const k = kernel(era);
  const hog = Array.from({ length: hogs }, (_, i) =>
    k.spawn({ comm: `hog${i}`, cpu: 1, cpus: [1], program: forever }),
  );
  const wakee = k.spawn({
    comm: "wakee",
    cpu: 1,
    cpus: [1],
    policy,
    program: function* () {
      for (;;) yield wait();
    },
  });
  const seen = { next: null as Task | null, last: null as Task | null, curr: null as Task | null };
  k.spawn({
    comm: "waker",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(50_000_000);
      yield wake(wakee.pid);
      yield call(() => {
        const rq = k.rqs[1];
        Object.assign(seen, { next: rq.cfs.next, last: rq.cfs.last, curr: rq.curr });
      });
      yield wait();
    },
  });
  k.runUntil(60_000_000);
  assert.ok(hog.includes(seen.curr!), "a hog ran on cpu1 at the wakeup");
  return { ...seen, wakee };
}

test("2.6.29 check_preempt_wakeup: every wakeup check marks next = wakee and last = curr", () => {
  for (const policy of ["normal", "batch"] as Policy[]) {
    // a batch wakee never preempts, yet 2.6.29 marks the buddies before that test
    const s = buddiesAfterWakeup("2.6.29", 2, policy);
    assert.equal(s.next, s.wakee, policy);
    assert.equal(s.last, s.curr, policy);
  }
});

test("4.8 / 5.19 check_preempt_wakeup: next on preemption; last only with nr_running >= sched_nr_latency", () => {
  for (const era of ["4.8", "5.19"] as Era[]) {
    const few = buddiesAfterWakeup(era, 2, "normal"); // 3 runnable: no "scale"
    assert.equal(few.next, few.wakee, era);
    assert.equal(few.last, null, era);
    const many = buddiesAfterWakeup(era, 8, "normal"); // 9 runnable >= 8
    assert.equal(many.next, many.wakee, era);
    assert.equal(many.last, many.curr, era);
    const batch = buddiesAfterWakeup(era, 8, "batch"); // no preemption, NEXT_BUDDY off
    assert.deepEqual([batch.next, batch.last], [null, null], era);
  }
});

test("the picked buddy loses its favour; 6.19 (EEVDF) sets no last buddy", () => {
  const k = kernel("4.8");
  const cfs = k.rqs[1].cfs;
  const hogs = [0, 1, 2].map((i) =>
    k.spawn({ comm: `hog${i}`, cpu: 1, cpus: [1], program: forever }),
  );
  k.runUntil(20_000_000);
  const rq = k.rqs[1];
  assert.ok(hogs.includes(rq.curr!));
  rq.needResched = true;
  cfs.next = cfs.queue[0]; // the leftmost waiting hog; curr goes back in behind it
  const buddy = cfs.next;
  k.schedule(rq);
  assert.equal(rq.curr, buddy, "the next buddy was picked");
  assert.equal(cfs.next, null, "and cleared");
  const s = buddiesAfterWakeup("6.19", 8, "normal");
  assert.equal(s.last, null);
});

test("task_hot's CACHE_HOT_BUDDY counts the next buddy, and the last one only in 3.x-5.x", () => {
  for (const [era, lastCounts] of [
    ["2.6.29", false],
    ["4.8", true],
    ["5.19", true],
    ["6.19", false],
  ] as [Era, boolean][]) {
    const k = kernel(era);
    const [a, b] = [0, 1].map((i) =>
      k.spawn({ comm: `hog${i}`, cpu: 1, cpus: [1], program: forever }),
    );
    k.runUntil(1_000_000);
    const cfs = k.rqs[1].cfs;
    cfs.next = a;
    cfs.last = b;
    assert.equal(k.lbTask(a).isBuddy, true, era);
    assert.equal(k.lbTask(b).isBuddy, lastCounts, era);
  }
});

test("pick_next_entity avoids the skip buddy when the second entity is not too unfair", () => {
  const k = kernel("4.8");
  const gran = k.cfsTiming.wakeupGranularity;
  const pick = (cfs: CfsRq) => k.fair.policy.pickNext(k, cfs);
  const left = entity(1, 0);
  const cfs = new CfsRq();
  cfs.queue.push(left, entity(2, 2 * gran));
  cfs.skip = left;
  assert.equal(pick(cfs), left, "the second is too far right: the yielder runs again");
  const near = entity(3, gran / 2);
  cfs.queue.splice(1, 0, near);
  assert.equal(pick(cfs), near);
});

test("yield_task_fair per era: 2.6.29 keeps the vruntime, 3.x-5.x sets the skip buddy, 6.19 (EEVDF) pushes the deadline a slice out", () => {
  for (const era of ["2.6.29", "4.8", "6.19"] as Era[]) {
    const k = kernel(era);
    [0, 1, 2].map((i) => k.spawn({ comm: `hog${i}`, cpu: 1, cpus: [1], program: forever }));
    k.runUntil(10_000_000);
    const rq = k.rqs[1];
    const p = rq.curr!;
    k.fair.updateCurr(rq);
    const v = p.se.vruntime;
    const d = p.se.deadline;
    k.fair.yieldTask(rq, p);
    if (era === "2.6.29") assert.deepEqual([p.se.vruntime, rq.cfs.skip], [v, null], era);
    else if (era === "4.8") assert.deepEqual([p.se.vruntime, rq.cfs.skip], [v, p], era);
    else {
      // base slice 0.75 ms x (1 + ilog2(4)) on core2-2x2, in nice-0 virtual time
      assert.deepEqual([p.se.vruntime, p.se.deadline - d, rq.cfs.skip], [v, 2_250_000, null], era);
    }
  }
});
