// The visibility windows of a CPU leaving idle (core/idle_cpu.ts), on hand-built states: a CPU a
// waker has claimed still looks idle to other CPUs' unlocked reads until the enqueue (direct
// path) or the ttwu_pending store (wakelist) is done, and before v6.2 again from
// sched_ttwu_pending's early clear of ttwu_pending to its enqueue (d6962c4fe8f9 moved the clear
// after the enqueue in v6.2).
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { run, wait } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { schedTtwuPending, tryToWakeUp } from "../../../src/kernel/core/ttwu";
import { idleCpu } from "../../../src/kernel/fair/wake/common";
import { seenNrRunning } from "../../../src/kernel/core/idle_cpu";
import { patch } from "../../../src/patch/patch";
import { boot } from "../boot";

/** 4 cores, one LLC, no SMT, no idle states to leave (builder costs: wakeupNs 400, same-LLC lock 150 ns, line 45 ns). */
const machine = () => machineBuilder().sockets(1).cores(4).build();
const T = 2_000_000;

function hog(k: Kernel, comm: string, cpu: number): Task {
  return k.spawn({
    comm,
    cpu,
    cpus: [cpu],
    program: function* () {
      yield run(Infinity);
    },
  });
}

function sleeper(k: Kernel, comm: string, cpu: number): Task {
  return k.spawn({
    comm,
    cpu,
    cpus: [0, 1, 2, 3],
    program: function* () {
      yield wait();
      yield run(Infinity);
    },
  });
}

/**
 * CPUs 0, 1 and 3 run hogs (the wakers on 0 and 1), CPU 2 is idle; wakees p and q sleep with
 * CPU 3 as prev_cpu. Returns the kernel at T, between events.
 */
function twoWakers(era: Era, windows = true) {
  const k = boot(
    machine(),
    era,
    "t",
    windows ? [] : [patch("no windows").feature("VISIBILITY_WINDOWS", false)],
  );
  const p = sleeper(k, "p", 3);
  const q = sleeper(k, "q", 3);
  k.runUntil(100_000);
  const a = hog(k, "a", 0);
  const b = hog(k, "b", 1);
  hog(k, "c", 3);
  k.runUntil(T);
  assert.equal(k.rqs[2].curr, null, "CPU 2 idle");
  assert.equal(p.cpu, 3);
  assert.equal(q.cpu, 3);
  /** One waker's try_to_wake_up, its context's clock `offset` ns after T (another CPU's event). */
  const wakeFrom = (cpu: number, waker: Task, wakee: Task, offset: number) => {
    k.thisCpu = cpu;
    k.chargeNs = offset;
    tryToWakeUp(k, wakee, 0, cpu, waker);
    k.chargeNs = 0;
    k.thisCpu = -1;
  };
  return { k, p, q, a, b, wakeFrom };
}

test("5.19: two wakers scanning 200 ns apart both pick the idle CPU (the first one's enqueue is not visible yet)", () => {
  const { k, p, q, a, b, wakeFrom } = twoWakers("5.19");
  wakeFrom(0, a, p, 0);
  assert.equal(p.cpu, 2, "the first waker's scan finds CPU 2");
  assert.equal(k.rqs[2].nrRunning, 1, "direct path: enqueued under CPU 2's lock");
  const visible = k.rqs[2].busyVisibleAt - T;
  assert.ok(visible > 200, `the enqueue is visible ${visible} ns after T, past the second scan`);
  wakeFrom(1, b, q, 200);
  assert.equal(q.cpu, 2, "the second waker reads CPU 2 idle and stacks q on it");
  assert.equal(k.rqs[2].nrRunning, 2);
});

test("5.19 with VISIBILITY_WINDOWS off: the claim is visible at once and the second waker looks elsewhere", () => {
  const { k, p, q, a, b, wakeFrom } = twoWakers("5.19", false);
  wakeFrom(0, a, p, 0);
  assert.equal(p.cpu, 2);
  wakeFrom(1, b, q, 200);
  assert.notEqual(q.cpu, 2);
  assert.equal(k.rqs[2].nrRunning, 1);
});

