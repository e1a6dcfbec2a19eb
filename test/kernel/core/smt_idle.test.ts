// SMT sibling slowdown, SMT capacity per era (smt_gain), and polling idle states (no IPI).
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { preset } from "../../../src/machine/presets";
import { machineBuilder } from "../../../src/machine/builder";
import { call, run, wait, wake } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Machine } from "../../../src/machine/types";

function kernel(m: Machine, era: Era, offline: number[] = []): Kernel {
  const online = m.online.map((o, i) => o && !offline.includes(i));
  return buildKernel({ machine: m, online, era, patches: [], seed: "t", trace: false });
}

const forever = function* () {
  yield run(Infinity);
};

/** Work done in the first 100 ms by hogs pinned to `cpus` of ht-2x1x2 (siblings (0,2), (1,3)). */
function work100ms(cpus: number[]): number[] {
  const k = kernel(preset("ht-2x1x2"), "6.19");
  const hogs = cpus.map((c) => k.spawn({ comm: `hog${c}`, cpu: c, cpus: [c], program: forever }));
  k.runUntil(100_000_000);
  return hogs.map((p) => k.workDone(p));
}

test("two busy SMT siblings each do less work than a lone thread; other cores do not slow it", () => {
  const s = preset("ht-2x1x2").costs.smtSiblingSpeed;
  assert.ok(s < 1);
  const [alone] = work100ms([0]);
  const [a, b] = work100ms([0, 2]); // one core's two threads
  const [c, d] = work100ms([0, 1]); // two cores
  assert.ok(alone > 99_000_000, `lone thread ${alone}`);
  for (const w of [a, b]) assert.ok(Math.abs(w / alone - s) < 0.01, `sibling ${w} vs ${alone}`);
  for (const w of [c, d]) assert.ok(Math.abs(w / alone - 1) < 0.01, `other core ${w}`);
});

test("a sibling starting and stopping re-times the running segment exactly", () => {
  const m = preset("ht-2x1x2");
  const s = m.costs.smtSiblingSpeed;
  const k = kernel(m, "6.19");
  const hog = k.spawn({ comm: "hog", cpu: 0, cpus: [0], program: forever });
  let stopped = -1;
  k.spawn({
    comm: "burst",
    cpu: 2,
    cpus: [2],
    program: function* () {
      yield run(30_000_000);
      yield call(() => {
        stopped = k.now;
      });
      yield wait();
    },
  });
  k.runUntil(100_000_000);
  // The burst's 30 ms of work take 30 / s ms beside the hog (plus its context switch); the hog
  // runs at s meanwhile and at full speed after.
  assert.ok(Math.abs(stopped - 30_000_000 / s) < 50_000, `burst ended at ${stopped}`);
  const expected = stopped * s + (100_000_000 - stopped);
  assert.ok(Math.abs(k.workDone(hog) - expected) < 50_000, `hog ${k.workDone(hog)} vs ${expected}`);
});

test("SMT thread capacity: smt_gain / 2 = 589 in 3.19 and 4.8 only; a thread alone on its core keeps 1024", () => {
  const m = preset("ht-2x1x2");
  const want: Record<Era, number> = {
    "2.6.29": 1024,
    "3.19": 589,
    "4.8": 589,
    "5.6": 1024,
    "5.10": 1024,
    "5.19": 1024,
    "6.6": 1024,
    "6.19": 1024,
  };
  for (const era of Object.keys(want) as Era[]) {
    const k = kernel(m, era);
    assert.deepEqual(
      k.rqs.map((rq) => [rq.cpuCapacity, rq.cpuCapacityOrig]),
      Array(4).fill([want[era], want[era]]),
      era,
    );
  }
  // cpu3 offline: cpu1's SMT domain spans only itself (arch_scale_cpu_capacity needs weight > 1)
  const k = kernel(m, "4.8", [3]);
  assert.deepEqual(
    [0, 1, 2].map((c) => k.rqs[c].cpuCapacity),
    [589, 1024, 589],
  );
  // speed is physical: the kernel's 589 does not slow a lone thread
  assert.equal(k.speed(1), 1);
});

/** The time from a remote wake() of a task waiting on cpu2 to that task running there. */
function wakeLatency(
  m: Machine,
  era: Era,
): { latency: number; ipis: Record<string, number>; lockWaitNs: number } {
  const k = kernel(m, era);
  let woken = -1;
  let woke = -1;
  const wakee = k.spawn({
    comm: "wakee",
    cpu: 2,
    cpus: [2],
    program: function* () {
      yield wait();
      yield call(() => {
        woke = k.now;
      });
      yield wait();
    },
  });
  k.spawn({
    comm: "waker",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(5_000_000);
      yield call(() => {
        woken = k.now;
      });
      yield wake(wakee.pid);
      yield wait();
    },
  });
  k.runUntil(10_000_000);
  assert.ok(woken > 0 && woke > woken);
  const lockWaitNs = Object.values(k.counters.rqLock).reduce((a, l) => a + l.waitNs, 0);
  return { latency: woke - woken, ipis: { ...k.counters.ipis }, lockWaitNs };
}

