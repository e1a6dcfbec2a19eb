// Cost profiles by CPU family: what the builder, topology() and machine import start from, and
// which figures are guesses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { costFigureNames, machineBuilder } from "../../src/machine/builder";
import { preset } from "../../src/machine/presets";
import {
  COST_PROFILES,
  costProfile,
  costProfileNames,
  isGuess,
  machineFigures,
} from "../../src/machine/profiles";
import { importMachine } from "../../src/machine/import";
import { mapReader, readSysfs, sysfsFilesOf } from "../../src/machine/sysfs";
import { buildSchedDomains } from "../../src/kernel/topology/topology";
import { topology } from "../../src/experiment/experiment";

test("every generic profile stands for a preset and carries every cost figure with a source", () => {
  for (const info of COST_PROFILES) {
    const p = costProfile(info.name);
    const m = preset(info.preset);
    assert.deepEqual(p.costs, m.costs, info.name);
    for (const f of costFigureNames()) assert.ok(p.sources[f]?.length, `${info.name}: ${f}`);
  }
  assert.ok(costProfileNames().includes("arm64-a53-2016"));
  assert.ok(costProfileNames().includes("core2-2x2"), "preset names are profiles too");
  assert.throws(() => costProfile("z80"), /unknown cost profile "z80"; accepted: x86-server-2008/);
});

test("the builder starts from a profile; costs() overrides it and says the figure is unsourced", () => {
  const m = machineBuilder()
    .cores(8)
    .l2SharedBy(4)
    .llc("l2")
    .profile(costProfile("arm64-a53-2016"))
    .costs({ syscallNs: 250 })
    .build();
  assert.equal(m.costs.contextSwitchNs, 4000);
  assert.equal(m.costs.syscallNs, 250);
  assert.deepEqual(
    m.idleStates.map((s) => s.name),
    ["WFI", "CPU_SLEEP", "CLUSTER_SLEEP"],
  );
  assert.equal(m.caches.l2Bytes, 512 * 1024);
  assert.match(m.sources["costs.contextSwitchNs"], /^profile arm64-a53-2016: estimate:/);
  assert.equal(m.sources["costs.syscallNs"], "builder: given without a source");
  assert.equal(m.sources["idle.C1.exitLatencyNs"], undefined, "no default C1 left behind");
  // the same through topology()
  const t = topology().cores(8).l2SharedBy(4).llc("l2").profile("x86-server-2015").machine();
  assert.deepEqual(t.costs, preset("hsw-ep-2x18x2").costs);
});

test("guesses: choice / estimate / defaults, also behind a profile prefix; citations are not", () => {
  assert.equal(isGuess("choice: ~300 cycles"), true);
  assert.equal(isGuess("profile x86-104t, not measured on this machine: estimate: 1 us"), true);
  assert.equal(isGuess("builder default: 1 MiB (choice)"), true);
  assert.equal(isGuess("hi6220.dtsi CPU_SLEEP min-residency-us 1000"), false);
  const lines = machineFigures(preset("hikey-a53-2x4"));
  assert.ok(lines.some((l) => /^sourced idle\.CPU_SLEEP\.exitLatencyNs = 950000: /.test(l)));
  assert.ok(lines.some((l) => /^guess {3}costs\.contextSwitchNs = 4000: estimate/.test(l)));
});

test("hikey-a53-2x4: two clusters of four A53s, MC per cluster and one package level in every era", () => {
  const m = preset("hikey-a53-2x4");
  assert.equal(m.cpus.length, 8);
  for (const era of ["4.8", "5.19", "6.19"] as const) {
    const t = buildSchedDomains(m, m.online, era);
    assert.deepEqual(
      t.domains[5].map((d) => [d.level, d.span.join(",")]),
      [
        ["MC", "4,5,6,7"],
        [era === "6.19" ? "PKG" : "DIE", "0,1,2,3,4,5,6,7"],
      ],
      era,
    );
    assert.equal(t.clusterActive, false);
  }
  // cpuidle: dt_idle_states.c sums entry + exit latency, or takes wakeup-latency-us
  const [wfi, cpu, cluster] = m.idleStates;
  assert.deepEqual(
    [wfi.exitLatencyNs, cpu.exitLatencyNs, cluster.exitLatencyNs],
    [1000, 950_000, 1_500_000],
  );
});

test("machine import takes a generic profile by name", () => {
  const files = sysfsFilesOf(preset("hikey-a53-2x4"));
  const res = importMachine(readSysfs(mapReader(files), "hikey"), { profile: "arm64-a53-2016" });
  assert.deepEqual(
    res.spec.idleStates.map((s) => s.name),
    ["WFI", "CPU_SLEEP", "CLUSTER_SLEEP"],
  );
  assert.equal(res.spec.topology.l2SharedBy, 4);
  assert.equal(res.spec.topology.llc, "l2");
  assert.match(res.spec.costs.contextSwitchNs.source, /^profile arm64-a53-2016, not measured/);
  assert.throws(
    () => importMachine(readSysfs(mapReader(files), "h"), { profile: "nope" }),
    /accepted:/,
  );
});
