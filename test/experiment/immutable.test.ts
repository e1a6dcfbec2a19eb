import { test } from "node:test";
import assert from "node:assert/strict";
import { patch, topology, workload } from "../../src/index";

const hogs = workload.hogs({ n: 4, seconds: 0.2 });

test("an experiment's earlier value is unchanged by a later .era() or .variants()", () => {
  const base = topology("core2-2x2").workload(hogs);
  const before = base.spec();
  const old = base.era("2.6.29");
  const ab = base.variants({ a: [], b: [patch("hz100").tunable("hz", 100)] });
  assert.deepEqual(base.spec(), before);
  assert.equal(base.spec().era, "6.19");
  assert.equal(old.spec().era, "2.6.29");
  assert.deepEqual(before.variants, { baseline: [] });
  assert.deepEqual(ab.spec().variants, { a: [], b: ["hz100"] });
  assert.ok(Object.isFrozen(base));
});

test("offline, tunables, patch and hotplug return new experiments too", () => {
  const base = topology("core2-2x2").workload(hogs);
  const changed = base
    .offline(3)
    .tunables({ hz: 250 })
    .patch(patch("x"))
    .hotplug(0.1, 2, "offline");
  const s = base.spec();
  assert.deepEqual([s.offline, s.tunables, s.hotplug], [[], {}, []]);
  assert.deepEqual(s.variants, { baseline: [] });
  const c = changed.spec();
  assert.deepEqual([c.offline, c.tunables, c.hotplug.length], [[3], { hz: 250 }, 1]);
  assert.deepEqual(c.variants, { x: [] });
});

test("machine-builder steps do not change the experiment they were called on", () => {
  const two = topology().sockets(2).cores(2);
  const four = two.cores(4);
  assert.equal(two.machine().cpus.length, 4);
  assert.equal(four.machine().cpus.length, 8);
});

test("a base experiment reused for two variants gives independent results", async () => {
  const base = topology("core2-2x2").era("2.6.29").workload(hogs);
  const lowHz = base.variants({ v: [patch("hz100").tunable("hz", 100)] });
  const plain = base.variants({ v: [] });
  const alone = await topology("core2-2x2")
    .era("2.6.29")
    .workload(hogs)
    .variants({ v: [] })
    .run({ seed: 3 });
  const [a, b] = [await lowHz.run({ seed: 3 }), await plain.run({ seed: 3 })];
  assert.deepEqual(JSON.stringify(b.data), JSON.stringify(alone.data));
  assert.notDeepEqual(a.data.iterations[0].sched, b.data.iterations[0].sched);
});
