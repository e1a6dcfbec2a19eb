// Clusters (the CLS level, 5.16+; SD_CLUSTER, 6.8+) and asymmetric CPU capacities
// (SD_ASYM_CPUCAPACITY: one level in 5.0 ... 5.13, per domain with _FULL from 5.14), on
// hand-built machines, against what kernel/sched/topology.c of each era builds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import type { Machine } from "../../../src/machine/types";
import type { Era } from "../../../src/kernel/features";
import {
  SD_ASYM_CPUCAPACITY,
  SD_ASYM_CPUCAPACITY_FULL,
  SD_BALANCE_WAKE,
  SD_CLUSTER,
  SD_PREFER_SIBLING,
  SD_SHARE_PKG_RESOURCES,
  type DomainTree,
  type SchedDomain,
} from "../../../src/kernel/topology/sched_domain";
import {
  buildSchedDomains,
  defaultGroupCapacity,
  describeDomains,
} from "../../../src/kernel/topology/topology";
import { patch, topology } from "../../../src/index";
import { bigLittleMachine } from "../../support/big_little";

const build = (m: Machine, era: Era, offline: number[] = []): DomainTree => {
  const online = m.online.slice();
  for (const c of offline) online[c] = false;
  return buildSchedDomains(m, online, era);
};
const levels = (t: DomainTree, cpu: number) => t.domains[cpu].map((d) => d.level);
const at = (t: DomainTree, cpu: number, level: string): SchedDomain => {
  const d = t.domains[cpu].find((x) => x.level === level);
  assert.ok(d, `cpu${cpu} has no ${level} domain: ${levels(t, cpu).join("/")}`);
  return d;
};

// 8 cores in one package, L2 shared by clusters of 4, one L3 (an Atom/Jacobsville-like part).
const clustered = () =>
  machineBuilder().name("cls-1x8").cores(8).l2SharedBy(4).llc("package").build();

test("clusters below the LLC: no CLS before 5.16; CLS in 5.19 (no SD_CLUSTER) and 6.19 (SD_CLUSTER)", () => {
  const m = clustered();
  for (const era of ["4.8", "5.6"] as Era[]) {
    const t = build(m, era);
    assert.deepEqual(levels(t, 5), ["MC"], era);
    assert.equal(t.clusterActive, false);
  }
  for (const era of ["5.19", "6.19"] as Era[]) {
    const t = build(m, era);
    assert.deepEqual(levels(t, 5), ["CLS", "MC"], era);
    const cls = at(t, 5, "CLS");
    const mc = at(t, 5, "MC");
    assert.deepEqual(cls.span, [4, 5, 6, 7]);
    assert.deepEqual(
      mc.groups.map((g) => g.cpus),
      [
        [4, 5, 6, 7],
        [0, 1, 2, 3],
      ],
    );
    assert.ok(cls.flags & SD_SHARE_PKG_RESOURCES);
    assert.equal(cls.imbalancePct, 117);
    // sd_llc is the highest SD_SHARE_PKG_RESOURCES domain: MC, not the cluster
    assert.equal(t.sdLlc[5], mc);
    assert.equal(t.sdLlcSize[5], 8);
    const late = era === "6.19";
    assert.equal((cls.flags & SD_CLUSTER) !== 0, late);
    assert.equal(t.clusterActive, late);
    // sd_share_id: the cluster's first CPU where SD_CLUSTER exists, else sd_llc_id
    assert.equal(t.sdShareId[5], late ? 4 : 0);
    assert.equal(t.sdShareId[1], 0);
  }
});

test("a cluster that is the LLC (L2, no L3: a two-cluster A53 board) leaves MC, not CLS", () => {
  const m = machineBuilder().cores(8).l2SharedBy(4).llc("l2").numbering("core-major").build();
  for (const era of ["5.19", "6.19"] as Era[]) {
    const t = build(m, era);
    assert.deepEqual(levels(t, 0), ["MC", era === "6.19" ? "PKG" : "DIE"], era);
    assert.deepEqual(at(t, 6, "MC").span, [4, 5, 6, 7]);
    assert.equal(t.clusterActive, false);
    assert.equal(t.sdLlcSize[6], 4);
  }
});

test("SMT inside clusters: SMT, CLS and MC all stay, and CLS groups are the cores", () => {
  const m = machineBuilder().cores(4).threads(2).l2SharedBy(2).llc("package").build();
  const t = build(m, "6.19");
  assert.deepEqual(levels(t, 0), ["SMT", "CLS", "MC"]);
  assert.deepEqual(
    at(t, 0, "CLS").groups.map((g) => g.cpus),
    [
      [0, 4],
      [1, 5],
    ],
  );
  assert.deepEqual(at(t, 0, "CLS").span, [0, 1, 4, 5]);
});

// big.LITTLE: a cluster of 4 little cores (capacity 462) and one of 4 big cores, L2 per cluster.
const bigLittle = () => bigLittleMachine();

