// select_idle_sibling on a machine with L2 clusters below the LLC: 6.19 (sched_cluster_active,
// v6.8+) scans target's cluster first and keeps an idle prev of another cluster only as a
// fallback; 5.19 (CLS level, no SD_CLUSTER) takes the idle cache-affine prev at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { machineBuilder } from "../../../src/machine/builder";
import { run, wait, wake } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { clusterGroupCpus, cpusShareResources } from "../../../src/kernel/fair/wake/cluster";

// 8 cores, one LLC, clusters {0-3} and {4-7} sharing an L2 each.
const clustered = () => machineBuilder().name("cls").cores(8).l2SharedBy(4).llc("package").build();

function kernel(era: Era): Kernel {
  const m = clustered();
  return buildKernel({ machine: m, online: m.online, era, patches: [], seed: "t", trace: false });
}

/** The wakee sleeps on cpu1; a waker pinned to cpu5 wakes it (sync) at 1 ms; `busy` CPUs run hogs. */
function scenario(k: Kernel, busy: number[]): Task {
  const wakee = k.spawn({
    comm: "wakee",
    cpu: 1,
    program: function* () {
      for (;;) yield wait();
    },
  });
  k.spawn({
    comm: "waker",
    cpu: 5,
    cpus: [5],
    program: function* () {
      yield run(1_000_000);
      yield wake(wakee.pid, true);
      yield run(Infinity);
    },
  });
  for (const cpu of busy)
    k.spawn({
      comm: `hog${cpu}`,
      cpu,
      cpus: [cpu],
      program: function* () {
        yield run(Infinity);
      },
    });
  return wakee;
}

test("6.19: an idle CPU in the waker's cluster beats the idle prev in the other cluster; 5.19 takes prev", () => {
  for (const era of ["5.19", "6.19"] as Era[]) {
    const k = kernel(era);
    const wakee = scenario(k, [6, 7]);
    k.runUntil(500_000);
    assert.equal(wakee.cpu, 1, era);
    k.runUntil(3_000_000);
    // target = cpu5 (sync wakeup from a CPU running only the waker), busy; prev = cpu1, idle.
    // 6.19 scans cluster {4-7} from cpu6: 6 and 7 busy, cpu4 idle.
    assert.equal(wakee.cpu, era === "6.19" ? 4 : 1, era);
    assert.equal(k.domains.clusterActive, era === "6.19");
  }
});

test("6.19: with the waker's cluster busy, the LLC pass runs before the deferred prev is taken", () => {
  const k = kernel("6.19");
  const wakee = scenario(k, [4, 6, 7]);
  k.runUntil(3_000_000);
  // Cluster {4-7} all busy; the LLC pass from cpu6 skips the cluster and finds cpu0 idle before
  // the remembered prev (cpu1) would be used.
  assert.equal(wakee.cpu, 0);

  // Everything but prev busy: nothing found by the scans, so prev_aff is returned.
  const k2 = kernel("6.19");
  const w2 = scenario(k2, [0, 2, 3, 4, 6, 7]);
  k2.runUntil(3_000_000);
  assert.equal(w2.cpu, 1);
});

test("cpus_share_resources: the cluster under sched_cluster_active (6.19), the LLC otherwise (5.19); the cluster group is sd_llc->groups only then", () => {
  const k = kernel("6.19");
  const old = kernel("5.19");
  for (const [a, b, cluster] of [
    [0, 3, true],
    [0, 4, false],
    [5, 7, true],
    [7, 1, false],
  ] as const) {
    assert.equal(cpusShareResources(k, a, b), cluster, `6.19 ${a}-${b}`);
    assert.equal(cpusShareResources(old, a, b), true, `5.19 ${a}-${b}: one LLC`);
  }
  assert.equal(k.domains.clusterActive, true);
  assert.deepEqual(clusterGroupCpus(k, k.domains.sdLlc[5]!), [4, 5, 6, 7]);
  assert.deepEqual(clusterGroupCpus(k, k.domains.sdLlc[1]!), [0, 1, 2, 3]);
  assert.equal(clusterGroupCpus(old, old.domains.sdLlc[5]!), null, "no SD_CLUSTER before 6.8");
});
