import { test } from "node:test";
import assert from "node:assert/strict";
import { preset } from "../../../src/machine/presets";
import { machineBuilder } from "../../../src/machine/builder";
import type { Era } from "../../../src/kernel/features";
import {
  SD_BALANCE_NEWIDLE,
  SD_NUMA,
  SD_PREFER_SIBLING,
  SD_SERIALIZE,
  SD_SHARE_PKG_RESOURCES,
  SD_WAKE_AFFINE,
  type DomainTree,
  type SchedDomain,
} from "../../../src/kernel/topology/sched_domain";
import {
  buildSchedDomains,
  cpulist,
  defaultGroupCapacity,
  describeDomains,
  groupCapacitySum,
  groupPower2629,
  type GroupCapacityFn,
} from "../../../src/kernel/topology/topology";

function build(name: string, era: Era, offline: number[] = [], cap?: GroupCapacityFn): DomainTree {
  const m = preset(name);
  const online = m.online.slice();
  for (const c of offline) online[c] = false;
  return buildSchedDomains(m, online, era, cap ?? defaultGroupCapacity(era));
}
const levels = (t: DomainTree, cpu: number) => t.domains[cpu].map((d) => d.level);
const at = (t: DomainTree, cpu: number, level: string): SchedDomain => {
  const d = t.domains[cpu].find((x) => x.level === level);
  assert.ok(d, `cpu${cpu} has no ${level} domain: ${levels(t, cpu).join("/")}`);
  return d;
};
const groupCpus = (d: SchedDomain) => d.groups.map((g) => g.cpus);

test("xeon-x5472, 4.8: MC (L2 pair, sd_llc_size 2) and DIE (8 CPUs, 4 groups of 2)", () => {
  const t = build("xeon-x5472", "4.8");
  for (let cpu = 0; cpu < 8; cpu++) {
    assert.deepEqual(levels(t, cpu), ["MC", "DIE"]);
    assert.equal(t.sdLlcSize[cpu], 2);
    assert.equal(t.sdLlc[cpu], t.domains[cpu][0]);
    assert.equal(t.sdNuma[cpu], null);
  }
  const [mc, die] = t.domains[0];
  assert.deepEqual(mc.span, [0, 1]);
  assert.deepEqual(groupCpus(mc), [[0], [1]]);
  assert.equal(die.spanWeight, 8);
  assert.deepEqual(groupCpus(die), [
    [0, 1],
    [2, 3],
    [4, 5],
    [6, 7],
  ]);
  assert.deepEqual(
    die.groups.map((g) => g.capacity),
    [2048, 2048, 2048, 2048],
  );
  // local group first, then the rest in order, wrapping (for_each_cpu_wrap)
  assert.deepEqual(groupCpus(at(t, 5, "DIE")), [
    [4, 5],
    [6, 7],
    [0, 1],
    [2, 3],
  ]);
  assert.equal(t.sdLlcId[3], 2);
  assert.equal(die.parent, null);
  assert.equal(die.child, mc);
  assert.equal(mc.child, null);
  // one sched_group object per group, shared by every CPU that sees it (sgc sharing)
  assert.equal(at(t, 0, "DIE").groups[1], at(t, 2, "DIE").groups[0]);
});

