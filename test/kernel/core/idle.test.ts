// Waking a CPU out of an idle state pays that state's exit latency (cpuidle's exit_latency):
// the woken task starts later by at least that much than on a CPU whose idle state costs
// nothing to leave, for a timer wakeup and for a remote wakeup by IPI. A polling state is
// woken without an IPI (set_nr_if_polling).
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { call, run, sleep, wait, wake } from "../../../src/kernel/ops";
import type { IdleState } from "../../../src/machine/types";
import type { Kernel } from "../../../src/kernel/core/core";
import { boot } from "../boot";

const STATES: IdleState[] = [
  { name: "POLL", exitLatencyNs: 0, targetResidencyNs: 0, polling: true },
  { name: "C1", exitLatencyNs: 2_000, targetResidencyNs: 2_000, polling: false },
  { name: "C3", exitLatencyNs: 30_000, targetResidencyNs: 100_000, polling: false },
  { name: "C6", exitLatencyNs: 120_000, targetResidencyNs: 400_000, polling: false },
];
const FREE: IdleState = { name: "FREE", exitLatencyNs: 0, targetResidencyNs: 0, polling: false };

/** Two cores; the only idle state is `state`, so the governor has no other choice. */
function kernel(state: IdleState): Kernel {
  const m = machineBuilder()
    .sockets(1)
    .cores(2)
    .costs({ ipiSendNs: 200, ipiDeliveryNs: 1500, contextSwitchNs: 1200, wakeupNs: 400 })
    .idleStates([state])
    .build();
  return boot(m, "5.19");
}

/** A task alone on cpu0 sleeps 1 ms (cpu0 idles); the time from its timer to it running again. */
function timerWakeDelay(state: IdleState): number {
  const k = kernel(state);
  let slept = 0;
  let ran = 0;
  k.spawn({
    comm: "s",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(100_000);
      yield call(() => (slept = k.now));
      yield sleep(1_000_000);
      yield call(() => (ran = k.now));
      yield run(Infinity);
    },
  });
  k.runUntil(3_000_000);
  assert.ok(slept > 0 && ran > slept);
  assert.equal(k.rqs[0].idleStateIdx, -1, "cpu0 busy at the end");
  return ran - slept - 1_000_000;
}

/** cpu0 idles with a waiting task; a task on cpu1 wakes it: delay from the wake to it running. */
function remoteWakeDelay(state: IdleState): { delay: number; ipis: Record<string, number> } {
  const k = kernel(state);
  let woke = 0;
  let ran = 0;
  const w = k.spawn({
    comm: "w",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield wait();
      yield call(() => (ran = k.now));
      yield run(Infinity);
    },
  });
  k.spawn({
    comm: "waker",
    cpu: 1,
    cpus: [1],
    program: function* () {
      yield run(1_000_000);
      yield call(() => (woke = k.now));
      yield wake(w.pid);
      yield run(Infinity);
    },
  });
  k.runUntil(500_000);
  const ipis0 = { ...k.counters.ipis };
  k.runUntil(2_000_000);
  assert.ok(woke > 0 && ran > woke);
  const ipis: Record<string, number> = {};
  for (const [key, v] of Object.entries(k.counters.ipis)) {
    if (v - (ipis0[key] ?? 0) > 0) ipis[key] = v - (ipis0[key] ?? 0);
  }
  return { delay: ran - woke, ipis };
}

test("a timer wakeup on an idle CPU is delayed by the idle state's exit latency", () => {
  const base = timerWakeDelay(FREE);
  for (const s of STATES) {
    const extra = timerWakeDelay(s) - base;
    assert.ok(
      extra >= s.exitLatencyNs,
      `${s.name}: ${extra} ns extra, exit latency ${s.exitLatencyNs}`,
    );
    assert.ok(extra <= s.exitLatencyNs + 5_000, `${s.name}: ${extra} ns extra is not much more`);
  }
});

test("a remote wakeup into an idle CPU is delayed by the exit latency; a polling state needs no IPI", () => {
  const base = remoteWakeDelay(FREE);
  assert.ok(
    Object.keys(base.ipis).some((n) => !n.endsWith("_avoided_polling")),
    "FREE is woken by an IPI",
  );
  for (const s of STATES) {
    const r = remoteWakeDelay(s);
    const sent = Object.keys(r.ipis).filter((n) => !n.endsWith("_avoided_polling"));
    const avoided = Object.keys(r.ipis).filter((n) => n.endsWith("_avoided_polling"));
    if (s.polling) {
      assert.deepEqual(sent, [], `${s.name}: no interrupt sent`);
      assert.ok(avoided.length > 0, `${s.name}: the idle loop saw the flag`);
      assert.ok(r.delay < base.delay, "and it is faster than taking an IPI");
    } else {
      assert.ok(sent.length > 0, `${s.name}: woken by an IPI`);
      const extra = r.delay - base.delay;
      assert.ok(
        extra >= s.exitLatencyNs,
        `${s.name}: ${extra} ns extra, exit latency ${s.exitLatencyNs}`,
      );
      assert.deepEqual(avoided, []);
    }
  }
});