for (const era of ["6.6", "6.19"] as Era[]) {
  test(`${era}: the first waker goes through CPU 2's wakelist; the second, 200 ns later, sees ttwu_pending and does not pick it`, () => {
    const { k, p, q, a, b, wakeFrom } = twoWakers(era);
    wakeFrom(0, a, p, 0);
    assert.equal(p.cpu, 2);
    assert.equal(
      k.rqs[2].ttwuPending,
      1,
      "ttwu_queue_cond (v6.0+): an idle CPU of the LLC takes the wakelist",
    );
    assert.equal(k.rqs[2].nrRunning, 0, "not enqueued before CPU 2 runs sched_ttwu_pending");
    // The store lands right after the first waker's scan (one cache line later), so the second
    // waker, at the same point of its own path 200 ns later, reads it.
    assert.ok(k.rqs[2].busyVisibleAt > T, "a reader at T still sees CPU 2 idle");
    k.thisCpu = 3;
    assert.equal(idleCpu(k, 2), true);
    k.thisCpu = -1;
    wakeFrom(1, b, q, 200);
    assert.notEqual(q.cpu, 2, "idle_cpu() reads ttwu_pending");
  });
}

/**
 * CPU 2 idle with one wakee on its wakelist (ttwu_pending set, as __ttwu_queue_wakelist leaves
 * it) and its rq lock held by CPU 3 until T + 1000 ns; at T it runs sched_ttwu_pending, which
 * waits for the lock before it enqueues.
 */
function pendingWithBusyLock(era: Era) {
  const k = boot(machine(), era);
  const p = sleeper(k, "p", 2);
  k.runUntil(100_000);
  hog(k, "a", 0);
  hog(k, "c", 3);
  k.runUntil(T);
  const rq = k.rqs[2];
  assert.equal(rq.curr, null);
  p.state = 0; // TASK_RUNNING: try_to_wake_up has claimed it (TASK_WAKING)
  p.waiting = false;
  rq.wakeList.push(p);
  rq.ttwuPending = 1;
  rq.lockFreeAt = T + 1000;
  k.rqLockHolder[2] = 3;
  k.thisCpu = 2;
  k.chargeNs = 0;
  schedTtwuPending(k, rq);
  k.chargeNs = 0;
  assert.equal(rq.nrRunning, 1, "p enqueued once the lock was free");
  return { k, rq };
}

test("before v6.2 sched_ttwu_pending clears ttwu_pending before it takes the lock: the CPU looks idle until the enqueue", () => {
  for (const era of ["5.10", "5.19"] as Era[]) {
    const { k, rq } = pendingWithBusyLock(era);
    k.thisCpu = 0;
    for (const [at, idle] of [
      [500, true], // after the clear, while CPU 2 waits for its lock
      [2_000, false], // after the enqueue
    ] as const) {
      k.chargeNs = at;
      assert.equal(idleCpu(k, 2), idle, `${era}: idle_cpu(2) at T + ${at}`);
      assert.equal(seenNrRunning(k, rq), idle ? 0 : 1);
    }
    k.chargeNs = 0;
  }
});

test("from v6.2 sched_ttwu_pending clears ttwu_pending after its enqueue: the CPU never looks idle again", () => {
  for (const era of ["6.6", "6.19"] as Era[]) {
    const { k, rq } = pendingWithBusyLock(era);
    assert.equal(rq.ttwuPending, 0, "cleared at the end");
    k.thisCpu = 0;
    for (const at of [500, 2_000]) {
      k.chargeNs = at;
      assert.equal(idleCpu(k, 2), false, `${era}: idle_cpu(2) at T + ${at}`);
    }
    k.chargeNs = 0;
  }
});
