import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { importMachine } from "../../src/machine/import";
import { machineFromSpec, preset, presetNames } from "../../src/machine/presets";
import { machineBuilder } from "../../src/machine/builder";
import { mapReader, readLscpu, readSysfs, sysfsFilesOf } from "../../src/machine/sysfs";
import type { Machine } from "../../src/machine/types";
import {
  buildSchedDomains,
  defaultGroupCapacity,
  describeDomains,
} from "../../src/kernel/topology/topology";
import type { Era } from "../../src/kernel/features";
import { bigLittleMachine } from "../support/big_little";

const fromFiles = (files: Record<string, string>, where = "fixture") =>
  readSysfs(mapReader(files), where);
const domains = (m: Machine, era: Era) =>
  describeDomains(buildSchedDomains(m, m.online, era, defaultGroupCapacity(era)));
const layout = (m: Machine) =>
  m.cpus.map(({ id, thread, core, die, package: p, node, l2, llc }) => ({
    id,
    thread,
    core,
    die,
    p,
    node,
    l2,
    llc,
  }));

/** `lscpu -p=CPU,CORE,SOCKET,NODE,CACHE` as util-linux prints it for machine m. */
function lscpuP(m: Machine): string {
  const head = "# The following is the parsable format\n# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n";
  return (
    head +
    m.cpus
      .map((c) => `${c.id},${c.core},${c.package},${c.node},,${c.core},${c.core},${c.l2},${c.llc}`)
      .join("\n") +
    "\n"
  );
}

/** `lscpu -e` for machine m. */
function lscpuE(m: Machine): string {
  const rows = m.cpus.map(
    (c) =>
      `${c.id} ${c.node} ${c.package} ${c.core} ${c.core}:${c.core}:${c.l2}:${c.llc} ${m.online[c.id] ? "yes" : "no"}`,
  );
  return `${["CPU NODE SOCKET CORE L1d:L1i:L2:L3 ONLINE", ...rows].join("\n")}\n`;
}

test("every preset exported as a sysfs tree imports back to the same machine and the same sched domains", () => {
  for (const name of presetNames()) {
    const m = preset(name);
    const res = importMachine(fromFiles(sysfsFilesOf(m), name), { profile: name, name });
    const back = machineFromSpec(res.spec, name);
    assert.deepEqual(layout(back), layout(m), name);
    assert.deepEqual(back.caches, m.caches, name);
    assert.deepEqual(back.nodeDistance, m.nodeDistance, name);
    assert.deepEqual(back.costs, m.costs, name);
    for (const era of ["2.6.29", "4.8", "5.6", "6.19"] as Era[])
      assert.equal(domains(back, era), domains(m, era), `${name} ${era}`);
  }
});

test("the numbering is found: a core-major box (siblings adjacent) imports as core-major", () => {
  const m = machineBuilder()
    .sockets(2)
    .cores(4)
    .threads(2)
    .llc("package")
    .numbering("core-major")
    .build();
  const res = importMachine(fromFiles(sysfsFilesOf(m)));
  assert.equal(res.spec.topology.numbering, "core-major");
  assert.deepEqual(layout(machineFromSpec(res.spec)), layout(m));
});

test("offline CPUs are listed, placed by the others' layout, and said in a warning", () => {
  const m = preset("x86-104t");
  m.online[5] = false;
  m.online[57] = false;
  const res = importMachine(fromFiles(sysfsFilesOf(m)), { profile: "x86-104t" });
  assert.deepEqual(res.offline, [5, 57]);
  assert.ok(
    res.warnings.some((w) => /cpu 5,57: offline when read/.test(w)),
    res.warnings.join("\n"),
  );
  assert.deepEqual(layout(machineFromSpec(res.spec)), layout(preset("x86-104t")));
});

test("lscpu -p and lscpu -e output import to the same machine as sysfs, with cache sizes from the profile", () => {
  for (const name of ["numa-2x12x2", "xeon-x5472", "x86-104t"]) {
    const m = preset(name);
    // lscpu prints no die ids: the dies of an MCM package (xeon-x5472) are not seen
    const noDie = (x: Machine) => layout(x).map(({ die: _die, ...rest }) => rest);
    for (const text of [lscpuP(m), lscpuE(m)]) {
      const res = importMachine(readLscpu(text), { profile: name });
      assert.deepEqual(noDie(machineFromSpec(res.spec)), noDie(m), name);
      assert.ok(res.warnings.some((w) => /no die ids: one die per package assumed/.test(w)));
      assert.ok(res.warnings.some((w) => /caches.l2Bytes: not in the source/.test(w)));
    }
  }
});