test("a remote wakeup into an MWAIT (polling) idle CPU sends no IPI; into HLT idle it does", () => {
  const mwait = preset("core2-2x2"); // C1 by FFH MWAIT (polling)
  assert.equal(mwait.idleStates[0].polling, true);
  const hlt = structuredClone(mwait);
  hlt.idleStates[0].polling = false;
  for (const era of ["2.6.29", "4.8", "6.19"] as Era[]) {
    const p = wakeLatency(mwait, era);
    const h = wakeLatency(hlt, era);
    const real = (x: Record<string, number>) => (x.resched ?? 0) + (x.call_function_single ?? 0);
    const avoided = (x: Record<string, number>) =>
      (x.resched_avoided_polling ?? 0) + (x.call_function_single_avoided_polling ?? 0);
    // (the nohz idle-balance kick, an smp_call_function_single, is sent in both runs)
    assert.ok(avoided(p.ipis) >= 1, `${era} polling: ${JSON.stringify(p.ipis)}`);
    assert.equal(avoided(h.ipis), 0, `${era} HLT: ${JSON.stringify(h.ipis)}`);
    assert.equal(real(h.ipis), real(p.ipis) + avoided(p.ipis), `${era}: ${JSON.stringify(h.ipis)}`);
    // Both pay the C1 exit latency; only the HLT wakeup waits for the IPI's delivery. The flag
    // write and the IPI leave at the waker's clock, after its hold of the wakee's rq lock, so
    // neither woken CPU spins on that lock.
    assert.equal(h.latency - p.latency, mwait.costs.ipiDeliveryNs, era);
    assert.deepEqual([p.lockWaitNs, h.lockWaitNs], [0, 0], era);
    assert.ok(p.latency >= mwait.idleStates[0].exitLatencyNs, `${era}: ${p.latency}`);
  }
});

test("2.6.29 resched_task skips the IPI to a polling CPU, but a call-function IPI is still sent", () => {
  const k = kernel(preset("core2-2x2"), "2.6.29");
  k.runUntil(1_000_000); // every CPU idle in C1 (MWAIT, polling)
  k.kickCpu(k.rqs[2], "resched");
  k.kickCpu(k.rqs[3], "call_function_single"); // set_nr_if_polling is v3.16
  assert.deepEqual(k.counters.ipis, { resched_avoided_polling: 1, call_function_single: 1 });
  const k2 = kernel(preset("core2-2x2"), "3.19");
  k2.runUntil(1_000_000);
  k2.kickCpu(k2.rqs[3], "call_function_single");
  assert.deepEqual(k2.counters.ipis, { call_function_single_avoided_polling: 1 });
});

test("costs.smtSiblingSpeed must be in (0, 1]", () => {
  const b = () => machineBuilder().cores(2).threads(2);
  assert.throws(
    () => b().costs({ smtSiblingSpeed: 1.3 }).build(),
    /smtSiblingSpeed must be at most 1/,
  );
  assert.throws(
    () => b().costs({ smtSiblingSpeed: 0 }).build(),
    /smtSiblingSpeed must be a positive/,
  );
  assert.equal(b().costs({ smtSiblingSpeed: 0.5 }).build().costs.smtSiblingSpeed, 0.5);
});

test("smp_call_function_single to a polling idle CPU: a real IPI before v5.8, none after (send_call_function_single_ipi)", () => {
  for (const [era, polled] of [
    ["4.8", false],
    ["5.19", true],
  ] as [Era, boolean][]) {
    const m = preset("core2-2x2");
    const k = kernel(m, era);
    k.runUntil(1_000_000); // every CPU idle in C1 (MWAIT, polling)
    const t0 = k.now;
    let ranAt = -1;
    k.sendIpi(k.rqs[3], () => {
      ranAt = k.now;
    });
    k.runUntil(2_000_000);
    const exit = m.idleStates[0].exitLatencyNs;
    if (polled) {
      assert.deepEqual(k.counters.ipis, { call_function_single_avoided_polling: 1 }, era);
      assert.equal(ranAt - t0, exit, era);
    } else {
      assert.deepEqual(k.counters.ipis, { call_function_single: 1 }, era);
      assert.equal(ranAt - t0, m.costs.ipiDeliveryNs + exit, era);
    }
  }
});
