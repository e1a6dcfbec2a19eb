import { test } from "node:test";
import assert from "node:assert/strict";
import {
  buildKernel,
  calibrateReproduction,
  calibrationTargets,
  ledgerEntry,
  preset,
  publishedFor,
  reproduction,
  type LedgerRow,
} from "../../src/index";
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

test("003-1w: the patch lowers p50 by 5-30% and p99 by 15-50% (published 15.9% / 32.9%)", () => {
  // the worker pulled to the idle node pays a package C6 wake on every cross-node wakeup before
  // the patch; after it, its message thread on the same package keeps the package awake
  const gain = (m: string) =>
    (1 - sim(oneWorker.rows, m, "post") / sim(oneWorker.rows, m, "pre")) * 100;
  assert.ok(gain("lat_p50") >= 5 && gain("lat_p50") <= 30, `p50 gain ${gain("lat_p50")}%`);
  assert.ok(gain("lat_p99") >= 15 && gain("lat_p99") <= 50, `p99 gain ${gain("lat_p99")}%`);
  const { res } = oneWorker;
  assert.ok(res.mean("idle_package_wake_frac", "pre") > 0.3, "pre: wakeups into an idle package");
  assert.equal(res.mean("idle_package_wake_frac", "post"), 0, "post: the waker keeps it awake");
});

const gains2w = (rows: readonly LedgerRow[]) =>
  SEED003_METRICS.map((m) => (1 - sim(rows, m, "post") / sim(rows, m, "pre")) * 100);

test("003-2w: every percentile within 6% of the baseline (published 0-3.6%)", {
  todo: "the model misses (the falsification test of docs/experiments/003.md): with the patch it keeps every 2-worker pair on its message thread's node, so no wakeup pays a package C6 wake and the gain reaches 15% at p90 and 39% at p99 (full profile), where the box's patched run was as slow as its baseline",
}, () => {
  for (const [i, g] of gains2w(twoWorkers.rows).entries())
    assert.ok(Math.abs(g) <= 6, `${SEED003_METRICS[i]}: ${g}%`);
});

test("003-2w: the model's 2-worker gain comes from package C6 wakes: none with system-wide PC6", () => {
  const { res } = twoWorkers;
  assert.ok(res.mean("idle_package_wake_frac", "pre") > 0.1, "pre: wakeups into an idle package");
  assert.equal(res.mean("idle_package_wake_frac", "post"), 0);
  const perSocket = gains2w(twoWorkers.rows);
  assert.ok(Math.max(...perSocket) > 10, `per-socket PC6: ${perSocket}`);
  // the same run with PC6 only when every CPU of both sockets is idle: the waker always keeps
  // the machine out of PC6, so no wakeup pays a package wake and the gain is gone
  const r = reproduction("003-2w");
  const sys = r
    .experiment()
    .assume({ pc6_scope: "system" })
    .runSync({ ...r.quick, seed: 1 });
  // the claim is that the gain is gone: no percentile better by more than 6% (a worse far tail
  // from one of the quick profile's three runs is noise, not a gain)
  for (const [i, g] of gains2w(r.rows(sys)).entries())
    assert.ok(g <= 6, `system scope, ${SEED003_METRICS[i]}: ${g}%`);
});

test("003's calibration targets are the four named 1-worker figures, never judged as predictions", () => {
  const named = ["lat_p50/pre", "lat_p50/post", "lat_p90/pre", "lat_p90/post"];
  assert.deepEqual(
    calibrationTargets("003-1w")
      .map((t) => t.id)
      .sort(),
    [...named].sort(),
  );
  assert.deepEqual(calibrationTargets("003-2w"), []);
  assert.equal(publishedFor("003-1w").calibration?.unknowns.length, 4);
  assert.equal(publishedFor("003-2w").calibration?.from, "003-1w");
  const e1 = ledgerEntry(oneWorker.r, oneWorker.res);
  for (const row of e1.rows) {
    const id = `${row.metric}/${row.variant}`;
    if (named.includes(id))
      assert.deepEqual([row.role, row.verdict], ["calibrated", "calibration target"], id);
    else assert.equal(row.role, "predicted", id);
  }
  assert.equal(e1.verdicts?.calibrationTargets, 4);
  assert.equal(e1.verdicts?.predicted, 10);
  const e2 = ledgerEntry(twoWorkers.r, twoWorkers.res);
  assert.ok(
    e2.rows.every((x) => x.role === "predicted"),
    "003-2w: every figure a prediction",
  );
  assert.equal(e2.verdicts?.predicted, 14);
  // a prediction named as a target is refused before anything runs
  assert.throws(
    () => calibrateReproduction("003-1w", { targets: ["lat_p75/pre"], budget: 2 }),
    /target lat_p75\/pre is a prediction/,
  );
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
