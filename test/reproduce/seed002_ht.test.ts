// Seed 002-ht's unknowns: the candidate HT boxes (their topology as their sources give it, and
// the 2.6.29 domains that follow with cpu3 offline) and the SMT sibling speed, which enters the
// run while the closed-form loop_ns calibration follows it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { seeds, topology } from "../../src/index";
import { HT_BOXES, htBox, htMachine } from "../../src/reproduce/seed002_ht";
import { reproductionAt } from "../../src/reproduce/registry";
import { sweepReproduction } from "../../src/reproduce/unknowns";

test("each candidate HT box builds the topology its source gives", () => {
  assert.deepEqual(
    htMachine.choices,
    HT_BOXES.map((b) => b.name),
  );
  for (const box of HT_BOXES) {
    const m = topology(htBox(box.name)).machine();
    const coreMajor = box.name.includes("coremajor");
    assert.equal(m.cpus.length, 4, box.name);
    // SMT siblings: the core's threads, as the numbering puts them
    const pairs = [...new Set(m.cpus.map((c) => c.core))].map((core) =>
      m.cpus.filter((c) => c.core === core).map((c) => c.id),
    );
    assert.deepEqual(pairs, box.siblings, `${box.name} siblings`);
    assert.deepEqual(
      pairs,
      coreMajor
        ? [
            [0, 1],
            [2, 3],
          ]
        : [
            [0, 2],
            [1, 3],
          ],
      box.name,
    );
    // cpu3's sibling: the thread left alone when cpu3 goes offline
    const sib3 = m.cpus.find((c) => c.id !== 3 && c.core === m.cpus[3].core)!.id;
    assert.equal(sib3, coreMajor ? 2 : 1, `${box.name}: cpu3's sibling`);
    assert.equal(
      new Set(m.cpus.map((c) => c.package)).size,
      box.name.startsWith("ht-2x1x2") ? 2 : 1,
      `${box.name} packages`,
    );
    const l3 = box.name.includes("-l3");
    assert.equal(new Set(m.cpus.map((c) => c.llc)).size, l3 ? 1 : 2, `${box.name} LLCs`);
    assert.ok(m.sources.topology.length > 40, `${box.name} topology source`);

    // 2.6.29 with cpu3 offline: the two-thread core and the lone thread meet at the CPU level
    // (cores with private caches) or at MC (a shared L3), both groups worth one CPU before the
    // patch and the pair worth two after it
    const exp = topology(htBox(box.name)).era("2.6.29").offline(3);
    const top = (patched: boolean) => {
      const tree = exp.domains(patched ? [seeds.groupPower2009] : []);
      const ds = tree.domains[0];
      return ds[ds.length - 1];
    };
    const pair = coreMajor ? [0, 1] : [0, 2];
    const lone = coreMajor ? [2] : [1];
    for (const [patched, caps] of [
      [false, [1024, 1024]],
      [true, [2048, 1024]],
    ] as const) {
      const sd = top(patched);
      assert.equal(sd.level, l3 ? "MC" : "CPU", `${box.name} top level`);
      assert.deepEqual(
        sd.groups.map((g) => [...g.cpus]),
        [pair, lone],
        `${box.name} groups`,
      );
      assert.deepEqual(
        sd.groups.map((g) => g.capacity),
        caps,
        `${box.name} ${patched ? "patched" : "2.6.29"} group power`,
      );
    }
  }
  assert.throws(() => htBox("ht-4x1x2"), /ht_machine: unknown box "ht-4x1x2"; accepted: ht-2x1x2,/);
});

test("002-ht: the sibling speed enters the run, and the loop_ns closed form follows it", () => {
  const profile = { iterations: 1, duration: 15.01 };
  const at = (s: number) => reproductionAt("002-ht", { smt_sibling_speed: s });
  const slow = at(0.6);
  const fast = at(1);
  assert.equal(slow.machine().costs.smtSiblingSpeed, 0.6);
  assert.equal(fast.machine().costs.smtSiblingSpeed, 1);
  // loop_ns = (5 s x busy lone-thread CPUs / 8 hogs) / 536.75: 1 + 2s CPUs with cpu3 offline
  for (const [e, s] of [
    [slow, 0.6],
    [fast, 1],
  ] as const) {
    const want = ((5 * (1 + 2 * s)) / 8 / 536.75) * 1e9;
    assert.ok(Math.abs(Number(e.unknownValues().loop_ns) / want - 1) < 1e-12, `loop_ns at s=${s}`);
  }
  const rs = slow.runSync(profile);
  const rf = fast.runSync(profile);
  // the calibration target holds at both speeds; the spread moves with s: 4 + 4 split, pair
  // tasks at s / 2 and lone-thread tasks at 1 / 4, so cv = |2s - 1| / (2s + 1)
  for (const r of [rs, rf]) assert.ok(Math.abs(r.mean("avg_loops", "pre") / 536.75 - 1) < 0.01);
  assert.ok(
    Math.abs(rs.mean("cv_loops", "pre") - 0.2 / 2.2) < 0.03,
    `${rs.mean("cv_loops", "pre")}`,
  );
  assert.ok(Math.abs(rf.mean("cv_loops", "pre") - 1 / 3) < 0.03, `${rf.mean("cv_loops", "pre")}`);
});

test("a sweep refits loop_ns at every point, on worker threads as in this one", {
  timeout: 120_000,
}, async () => {
  const grid = { smt_sibling_speed: [0.5, 1], ht_machine: ["ht-2x1x2-coremajor"] };
  const profile = { iterations: 1, duration: 10.01 };
  const here = await sweepReproduction("002-ht", grid, { profile });
  const pooled = await sweepReproduction("002-ht", grid, { profile, jobs: 2 });
  assert.deepEqual(
    here.points.map((p) => p.values.loop_ns),
    [(((5 * 2) / 8) * 1e9) / 536.75, (((5 * 3) / 8) * 1e9) / 536.75],
  );
  assert.ok(!("loop_ns" in here.base), "a refitted unknown is no base value of the sweep");
  for (const p of here.points) {
    const pre = p.figures.find((f) => f.id === "avg_loops/pre")!;
    assert.equal(pre.role, "calibrated");
    assert.ok(Math.abs(pre.simulated / 536.75 - 1) < 0.01, `avg_loops pre ${pre.simulated}`);
  }
  assert.equal(
    JSON.stringify(pooled.points.map((p) => [p.values, p.results.data])),
    JSON.stringify(here.points.map((p) => [p.values, p.results.data])),
  );
});
