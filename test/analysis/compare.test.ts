import { test } from "node:test";
import assert from "node:assert/strict";
import { compareTable, formatCompareTable } from "../../src/analysis/compare";
import { metricValue, valuesByVariant, variantNames } from "../../src/analysis/metric";
import { abResults } from "./fixtures";

const close = (a: number, b: number, tol = 1e-6) =>
  assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

test("variants follow the spec order, iterations sorted", () => {
  const data = abResults();
  assert.deepEqual(variantNames(data), ["pre", "post"]);
  assert.deepEqual(valuesByVariant(data, "throughput_mbps")[0].values, [100, 102, 98, 101, 99]);
});

test("metric lookup: workload metrics, counter paths, sums, zero for absent counters", () => {
  const it = abResults().iterations[0]; // post #0
  assert.equal(metricValue(it, "throughput_mbps"), 110);
  assert.equal(metricValue(it, "sched.contextSwitches"), 2000);
  assert.equal(metricValue(it, "contextSwitches"), 2000);
  assert.equal(metricValue(it, "migrations.active_balance"), 2);
  assert.equal(
    metricValue(it, "sched.migrations.hotplug"),
    0,
    "a counter record without the key counts 0",
  );
  assert.equal(metricValue(it, "balance.MC.activeBalances"), 2);
  assert.equal(metricValue(it, "rqLock.wakeup.waitNs"), 500);
  assert.equal(metricValue(it, "tasks.runtimeNs"), 1e9);
  assert.equal(metricValue(it, "tasks.counters.sent"), 100);
  assert.equal(metricValue(it, "cpus.idleNs"), 1e9);
  assert.equal(metricValue(it, "events"), 1000);
  assert.throws(
    () => metricValue(it, "throughput"),
    /unknown metric "throughput".*throughput_mbps/,
  );
  assert.throws(() => metricValue(it, "nosuch.thing"), /unknown metric/);
});

test("compare table on a hand-made A/B result", () => {
  const rows = compareTable(abResults(), "throughput_mbps");
  assert.equal(rows.length, 2);
  const [pre, post] = rows;
  assert.equal(pre.variant, "pre");
  assert.equal(pre.baseline, true);
  assert.equal(pre.pValue, null);
  assert.equal(pre.pctChange, 0);
  assert.equal(pre.n, 5);
  assert.equal(pre.mean, 100);
  close(pre.stddev, Math.sqrt(2.5), 1e-12);
  close(pre.ci95, 2.776445 * Math.sqrt(2.5 / 5), 1e-5); // t(0.975, df=n-1=4)
  assert.equal(post.mean, 110);
  close(post.pctChange, 10, 1e-12);
  // Equal variances and sizes: t = 10 / sqrt(0.5 + 0.5) = 10, df = 8.
  assert.ok(post.pValue !== null && post.pValue < 1e-4, `p=${post.pValue}`);
  assert.equal(post.significant, true);
});

test("compare table: baseline option and counter metric", () => {
  const rows = compareTable(abResults(), "sched.contextSwitches", { baseline: "post" });
  assert.equal(rows.find((r) => r.baseline)!.variant, "post");
  close(rows[0].pctChange, ((1020 - 2020) / 2020) * 100, 1e-9);
  assert.throws(
    () => compareTable(abResults(), "throughput_mbps", { baseline: "nope" }),
    /baseline "nope"/,
  );
});

test("formatted mmtests-style table", () => {
  const text = formatCompareTable(compareTable(abResults(), "throughput_mbps"));
  const lines = text.split("\n");
  assert.match(lines[0], /^\s+pre\s+post$/);
  assert.match(
    lines[1],
    /^Amean\s+throughput_mbps\s+100\.000 \(\s+0\.00%\)\s+110\.000 \*\s+10\.00%\*$/,
  );
  assert.match(lines[2], /^Stddev\s+throughput_mbps\s+1\.581\s+1\.581$/);
  assert.match(text, /p-value throughput_mbps\s+-\s+<0\.0001/);
  assert.match(text, /n\s+throughput_mbps\s+5\s+5/);
  assert.match(text, /\* significant/);
});
