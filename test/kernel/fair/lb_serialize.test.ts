// The balancing flag of SD_SERIALIZE domains (src/kernel/fair/lb_serialize.ts): periodic and idle
// passes since 2.6.19 (LB_SERIALIZE: before 6.19 taken in rebalance_domains before the due check,
// from 6.19 in sched_balance_rq), newidle passes from 6.19 (522fb20fbdbe, LB_SERIALIZE_NEWIDLE).
// While one CPU holds it, another CPU's pass of such a domain is skipped without scanning.
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
 * CPU 0 runs a newidle pass of its NUMA domain; then CPU 60 (or `cpu2`) runs one at
 * `laterNs` after the start of CPU 0's, in the same model step (only chargeNs moves).
 */
function twoPasses(
  era: Era,
  laterNs: number,
  patches: Patch[] = [],
  idle2 = "CPU_NEWLY_IDLE",
  cpu2 = 60,
) {
  const k = kernel(era, patches);
  const numa = (cpu: number) => k.domains.domains[cpu].find((sd) => sd.flags & SD_SERIALIZE)!;
  const first = k.balancer.loadBalance(k.rqs[0], numa(0), "CPU_NEWLY_IDLE");
  const firstEnd = k.chargeNs; // the holder's clock at release
  k.chargeNs = laterNs;
  const second = k.balancer.loadBalance(k.rqs[cpu2], numa(cpu2), idle2 as "CPU_NEWLY_IDLE");
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

test("6.19 takes the flag in sched_balance_rq for idle passes too (LB_SERIALIZE); 6.6 does not there, and no era's newidle pass before 6.19", () => {
  assert.equal(reason(twoPasses("6.19", 0, [], "CPU_IDLE", 26).second), "sched_balance_running");
  const noPeriodic = [patch("no periodic serialisation").feature("LB_SERIALIZE", false)];
  assert.notEqual(
    reason(twoPasses("6.19", 0, noPeriodic, "CPU_IDLE", 26).second),
    "sched_balance_running",
  );
  // 6.6 takes it in rebalance_domains, before the due check, never inside load_balance
  assert.notEqual(reason(twoPasses("6.6", 0, [], "CPU_IDLE", 26).second), "sched_balance_running");
  assert.notEqual(reason(twoPasses("6.6", 0).second), "sched_balance_running");
  const off = [patch("no newidle serialisation").feature("LB_SERIALIZE_NEWIDLE", false)];
  assert.notEqual(reason(twoPasses("6.19", 0, off).second), "sched_balance_running");
  for (const era of ["5.19", "6.6"] as const) {
    assert.equal(eraDefaults(era).features.LB_SERIALIZE_NEWIDLE, false);
    assert.equal(eraDefaults(era).features.NI_RANDOM, false);
  }
  for (const era of ["2.6.29", "4.8", "6.19"] as const)
    assert.equal(eraDefaults(era).features.LB_SERIALIZE, true);
});

/**
 * CPU 0, then CPU 26 (the first CPU of the other node), run rebalance_domains at the same instant with their NUMA
 * domains due: before 6.19 the second finds the flag held at the top of the level (08c183f31bdb:
 * spin_trylock(&balancing) before the due check), skips it, and keeps its last_balance.
 */
function twoRebalances(era: Era, patches: Patch[] = []) {
  const k = kernel(era, patches);
  const numa = (cpu: number) => k.domains.domains[cpu].find((sd) => sd.flags & SD_SERIALIZE)!;
  numa(0).lastBalance = -1e9;
  numa(26).lastBalance = -1e9;
  k.balancer.rebalanceDomains(k.rqs[0], "CPU_IDLE");
  k.chargeNs = 0;
  k.balancer.rebalanceDomains(k.rqs[26], "CPU_IDLE");
  return { k, numa26: numa(26), passes: k.counters.balance["NUMA.CPU_IDLE"]?.passes ?? 0 };
}

test("before 6.19 a periodic pass of an SD_SERIALIZE level is skipped, not retried, while another CPU holds the flag", () => {
  for (const era of ["4.8", "5.19", "6.6"] as Era[]) {
    const held = twoRebalances(era);
    assert.equal(held.k.counters.other.balance_serialize_busy, 1, era);
    assert.equal(held.passes, 1, `${era}: only cpu 0 balanced the NUMA level`);
    assert.equal(held.numa26.lastBalance, -1e9, `${era}: goto out keeps last_balance`);
    const off = twoRebalances(era, [patch("no serialisation").feature("LB_SERIALIZE", false)]);
    assert.equal(off.k.counters.other.balance_serialize_busy, undefined, era);
    assert.equal(off.passes, 2, era);
    assert.notEqual(off.numa26.lastBalance, -1e9, era);
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
