// The cluster pass of select_idle_cpu (src/kernel/fair/wake/cluster.ts scanCluster) called by hand
// on a clustered SMT machine, against v6.8's "sched/fair: Scan cluster before scanning LLC in
// wake-up path" (Barry Song, Yicong Yang; kernel/sched/fair.c select_idle_cpu):
//   for_each_cpu_wrap(cpu, sched_group_span(sg), target + 1) {
//       if (!cpumask_test_cpu(cpu, cpus)) continue;
//       if (has_idle_core) { i = select_idle_core(p, cpu, cpus, &idle_cpu); if (i valid) return i; }
//       else { if (--nr <= 0) return -1; idle_cpu = __select_idle_cpu(cpu, p); if (valid) return idle_cpu; }
//   }
//   cpumask_andnot(cpus, cpus, sched_group_span(sg));
// and clusterGroupCpus (sd->groups only when its flags hold SD_CLUSTER, the LLC's child).
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { wait } from "../../../src/kernel/ops";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { wakeState } from "../../../src/kernel/fair/wake/common";
import { clusterGroupCpus, scanCluster } from "../../../src/kernel/fair/wake/cluster";
import { boot } from "../boot";

// 8 cores x 2 threads, one LLC, clusters of 4 cores: cpu c and c + 8 are siblings, so the cluster
// of cores 0-3 is {0, 1, 2, 3, 8, 9, 10, 11}.
const CLUSTER0 = [0, 1, 2, 3, 8, 9, 10, 11];

function setup(cpus?: number[]): { k: Kernel; p: Task } {
  const m = machineBuilder().cores(8).threads(2).l2SharedBy(4).llc("package").build();
  const k = boot(m, "6.19");
  const p = k.spawn({
    comm: "p",
    cpu: cpus?.[0] ?? 1,
    cpus,
    program: function* () {
      for (;;) yield wait();
    },
  });
  k.runUntil(1_000_000);
  return { k, p };
}

/** Every CPU of cluster 0 busy (nr_running 1) but `idle`. */
function busyBut(k: Kernel, ...idle: number[]): void {
  for (const c of CLUSTER0) if (!idle.includes(c)) k.rqs[c].nrRunning = 1;
}

function scan(
  k: Kernel,
  p: Task,
  o: { target: number; nr?: number; hasIdleCore?: boolean; thisCpu?: number },
) {
  const st = wakeState(k);
  const group = clusterGroupCpus(k, k.domains.sdLlc[o.target]!);
  assert.ok(group, "cluster 0 is the LLC's first group");
  const gen = st.nextGen();
  st.idleCpuSeen = -1;
  const r = scanCluster(
    k,
    st,
    p,
    group,
    o.target,
    o.thisCpu ?? o.target,
    o.hasIdleCore ?? false,
    o.nr ?? 100,
    gen,
  );
  return { ...r, st, gen, group };
}

test("cluster pass: the group is sd_llc->groups, only under an LLC domain whose child is the cluster", () => {
  const { k } = setup();
  const sd = k.domains.sdLlc[1]!;
  assert.deepEqual(
    [...clusterGroupCpus(k, sd)!].sort((a, b) => a - b),
    CLUSTER0,
  );
  assert.equal(clusterGroupCpus(k, { ...sd, child: null }), null, "no child domain");
});

test("cluster pass without an idle core: from target + 1 with wrap, --nr <= 0 gives up (-1) before the CPU is looked at, the first idle CPU ends it", () => {
  // target 1: the walk is 2, 3, 8, 9, 10, 11, 0, 1
  const run = (nr: number, idle: number[]) => {
    const { k, p } = setup();
    busyBut(k, ...idle);
    return scan(k, p, { target: 1, nr });
  };
  const found = run(5, [9]);
  assert.equal(found.result, 9);
  assert.equal(found.nr, 1, "four CPUs counted: 2, 3, 8, 9");
  assert.equal(found.st.sisReason, "idle_cluster");
  const out = run(4, [9]);
  assert.equal(out.result, -1, "nr runs out at cpu9 itself");
  assert.equal(out.nr, 0);
  // wrap: the idle CPU below target is reached after the rest of the cluster
  const wrapped = run(100, [0]);
  assert.equal(wrapped.result, 0);
  assert.equal(wrapped.nr, 100 - 7);
  // target is the cluster's last CPU: the walk starts over at its first
  const { k, p } = setup();
  busyBut(k, 0, 2);
  assert.equal(scan(k, p, { target: 11 }).result, 0);
  // ... and reaches target itself last
  const last = setup();
  busyBut(last.k, 11);
  const self = scan(last.k, last.p, { target: 11 });
  assert.equal(self.result, 11);
  assert.equal(self.nr, 100 - 8);
});

test("cluster pass: CPUs outside p's mask or already scanned are skipped without cost or nr; a pass that finds nothing marks the whole cluster scanned", () => {
  const { k, p } = setup([1, 3, 9]);
  busyBut(k, 2, 9);
  const r = scan(k, p, { target: 1, nr: 10 });
  // allowed in the walk: 3 (busy), 9 (idle); cpu2 is idle but not allowed
  assert.equal(r.result, 9);
  assert.equal(r.nr, 8);
  const row = r.st.levelRow(1);
  assert.equal(r.time, r.st.lineNs[row[3]] + r.st.lineNs[row[9]]);
  assert.ok(r.time > 0);

  const q = setup();
  busyBut(q.k);
  const none = scan(q.k, q.p, { target: 1, nr: 100 });
  assert.equal(none.result, null);
  assert.equal(none.nr, 100 - 8);
  for (const c of CLUSTER0) assert.equal(none.st.seen[c], none.gen, `cpu${c} scanned`);
  assert.notEqual(none.st.seen[4], none.gen, "cpu4 is in the other cluster");
  const rowQ = none.st.levelRow(1);
  const cost = CLUSTER0.reduce((s, c) => s + none.st.lineNs[rowQ[c]], 0);
  assert.equal(none.time, cost);

  // a CPU marked scanned for this generation is not looked at
  const s = setup();
  busyBut(s.k, 2);
  const st = wakeState(s.k);
  const group = clusterGroupCpus(s.k, s.k.domains.sdLlc[1]!)!;
  const gen = st.nextGen();
  st.seen[2] = gen;
  const skipped = scanCluster(s.k, st, s.p, group, 1, 1, false, 100, gen);
  assert.equal(skipped.result, null);
  assert.equal(skipped.nr, 100 - 7);
});

test("cluster pass with an idle core known: select_idle_core per CPU, the whole core idle returns it, a lone idle thread is only remembered", () => {
  // cpu10 idle, its sibling cpu2 busy: remembered as idle_cpu; core 3 (cpus 3, 11) idle
  const { k, p } = setup();
  busyBut(k, 10, 3, 11);
  const r = scan(k, p, { target: 1, hasIdleCore: true });
  assert.equal(r.result, 3);
  assert.equal(r.st.sisReason, "idle_core");
  assert.equal(r.nr, 100, "nr is not spent looking for cores");

  // core 0 (cpus 0, 8) is a valid answer too: the walk from target 11 starts there
  const z = setup();
  busyBut(z.k, 0, 8);
  assert.equal(scan(z.k, z.p, { target: 11, hasIdleCore: true }).result, 0);

  const q = setup();
  busyBut(q.k, 10);
  const none = scan(q.k, q.p, { target: 1, hasIdleCore: true });
  assert.equal(none.result, null);
  assert.equal(none.idleCpu, 10, "the idle thread of a busy core");
});
