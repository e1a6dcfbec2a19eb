import { test } from "node:test";
import assert from "node:assert/strict";
import {
  formatCpuList,
  parseCpuList,
  readLscpu,
  readSysfs,
  mapReader,
  sysfsFilesOf,
} from "../../src/machine/sysfs";
import { preset } from "../../src/machine/presets";

test("cpulists parse and format as the kernel writes them (bitmap_list_string)", () => {
  assert.deepEqual(parseCpuList("0-3,8,10-11\n", "f"), [0, 1, 2, 3, 8, 10, 11]);
  assert.deepEqual(parseCpuList("\n", "f"), []);
  assert.equal(formatCpuList([11, 0, 1, 2, 3, 8, 10]), "0-3,8,10-11");
  assert.throws(() => parseCpuList("3-1", "f"), /f: range 3-1 runs backwards/);
  assert.throws(() => parseCpuList("0-", "f"), /f: not a CPU list: "0-"/);
});

test("a sysfs tree gives each CPU its package, core siblings, L2 and LLC sharing, node and capacity", () => {
  const t = readSysfs(mapReader(sysfsFilesOf(preset("numa-2x12x2"))), "numa");
  assert.equal(t.cpus.length, 48);
  const c = t.cpus[13];
  assert.equal(c.package, 1);
  assert.deepEqual(c.coreCpus, [13, 37]);
  assert.equal(c.node, 1);
  assert.equal(c.llcLevel, 3);
  assert.equal(c.llcCpus!.length, 24);
  assert.equal(c.capacity, 1024);
  assert.deepEqual(t.nodeDistance, preset("numa-2x12x2").nodeDistance);
  assert.deepEqual(t.missing, []);
});

test("lscpu -p: cache ids group the CPUs that share a cache; CPUs without a CORE column are their own cores", () => {
  const t = readLscpu(
    "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n0,0,0,0,,0,0,0,0\n1,1,0,0,,1,1,0,0\n2,2,0,0,,2,2,1,0\n3,3,0,0,,3,3,1,0\n",
  );
  assert.deepEqual(t.cpus[2].l2Cpus, [2, 3]);
  assert.deepEqual(t.cpus[2].llcCpus, [0, 1, 2, 3]);
  assert.deepEqual(t.cpus[2].coreCpus, [2]);
  assert.throws(() => readLscpu("hello\n", "x"), /x: no header line/);
  assert.throws(
    () => readLscpu("# CPU,Core\nzero,0\n", "x"),
    /x: CPU must be an integer \(got "zero"/,
  );
});