test("this development machine's captured sysfs tree imports, its costs marked as borrowed", () => {
  const files = JSON.parse(
    fs.readFileSync(path.join(__dirname, "fixtures", "dev-2cpu.sysfs.json"), "utf8"),
  );
  const res = importMachine(fromFiles(files, "dev-2cpu"));
  assert.equal(res.spec.topology.sockets, 1);
  assert.equal(res.spec.topology.coresPerSocket, 2);
  assert.equal(res.spec.topology.llc, "package");
  assert.equal(res.spec.caches.llcBytes.value, 491520 * 1024);
  assert.match(
    res.spec.costs.contextSwitchNs.source,
    /^profile x86-104t, not measured on this machine: /,
  );
  assert.match(domains(machineFromSpec(res.spec), "5.6"), /domain-0: MC span=0-1/);
});

test("the live /sys of the machine running the tests imports", (t) => {
  if (!fs.existsSync("/sys/devices/system/cpu")) {
    t.skip("/sys/devices/system/cpu does not exist here (not Linux, or /sys not mounted)");
    return;
  }
  const { readSysfsDir } =
    require("../../src/machine/sysfs") as typeof import("../../src/machine/sysfs");
  const res = importMachine(readSysfsDir());
  const m = machineFromSpec(res.spec);
  assert.equal(
    m.cpus.length,
    fs
      .readFileSync("/sys/devices/system/cpu/present", "utf8")
      .trim()
      .split(",")
      .reduce((n, r) => {
        const [a, b] = r.split("-").map(Number);
        return n + (b === undefined ? 1 : b - a + 1);
      }, 0),
  );
});

test("partial trees take stated defaults with a warning; malformed ones fail naming the file and the field", () => {
  const m = preset("xeon-x5472");
  const files = sysfsFilesOf(m);
  const noCache = Object.fromEntries(Object.entries(files).filter(([k]) => !k.includes("/cache/")));
  const res = importMachine(fromFiles(noCache, "nocache"), { profile: "xeon-x5472" });
  assert.ok(
    res.warnings.some((w) =>
      /missing cpu\*\/cache\/ \(one L2 per core and one LLC per package assumed\)/.test(w),
    ),
  );
  assert.equal(res.spec.topology.llc, "package");

  const bad = { ...files, "node/node0/cpulist": "0-3,x\n" };
  assert.throws(() => fromFiles(bad, "bad"), /bad\/node\/node0\/cpulist: not a CPU list: "0-3,x"/);
  const badSize = { ...files, "cpu/cpu0/cache/index2/size": "lots\n" };
  assert.throws(
    () => fromFiles(badSize, "bad"),
    /bad\/cpu\/cpu0\/cache\/index2\/size: not a cache size: "lots"/,
  );

  // big.LITTLE: capacities differ, and each CPU keeps its own
  const bl = { ...files };
  for (const c of [0, 1, 2, 3]) bl[`cpu/cpu${c}/cpu_capacity`] = "446\n";
  const big = importMachine(fromFiles(bl, "biglittle"));
  assert.deepEqual(big.spec.topology.capacities, [446, 446, 446, 446, 1024, 1024, 1024, 1024]);
  assert.deepEqual(
    big.machine.cpus.map((c) => c.capacity),
    [446, 446, 446, 446, 1024, 1024, 1024, 1024],
  );

  // an L3 shared by half a package (a CCX): not an LLC span the schema has
  const ccx = sysfsFilesOf(preset("numa-2x12x2"));
  for (let c = 0; c < 48; c++) {
    if (!ccx[`cpu/cpu${c}/cache/index3/shared_cpu_list`]) continue;
    const half = c % 24 < 6 || (c % 24 >= 12 && c % 24 < 18);
    ccx[`cpu/cpu${c}/cache/index3/shared_cpu_list`] = half ? "0-5,24-29\n" : "6-11,30-35\n";
  }
  assert.throws(
    () => importMachine(fromFiles(ccx, "ccx")),
    /ccx: cpu0's last-level cache \(L3, CPUs .*\) spans neither its L2, its die nor its package/,
  );

  // cores numbered in an order neither scheme gives
  const odd = sysfsFilesOf(preset("core2-2x2"));
  // packages {0,2} and {1,3}
  for (const c of [0, 1, 2, 3]) {
    odd[`cpu/cpu${c}/topology/physical_package_id`] = `${c % 2}\n`;
    odd[`cpu/cpu${c}/cache/index2/shared_cpu_list`] = c % 2 ? "1,3\n" : "0,2\n";
  }
  assert.throws(
    () => importMachine(fromFiles(odd, "odd")),
    /odd: the CPU numbering is neither of thread-major, core-major/,
  );
});

