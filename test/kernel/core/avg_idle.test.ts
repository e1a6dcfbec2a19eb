// rq->avg_idle's samples at the kernel's instants (core/avg_idle.ts): idle_stamp is the rq clock
// at the top of the __schedule that went idle, the sample's end the target's clock under its
// lock when the wakee is activated; the cap is 2 * max_idle_balance_cost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { run, wait } from "../../../src/kernel/ops";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { TASK_INTERRUPTIBLE } from "../../../src/kernel/sched";
import { tryToWakeUp } from "../../../src/kernel/core/ttwu";
import { boot } from "../boot";

const T = 1_000_000;
const ENTRY_NS = 3_000; // kernel work of the blocking context before __schedule
const IDLE_NS = 50_000; // event time from the block to the wakeup
const WAKER_NS = 7_000; // the waker's work before it takes the target's lock

/** 5.19, two CPUs of one LLC; a task pinned to CPU 1 blocks at T after ENTRY_NS of kernel work. */
function blockOnCpu1(): { k: Kernel; p: Task } {
  const m = machineBuilder().sockets(1).cores(2).build();
  const k = boot(m, "5.19");
  const p = k.spawn({
    comm: "sleeper",
    cpu: 1,
    cpus: [1],
    program: function* () {
      yield run(Infinity);
    },
  });
  k.runUntil(T);
  p.state = TASK_INTERRUPTIBLE;
  k.chargeNs = ENTRY_NS;
  k.schedule(k.rqs[1]);
  return { k, p };
}

/** try_to_wake_up(p) from CPU 0 after WAKER_NS of its own work, IDLE_NS after the block. */
function wakeFromCpu0(k: Kernel, p: Task): void {
  k.runUntil(T + IDLE_NS);
  k.thisCpu = 0;
  k.chargeNs = WAKER_NS;
  tryToWakeUp(k, p, 0, 0, null);
  k.chargeNs = 0;
  k.thisCpu = -1;
}

test("5.19: idle_stamp is the clock at the top of __schedule, the sample ends at the waker's locked clock", () => {
  const { k, p } = blockOnCpu1();
  const rq = k.rqs[1];
  const lockLocal = k.machine.costs.rqLockLocalNs;
  assert.equal(rq.idleStamp, T + ENTRY_NS + lockLocal, "rq_clock after rq_lock in __schedule");
  const before = rq.avgIdle;
  wakeFromCpu0(k, p);
  assert.equal(rq.idleStamp, 0);
  // update_avg: avg += (delta - avg) / 8, so delta = 8 * (after - before) + before
  const delta = 8 * (rq.avgIdle - before) + before;
  // the event-time sample would be IDLE_NS; the kernel's adds the waker's work and its lock
  // acquisition and drops the blocking context's work before __schedule
  const low = IDLE_NS + WAKER_NS - ENTRY_NS - lockLocal;
  assert.ok(delta > low && delta < low + 2_000, `delta ${delta}, expected just above ${low}`);
});

test("avg_idle is capped at 2 * max_idle_balance_cost once a newidle balance took longer than migration_cost", () => {
  const { k, p } = blockOnCpu1();
  const rq = k.rqs[1];
  const sysctl = k.tunables.sched_migration_cost_ns;
  rq.maxIdleBalanceCost = 4 * sysctl; // a newidle balance of 2 ms
  rq.avgIdle = 9 * sysctl; // above the cap; a ~1 ms sample leaves the average above it
  rq.idleStamp = 1;
  wakeFromCpu0(k, p);
  assert.equal(rq.avgIdle, 8 * sysctl, "2 * max_idle_balance_cost, not 2 * migration_cost");
});

/**
 * CPU 1 runs `busy`, pinned, while `wakee` (pinned to CPU 1) sleeps. A waker on CPU 2, in the
 * other LLC, queues the wakee on CPU 1's wakelist (ttwu_queue_cond: different caches) and CPU 1
 * is notified by an IPI still in flight when `busy` blocks at the same instant. CPU 3 holds two
 * hogs so the root domain is overloaded, and CPU 1's avg_idle is high enough for every level of
 * the newidle walk (the hogs are pinned there, so the walk pulls nothing).
 */
function blockWithWakelistPending(era: "5.10" | "5.19"): {
  k: Kernel;
  newidlePasses: () => number;
} {
  const m = machineBuilder().sockets(2).cores(2).build();
  const k = boot(m, era);
  const pinned = (comm: string, cpu: number, program: () => Generator) =>
    k.spawn({ comm, cpu, cpus: [cpu], program: program as never });
  const wakee = pinned("wakee", 1, function* () {
    for (;;) yield wait();
  });
  k.runUntil(T / 2);
  const busy = pinned("busy", 1, function* () {
    yield run(Infinity);
  });
  for (const c of ["hog0", "hog1"])
    pinned(c, 3, function* () {
      yield run(Infinity);
    });
  k.runUntil(T);
  assert.equal(k.rqs[1].curr, busy);
  assert.equal(wakee.onRq, 0, "the wakee sleeps");
  k.thisCpu = 2;
  tryToWakeUp(k, wakee, 0, 2, null);
  k.chargeNs = 0;
  k.thisCpu = -1;
  assert.equal(k.rqs[1].ttwuPending, 1, "queued on CPU 1's wakelist, IPI in flight");
  const passes = () =>
    Object.entries(k.counters.balance)
      .filter(([key]) => key.endsWith("CPU_NEWLY_IDLE"))
      .reduce((n, [, s]) => n + s.passes, 0);
  k.rqs[1].avgIdle = 10 * k.tunables.sched_migration_cost_ns;
  busy.state = TASK_INTERRUPTIBLE;
  k.schedule(k.rqs[1]);
  return { k, newidlePasses: passes };
}

test("5.19 (e5e678e4fea2, v5.14): a pending wakelist entry skips newidle_balance and its idle_stamp; the wakee's activation takes no avg_idle sample", () => {
  const { k, newidlePasses } = blockWithWakelistPending("5.19");
  const rq = k.rqs[1];
  assert.equal(rq.curr, null, "switched to idle, the wakee not yet activated");
  assert.equal(newidlePasses(), 0, "no newidle load_balance pass");
  assert.equal(rq.idleStamp, 0, "newidle_balance returned before idle_stamp = rq_clock()");
  const before = rq.avgIdle;
  k.runUntil(T + 100_000);
  assert.equal(rq.ttwuPending, 0, "sched_ttwu_pending ran");
  assert.equal(rq.avgIdle, before, "ttwu_do_wakeup: idle_stamp 0, no update_avg");
});

test("5.10 (before e5e678e4fea2): the same CPU balances and stamps, and the activation samples avg_idle", () => {
  const { k, newidlePasses } = blockWithWakelistPending("5.10");
  const rq = k.rqs[1];
  assert.equal(rq.curr, null, "switched to idle (the hogs are pinned)");
  assert.ok(newidlePasses() > 0, "newidle load_balance passes");
  assert.equal(rq.idleStamp, rq.clockAtSchedule, "idle_stamp taken");
  const before = rq.avgIdle;
  k.runUntil(T + 100_000);
  assert.notEqual(rq.avgIdle, before, "update_avg with the short idle period");
});