test("x86-104t, 5.19: SMT(2) / MC(52) / NUMA(104, 2 groups); DIE and NODE degenerate", () => {
  const t = build("x86-104t", "5.19");
  for (const cpu of [0, 30, 52, 103]) {
    assert.deepEqual(levels(t, cpu), ["SMT", "MC", "NUMA"]);
    assert.equal(t.sdLlcSize[cpu], 52);
  }
  const [smt, mc, numa] = t.domains[0];
  assert.deepEqual(smt.span, [0, 52]);
  assert.equal(mc.spanWeight, 52);
  assert.equal(cpulist(mc.span), "0-25,52-77");
  assert.equal(mc.groups.length, 26);
  assert.equal(numa.spanWeight, 104);
  assert.deepEqual(
    numa.groups.map((g) => cpulist(g.cpus)),
    ["0-25,52-77", "26-51,78-103"],
  );
  assert.equal(t.sdNuma[0], numa);
  assert.ok(numa.flags & SD_NUMA && numa.flags & SD_SERIALIZE && numa.flags & SD_WAKE_AFFINE);
  assert.equal(numa.flags & SD_PREFER_SIBLING, 0);
  // imb_numa_nr: one LLC per node => 52 >> 3
  assert.equal(numa.imbNumaNr, 6);
  // no smt_gain in 5.x: a core's group is worth 2048
  assert.equal(mc.groups[0].capacity, 2048);
  assert.equal(numa.groups[0].capacity, 52 * 1024);
});

test("numa-2x12x2: SMT(2) / MC(24) / NUMA(48); imb_numa_nr 3 from 5.18 on, 0 in 5.6", () => {
  for (const era of ["5.6", "5.19", "6.19"] as Era[]) {
    const t = build("numa-2x12x2", era);
    assert.deepEqual(levels(t, 0), ["SMT", "MC", "NUMA"], era);
    const [smt, mc, numa] = t.domains[0];
    assert.deepEqual(smt.span, [0, 24]);
    assert.equal(mc.spanWeight, 24);
    assert.equal(t.sdLlcSize[0], 24);
    assert.equal(numa.spanWeight, 48);
    assert.equal(numa.groups.length, 2);
    assert.equal(numa.imbNumaNr, era === "5.6" ? 0 : 3);
  }
  const t48 = build("numa-2x12x2", "4.8");
  assert.deepEqual(levels(t48, 0), ["SMT", "MC", "NUMA"]);
  // smt_gain 1178 shared by the two threads
  assert.deepEqual(
    t48.domains[0][0].groups.map((g) => g.capacity),
    [589, 589],
  );
  assert.equal(t48.domains[0][1].groups[0].capacity, 1178);
  // DIE's SD_PREFER_SIBLING moves down to MC when DIE degenerates (cpu_attach_domain)
  assert.ok(t48.domains[0][1].flags & SD_PREFER_SIBLING);
});

test("core2-2x2 with cpu3 offline, 2.6.29: CPU-level groups {0,1} and {2} are both worth 1024", () => {
  const t = build("core2-2x2", "2.6.29", [3], groupPower2629);
  assert.deepEqual(levels(t, 0), ["MC", "CPU"]);
  assert.deepEqual(levels(t, 2), ["CPU"]);
  assert.deepEqual(t.domains[3], []);
  const cpu = at(t, 0, "CPU");
  assert.deepEqual(groupCpus(cpu), [[0, 1], [2]]);
  assert.deepEqual(
    cpu.groups.map((g) => g.capacity),
    [1024, 1024],
  );
  assert.deepEqual(
    at(t, 2, "CPU").groups.map((g) => [g.cpus, g.capacity]),
    [
      [[2], 1024],
      [[0, 1], 1024],
    ],
  );
  // the default for 2.6.29 is that rule
  assert.deepEqual(
    at(build("core2-2x2", "2.6.29", [3]), 0, "CPU").groups.map((g) => g.capacity),
    [1024, 1024],
  );
  // the summing rule (Miao Xie's RFC / 2.6.32+) values the pair at 2048
  const sum = build("core2-2x2", "2.6.29", [3], groupCapacitySum);
  assert.deepEqual(
    at(sum, 0, "CPU").groups.map((g) => g.capacity),
    [2048, 1024],
  );
  assert.deepEqual(
    at(sum, 2, "CPU").groups.map((g) => g.capacity),
    [1024, 2048],
  );
});

