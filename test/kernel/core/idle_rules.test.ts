// The idle governor and idle-exit helpers on hand-set runqueues: the deepest state whose target
// residency fits the prediction (menu's `target_residency_ns > predicted_ns` break), the 1/8
// running prediction, which notifications a polling CPU takes without an IPI per era, the exit
// counters by state, and the package scopes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import type { IdleState } from "../../../src/machine/types";
import {
  countIdleExit,
  exitLatencyNs,
  isPolling,
  recordIdle,
  selectIdleState,
  wakesWithoutIpi,
} from "../../../src/kernel/core/idle";
import type { Kernel } from "../../../src/kernel/core/core";
import { boot } from "../boot";

const STATES: IdleState[] = [
  { name: "POLL", exitLatencyNs: 0, targetResidencyNs: 0, polling: true },
  { name: "C1", exitLatencyNs: 2_000, targetResidencyNs: 2_000, polling: false },
  { name: "C3", exitLatencyNs: 30_000, targetResidencyNs: 100_000, polling: false },
  { name: "C6", exitLatencyNs: 120_000, targetResidencyNs: 400_000, polling: false },
];

/** 2 sockets x 2 cores with STATES; nothing runs, so every rq is idle (curr null). */
function kernel(): Kernel {
  return boot(machineBuilder().sockets(2).cores(2).idleStates(STATES).build(), "5.19");
}

test("selectIdleState: the deepest state whose target residency is at most the predicted idle time", () => {
  const rq = kernel().rqs[0];
  for (const [predicted, want] of [
    [0, 0],
    [1_999, 0],
    [2_000, 1], // equal fits: menu breaks only on target_residency > predicted
    [99_999, 1],
    [100_000, 2],
    [399_999, 2],
    [400_000, 3],
    [10_000_000, 3],
  ] as const) {
    rq.avgIdleNs = predicted;
    assert.equal(selectIdleState(STATES, rq), want, `predicted ${predicted} ns`);
  }
  // A deeper state listed after a shallower one that does not fit is still considered.
  rq.avgIdleNs = 150_000;
  const gap: IdleState[] = [STATES[0], { ...STATES[1], targetResidencyNs: 200_000 }, STATES[2]];
  assert.equal(selectIdleState(gap, rq), 2);
  assert.equal(selectIdleState([], rq), -1, "no cpuidle driver: no state");
  rq.idleStateIdx = -1;
  assert.equal(exitLatencyNs([], rq), 0, "an idle CPU in no state costs nothing to leave");
});

test("recordIdle: the prediction moves 1/8 of the way to each observed idle period", () => {
  const rq = kernel().rqs[1];
  rq.avgIdleNs = 800_000;
  recordIdle(rq, 0);
  assert.equal(rq.avgIdleNs, 700_000);
  recordIdle(rq, 1_500_000);
  assert.equal(rq.avgIdleNs, 700_000 + 800_000 / 8);
});

test("recordIdle with exits counts the exit by the state left; unknown names under idle_exit", () => {
  const k = kernel();
  const rq = k.rqs[0];
  rq.idleStateIdx = 3;
  recordIdle(rq, 1000, k);
  recordIdle(rq, 1000, k);
  assert.equal(k.counters.other.idle_exit_C6, 2);
  rq.idleStateIdx = 0;
  for (const name of ["POLL", "C1", "C1E", "C3", "HLT"]) {
    countIdleExit(k.counters, [{ ...STATES[3], name }], rq);
    assert.equal(k.counters.other[`idle_exit_${name}`], 1, name);
  }

  rq.idleStateIdx = -1;
  countIdleExit(k.counters, STATES, rq);
  assert.equal(k.counters.other.idle_exit, undefined, "not idle: nothing counted");
  rq.idleStateIdx = 0;
  countIdleExit(k.counters, [{ ...STATES[0], name: "MWAIT_X" }], rq);
  assert.equal(k.counters.other.idle_exit, 1);
  const before = { ...k.counters.other };
  recordIdle(rq, 1000, null);
  assert.deepEqual(k.counters.other, before, "without exits (eras before 5.19) no counter");
});

test("polling: only an idle CPU in a polling state; which notifications skip the IPI per era", () => {
  const k = kernel();
  const rq = k.rqs[2];
  rq.idleStateIdx = -1;
  assert.equal(isPolling(STATES, rq), false, "not in a state");
  rq.idleStateIdx = 1;
  assert.equal(isPolling(STATES, rq), false, "C1 does not poll");
  for (const era of ["2.6.29", "3.19", "5.6", "5.19"] as const)
    assert.equal(wakesWithoutIpi(era, STATES, rq, "resched"), false, `${era}: C1 needs the IPI`);
  rq.idleStateIdx = 0;
  assert.equal(isPolling(STATES, rq), true);
  assert.equal(exitLatencyNs(STATES, rq), 0, "POLL costs nothing to leave");
  for (const [era, cfs, smp] of [
    ["2.6.29", false, false],
    ["3.19", true, false], // set_nr_if_polling from v3.16
    ["5.6", true, false],
    ["5.10", true, true], // send_call_function_single_ipi from v5.8
    ["6.19", true, true],
  ] as const) {
    assert.equal(wakesWithoutIpi(era, STATES, rq, "resched"), true, `${era} resched`);
    assert.equal(wakesWithoutIpi(era, STATES, rq, "call_function_single"), cfs, `${era} cfs`);
    assert.equal(wakesWithoutIpi(era, STATES, rq, "smp_call"), smp, `${era} smp_call`);
  }
  // A CPU running a task is not polling whatever its last state was.
  const t = k.spawn({ comm: "hog", cpu: 3, cpus: [3], program: function* () {} });
  k.rqs[3].curr = t;
  k.rqs[3].idleStateIdx = 0;
  assert.equal(isPolling(STATES, k.rqs[3]), false);
  k.rqs[3].idleStateIdx = 3;
  assert.equal(exitLatencyNs(STATES, k.rqs[3]), 0, "a busy CPU pays no exit");
  k.rqs[3].curr = null;
  assert.equal(exitLatencyNs(STATES, k.rqs[3]), 120_000, "no core figure: the table figure");
});

test("idle scopes: each rq's package peers are the CPUs of its socket; the system scope is all", () => {
  const k = kernel();
  const pkg = (cpu: number) => k.rqs[cpu].idlePackage.map((r) => r.cpu).sort();
  assert.deepEqual(pkg(0), [0, 1]);
  assert.deepEqual(pkg(1), [0, 1]);
  assert.deepEqual(pkg(3), [2, 3]);
  assert.equal(k.rqs[2].idleSystem.length, 4);
});
