// ttwu_queue_cond per era, through a real kernel on a hand-built two-LLC machine: which wake path
// try_to_wake_up took (counters.wakePath) and whether the wakelist IPI was sent (counters.ipis).
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { run, wait, wake } from "../../../src/kernel/ops";
import { ERAS, type Era, eraAtLeast } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import { boot } from "../boot";

/** 2 sockets x 2 cores, LLC per socket: cpu0/cpu1 share an LLC, cpu2/cpu3 the other. */
function kernel(era: Era): Kernel {
  const m = machineBuilder()
    .sockets(2)
    .cores(2)
    .costs({ ipiSendNs: 200, ipiDeliveryNs: 1500, wakeupNs: 400 })
    .idleStates([{ name: "C1", exitLatencyNs: 1000, targetResidencyNs: 2000, polling: false }])
    .build();
  return boot(m, era);
}

const AT = 2_000_000;

type Case = { name: string; target: number; busy: boolean };
const CASES: Case[] = [
  { name: "same CPU", target: 0, busy: false },
  { name: "idle CPU in the waker's LLC", target: 1, busy: false },
  { name: "busy CPU in the waker's LLC", target: 1, busy: true },
  { name: "idle CPU in another LLC", target: 2, busy: false },
  { name: "busy CPU in another LLC", target: 2, busy: true },
];

/** The wake path each era takes for each case (the wakee is pinned to `target`, so no WF_ON_CPU). */
function expected(era: Era, c: Case): string {
  if (c.target === 0) return "local";
  if (era === "2.6.29") return "remote"; // no wakelist before v3.0 (TTWU_QUEUE)
  if (c.target === 2) return "wakelist"; // !cpus_share_cache
  // Same LLC: v3.0-v5.19 lock the remote rq; v6.0+ queue on an idle target (!nr_running).
  // (v5.8+ eras count a same-LLC wakelist wakeup apart: wakelist_llc.)
  if (eraAtLeast(era, "6.0") && !c.busy) return "wakelist_llc";
  return "remote";
}

/** call_function_single IPIs other than the nohz idle-balance kicks. */
function wakeIpis(k: Kernel): number {
  return (k.counters.ipis.call_function_single ?? 0) - (k.counters.other.nohz_kick ?? 0);
}

function wakeOnce(era: Era, c: Case): { path: Record<string, number>; cfs: number } {
  const k = kernel(era);
  const wakee = k.spawn({
    comm: "wakee",
    cpu: c.target,
    cpus: [c.target],
    program: function* () {
      for (;;) yield wait();
    },
  });
  if (c.busy)
    k.spawn({
      comm: "hog",
      cpu: c.target,
      cpus: [c.target],
      program: function* () {
        yield run(Infinity);
      },
    });
  k.spawn({
    comm: "waker",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(AT);
      yield wake(wakee.pid);
      yield wait();
    },
  });
  k.runUntil(AT - 1000);
  const path0 = { ...k.counters.wakePath };
  const cfs0 = wakeIpis(k);
  k.runUntil(AT + 200_000);
  const path: Record<string, number> = {};
  for (const [key, v] of Object.entries(k.counters.wakePath)) {
    const d = v - (path0[key] ?? 0);
    if (d > 0) path[key] = d;
  }
  assert.equal(wakee.stats.wakeups, 1, "the wakee was woken once");
  k.checkInvariants();
  return { path, cfs: wakeIpis(k) - cfs0 };
}

for (const era of ERAS) {
  test(`ttwu_queue_cond (${era}): wake path and wakelist IPI per target`, () => {
    for (const c of CASES) {
      const want = expected(era, c);
      const got = wakeOnce(era, c);
      const where = `${era}, ${c.name}`;
      assert.deepEqual(got.path, { [want]: 1 }, where);
      // __ttwu_queue_wakelist: the first entry of an empty list sends one IPI; a direct
      // activation sends no call-function IPI (at most a resched).
      assert.equal(
        got.cfs,
        want.startsWith("wakelist") ? 1 : 0,
        `${where}: call_function_single IPIs`,
      );
    }
  });
}

test("waking an idle CPU updates avg_idle then caps it, and restarts wake_avg_idle (v5.13+)", () => {
  const k = kernel("5.19");
  const max = 2 * k.tunables.sched_migration_cost_ns;
  const wakee = k.spawn({
    comm: "wakee",
    cpu: 2,
    cpus: [2],
    program: function* () {
      yield wait();
      yield run(100_000);
      yield wait();
    },
  });
  k.spawn({
    comm: "waker",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(AT);
      yield wake(wakee.pid);
      yield wait();
    },
  });
  const rq = k.rqs[2];
  assert.equal(rq.avgIdle, max); // sched_init: 2 * migration cost
  k.runUntil(AT + 50_000);
  // idle for ~2 ms > max: update_avg would overshoot; the cap brings it back
  assert.equal(rq.avgIdle, max);
  assert.equal(rq.wakeAvgIdle, Math.floor(max / 2));
  assert.equal(rq.wakeStamp, Math.floor((AT + 50_000) / k.tickNs));
});
