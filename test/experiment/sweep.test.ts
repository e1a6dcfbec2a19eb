// Sweeps over declared unknowns: the points each design runs, the frame's shape (one row per
// point x variant x iteration), and the sensitivity and envelope data the plots draw.
import { test } from "node:test";
import assert from "node:assert/strict";
import { patch, sweepPoints, topology, unknown, workload } from "../../src/index";

const switchNs = unknown("context_switch_ns", {
  range: [1000, 4000],
  default: 2000,
  unit: "ns",
  source: "choice: 1-4 us on x86 parts",
  apply: (e, v) => e.costs({ contextSwitchNs: Number(v) }),
});
const work = unknown("work_ns", {
  range: [0, 2000],
  default: 200,
  unit: "ns",
  source: "choice: the work each side does per message",
  apply: (e, v) => e.workload(workload.pingpong({ pairs: 1, seconds: 0.02, workNs: Number(v) })),
});
const exp = topology("core2-2x2")
  .workload(workload.pingpong({ pairs: 1, seconds: 0.02 }))
  .variants({ base: [], hz100: [patch("hz100").tunable("hz", 100)] })
  .unknowns(switchNs, work);
const grid = { context_switch_ns: [1000, 2000, 4000], work_ns: [0, 200, 2000] };

test("a grid runs every combination; one-at-a-time moves one unknown from the base", () => {
  const base = exp.unknownValues();
  assert.equal(sweepPoints(exp.declaredUnknowns(), base, grid).length, 9);
  const oat = sweepPoints(exp.declaredUnknowns(), base, grid, "one-at-a-time");
  // the base point, then 2 more values of each unknown (the base value is not run twice)
  assert.equal(oat.length, 5);
  assert.deepEqual(oat[0], { context_switch_ns: 2000, work_ns: 200 });
  assert.ok(oat.every((p) => p.context_switch_ns === 2000 || p.work_ns === 200));
  assert.throws(
    () => sweepPoints(exp.declaredUnknowns(), base, { nope: [1] }),
    /"nope" is not a declared unknown \(declared: context_switch_ns, work_ns\)/,
  );
  assert.throws(
    () => sweepPoints(exp.declaredUnknowns(), base, { work_ns: [5000] }),
    /work_ns: grid.work_ns value must be a number in its range \[0, 2000\]/,
  );
  assert.throws(
    () => sweepPoints(exp.declaredUnknowns(), base, grid, "random" as never),
    /design must be "grid" or "one-at-a-time"/,
  );
});

test("the sweep frame has one row per point x variant x iteration, with the unknowns as columns", () => {
  const sw = exp.sweepSync(grid, { iterations: 2 });
  assert.equal(sw.points.length, 9);
  const rows = sw.rows();
  assert.equal(rows.length, 9 * 2 * 2);
  for (const r of rows) {
    assert.ok(typeof r.context_switch_ns === "number" && typeof r.work_ns === "number");
    assert.ok(["base", "hz100"].includes(String(r.variant)));
    assert.ok(Number.isFinite(Number(r.round_trip_us)));
  }
  // each point's runs used its values
  for (const p of sw.points) assert.deepEqual(p.results.data.spec.unknowns, p.values);
  // figure rows: one per point x figure, the figure ids metric/variant
  assert.equal(sw.figureRows().length, 9 * sw.figureIds().length);
  assert.ok(sw.figureIds().includes("round_trip_us/hz100"));

  // sensitivity: per figure and unknown, the low and high ends with the others at base
  const sens = sw.sensitivity(["round_trip_us/base"]);
  assert.equal(sens.rows.length, 2);
  const cs = sens.rows.find((r) => r.unknown === "context_switch_ns")!;
  assert.deepEqual([cs.low.value, cs.high.value], [1000, 4000]);
  assert.ok(cs.high.figure > cs.low.figure, "slower switches, slower round trips");
  assert.ok(cs.low.figure < cs.base && cs.base < cs.high.figure);

  // envelope: the figure over one unknown's values, others at base
  const env = sw.envelope("work_ns", "round_trip_us/base");
  assert.deepEqual(
    env.points.map((p) => p.value),
    [0, 200, 2000],
  );
  assert.ok(env.points[2].mean > env.points[0].mean + 3, "4 us more work per round trip");
  assert.ok(env.points.every((p) => p.min <= p.mean && p.mean <= p.max));
  assert.throws(() => sw.envelope("nope", "round_trip_us/base"), /"nope" was not swept/);
  assert.throws(() => sw.envelope("work_ns", "nope/base"), /no figure "nope\/base"/);

  // the plots are plotly figures: a bar per unknown, then the base markers
  const tornado = sw.plot.sensitivity({ figures: ["round_trip_us/base"], scale: "value" });
  assert.deepEqual(
    tornado.data.map((t) => t.name),
    ["context_switch_ns", "work_ns", "base values", "published"],
  );
  const envFig = sw.plot.envelope("work_ns", "round_trip_us/base");
  assert.equal(envFig.data.length, 3);
});
