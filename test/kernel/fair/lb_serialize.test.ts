// sched_balance_running for newidle passes (v6.19 522fb20fbdbe, LB_SERIALIZE_NEWIDLE;
// src/kernel/fair/lb_serialize.ts): while one CPU's newidle pass of an SD_SERIALIZE domain holds
// the flag, another CPU's pass of such a domain goes to out_balanced without scanning.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { preset } from "../../../src/machine/presets";
import { eraDefaults, type Era } from "../../../src/kernel/features";
import { patch, type Patch } from "../../../src/patch/patch";
import { SchedBalanceRunning } from "../../../src/kernel/fair/lb_serialize";
import { SD_SERIALIZE } from "../../../src/kernel/topology/sched_domain";
import type { SchedCore } from "../../../src/kernel/core/api";
import type { LoadBalanceResult } from "../../../src/kernel/fair/lb/types";

function kernel(era: Era, patches: Patch[] = []) {
  const m = preset("x86-104t");
  return buildKernel({ machine: m, online: m.online, era, patches, seed: "t", trace: false });
}

const reason = (r: LoadBalanceResult) => (r.decision.balanced ? r.decision.reason : "imbalanced");

/**
 * CPU 0 runs a newidle pass of its NUMA domain; then CPU 60 (the other node) runs one at
 * `laterNs` after the start of CPU 0's, in the same model step (only chargeNs moves).
 */
function twoPasses(era: Era, laterNs: number, patches: Patch[] = [], idle2 = "CPU_NEWLY_IDLE") {
  const k = kernel(era, patches);
  const numa = (cpu: number) => k.domains.domains[cpu].find((sd) => sd.flags & SD_SERIALIZE)!;
  const first = k.balancer.loadBalance(k.rqs[0], numa(0), "CPU_NEWLY_IDLE");
  const firstEnd = k.chargeNs; // the holder's clock at release
  k.chargeNs = laterNs;
  const second = k.balancer.loadBalance(k.rqs[60], numa(60), idle2 as "CPU_NEWLY_IDLE");
  return { k, first, firstEnd, second, secondCost: k.chargeNs - laterNs };
}

test("6.19: a second CPU's serialised newidle pass is skipped while the first holds the flag", () => {
  const { k, first, firstEnd, second, secondCost } = twoPasses("6.19", 0);
  assert.ok(firstEnd > 0, "the first pass took time: its scan of 104 CPUs");
  assert.notEqual(reason(first), "sched_balance_running");
  assert.equal(reason(second), "sched_balance_running");
  // out_balanced before update_sd_lb_stats: no scan, only the failed cmpxchg's line from cpu 0
  assert.equal(secondCost, k.cache.cacheLineNs(0, 60));
  assert.equal(k.counters.other.newidle_serialize_busy, 1);
  assert.equal(k.counters.balance["NUMA.CPU_NEWLY_IDLE"].balanced, 2);
});

test("6.19: the flag is free from the holder's release on; lower domains are never serialised", () => {
  const { firstEnd } = twoPasses("6.19", 0);
  const atRelease = twoPasses("6.19", firstEnd);
  assert.notEqual(reason(atRelease.second), "sched_balance_running");
  assert.ok(atRelease.secondCost > atRelease.k.cache.cacheLineNs(0, 60), "it scanned");
  // the attempt reads the flag once its line has arrived
  const line = atRelease.k.cache.cacheLineNs(0, 60);
  assert.equal(reason(twoPasses("6.19", firstEnd - line - 1).second), "sched_balance_running");
  assert.notEqual(reason(twoPasses("6.19", firstEnd - line).second), "sched_balance_running");
  // MC (one node) has no SD_SERIALIZE: two CPUs' newidle MC passes at once both run
  const k = kernel("6.19");
  const mc = (cpu: number) => k.domains.domains[cpu][1];
  assert.equal(mc(0).level, "MC");
  k.balancer.loadBalance(k.rqs[0], mc(0), "CPU_NEWLY_IDLE");
  k.chargeNs = 0;
  k.balancer.loadBalance(k.rqs[1], mc(1), "CPU_NEWLY_IDLE");
  assert.equal(k.counters.other.newidle_serialize_busy, undefined);
});

test("only newidle passes take the flag in the model; 6.6 and 6.19 without LB_SERIALIZE_NEWIDLE do not", () => {
  assert.notEqual(reason(twoPasses("6.19", 0, [], "CPU_IDLE").second), "sched_balance_running");
  assert.notEqual(reason(twoPasses("6.6", 0).second), "sched_balance_running");
  const off = [patch("no newidle serialisation").feature("LB_SERIALIZE_NEWIDLE", false)];
  assert.notEqual(reason(twoPasses("6.19", 0, off).second), "sched_balance_running");
  for (const era of ["5.19", "6.6"] as const) {
    assert.equal(eraDefaults(era).features.LB_SERIALIZE_NEWIDLE, false);
    assert.equal(eraDefaults(era).features.NI_RANDOM, false);
  }
});

test("SchedBalanceRunning: each attempt takes the line from its last writer; a failed try does not hold it", () => {
  const k = {
    now: 1000,
    chargeNs: 0,
    cache: { cacheLineNs: (a: number, b: number) => 10 * (a + b) },
  };
  const core = k as unknown as SchedCore;
  const flag = new SchedBalanceRunning();
  assert.equal(flag.tryAcquire(core, 1), true);
  assert.equal(k.chargeNs, 0, "no previous writer");
  k.chargeNs = 500;
  flag.release(core, 1);
  assert.equal(flag.heldAt(1499), true);
  assert.equal(flag.heldAt(1500), false);
  k.chargeNs = 100; // cpu 2 at 1100: held by cpu 1 until 1500
  assert.equal(flag.tryAcquire(core, 2), false);
  assert.equal(k.chargeNs, 130, "the line came from cpu 1");
  assert.equal(flag.heldAt(1499), true, "the failed try left the holder's release time");
  k.chargeNs = 600;
  assert.equal(flag.tryAcquire(core, 1), true);
  assert.equal(k.chargeNs, 630, "cpu 2's failed cmpxchg took the line away");
});
