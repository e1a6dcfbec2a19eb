// compareTrace (src/analysis/trace_compare.ts) on hand-built traces: wakeup latency from
// sched_waking to the switch-in, migrations as switch-ins on another CPU, wakeups on the waking
// CPU (the waker's, not where a wakelist's sched_wakeup fires), same-CPU share by wakeup order,
// utilisation, and pairs from the replay's series.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { TraceRecord } from "../../src/kernel/trace";
import {
  compareTrace,
  formatComparison,
  pidPairs,
  traceFigures,
} from "../../src/analysis/trace_compare";

const sw = (
  t: number,
  cpu: number,
  prevPid: number,
  prevState: "R" | "S",
  nextPid: number,
): TraceRecord => ({
  type: "sched_switch",
  t,
  cpu,
  prevComm: prevPid ? `p${prevPid}` : "swapper",
  prevPid,
  prevPrio: 120,
  prevState,
  nextComm: nextPid ? `p${nextPid}` : "swapper",
  nextPid,
  nextPrio: 120,
});
const wk = (
  type: "sched_waking" | "sched_wakeup",
  t: number,
  cpu: number,
  pid: number,
  targetCpu: number,
): TraceRecord => ({
  type,
  t,
  cpu,
  comm: `p${pid}`,
  pid,
  prio: 120,
  targetCpu,
});

// p1 runs on CPU 0 and wakes p2 twice: first onto CPU 1 (the wakelist's sched_wakeup fires on
// CPU 1), then onto CPU 0, its own.
const real: TraceRecord[] = [
  sw(0, 0, 0, "R", 1),
  wk("sched_waking", 100, 0, 2, 1),
  wk("sched_wakeup", 110, 1, 2, 1),
  sw(130, 1, 0, "R", 2),
  sw(200, 1, 2, "S", 0),
  wk("sched_waking", 300, 0, 2, 0),
  wk("sched_wakeup", 301, 0, 2, 0),
  sw(400, 0, 1, "S", 2),
  sw(1000, 0, 2, "S", 0),
];

test("figures of one trace: latency from sched_waking, migrations, wakeups on the waking CPU, utilisation", () => {
  const f = traceFigures(real, 2);
  const p2 = f.tasks.get(2)!;
  assert.deepEqual(p2.wakeLatencyNs, [30, 100]);
  assert.equal(p2.migrations, 1);
  assert.equal(p2.wakeups, 2);
  assert.deepEqual(p2.wakeCpus, [1, 0]);
  assert.equal(
    p2.wakeupsOnWakingCpu,
    1,
    "the first went to CPU 1 although its sched_wakeup fired there",
  );
  assert.equal(f.tasks.get(1)!.cpuNs, 400);
  assert.equal(p2.cpuNs, 70 + 600);
  assert.deepEqual(f.utilisation, [1, 0.07]);
});

test("a simulated trace beside it: ratios, the same-CPU share by wakeup order, matched by the pid pairs", () => {
  // the model put both wakeups on CPU 0 and p2 is pid 7 there
  const sim: TraceRecord[] = [
    sw(0, 0, 0, "R", 5),
    wk("sched_waking", 100, 0, 7, 0),
    wk("sched_wakeup", 100, 0, 7, 0),
    sw(150, 0, 5, "S", 7),
    sw(250, 0, 7, "S", 0),
    wk("sched_waking", 300, 0, 7, 0),
    wk("sched_wakeup", 300, 0, 7, 0),
    sw(500, 0, 0, "R", 7),
    sw(1000, 0, 7, "S", 0),
  ];
  const c = compareTrace(real, sim, pidPairs([1, 5, 2, 7]), 2);
  const fig = (name: string) => c.rows.find((r) => r.figure === name)!;
  assert.equal(fig("tasks matched").real, 2);
  assert.equal(fig("same CPU as the real wakeup").simulated, 0.5);
  assert.equal(fig("wakeups on the waking CPU").real, 0.5);
  assert.equal(fig("wakeups on the waking CPU").simulated, 1);
  assert.equal(fig("migrations").simulated, 0);
  assert.equal(fig("wakeup latency p50").simulated, 0.05 + (0.2 - 0.05) / 2);
  assert.equal(fig("CPU 1 utilisation").simulated, 0);
  assert.ok(Number.isNaN(fig("CPU 1 utilisation").ratio) === false);
  assert.match(formatComparison(c), /context switches\s+count\s+3\s+3\s+1/);
  assert.throws(() => pidPairs([1, 2, 3]), /pairs/);
});

test("a trace with sched_waking only (perf sched record): a waking of a task not running is its wakeup, on the CPU it runs on next", () => {
  const recs: TraceRecord[] = [
    sw(0, 0, 0, "R", 1), // 1 runs on CPU 0
    sw(0, 1, 0, "R", 2), // 2 runs on CPU 1
    sw(10000, 1, 2, "S", 0), // 2 sleeps
    wk("sched_waking", 20000, 0, 1, 0), // 1 is running: absorbed (ttwu_runnable), no wakeup
    wk("sched_waking", 30000, 0, 2, 1), // 2 woken from CPU 0 ...
    wk("sched_waking", 32000, 0, 2, 1), // ... a second waking before it runs is the same wakeup
    sw(40000, 0, 1, "S", 2), // ... and runs on CPU 0, the waking CPU
    sw(50000, 0, 2, "S", 0),
    wk("sched_waking", 60000, 1, 2, 0), // from CPU 1 (an interrupt there) ...
    sw(70000, 0, 0, "R", 2), // ... it runs on CPU 0
  ];
  const f = traceFigures(recs, 2);
  assert.equal(f.tasks.get(1)!.wakeups, 0);
  const t2 = f.tasks.get(2)!;
  assert.deepEqual([t2.wakeups, t2.wakeCpus, t2.wakeupsOnWakingCpu], [2, [0, 0], 1]);
  assert.deepEqual(t2.wakeLatencyNs, [10_000, 10_000]);
  // with sched_wakeup in the trace, it alone counts wakeups (as before)
  const g = traceFigures([...recs, wk("sched_wakeup", 61000, 0, 2, 0)], 2);
  assert.deepEqual([g.tasks.get(2)!.wakeups, g.tasks.get(2)!.wakeCpus], [1, [0]]);
});
