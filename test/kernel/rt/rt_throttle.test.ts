// RT bandwidth throttling of the root rt_rq (src/kernel/rt/bandwidth.ts): sched_rt_runtime_us per
// sched_rt_period_us, the period timer, RT_RUNTIME_SHARE, and what differs by era.
import { test } from "node:test";
import assert from "node:assert/strict";
import { patch } from "../../../src/index";
import type { Era, Patch } from "../../../src/index";
import { cpuDown } from "../../../src/kernel/core/hotplug";
import { run, sleep } from "../../../src/kernel/ops";
import { RUNTIME_INF } from "../../../src/kernel/rt/bandwidth";
import { MS, hog, kernel, ms, rtAndCfs, runChecked } from "./hog_pair_fixture";

const US = 1000;
const noShare = patch("no RT_RUNTIME_SHARE").feature("RT_RUNTIME_SHARE", false);

test("default sysctls: a FIFO hog leaves a CFS hog on its CPU 950 ms / 1 s, less a tick", () => {
  // 5.10+: RT_RUNTIME_SHARE off by default; older eras with it switched off.
  const cases: [Era, Patch[], number][] = [
    ["2.6.29", [noShare], 4], // HZ 250: the overrun past the runtime is up to a 4 ms tick
    ["3.19", [noShare], 1],
    ["4.8", [noShare], 1],
    ["5.10", [], 1],
    ["6.6", [], 1],
  ];
  for (const [era, patches, tickMs] of cases) {
    const k = kernel(era, patches);
    const { r, c } = rtAndCfs(k);
    runChecked(k, 3000 * MS);
    // update_curr_rt runs at the tick: the throttle comes up to a tick after rt_time passes 950 ms.
    assert.ok(ms(c) <= 150 && ms(c) >= 150 - 3 * tickMs, `${era}: cfs ran ${ms(c)} ms in 3 s`);
    assert.ok(Math.abs(ms(r) + ms(c) - 3000) < 1, `${era}: rt ${ms(r)} + cfs ${ms(c)} ms`);
    assert.equal(k.counters.other.rt_throttled, 3, `${era}: one throttle per period`);
  }
});

test("sched_rt_runtime_us = -1 (RUNTIME_INF) turns throttling off; 6.19 has no root rt_rq throttle", () => {
  const inf = patch("RUNTIME_INF").tunable("sched_rt_runtime_us", -1);
  for (const [era, patches] of [
    ["5.10", [inf]],
    ["2.6.29", [noShare, inf]],
    // v6.12 5f6bd380c7bd: the fair server replaced it; with that off, nothing stops a FIFO hog
    ["6.19", [patch("no fair server").tunable("fair_server_runtime_ns", 0)]],
  ] as [Era, Patch[]][]) {
    const k = kernel(era, patches);
    const { r, c } = rtAndCfs(k);
    runChecked(k, 2100 * MS);
    assert.equal(ms(c), 0, `${era}: the CFS hog never runs`);
    assert.ok(ms(r) > 2099, `${era}: rt ${ms(r)} ms`);
    assert.equal(k.counters.other.rt_throttled, undefined);
    assert.equal(k.counters.other.rt_period_timer, undefined, `${era}: no period timer event`);
  }
});

test("a throttled rt_rq gets the CPU back at the period boundary; its tasks leave nr_running from 3.19", () => {
  for (const [era, hidden] of [
    ["2.6.29", false],
    ["3.19", true],
    ["5.10", true],
  ] as [Era, boolean][]) {
    const k = kernel(era, era === "5.10" ? [] : [noShare]);
    const { r, c } = rtAndCfs(k);
    const rq = k.rqs[0];
    k.runUntil(960 * MS);
    assert.equal(rq.curr, c, `${era}: throttled, the CFS hog runs`);
    assert.equal(k.rt.bw.throttled[0], 1);
    // 2.6.29's sched_rt_rq_dequeue is empty: the RT hog still counts in nr_running.
    assert.equal(rq.nrRunning, hidden ? 1 : 2, `${era}: nr_running while throttled`);
    k.checkInvariants();
    k.runUntil(1000 * MS - 1);
    assert.equal(rq.curr, c, `${era}: still throttled just before the boundary`);
    k.runUntil(1000 * MS + 20 * US);
    assert.equal(rq.curr, r, `${era}: the period timer gave the RT hog its CPU back`);
    assert.equal(k.rt.bw.throttled[0], 0);
    assert.equal(rq.nrRunning, 2);
    k.checkInvariants();
  }
});

test("the period grid: 3.19 keeps boot's, 4.8 restarts it when the timer starts (kick at start up)", () => {
  // The hog starts at 300 ms. 3.19: expiries at 1 s, 2 s (hrtimer_forward from the last expiry):
  // 700 ms are charged and given back at 1 s, so it throttles near 1.95 s. 4.8: the kicked timer
  // expires at 1.3 s, 2.3 s, so it throttles near 1.25 s, back at 1.3 s.
  const firstThrottle = (era: Era): number => {
    const k = kernel(era, [noShare]);
    rtAndCfs(k, 300 * MS);
    while (!k.counters.other.rt_throttled) k.runUntil(k.now + MS);
    return k.now / MS;
  };
  const t319 = firstThrottle("3.19");
  const t48 = firstThrottle("4.8");
  assert.ok(t319 >= 1949 && t319 <= 1952, `3.19 throttles at ${t319} ms`);
  assert.ok(t48 > 1250 && t48 <= 1252, `4.8 throttles at ${t48} ms`);
});

