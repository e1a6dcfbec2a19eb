// smp_call_function_single (src/kernel/core/smp.ts) on hand-built states: __schedule runs with
// interrupts off until finish_task_switch, so an IPI that reaches a CPU still switching out is
// handled when the switch ends; a CPU switching to idle is not polling yet, so it needs a real IPI.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { run, wait } from "../../../src/kernel/ops";
import { buildKernel } from "../../../src/experiment/run";
import type { Kernel } from "../../../src/kernel/core/core";

const SWITCH_NS = 5000;
const T = 1_000_000;

/** 1 socket x 2 cores, polling idle, a long switch_to and a short IPI flight; cpu1 runs a task
 *  that blocks after T / 2 of work, started at T / 2. */
function kernel(trace = false): Kernel {
  const m = machineBuilder()
    .sockets(1)
    .cores(2)
    .costs({ ipiSendNs: 100, ipiDeliveryNs: 200, contextSwitchNs: SWITCH_NS })
    .idleStates([{ name: "C1", exitLatencyNs: 1000, targetResidencyNs: 2000, polling: true }])
    .build();
  const k = buildKernel({
    machine: m,
    online: m.online,
    era: "5.19",
    patches: [],
    seed: "t",
    trace,
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
  return k;
}

/** cpu0 sends an IPI to cpu1 now; returns a box that gets the handler's time. */
function sendFromCpu0(k: Kernel): { at: number } {
  const ran = { at: -1 };
  k.thisCpu = 0;
  k.chargeNs = 0;
  k.sendIpi(k.rqs[1], () => {
    ran.at = k.now;
  });
  k.chargeNs = 0;
  k.thisCpu = -1;
  return ran;
}

test("smp_call_function_single to a CPU still switching to idle: a real IPI, handled when the switch ends", () => {
  const k = kernel();
  const rq = k.rqs[1];
  for (let t = T / 2; t < 2 * T; t += 100) {
    k.runUntil(t);
    if (t > T / 2 + 1000 && rq.curr === null && k.now < rq.switchDoneAt) break;
  }
  assert.ok(rq.curr === null && k.now + 300 < rq.switchDoneAt, "stopped inside the switch to idle");
  const done = rq.switchDoneAt;
  const ran = sendFromCpu0(k);
  assert.equal(k.counters.ipis.call_function_single, 1, "not polling yet: an IPI");
  assert.equal(k.counters.ipis.call_function_single_avoided_polling, undefined);
  k.runUntil(done - 1);
  assert.equal(ran.at, -1, "interrupts are off until finish_task_switch");
  k.runUntil(done);
  assert.equal(ran.at, done, "the handler runs at the end of the switch");
  k.checkInvariants();
});

test("smp_call_function_single: a switch that starts while the IPI is in flight defers the handler to its end", () => {
  // The blocker's switch to idle starts at S (from a traced run of the same kernel).
  const probe = kernel(true);
  probe.runUntil(2 * T);
  const sw = probe
    .trace!.records()
    .find((r) => r.type === "sched_switch" && r.cpu === 1 && r.t > T / 2 + 1000);
  assert.ok(sw, "the blocker switched out");
  const S = sw.t;
  const k = kernel();
  const rq = k.rqs[1];
  k.runUntil(S - 100);
  assert.ok(rq.curr !== null, "the blocker still runs when the IPI leaves");
  const ran = sendFromCpu0(k); // sent at S - 100, lands at S + 100, inside the switch
  k.runUntil(S);
  const done = rq.switchDoneAt;
  assert.ok(done > S + 100, `the switch (to ${done}) outlasts the IPI's flight`);
  k.runUntil(done - 1);
  assert.equal(ran.at, -1, "deferred while interrupts are off");
  k.runUntil(done);
  assert.equal(ran.at, done);
  assert.equal(k.counters.other.smp_call_in_switch, 1);
  k.checkInvariants();
});
