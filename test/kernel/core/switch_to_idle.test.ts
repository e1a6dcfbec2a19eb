// A CPU switching its last task out to idle, on hand-built states: __schedule holds the rq lock
// until switch_to is done (context_switch "Also unlocks the rq", finish_lock_switch), so a remote
// waker spins for it; and an IPI that reaches a CPU still switching out is handled when the switch
// ends (interrupts stay off until finish_task_switch), not before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { run, wait } from "../../../src/kernel/ops";
import { boot } from "../boot";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { tryToWakeUp } from "../../../src/kernel/core/ttwu";
import { wakelistPatch1, wakelistPatch2 } from "../../../src/patch/seeds/wakelist_2022";
import type { Patch } from "../../../src/patch/patch";

const SWITCH_NS = 5000;
const T = 1_000_000;

/** 1 socket x 2 cores, polling idle; a long switch_to and a short IPI flight. */
function kernel(patches: Patch[]): Kernel {
  const m = machineBuilder()
    .sockets(1)
    .cores(2)
    .costs({ ipiSendNs: 100, ipiDeliveryNs: 200, contextSwitchNs: SWITCH_NS })
    .idleStates([{ name: "C1", exitLatencyNs: 1000, targetResidencyNs: 2000, polling: true }])
    .build();
  return boot(m, "5.19", "t", patches);
}

/**
 * cpu1 runs `blocker` until it blocks at about T, switching to idle; returns the kernel stopped
 * inside that switch (rq->curr is idle, switch_to not done), and `wakee`, asleep, pinned to cpu1.
 */
function insideSwitchToIdle(patches: Patch[]): { k: Kernel; wakee: Task } {
  const k = kernel(patches);
  const wakee = k.spawn({
    comm: "wakee",
    cpu: 1,
    cpus: [1],
    program: function* () {
      for (;;) yield wait();
    },
  });
  k.runUntil(T / 2);
  k.spawn({
    comm: "blocker",
    cpu: 1,
    cpus: [1],
    program: function* () {
      yield run(T / 2);
      yield wait();
    },
  });
  const rq = k.rqs[1];
  for (let t = T / 2; t < 2 * T; t += 100) {
    k.runUntil(t);
    if (t > T / 2 + 1000 && rq.curr === null && k.now < rq.switchDoneAt) break;
  }
  assert.ok(rq.curr === null && k.now < rq.switchDoneAt, "stopped inside the switch to idle");
  assert.equal(wakee.onRq, 0);
  return { k, wakee };
}

function wakeFromCpu0(k: Kernel, wakee: Task): number {
  k.thisCpu = 0;
  k.chargeNs = 0;
  tryToWakeUp(k, wakee, 0, 0, null);
  const wakerNs = k.chargeNs;
  k.chargeNs = 0;
  k.thisCpu = -1;
  return wakerNs;
}

test("a switch to idle holds the rq lock until switch_to is done: a remote waker spins for it", () => {
  const { k, wakee } = insideSwitchToIdle([]);
  const rq = k.rqs[1];
  assert.ok(rq.lockFreeAt >= rq.switchDoneAt, `lock free at ${rq.lockFreeAt}`);
  const left = rq.switchDoneAt - k.now;
  const wakerNs = wakeFromCpu0(k, wakee);
  assert.deepEqual(k.counters.wakePath, { remote: 1 });
  assert.equal(k.counters.other.ttwu_remote_lock_waits, 1);
  assert.ok(wakerNs >= left, `the waker spun ${wakerNs} ns for the ${left} ns left`);
  k.runUntil(2 * T);
  k.checkInvariants();
  assert.ok(wakee.stats.nvcsw >= 1, "the wakee ran and slept again");
});

test("a wakelist IPI to a CPU still switching out is handled when the switch ends", () => {
  const { k, wakee } = insideSwitchToIdle([wakelistPatch1, wakelistPatch2]);
  const rq = k.rqs[1];
  const done = rq.switchDoneAt;
  assert.ok(k.now + 300 < done, "the IPI (100 + 200 ns) lands well before the switch ends");
  const wakerNs = wakeFromCpu0(k, wakee);
  assert.deepEqual(k.counters.wakePath, { wakelist_llc: 1 });
  assert.equal(k.counters.ipis.call_function_single, 1, "not polling yet: an IPI");
  assert.ok(wakerNs < done - k.now, "the waker does not wait for the switch");
  k.runUntil(done - 1);
  assert.equal(wakee.onRq, 0, "still on the wakelist while interrupts are off");
  assert.equal(rq.ttwuPending, 1);
  k.runUntil(done);
  assert.equal(wakee.onRq, 1, "sched_ttwu_pending ran at the end of the switch");
  k.runUntil(2 * T);
  k.checkInvariants();
});
