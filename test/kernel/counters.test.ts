// select_idle_cpu's counters (src/kernel/counters.ts SelectIdleCpuStats, bumped in
// fair/wake/v5x.ts selectIdleCpu and fair/wake/cluster.ts scanCluster), counted as Mel Gorman's
// select_idle_sibling schedstats count them: every CPU the scan reads (the one that ends it at its
// depth included), scans that find nothing, and SIS_UTIL's nr_idle_scan as each scan read it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { wakeState } from "../../src/kernel/fair/wake/common";
import { llc0BusyBut, setup, sis } from "./fair/wake_fixtures";
import { topology, workload } from "../../src/index";

test("select_idle_cpu counts the CPUs it reads and the scans that find no idle CPU (5.19, no depth limit)", () => {
  const { k, p } = setup("5.19");
  k.features.SIS_PROP = false; // no depth limit: the scan stops at an idle CPU or the LLC's end
  const c = k.counters.selectIdleCpu;
  // LLC 0 in scan order from target 0 + 1: 1 2 3 8 9 10 11 0; only cpu10 idle
  llc0BusyBut(k, 10);
  assert.equal(sis(k, p, 1, 0), 10);
  assert.deepEqual([c.calls, c.scanned, c.failed], [1, 6, 0]);
  llc0BusyBut(k);
  assert.equal(sis(k, p, 1, 0), 0, "nothing idle: target");
  assert.deepEqual([c.calls, c.scanned, c.failed], [2, 14, 1]);
  assert.equal(c.nrIdleScanCalls, 0, "no SIS_UTIL in 5.19");
});

test("SIS_UTIL (6.19): nr_idle_scan bounds the scan, is recorded per scan, and 0 scans nothing", () => {
  const { k, p } = setup("6.19");
  const c = k.counters.selectIdleCpu;
  const st = wakeState(k);
  llc0BusyBut(k);
  st.nrIdleScan[0] = 3; // this period's nr_idle_scan of LLC 0
  assert.equal(sis(k, p, 1, 0), 0);
  // nr = 3 + 1: three CPUs read, the fourth ends the scan (!--nr) and is counted
  assert.deepEqual([c.calls, c.scanned, c.failed], [1, 4, 1]);
  assert.deepEqual([c.nrIdleScanSum, c.nrIdleScanCalls, c.nrIdleScanZero], [3, 1, 0]);
  st.nrIdleScan[0] = 0;
  sis(k, p, 1, 0);
  assert.deepEqual([c.calls, c.scanned, c.failed], [2, 4, 2]);
  assert.deepEqual([c.nrIdleScanSum, c.nrIdleScanCalls, c.nrIdleScanZero], [3, 2, 1]);
});

test("the counters reach the results (sched.selectIdleCpu) and explain()", () => {
  const res = topology("x86-104t")
    .era("6.19")
    .workload(workload.hackbench({ groups: 2, loops: 50 }))
    .runSync({ duration: 0.02 });
  const s = res.iteration("baseline", 0).sched.selectIdleCpu;
  assert.ok(s.calls > 0 && s.scanned >= s.calls - s.nrIdleScanZero, JSON.stringify(s));
  assert.equal(res.values("selectIdleCpu.scanned", "baseline")[0], s.scanned);
  assert.match(
    res.explain("baseline"),
    /select_idle_cpu: \d+ scans, \d+ CPUs scanned \([\d.]+ per scan\), \d+ found no idle CPU \([\d.]+%\)\n {2}SIS_UTIL nr_idle_scan: mean [\d.]+ over \d+ scans, 0 \(no scan\) in \d+/,
  );
});
