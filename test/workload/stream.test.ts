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

/** runs/s of `copies` cache hogs (3 MiB each) on 24 cores in 4-core L2 clusters of 4 MiB. */
function clusterRate(copies: number, era: Era): number {
  return topology()
    .name("cls-24")
    .sockets(1)
    .cores(24)
    .threads(1)
    .l2SharedBy(4)
    .editMachine("cluster L2", (m) => {
      m.caches = { l2Bytes: 4 << 20, llcBytes: 24 << 20 };
    })
    .era(era)
    .workload(workload.cacheHog({ copies, workingSet: 3 << 20, runWorkNs: 50e6 }))
    .runSync({ duration: 1 })
    .iteration("baseline", 0).metrics.runs_per_s;
}

test("rate workload on an L2-cluster box: the cluster level (5.16+) matters at one copy per cluster only", () => {
  // 5.10 has no CLS level: fork balancing spreads 6 copies over the 24 cores without regard to
  // the L2 clusters and two copies overflow one L2; 5.19's CLS level puts one in each cluster
  assert.equal(clusterRate(1, "5.10"), clusterRate(1, "5.19"));
  const without = clusterRate(6, "5.10");
  const withCls = clusterRate(6, "5.19");
  assert.ok(withCls > without * 1.1, `one per cluster: ${withCls} vs ${without} runs/s`);
});
