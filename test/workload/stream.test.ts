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
 * `cluster` false builds the kernel with CONFIG_SCHED_CLUSTER=n (tunable sched_cluster 0).
 */
function clusterRate(copies: number, era: Era, cluster = true): number {
  return topology("jacobsville-24")
    .era(era)
    .tunables(cluster ? {} : { sched_cluster: 0 })
    .workload(workload.cacheHog({ copies, workingSet: 3 << 20, runWorkNs: 50e6 }))
    .runSync({ duration: 1 })
    .iteration("baseline", 0).metrics.runs_per_s;
}

test("rate workload on jacobsville-24: the cluster level matters between one copy per core and one per cluster only", () => {
  // Without the CLS level fork balancing sees MC's 24 single-CPU groups and fills module 0 first,
  // so copies share (and overflow) an L2; with it MC's groups are the modules, one copy each. At 1
  // copy and at one per core the placement is the same. The same kernel (5.19) with
  // CONFIG_SCHED_CLUSTER=y and =n; measured: 6 copies 114 vs 86 runs/s (+33%), 12 copies 204 vs
  // 168 (+21%), 1 and 24 copies equal; =n gives 5.10's rates exactly.
  assert.equal(clusterRate(1, "5.19", false), clusterRate(1, "5.19"));
  assert.equal(clusterRate(24, "5.19", false), clusterRate(24, "5.19"));
  const without = clusterRate(6, "5.19", false);
  const withCls = clusterRate(6, "5.19");
  assert.ok(withCls > without * 1.2, `one per cluster: ${withCls} vs ${without} runs/s`);
  assert.equal(without, clusterRate(6, "5.10"), "no CLS in 5.19 = 5.10, which has none");
  const without12 = clusterRate(12, "5.19", false);
  const withCls12 = clusterRate(12, "5.19");
  assert.ok(withCls12 > without12 * 1.1, `two per cluster: ${withCls12} vs ${without12} runs/s`);
});
