import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel, preset, type LedgerRow } from "../../src/index";
import { SD_NUMA } from "../../src/kernel/topology/sched_domain";
import { SEED003_METRICS } from "../../src/reproduce/seed003";
import { expandReproductionIds } from "../../src/reproduce/registry";
import { ledgerRow, quickRun } from "../support/reproduce";

test("numa-2x12x2 on 5.6: SMT, MC (one LLC per node) and a NUMA level spanning both nodes", () => {
  const m = preset("numa-2x12x2");
  const k = buildKernel({
    machine: m,
    online: m.online,
    era: "5.6",
    patches: [],
    seed: "t",
    trace: false,
  });
  const doms = k.domains.domains[0];
  assert.deepEqual(
    doms.map((d) => [d.level, d.spanWeight]),
    [
      ["SMT", 2],
      ["MC", 24],
      ["NUMA", 48],
    ],
  );
  const numa = doms[2];
  assert.ok(numa.flags & SD_NUMA);
  const node0 = [...Array(12).keys()].flatMap((c) => [c, c + 24]).sort((a, b) => a - b);
  assert.deepEqual(
    numa.groups.map((g) => [...g.cpus].sort((a, b) => a - b)),
    [node0, node0.map((c) => c + 12)],
  );
  assert.equal(k.domains.sdNuma[0], numa);
  assert.equal(k.domains.sdLlcSize[0], 24);
});

const sim = (rows: readonly LedgerRow[], metric: string, variant: string) =>
  ledgerRow(rows, metric, variant).simulated;

const oneWorker = quickRun("003-1w");
const twoWorkers = quickRun("003-2w");

test("003-1w: before the patch a worker is pulled to the other node; after, pairs stay local", () => {
  const { res } = oneWorker;
  const mean = (m: string, v: string) => res.mean(m, v);
  assert.ok(mean("xnode_wakeups_per_s", "pre") > 5, `pre ${mean("xnode_wakeups_per_s", "pre")}`);
  assert.equal(mean("xnode_wakeups_per_s", "post"), 0);
  assert.ok(mean("same_node_frac", "pre") < 0.8);
  assert.equal(mean("same_node_frac", "post"), 1);
  // the pull is an active balance at the NUMA level (the worker is running when node 1 looks)
  for (const it of res.data.iterations) {
    const moved = it.sched.migrations.active_balance ?? 0;
    if (it.variant === "pre") assert.ok(moved >= 1, `pre iteration ${it.iteration}`);
    else assert.equal(moved, 0, `post iteration ${it.iteration}`);
  }
});

test("003-2w: every percentile within 6% of the baseline (published 0-3.6%)", () => {
  for (const m of SEED003_METRICS) {
    const pre = sim(twoWorkers.rows, m, "pre");
    const post = sim(twoWorkers.rows, m, "post");
    assert.ok(Math.abs(post - pre) / pre <= 0.06, `${m}: ${pre} -> ${post}`);
  }
});

test("003-1w: the patch lowers p50 by 5-30% and p99 by 15-50% (published 15.9% / 32.9%)", {
  todo: "the model misses: both variants pay the same C6 exit (133 us, intel_idle's hsw figure, the package C6 worst case; no measured Haswell-EP core C6 exit was found) on the worker's long-idle CPU, and a cross-node wakeup adds well under 1 us; a hypothetical core figure gives 0% (system-scope PC6) or a step at p75 plus a 2-worker gain (per-socket PC6), because every exit is a point mass and the only package figure is the 133 us worst case, where the published percentiles imply cross-node wakeups ~16 us slower than local ones at the median with a tail to ~100 us; see docs/experiments/003.md",
}, () => {
  const gain = (m: string) =>
    (1 - sim(oneWorker.rows, m, "post") / sim(oneWorker.rows, m, "pre")) * 100;
  assert.ok(gain("lat_p50") >= 5 && gain("lat_p50") <= 30, `p50 gain ${gain("lat_p50")}%`);
  assert.ok(gain("lat_p99") >= 15 && gain("lat_p99") <= 50, `p99 gain ${gain("lat_p99")}%`);
});

test("003 ledgers carry the issue's names: lat_p50..lat_p99.9 for pre and post", () => {
  for (const { rows } of [oneWorker, twoWorkers]) {
    assert.deepEqual(
      [...new Set(rows.map((r) => r.metric))],
      ["lat_p50", "lat_p75", "lat_p90", "lat_p95", "lat_p99", "lat_p99.5", "lat_p99.9"],
    );
    assert.deepEqual([...new Set(rows.map((r) => r.variant))], ["pre", "post"]);
  }
});

test("reproduce 003 stands for both experiments; registered ids stand for themselves", () => {
  assert.deepEqual(expandReproductionIds(["003", "002"]), ["003-1w", "003-2w", "002"]);
  assert.deepEqual(expandReproductionIds(["nope"]), ["nope"]);
});