test("ht-2x1x2 with cpu3 offline: the HT pair's group is valued like one CPU in 2.6.29", () => {
  const t = build("ht-2x1x2", "2.6.29", [3]);
  assert.deepEqual(levels(t, 0), ["SIBLING", "CPU"]);
  assert.deepEqual(
    at(t, 0, "CPU").groups.map((g) => [g.cpus, g.capacity]),
    [
      [[0, 2], 1024],
      [[1], 1024],
    ],
  );
  const t319 = build("ht-2x1x2", "3.19", [3]);
  assert.deepEqual(
    at(t319, 0, "DIE").groups.map((g) => g.capacity),
    [1178, 1024],
  );
});

test("the group-capacity decision is taken from the callback (patchable)", () => {
  const seen: string[] = [];
  const fn: GroupCapacityFn = (ctx) => {
    seen.push(ctx.sd.level);
    return 777;
  };
  const t = build("xeon-x5472", "4.8", [], fn);
  assert.ok(t.domains[0].every((d) => d.groups.every((g) => g.capacity === 777)));
  assert.ok(seen.includes("SMT") && seen.includes("MC") && seen.includes("DIE"));
  assert.throws(
    () => build("xeon-x5472", "4.8", [], () => 0),
    /topology.group_capacity returned 0/,
  );
});

test("a rebuild after offlining a CPU drops it everywhere and shrinks sd_llc_size", () => {
  const before = build("x86-104t", "5.19");
  const t = build("x86-104t", "5.19", [5]);
  assert.deepEqual(t.domains[5], []);
  assert.ok(!t.online.includes(5));
  for (const cpu of t.online) {
    for (const d of t.domains[cpu]) {
      assert.ok(!d.span.includes(5), `cpu${cpu} ${d.level} span`);
      for (const g of d.groups) assert.ok(!g.cpus.includes(5), `cpu${cpu} ${d.level} group`);
      assert.equal(d.spanWeight, d.span.length);
    }
  }
  assert.equal(before.sdLlcSize[0], 52);
  assert.equal(t.sdLlcSize[0], 51);
  assert.equal(t.sdLlcSize[30], 52);
  // cpu57 lost its SMT sibling: its SMT level is gone, MC is now its base domain
  assert.deepEqual(levels(t, 57), ["MC", "NUMA"]);
  assert.equal(at(t, 0, "NUMA").groups[0].cpus.length, 51);
  // xeon, 4.8: offlining cpu1 leaves cpu0 alone in its L2 => no MC, sd_llc_size 1
  const x = build("xeon-x5472", "4.8", [1]);
  assert.deepEqual(levels(x, 0), ["DIE"]);
  assert.equal(x.sdLlcSize[0], 1);
  assert.equal(x.sdLlcId[0], 0);
  assert.deepEqual(groupCpus(at(x, 0, "DIE")), [[0], [2, 3], [4, 5], [6, 7]]);
});

test("a single online CPU gets no domains", () => {
  const t = build("core2-2x2", "6.19", [1, 2, 3]);
  assert.deepEqual(t.domains[0], []);
  assert.equal(t.sdLlcSize[0], 1);
  assert.deepEqual(t.online, [0]);
});

