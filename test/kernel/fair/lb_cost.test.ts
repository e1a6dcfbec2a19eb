// The modelled cost of a load_balance pass (src/kernel/fair/lb_cost.ts) and the newidle gates
// it feeds (src/kernel/fair/balance.ts): sd->max_newidle_lb_cost, its decay, the skip and the
// walk's stop on avg_idle.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { preset } from "../../../src/machine/presets";
import { run } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import { LB_RQ_LINES, lbScanCostNs, NewidleCost } from "../../../src/kernel/fair/lb_cost";
import type { SchedDomain } from "../../../src/kernel/topology/sched_domain";

function kernel(name: string, era: Era) {
  const m = preset(name);
  return buildKernel({ machine: m, online: m.online, era, patches: [], seed: "t", trace: false });
}

test("a pass over more CPUs costs more: SMT < MC < NUMA on x86-104t, LB_RQ_LINES lines per CPU", () => {
  const k = kernel("x86-104t", "5.19");
  const [smt, mc, numa] = k.domains.domains[0].map((sd) => lbScanCostNs(k, sd.span, 0));
  assert.ok(smt < mc && mc < numa, `${smt} ${mc} ${numa}`);
  // the sibling's lines come from the shared L1: LB_RQ_LINES per CPU at cacheLineNs
  const sibling = k.domains.domains[0][0].span.find((c) => c !== 0)!;
  assert.equal(smt, LB_RQ_LINES * (k.cache.cacheLineNs(0, 0) + k.cache.cacheLineNs(sibling, 0)));
  // across the socket each line is a remote transfer: the NUMA pass is dearer per CPU too
  assert.ok(numa / 104 > mc / 52);
});

function fakeSd(): SchedDomain {
  return { maxNewidleLbCost: 0 } as SchedDomain;
}

test("update_newidle_cost (5.16+): records the largest pass, decays 253/256 a second after", () => {
  const hz = 250;
  const c = new NewidleCost(hz);
  const sd = fakeSd();
  assert.equal(c.update(sd, 3000, 10), false);
  assert.equal(sd.maxNewidleLbCost, 3000);
  assert.equal(c.update(sd, 1000, 11), false); // smaller pass: kept
  assert.equal(sd.maxNewidleLbCost, 3000);
  assert.equal(c.update(sd, 0, 10 + hz), false); // not yet past last_decay + HZ
  assert.equal(c.update(sd, 0, 11 + hz), true);
  assert.equal(sd.maxNewidleLbCost, (3000 * 253) / 256);
});

test("to v5.15: newidle raises the maximum, rebalance_domains decays it once a second", () => {
  const hz = 1000;
  const c = new NewidleCost(hz);
  const sd = fakeSd();
  c.raise(sd, 500);
  c.raise(sd, 200);
  assert.equal(sd.maxNewidleLbCost, 500);
  assert.equal(c.decayPeriodic(sd, 1), true);
  assert.equal(sd.maxNewidleLbCost, (500 * 253) / 256);
  assert.equal(c.decayPeriodic(sd, 1 + hz), false); // next_decay_max_lb_cost = jiffies + HZ
  assert.equal(c.decayPeriodic(sd, 2 + hz), true);
});

/** core2-2x2 with two hogs pinned to cpu1 (overloaded, nothing can move); cpu0 idle. */
function overloaded(era: Era) {
  const k = kernel("core2-2x2", era);
  for (const i of [0, 1])
    k.spawn({
      comm: `hog${i}`,
      cpu: 1,
      cpus: [1],
      program: function* () {
        yield run(Infinity);
      },
    });
  k.runUntil(1_000_000);
  const rq = k.rqs[0];
  /** Newly-idle passes per level and the time charged when cpu0 goes newly idle. */
  const newidle = (avgIdle: number): { levels: string[]; chargedNs: number } => {
    const before = Object.fromEntries(
      Object.entries(k.counters.balance).map(([key, s]) => [key, s.passes]),
    );
    rq.avgIdle = avgIdle;
    k.thisCpu = 0;
    k.chargeNs = 0;
    for (const h of k.newIdleHooks) h(rq);
    const chargedNs = k.chargeNs;
    k.chargeNs = 0;
    k.thisCpu = -1;
    const levels = Object.entries(k.counters.balance)
      .filter(([key, s]) => key.endsWith(".CPU_NEWLY_IDLE") && s.passes > (before[key] ?? 0))
      .map(([key]) => key.split(".")[0]);
    return { levels, chargedNs };
  };
  return { k, sds: k.domains.domains[0], newidle };
}

test("5.19: newidle is skipped while avg_idle is below the lowest domain's max_newidle_lb_cost", () => {
  const { k, sds, newidle } = overloaded("5.19");
  assert.ok(k.nrOverloaded > 0);
  sds[0].maxNewidleLbCost = 2000;
  sds[1].maxNewidleLbCost = 0;
  assert.deepEqual(newidle(1500).levels, []);
  const ran = newidle(2500);
  assert.deepEqual(ran.levels, ["MC", "DIE"]);
  // the passes take time on cpu0: at least the two scans
  const scans = lbScanCostNs(k, sds[0].span, 0) + lbScanCostNs(k, sds[1].span, 0);
  assert.ok(ran.chargedNs >= scans, `${ran.chargedNs} < ${scans}`);
  // and they are measured: each domain's maximum is at least its scan
  assert.ok(sds[1].maxNewidleLbCost >= lbScanCostNs(k, sds[1].span, 0));
});

for (const era of ["5.10", "5.19"] as const)
  test(`${era}: the domain walk stops where curr_cost + max_newidle_lb_cost exceeds avg_idle`, () => {
    const { sds, newidle } = overloaded(era);
    sds[0].maxNewidleLbCost = 0;
    sds[1].maxNewidleLbCost = 600_000; // past 5.10's 500 us sysctl gate on avg_idle too
    const idle = 550_000;
    assert.deepEqual(newidle(idle).levels, ["MC"]);
    sds[1].maxNewidleLbCost = 1000;
    assert.deepEqual(newidle(idle).levels, ["MC", "DIE"]);
  });