test("big.LITTLE: SD_ASYM_CPUCAPACITY on the level spanning both clusters from 5.0, with _FULL from 5.14", () => {
  const m = bigLittle();
  const t48 = build(m, "4.8");
  assert.ok(
    t48.domains[0].every((d) => !(d.flags & SD_ASYM_CPUCAPACITY)),
    "4.8 sets no asym flag",
  );
  assert.equal(t48.sdAsymCpucapacity[0], null);
  assert.deepEqual(t48.cpuCapacity, [462, 462, 462, 462, 1024, 1024, 1024, 1024]);

  for (const era of ["5.6", "5.19", "6.19"] as Era[]) {
    const t = build(m, era);
    const [mc, top] = t.domains[0];
    assert.equal(mc.level, "MC");
    assert.ok(!(mc.flags & SD_ASYM_CPUCAPACITY), `${era}: a cluster is symmetric`);
    assert.ok(top.flags & SD_ASYM_CPUCAPACITY, `${era}: the top level spans both capacities`);
    assert.equal((top.flags & SD_ASYM_CPUCAPACITY_FULL) !== 0, era !== "5.6");
    // "Don't attempt to spread across CPUs of different capacities."
    assert.ok(!(mc.flags & SD_PREFER_SIBLING), `${era}: MC lost SD_PREFER_SIBLING`);
    // 5.6 (until 5.7) also balances wakeups on the asymmetric domain and below.
    assert.equal((mc.flags & SD_BALANCE_WAKE) !== 0, era === "5.6");
    assert.equal((top.flags & SD_BALANCE_WAKE) !== 0, era === "5.6");
    assert.equal(t.sdAsymCpucapacity[0], top);
    assert.equal(t.asymCpucapacity, true);
  }
});

test("big.LITTLE with every big CPU offline is symmetric to the scheduler (6.19 classify)", () => {
  const t = build(bigLittle(), "6.19", [4, 5, 6, 7]);
  assert.ok(t.domains[0].every((d) => !(d.flags & SD_ASYM_CPUCAPACITY)));
  assert.equal(t.asymCpucapacity, false);
});

test("three capacities: 5.14+ flags a domain with two of them ASYM without _FULL; 5.6 flags one level only", () => {
  // two packages on two nodes; package 0 has a 300 pair and a 600 pair, package 1 is all 1024
  const m = machineBuilder()
    .sockets(2)
    .nodes(2)
    .cores(4)
    .l2SharedBy(2)
    .llc("package")
    .numbering("core-major")
    .capacities([300, 300, 600, 600, 1024, 1024, 1024, 1024])
    .build();
  const t = build(m, "6.19");
  const mc = at(t, 0, "MC");
  const numa = at(t, 0, "NUMA");
  assert.equal(mc.flags & (SD_ASYM_CPUCAPACITY | SD_ASYM_CPUCAPACITY_FULL), SD_ASYM_CPUCAPACITY);
  assert.ok(numa.flags & SD_ASYM_CPUCAPACITY_FULL);
  assert.equal(t.sdAsymCpucapacity[0], numa, "sd_asym_cpucapacity is the lowest _FULL domain");
  assert.equal(t.sdAsymCpucapacity[4], at(t, 4, "NUMA"), "the 1024 package: NUMA too");

  const t56 = build(m, "5.6");
  assert.ok(!(at(t56, 0, "MC").flags & SD_ASYM_CPUCAPACITY), "5.6: only the level seeing 1024");
  assert.ok(at(t56, 0, "NUMA").flags & SD_ASYM_CPUCAPACITY);
});

test("capacities: one per CPU, largest 1024, equal within a core", () => {
  const b = () => machineBuilder().cores(2).threads(2).numbering("core-major");
  assert.throws(
    () => b().capacities([1024, 1024, 512]).build(),
    /capacities must be an array of 4/,
  );
  assert.throws(
    () => b().capacities([512, 512, 512, 512]).build(),
    /capacities must be a list whose largest value is 1024/,
  );
  assert.throws(
    () => b().capacities([512, 1024, 1024, 1024]).build(),
    /capacities\[1\] must be equal to capacities\[0\] \(same core\)/,
  );
});

test("CONFIG_SCHED_CLUSTER=n (tunable sched_cluster 0) builds no CLS level in an era that has one; a bad value is refused", () => {
  const m = clustered();
  const off = buildSchedDomains(m, m.online, "6.19", defaultGroupCapacity("6.19"), {
    schedCluster: false,
  });
  assert.deepEqual(levels(off, 5), ["MC"]);
  assert.equal(off.clusterActive, false);
  assert.equal(off.sdShareId[5], 0, "sd_share_id falls back to sd_llc_id");
  // through the kernel: the tunable reaches the domain build
  const k = topology(m).era("6.19").tunables({ sched_cluster: 0 }).domains();
  assert.ok(!describeDomains(k, "6.19").includes("CLS"));
  assert.ok(describeDomains(topology(m).era("6.19").domains(), "6.19").includes("CLS"));
  assert.throws(
    () => patch("x").tunable("sched_cluster", 2),
    /tunable sched_cluster must be 0 or 1/,
  );
});