// imbalance_pct / cache_nice_tries / busy_factor and interval bounds per level per era; w = span
// weight. Sources: 2.6.29 include/linux/topology.h (SD_SIBLING_INIT, SD_MC_INIT, SD_CPU_INIT) and
// arch/x86/include/asm/topology.h (SD_NODE_INIT); v3.19-v5.9 sd_init in kernel/sched/core.c, then
// kernel/sched/topology.c (125, busy_factor 32); v5.10 sd_init (imbalance_pct 117, busy_factor 16).
test("per-level parameters per era match the reference table", () => {
  type Row = [
    level: string,
    imb: number,
    cnt: number,
    busy: number,
    min: number | "w",
    max: number | "2w",
  ];
  const expect: Record<Era, Row[]> = {
    "2.6.29": [
      ["SIBLING", 110, 0, 64, 1, 2],
      ["MC", 125, 1, 64, 1, 4],
      ["CPU", 125, 1, 64, 1, 4],
      ["NODE", 125, 2, 32, 8, 32],
    ],
    "3.19": [
      ["SMT", 110, 0, 32, "w", "2w"],
      ["MC", 117, 1, 32, "w", "2w"],
      ["DIE", 125, 1, 32, "w", "2w"],
      ["NUMA", 125, 2, 32, "w", "2w"],
    ],
    "4.8": [
      ["SMT", 110, 0, 32, "w", "2w"],
      ["MC", 117, 1, 32, "w", "2w"],
      ["DIE", 125, 1, 32, "w", "2w"],
      ["NUMA", 125, 2, 32, "w", "2w"],
    ],
    "5.6": [
      ["SMT", 110, 0, 32, "w", "2w"],
      ["MC", 117, 1, 32, "w", "2w"],
      ["DIE", 125, 1, 32, "w", "2w"],
      ["NUMA", 125, 2, 32, "w", "2w"],
    ],
    "5.10": [
      ["SMT", 110, 0, 16, "w", "2w"],
      ["MC", 117, 1, 16, "w", "2w"],
      ["DIE", 117, 1, 16, "w", "2w"],
      ["NUMA", 117, 2, 16, "w", "2w"],
    ],
    "5.19": [
      ["SMT", 110, 0, 16, "w", "2w"],
      ["MC", 117, 1, 16, "w", "2w"],
      ["DIE", 117, 1, 16, "w", "2w"],
      ["NUMA", 117, 2, 16, "w", "2w"],
    ],
    "6.6": [
      ["SMT", 110, 0, 16, "w", "2w"],
      ["MC", 117, 1, 16, "w", "2w"],
      ["DIE", 117, 1, 16, "w", "2w"],
      ["NUMA", 117, 2, 16, "w", "2w"],
    ],
    "6.19": [
      ["SMT", 110, 0, 16, "w", "2w"],
      ["MC", 117, 1, 16, "w", "2w"],
      ["PKG", 117, 1, 16, "w", "2w"],
      ["NUMA", 117, 2, 16, "w", "2w"],
    ],
  };
  // Pick machines where each level survives: xeon (MC+DIE/CPU), numa-2x12x2 (SMT/SIBLING, MC, NUMA/NODE).
  for (const era of Object.keys(expect) as Era[]) {
    const trees = [build("xeon-x5472", era), build("numa-2x12x2", era)];
    for (const [level, imb, cnt, busy, min, max] of expect[era]) {
      const d = trees.flatMap((t) => t.domains[0]).find((x) => x.level === level);
      assert.ok(d, `${era}: no ${level} domain found`);
      const w = d.spanWeight;
      assert.equal(d.imbalancePct, imb, `${era} ${level} imbalance_pct`);
      assert.equal(d.cacheNiceTries, cnt, `${era} ${level} cache_nice_tries`);
      assert.equal(d.busyFactor, busy, `${era} ${level} busy_factor`);
      assert.equal(d.minInterval, min === "w" ? w : min, `${era} ${level} min_interval`);
      assert.equal(d.maxInterval, max === "2w" ? 2 * w : max, `${era} ${level} max_interval`);
      assert.equal(d.balanceInterval, era === "2.6.29" ? 1 : w, `${era} ${level} balance_interval`);
    }
  }
});