test("RT_RUNTIME_SHARE (on up to 5.6): the hog borrows idle CPUs' runtime and is never throttled", () => {
  const share = kernel("4.8"); // the era's default
  const { c } = rtAndCfs(share);
  runChecked(share, 3000 * MS);
  const bw = share.rt.bw;
  // do_balance_runtime at 951 ms: 1/4 of cpu1's spare 950 ms, capped at a whole period.
  assert.equal(bw.rtRuntime[0], 1000 * MS);
  assert.equal(bw.rtRuntime[1], 900 * MS, "the lender keeps less");
  assert.equal(bw.rtRuntime[2], 950 * MS);
  assert.equal(share.counters.other.rt_throttled, undefined);
  assert.equal(ms(c), 0, "the CFS hog starves once the hog has a whole period");

  const off = kernel("4.8", [noShare]);
  const o = rtAndCfs(off);
  runChecked(off, 3000 * MS);
  assert.ok(ms(o.c) > 140, `without sharing cfs runs ${ms(o.c)} ms`);
  assert.equal(off.rt.bw.rtRuntime[1], 950 * MS);

  // 5.10 switched it off by default; turned back on, it borrows again.
  const on510 = kernel("5.10", [patch("share").feature("RT_RUNTIME_SHARE", true)]);
  const s = rtAndCfs(on510);
  runChecked(on510, 3000 * MS);
  assert.ok(ms(s.c) < 50, `5.10 with RT_RUNTIME_SHARE: cfs ${ms(s.c)} ms`);
});

test("a CPU taken offline takes back the runtime it lent (__disable_runtime)", () => {
  const k = kernel("4.8");
  rtAndCfs(k);
  k.runUntil(1200 * MS);
  const bw = k.rt.bw;
  assert.equal(bw.rtRuntime[1], 900 * MS);
  cpuDown(k, 1);
  assert.equal(bw.rtRuntime[1], RUNTIME_INF);
  assert.equal(bw.rtRuntime[0], 950 * MS, "reclaimed from the borrower");
  runChecked(k, 3000 * MS);
});

test("2.6.29: an idle CPU whose only tasks are throttled RT ones does not reschedule on interrupts", () => {
  const k = kernel("2.6.29", [noShare]);
  k.spawn({ comm: "r", program: hog, policy: "fifo", rtPriority: 50, cpu: 0, cpus: [0] });
  k.runUntil(970 * MS);
  const rq = k.rqs[0];
  assert.equal(rq.curr, null, "throttled, nothing else to run");
  assert.equal(rq.nrRunning, 1);
  const before = k.counters.rqLock.schedule?.acquisitions ?? 0;
  k.sendIpi(rq, () => {});
  k.runUntil(975 * MS);
  assert.equal(k.counters.rqLock.schedule?.acquisitions ?? 0, before, "no __schedule for it");
  k.runUntil(1000 * MS + 20 * US);
  assert.notEqual(rq.curr, null, "back at the boundary");
});

test("the lazy period timer: no event while RT runs under its runtime, one per throttled period", () => {
  const k = kernel("5.10");
  // 10 ms of RT work every 100 ms: rt_time stays far below 950 ms.
  k.spawn({
    comm: "p",
    policy: "fifo",
    rtPriority: 50,
    cpu: 1,
    cpus: [1],
    *program() {
      for (;;) {
        yield run(10 * MS);
        yield sleep(90 * MS);
      }
    },
  });
  k.spawn({ comm: "f", program: hog, cpu: 2 });
  runChecked(k, 3000 * MS);
  assert.equal(k.counters.other.rt_period_timer, undefined, "no timer event");
  assert.ok(
    k.rt.bw.rtTime[1] < 120 * MS,
    `rt_time ${k.rt.bw.rtTime[1] / MS} ms: a period's 100 ms`,
  );

  const h = kernel("5.10");
  rtAndCfs(h);
  runChecked(h, 3000 * MS);
  assert.equal(h.counters.other.rt_period_timer, 3, "one period-timer event per throttle");
});

test("determinism: two runs with throttling, a sleeping RT task and a migration agree", () => {
  const once = () => {
    const k = kernel("5.10");
    const { r, c } = rtAndCfs(k);
    const p = k.spawn({
      comm: "p",
      policy: "rr",
      rtPriority: 60,
      cpu: 0,
      *program() {
        for (;;) {
          yield run(3 * MS);
          yield sleep(7 * MS);
        }
      },
    });
    runChecked(k, 2500 * MS);
    return JSON.stringify([
      [r, c, p].map((t) => [t.se.sumExecRuntime, t.cpu, t.stats.migrations]),
      k.events,
      k.counters.other,
    ]);
  };
  assert.equal(once(), once());
});
