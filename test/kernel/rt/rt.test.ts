// The RT class's SMP bookkeeping (pushable plist, rt_nr_migratory, overload / rto_mask, cpupri)
// and the placement decisions that do not need the core's push/pull wiring.
import { test } from "node:test";
import assert from "node:assert/strict";
import { preset } from "../../../src/index";
import type { Era } from "../../../src/index";
import { run, sleep } from "../../../src/kernel/ops";
import type { Kernel } from "../../../src/kernel/core/core";
import { checkRt } from "./rt_check";
import { findLowestRq } from "../../../src/kernel/rt/select";
import { boot } from "../boot";

const MS = 1_000_000;
const hog = function* () {
  yield run(Infinity);
};

function kernel(era: Era, machine = "core2-2x2"): Kernel {
  const m = preset(machine);
  return boot(m, era);
}

test("pushable plist, migratory count, overload and rto_mask follow enqueue, pick and dequeue", () => {
  const k = kernel("3.19");
  // Every other CPU runs something more important, so nothing below can be pushed away.
  for (const c of [1, 2, 3])
    k.spawn({ comm: `r${c}`, program: hog, policy: "fifo", rtPriority: 90, cpu: c, cpus: [c] });
  const a = k.spawn({ comm: "a", program: hog, policy: "fifo", rtPriority: 50, cpu: 0 });
  k.runUntil(MS);
  assert.equal(k.rqs[0].curr, a);
  assert.equal(k.rqs[0].rt.pushable.length, 0, "the running task is never pushable");
  assert.equal(k.rqs[0].rt.overloaded, false);
  k.spawn({ comm: "p", program: hog, policy: "fifo", rtPriority: 40, cpu: 0, cpus: [0] });
  assert.equal(k.rqs[0].rt.pushable.length, 0, "a pinned task is never pushable");
  assert.equal(k.rqs[0].rt.overloaded, true, "two RT tasks, one migratory");
  assert.equal(k.rt.rd.rtoCount, 1);
  k.spawn({ comm: "b", program: hog, policy: "fifo", rtPriority: 40, cpu: 0, cpus: [0, 1] });
  const c = k.spawn({
    comm: "c",
    program: hog,
    policy: "fifo",
    rtPriority: 45,
    cpu: 0,
    cpus: [0, 1],
  });
  assert.deepEqual(
    k.rqs[0].rt.pushable.map((t) => t.comm),
    ["c", "b"],
  );
  assert.equal(k.rt.highestPrioNext(k.rqs[0]), c.prio);
  checkRt(k);
});

test("check_preempt_equal_prio: a pinned wakee runs at once when the equal-prio curr can move", () => {
  const k = kernel("3.19");
  const a = k.spawn({ comm: "a", program: hog, policy: "fifo", rtPriority: 50, cpu: 0 });
  for (const c of [1, 2, 3]) k.spawn({ comm: `c${c}`, program: hog, cpu: c, cpus: [c] });
  k.runUntil(MS);
  const p = k.spawn({ comm: "p", program: hog, policy: "fifo", rtPriority: 50, cpu: 0, cpus: [0] });
  k.runUntil(2 * MS);
  assert.equal(k.rqs[0].curr, p, "requeued at the head and rescheduled");
  k.rt.postSchedule(k.rqs[0]); // the push the core runs after the switch
  k.runUntil(3 * MS);
  assert.equal(a.cpu, 1);
  assert.equal(k.rqs[1].curr, a);
  checkRt(k);
});

test("fork placement: a new RT task avoids a CPU whose RT curr is as important", () => {
  const k = kernel("3.19");
  k.spawn({ comm: "a", program: hog, policy: "fifo", rtPriority: 50, cpu: 0 });
  k.runUntil(MS);
  const f = k.spawn({ comm: "f", program: hog, policy: "fifo", rtPriority: 50 }); // parent cpu: 0
  assert.notEqual(f.cpu, 0);
  const g = k.spawn({ comm: "g", program: hog, policy: "fifo", rtPriority: 60 });
  assert.equal(g.cpu, 0, "more important than curr: stays and preempts");
});

test("select_task_rq_rt: a wakee lands on a lower RT task only when no CPU is free of RT (cpupri lowest level first)", () => {
  for (const cpu3Rt of [false, true]) {
    const k = kernel("3.19");
    k.spawn({ comm: "a", program: hog, policy: "fifo", rtPriority: 50, cpu: 0, cpus: [0] });
    // l1 may move (it becomes pushable when preempted); the others are pinned.
    k.spawn({ comm: "l1", program: hog, policy: "fifo", rtPriority: 40, cpu: 1 });
    k.spawn({ comm: "l2", program: hog, policy: "fifo", rtPriority: 40, cpu: 2, cpus: [2] });
    if (cpu3Rt)
      k.spawn({ comm: "l3", program: hog, policy: "fifo", rtPriority: 40, cpu: 3, cpus: [3] });
    else k.spawn({ comm: "cfs", program: hog, cpu: 3, cpus: [3] });
    k.runUntil(MS);
    const f = k.spawn({ comm: "f", program: hog, policy: "fifo", rtPriority: 50 }); // parent cpu: 0
    k.runUntil(2 * MS);
    const onto = k.counters.other.rt_select_onto_rt ?? 0;
    if (!cpu3Rt) {
      assert.equal(f.cpu, 3, "the CPU running CFS, not a nearer one running rt 40");
      assert.equal(onto, 0);
    } else {
      assert.equal(f.cpu, 1, "every CPU runs RT: the first rt 40 CPU of cpu0's domain");
      assert.equal(k.rqs[1].curr, f, "it preempts the rt 40 task there");
      assert.equal(onto, 1);
      // the preempted rt 40 task is pushable there, but no CPU runs below it: it stays
      assert.deepEqual(
        k.rqs[1].rt.pushable.map((t) => t.comm),
        ["l1"],
      );
      assert.equal(k.rqs[1].rt.overloaded, true);
    }
    checkRt(k);
  }
});

test("find_lowest_rq: the first CPU of the nearest wake-affine domain (3.19), spread over it from 5.10 (6.19)", () => {
  for (const era of ["3.19", "6.19"] as const) {
    const k = kernel(era, "numa-2x12x2");
    // cpu0 and its SMT sibling cpu24 run RT; the rest of the package runs nothing.
    k.spawn({ comm: "a", program: hog, policy: "fifo", rtPriority: 50, cpu: 0, cpus: [0] });
    k.spawn({ comm: "b", program: hog, policy: "fifo", rtPriority: 50, cpu: 24, cpus: [24] });
    k.runUntil(MS);
    const w = k.spawn({
      comm: "w",
      program: function* () {
        yield sleep(1e12);
      },
      policy: "fifo",
      rtPriority: 40,
      cpu: 5,
    });
    k.runUntil(2 * MS);
    const picks = [0, 1, 2].map(() => findLowestRq(k, w, 0));
    assert.deepEqual(picks, era === "3.19" ? [1, 1, 1] : [1, 2, 3], era);
  }
});
