// Run-to-run variation: background kernel threads (src/workload/background.ts) and sched-fair's
// fork timing, each drawn from the iteration's random stream.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runIteration } from "../../src/experiment/run";
import { machineBuilder } from "../../src/machine/builder";
import { iterationSeed } from "../../src/sim/random";
import { workload, KTHREADS_2009, FORK_NS_2009 } from "../../src/index";
import type { Workload } from "../../src/index";

function machine() {
  return machineBuilder()
    .sockets(2)
    .cores(2)
    .costs({ contextSwitchNs: 1200, wakeupNs: 400, ipiSendNs: 200, ipiDeliveryNs: 1500 })
    .build();
}

function once(w: Workload, iteration: number, seconds: number, trace = false) {
  const m = machine();
  return runIteration({
    machine: m,
    online: m.online,
    era: "2.6.29",
    patches: [],
    workload: w,
    variant: "v",
    iteration,
    seed: iterationSeed("bg", iteration),
    durationNs: seconds * 1e9,
    warmupNs: 0,
    trace,
  }).result;
}

const idle: Workload = {
  name: "idle",
  params: {},
  defaultDurationNs: 1e9,
  defaultWarmupNs: 0,
  setup: () => ({ metrics: () => ({}) }),
};

test("background activity: CPU time and wakeups within the stated rate, one bound thread per CPU", () => {
  const params = { ratePerSec: 20, runNs: 50_000, nice: -5, comm: "kw" };
  const seconds = 10;
  const r = once(workload.withBackground(idle, params), 0, seconds);
  const threads = r.tasks.filter((t) => t.role === "background");
  assert.deepEqual(
    threads.map((t) => t.comm),
    ["kw/0", "kw/1", "kw/2", "kw/3"],
  );
  // Poisson: 200 wakeups expected per CPU, 800 in all (sd ~28): +-15% is > 4 sd.
  const expected = 4 * params.ratePerSec * seconds;
  const wakeups = r.metrics.background_wakeups;
  assert.ok(
    Math.abs(wakeups - expected) < 0.15 * expected,
    `${wakeups} wakeups, ${expected} expected`,
  );
  // Each wakeup runs runNs (the last may still be running at the end).
  const cpu = r.metrics.background_cpu_ns;
  assert.ok(cpu <= wakeups * params.runNs && cpu > (wakeups - 4) * params.runNs, `cpu ${cpu} ns`);
  for (const t of threads) assert.ok(Math.abs(t.runtimeNs - cpu / 4) < 0.4 * (cpu / 4), t.comm);
  assert.ok(new Set(threads.map((t) => t.runtimeNs)).size > 1, "each CPU draws its own gaps");
});

test("background activity is off unless asked for; sched-fair turns it (and fork costs) on", () => {
  const hogs = once(workload.hogs({ n: 2, seconds: 0.2 }), 0, 0.2);
  assert.equal(hogs.tasks.filter((t) => t.role === "background").length, 0);
  const sf = (extra: object) =>
    once(
      workload.schedFair({ children: 4, interval: 0.1, loopNs: 1e6, intervals: 2, ...extra }),
      0,
      0.25,
    );
  const on = sf({});
  assert.equal(on.tasks.filter((t) => t.role === "background").length, 4);
  assert.equal(KTHREADS_2009.nice, -5);
  const off = sf({ background: null });
  assert.equal(off.tasks.filter((t) => t.role === "background").length, 0);
});

test("sched-fair: the children start in fork order, each fork costing the parent its time", () => {
  const r = once(
    workload.schedFair({ children: 6, interval: 0.1, loopNs: 1e6, intervals: 1, background: null }),
    0,
    0.15,
    true,
  );
  const firstWake = new Map<string, number>();
  for (const rec of r.trace!) {
    if (
      rec.type === "sched_wakeup_new" &&
      rec.comm.startsWith("sched-fair-") &&
      !firstWake.has(rec.comm)
    )
      firstWake.set(rec.comm, rec.t);
  }
  const times = Array.from({ length: 6 }, (_, i) => firstWake.get(`sched-fair-${i}`)!);
  for (let i = 1; i < 6; i++) {
    const gap = times[i] - times[i - 1];
    assert.ok(gap >= 0.5 * FORK_NS_2009, `child ${i} forked ${gap} ns after child ${i - 1}`);
  }
});

test("run-to-run variation: the same iteration is identical, two iterations differ", () => {
  const w = workload.schedFair({ children: 8, interval: 0.5, loopNs: 1e6, intervals: 4 });
  const a = once(w, 0, 2.01);
  const b = once(w, 0, 2.01);
  assert.deepEqual(a.metrics, b.metrics);
  assert.deepEqual(a.series, b.series);
  assert.deepEqual(a.sched, b.sched);
  const c = once(w, 1, 2.01);
  assert.notDeepEqual(c.series.loops, a.series.loops);
  // Fork timing and background activity each change the run (same iteration, same start).
  for (const extra of [{ background: null }, { forkNs: 0 }]) {
    const v = workload.schedFair({
      children: 8,
      interval: 0.5,
      loopNs: 1e6,
      intervals: 4,
      ...extra,
    });
    assert.notDeepEqual(once(v, 0, 2.01).sched, a.sched, JSON.stringify(extra));
  }
});
