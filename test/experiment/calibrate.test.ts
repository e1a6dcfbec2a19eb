// Calibration: a known value comes back from the model's own output (on other seeds, within the
// noise), and every rule is refused by name: more unknowns than targets, a target that is also a
// prediction, a target that is not a published number, an undeclared unknown.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startDesign, topology, unknown, workload } from "../../src/index";

// A machine whose only idle state is a halting C1 with a set exit latency: schbench's wakeup
// latency rides on it (its workers sleep on idle CPUs between messages).
const exitUs = unknown("c1_exit_us", {
  range: [1, 100],
  default: 10,
  unit: "us",
  source: "choice: a test machine's C1 exit",
  apply: (e, v) =>
    e.editMachine(`C1 exit ${v} us`, (m) => {
      m.idleStates[0].exitLatencyNs = Number(v) * 1000;
      m.idleStates[0].targetResidencyNs = 2 * Number(v) * 1000;
      m.idleStates[0].polling = false;
    }),
});
const noise = { ratePerSec: 400, runNs: 50_000 };
const exp = topology("core2-2x2")
  .workload(
    workload.withBackground(
      workload.schbench({ messageThreads: 1, workers: 2, runtime: 0.5 }),
      noise,
    ),
  )
  .unknowns(exitUs);

test("calibration recovers a set exit latency from the model's own output, on other seeds", () => {
  const truth = 37;
  const measured = exp
    .assume({ c1_exit_us: truth })
    .runSync({ iterations: 3, seed: "truth" })
    .mean("lat_p50", "baseline");
  const { experiment, record } = exp.calibrateSync({
    targets: [{ id: "lat_p50/baseline", published: measured, band: [measured - 1, measured + 1] }],
    unknowns: ["c1_exit_us"],
    budget: 14,
    iterations: 3,
    seed: "fit",
  });
  const got = Number(record.values.c1_exit_us);
  // lat_p50 is in whole microseconds (schbench's gettimeofday), so the fit lands within 1-2 us
  assert.ok(Math.abs(got - truth) <= 2, `calibrated ${got} us, truth ${truth} us`);
  assert.ok(record.evaluations <= 14);
  assert.equal(record.targets[0].id, "lat_p50/baseline");
  assert.ok(Math.abs(record.targets[0].residual) <= 1);
  assert.ok(Number.isFinite(record.heldOutObjective));
  assert.notEqual(record.run.heldOutSeed, record.run.seed);
  // frozen into the returned experiment
  assert.deepEqual(experiment.unknownValues(), { c1_exit_us: got });
  assert.equal(exp.unknownValues().c1_exit_us, 10, "the experiment it came from is unchanged");
});

const target = { id: "lat_p50/baseline", published: 40 };
const REFUSED: Array<[string, () => unknown, RegExp]> = [
  [
    "more unknowns than targets",
    () =>
      exp
        .unknowns(
          unknown("other_us", {
            range: [1, 9],
            default: 2,
            unit: "us",
            source: "choice: test",
            apply: (e) => e,
          }),
        )
        .calibrateSync({ targets: [target], unknowns: ["c1_exit_us", "other_us"] }),
    /2 unknowns but 1 targets; never fit more unknowns than targets/,
  ],
  [
    "a target that is also predicted",
    () =>
      exp.calibrateSync({
        targets: [target],
        unknowns: ["c1_exit_us"],
        predicted: ["lat_p50/baseline", "lat_p99/baseline"],
      }),
    /target lat_p50\/baseline is also judged as a prediction; a figure is calibrated or predicted, never both/,
  ],
  [
    "a target that is not a published figure",
    () =>
      exp.calibrateSync({
        targets: [{ id: "lat_p50/baseline", published: null as never }],
        unknowns: ["c1_exit_us"],
      }),
    /target lat_p50\/baseline is not a published figure/,
  ],
  [
    "an undeclared unknown",
    () => exp.calibrateSync({ targets: [target], unknowns: ["nope"] }),
    /"nope" is not a declared unknown \(declared: c1_exit_us\)/,
  ],
  [
    "a figure the run does not give",
    () =>
      exp.calibrateSync({
        targets: [{ id: "nope/baseline", published: 1 }],
        unknowns: ["c1_exit_us"],
        budget: 2,
        duration: 0.05,
      }),
    /the run gives no figure nope\/baseline/,
  ],
];
for (const [what, fn, msg] of REFUSED)
  test(`calibrate refuses ${what}`, () => assert.throws(fn, msg));

test("the start design: evenly spaced levels for one unknown, a grid for two, a seeded hypercube beyond", () => {
  assert.deepEqual(startDesign(1, 3, "s"), [[0], [0.5], [1]]);
  assert.equal(startDesign(2, 9, "s").length, 9);
  const lhs = startDesign(3, 6, "s");
  assert.equal(lhs.length, 6);
  // a Latin hypercube: each column has one point in each sixth
  for (let d = 0; d < 3; d++)
    assert.deepEqual(lhs.map((p) => Math.floor(p[d] * 6)).sort(), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(startDesign(3, 6, "s"), lhs, "seeded: the same design twice");
});