test("era flags: NEWIDLE only on SIBLING in 2.6.29; PREFER_SIBLING off NUMA from 5.6; LLC flag on MC", () => {
  const t29 = build("numa-2x12x2", "2.6.29");
  assert.deepEqual(levels(t29, 0), ["SIBLING", "MC", "NODE"]);
  assert.ok(at(t29, 0, "SIBLING").flags & SD_BALANCE_NEWIDLE);
  assert.equal(at(t29, 0, "MC").flags & SD_BALANCE_NEWIDLE, 0);
  assert.equal(at(t29, 0, "NODE").flags & SD_BALANCE_NEWIDLE, 0);
  assert.ok(at(t29, 0, "NODE").flags & SD_SERIALIZE);
  assert.deepEqual(
    at(t29, 0, "NODE").groups.map((g) => g.capacity),
    [1024, 1024],
  ); // one package each
  for (const era of ["5.6", "5.19", "6.19"] as Era[]) {
    const t = build("numa-2x12x2", era);
    assert.ok(
      at(t, 0, "MC").flags & SD_PREFER_SIBLING && at(t, 0, "MC").flags & SD_SHARE_PKG_RESOURCES,
      era,
    );
    assert.equal(at(t, 0, "NUMA").flags & SD_PREFER_SIBLING, 0, era);
  }
  assert.deepEqual(levels(build("xeon-x5472", "6.19"), 0), ["MC", "PKG"]);
  assert.deepEqual(levels(build("xeon-x5472", "2.6.29"), 0), ["MC", "CPU"]);
});

test("NUMA levels beyond RECLAIM_DISTANCE lose wake-affine and exec/fork balancing", () => {
  const m = machineBuilder()
    .sockets(2)
    .cores(2)
    .nodes(2)
    .distance([
      [10, 40],
      [40, 10],
    ])
    .build();
  const t = buildSchedDomains(m, m.online, "5.19");
  const numa = at(t, 0, "NUMA");
  assert.equal(numa.flags & SD_WAKE_AFFINE, 0);
});

test("describeDomains lists spans, groups with capacity and flags by name", () => {
  const s = describeDomains(build("core2-2x2", "2.6.29", [3]));
  assert.match(s, /cpu0: sd_llc_size=2/);
  assert.match(s, /domain-1: CPU span=0-2 weight=3/);
  assert.match(s, /groups: \{0-1\} cap=1024, \{2\} cap=1024/);
  assert.match(s, /flags: SD_LOAD_BALANCE .*SD_WAKE_BALANCE/);
  assert.match(s, /cpu3: offline/);
});

test("describeDomains with an era prints that era's fields and flag names", () => {
  const tree = (era: Era) => build("x86-104t", era);
  const d48 = describeDomains(tree("4.8"), "4.8");
  assert.match(d48, /idx\(busy\/idle\/newidle\/wake\/forkexec\)=/);
  assert.match(d48, /flags: SD_LOAD_BALANCE /);
  const d56 = describeDomains(tree("5.6"), "5.6");
  assert.doesNotMatch(d56, /idx\(/); // sd->*_idx went with cpu_load[] in v5.3
  assert.match(d56, /flags: SD_LOAD_BALANCE /);
  const d519 = describeDomains(tree("5.19"), "5.19");
  assert.doesNotMatch(d519, /SD_LOAD_BALANCE/); // v5.8
  assert.match(d519, /SD_SHARE_PKG_RESOURCES/);
  const d619 = describeDomains(tree("6.19"), "6.19");
  assert.doesNotMatch(d619, /SD_SHARE_PKG_RESOURCES/); // v6.9's SD_SHARE_LLC
  assert.match(d619, /flags: SD_BALANCE_NEWIDLE .*SD_SHARE_LLC/);
  // Without an era the dump shows the model's flags as they are.
  assert.match(describeDomains(tree("6.19")), /flags: SD_LOAD_BALANCE .*SD_SHARE_PKG_RESOURCES/);
});

test("online must have one entry per CPU and at least one online", () => {
  const m = preset("core2-2x2");
  assert.throws(
    () => buildSchedDomains(m, [true, true], "4.8"),
    /online must be a boolean per CPU \(4 entries; got 2\)/,
  );
  assert.throws(
    () => buildSchedDomains(m, [false, false, false, false], "4.8"),
    /at least one CPU online/,
  );
});
