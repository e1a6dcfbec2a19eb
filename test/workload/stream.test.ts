// workload.stream and workload.cacheHog on the shared-hardware model: STREAM's MB/s as it counts
// bytes, and a rate workload's throughput following the placement the sched domains give.
import { test } from "node:test";
import assert from "node:assert/strict";
import { topology, workload } from "../../src/index";
import type { Era } from "../../src/kernel/features";

test("STREAM Triad with one thread per memory controller prints 3/4 of each controller's figure", () => {
  const ms = topology()
    .sockets(2)
    .cores(2)
    .threads(1)
    .nodes(2)
    .costs({ memoryBytesPerNs: 30 })
    .editMachine("controller", (m) => {
      m.bandwidth = { nodeBytesPerNs: 20 };
    })
    .workload(workload.stream({ threads: 2, kernel: "triad", bind: [0, 2] }))
    .runSync({ duration: 0.2, warmup: 0.1 })
    .iteration("baseline", 0).metrics;
  // 20 B/ns moved per controller; Triad's write-allocate read is not counted: 15 B/ns = 15000 MB/s
  for (const t of ["mb_s_thread0", "mb_s_thread1"])
    assert.ok(Math.abs(ms[t] - 15_000) < 1, `${t} ${ms[t]}`);
  assert.ok(Math.abs(ms.triad_mb_s - 30_000) < 2);
});

/**
 * runs/s of `copies` cache hogs (3 MiB each, 50 ms of work per run) on jacobsville-24: 24 cores in
 * six 4-core modules, each sharing a 4.5 MB L2, under one LLC. One copy fits an L2, two do not.
 */
function clusterRate(copies: number, era: Era): number {
  return topology("jacobsville-24")
    .era(era)
    .workload(workload.cacheHog({ copies, workingSet: 3 << 20, runWorkNs: 50e6 }))
    .runSync({ duration: 1 })
    .iteration("baseline", 0).metrics.runs_per_s;
}

test("rate workload on jacobsville-24: the cluster level (5.16+) matters between one copy per core and one per cluster only", () => {
  // 5.10 has no CLS level: fork balancing spreads the copies over MC's 24 single-CPU groups
  // without regard to the L2 modules, and two copies share (and overflow) one L2; 5.19's CLS
  // level makes MC's groups the modules, so 6 copies get one module each. At 1 copy and at one
  // per core the placement is the same. Measured: 6 copies 114 vs 86 runs/s (+33%), 12 copies
  // 204 vs 168 (+21%), 1 and 24 copies equal.
  assert.equal(clusterRate(1, "5.10"), clusterRate(1, "5.19"));
  assert.equal(clusterRate(24, "5.10"), clusterRate(24, "5.19"));
  const without = clusterRate(6, "5.10");
  const withCls = clusterRate(6, "5.19");
  assert.ok(withCls > without * 1.2, `one per cluster: ${withCls} vs ${without} runs/s`);
  const without12 = clusterRate(12, "5.10");
  const withCls12 = clusterRate(12, "5.19");
  assert.ok(withCls12 > without12 * 1.1, `two per cluster: ${withCls12} vs ${without12} runs/s`);
});