test("clusters: cluster_cpus_list round-trips with the L2, the CLS level comes back, and a cluster unlike the L2 is reported", () => {
  const m = machineBuilder().name("cls").cores(8).l2SharedBy(4).llc("package").build();
  const files = sysfsFilesOf(m);
  assert.equal(files["cpu/cpu5/topology/cluster_cpus_list"], "4-7\n");
  const t = fromFiles(files, "cls");
  assert.deepEqual(t.cpus[5].clusterCpus, [4, 5, 6, 7]);
  const res = importMachine(t, { name: "cls" });
  assert.equal(domains(res.machine, "6.19"), domains(m, "6.19"));
  assert.match(domains(res.machine, "6.19"), /domain-0: CLS span=4-7/);
  assert.ok(!res.warnings.some((w) => /cluster_cpus_list/.test(w)));
  // an arm64 ACPI-style cluster of 4 cores with private L2s
  const odd = { ...files };
  for (let c = 0; c < 8; c++) odd[`cpu/cpu${c}/cache/index2/shared_cpu_list`] = `${c}\n`;
  const w = importMachine(fromFiles(odd, "acpi"), { name: "acpi" }).warnings;
  assert.ok(
    w.some((x) =>
      /cpu0: topology\/cluster_cpus_list 0,1,2,3 differs from its L2 sharing 0; the model's clusters \(the CLS level\) follow the L2/.test(
        x,
      ),
    ),
    w.join("\n"),
  );
});

test("big.LITTLE round trip: cpu_capacity per CPU comes back, and so do the asymmetric domains", () => {
  const m = bigLittleMachine();
  const res = importMachine(fromFiles(sysfsFilesOf(m), "bl"), { name: "bl" });
  assert.deepEqual(res.spec.topology.capacities, [462, 462, 462, 462, 1024, 1024, 1024, 1024]);
  for (const era of ["5.6", "6.19"] as Era[])
    assert.equal(domains(res.machine, era), domains(m, era));
  assert.match(domains(res.machine, "6.19"), /SD_ASYM_CPUCAPACITY SD_ASYM_CPUCAPACITY_FULL/);
});

test("a box with no cpuidle driver halts when idle: one non-polling HLT state, its exit a stated choice", () => {
  const files = sysfsFilesOf(preset("core2-2x2"));
  const withDriver = importMachine(
    fromFiles({ ...files, "cpu/cpuidle/current_driver": "intel_idle\n" }),
    {
      profile: "x86-104t",
    },
  );
  assert.deepEqual(
    withDriver.spec.idleStates.map((s) => s.name),
    preset("x86-104t").idleStates.map((s) => s.name),
    "a cpuidle driver: the profile's states",
  );
  const halts = importMachine(fromFiles({ ...files, "cpu/cpuidle/current_driver": "none\n" }), {
    profile: "x86-104t",
  });
  assert.equal(halts.spec.idleStates.length, 1);
  const [hlt] = halts.spec.idleStates;
  assert.equal(hlt.name, "HLT");
  const polling = hlt.polling as { value: boolean; source: string };
  assert.equal(polling.value, false);
  assert.match(polling.source, /current_driver is none: default_idle_call -> arch_cpu_idle/);
  assert.match(hlt.exitLatencyNs.source, /^choice: .*calibrate it on a recorded trace/);
  assert.ok(halts.warnings.some((w) => /no cpuidle driver, so the CPUs halt/.test(w)));
  const m = machineFromSpec(halts.spec);
  assert.equal(m.idleStates[0].polling, false);
});
