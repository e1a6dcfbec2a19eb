// Declared unknowns: what unknown() refuses (naming the field), how an assumed value enters a run,
// and the variant() form of a machine- or era-level A/B.
import { test } from "node:test";
import assert from "node:assert/strict";
import { patch, spanOf, topology, unknown, variant, workload } from "../../src/index";

const apply = (e: ReturnType<typeof topology>) => e;
const base = { default: 5, unit: "us", source: "choice: a test figure", apply };

const REFUSED: Array<[string, () => unknown, RegExp]> = [
  [
    "no range or choices",
    () => unknown("x", { ...base }),
    /give exactly one of range .* or choices/,
  ],
  [
    "both range and choices",
    () => unknown("x", { ...base, range: [1, 9], choices: ["a", "b"] }),
    /exactly one of range/,
  ],
  ["a range the wrong way round", () => unknown("x", { ...base, range: [9, 1] }), /low < high/],
  [
    "a default outside the range",
    () => unknown("x", { ...base, range: [1, 4] }),
    /default must be a number in the range \[1, 4\] \(got 5\)/,
  ],
  [
    "no source",
    () => unknown("x", { ...base, range: [1, 9], source: "" }),
    /source is required: where the range and default come from/,
  ],
  [
    "a range outside the unit's physical limits (a share above 1)",
    () => unknown("x", { ...base, unit: "share", default: 0.5, range: [0, 1.5] }),
    /range \[0, 1\.5\] lies outside the physical limits of share \[0, 1\]/,
  ],
  [
    "a negative latency",
    () => unknown("x", { ...base, range: [-3, 9] }),
    /outside the physical limits of us \[0, Infinity\]/,
  ],
  [
    "a unit without known limits and no limits given",
    () => unknown("x", { ...base, unit: "furlongs", range: [1, 9] }),
    /unit "furlongs" has no known physical limits; give limits/,
  ],
  [
    "a choice default not among the choices",
    () => unknown("m", { ...base, unit: "choice", default: "c", choices: ["a", "b"] }),
    /default must be one of the choices \(a, b\); got "c"/,
  ],
  ["a bad name", () => unknown("1x", { ...base, range: [1, 9] }), /name must start with a letter/],
  [
    "no apply",
    () => unknown("x", { ...base, range: [1, 9], apply: undefined as never }),
    /apply must be a function/,
  ],
];

for (const [what, fn, msg] of REFUSED)
  test(`unknown() refuses ${what}`, () => assert.throws(fn, msg));

const ctxSwitch = unknown("context_switch_ns", {
  range: [1000, 4000],
  default: 2000,
  unit: "ns",
  source: "choice: 1-4 us on x86 parts",
  apply: (e, v) => e.costs({ contextSwitchNs: Number(v) }),
});
const exp = topology("core2-2x2")
  .workload(workload.pingpong({ pairs: 1, seconds: 0.05 }))
  .unknowns(ctxSwitch);

test("an assumed value enters the machine, the spec and the run; the default otherwise", () => {
  assert.equal(exp.machine().costs.contextSwitchNs, 2000);
  const at = exp.assume({ context_switch_ns: 3500 });
  assert.equal(at.machine().costs.contextSwitchNs, 3500);
  assert.deepEqual(at.spec().unknowns, { context_switch_ns: 3500 });
  assert.deepEqual(exp.spec().unknowns, { context_switch_ns: 2000 });
  // the experiment it came from is unchanged
  assert.deepEqual(exp.unknownValues(), { context_switch_ns: 2000 });
  const slow = at.runSync().mean("round_trip_us", "baseline");
  const fast = exp.assume({ context_switch_ns: 1000 }).runSync().mean("round_trip_us", "baseline");
  assert.ok(slow > fast + 2, `round trip ${slow} us at 3.5 us switches vs ${fast} at 1 us`);
});

test("assume() refuses an undeclared name and a value outside the range, naming them", () => {
  assert.throws(
    () => exp.assume({ nope: 1 }),
    /"nope" is not a declared unknown \(declared: context_switch_ns\)/,
  );
  assert.throws(
    () => exp.assume({ context_switch_ns: 9000 }),
    /context_switch_ns: assumed value must be a number in its range \[1000, 4000\] ns \(got 9000\)/,
  );
  assert.throws(() => exp.unknowns(ctxSwitch), /"context_switch_ns" is declared twice/);
});

test("spanOf spreads values over a range (whole numbers for an integer unknown)", () => {
  assert.deepEqual(spanOf(ctxSwitch, 4), [1000, 2000, 3000, 4000]);
  const levels = unknown("levels", {
    ...base,
    unit: "count",
    range: [1, 4],
    default: 2,
    integer: true,
  });
  assert.deepEqual(spanOf(levels, 3), [1, 3, 4]);
});

test("a variant that changes the era or the machine runs beside a patch variant, on the same seeds", () => {
  const res = topology("core2-2x2")
    .era("6.19")
    .workload(workload.hogs({ n: 3, seconds: 0.2 }))
    .variants({
      today: [],
      old: variant({ era: "2.6.29" }),
      ht: variant({ machine: "ht-2x1x2" }),
      nobuddy: [patch("no-next-buddy").feature("NEXT_BUDDY", false)],
    })
    .runSync({ iterations: 2 });
  assert.deepEqual(res.variants, ["today", "old", "ht", "nobuddy"]);
  assert.deepEqual(res.data.spec.variants.old, {
    description: "era 2.6.29",
    patches: [],
    era: "2.6.29",
  });
  assert.equal((res.data.spec.variants.ht as { machine: string }).machine, "ht-2x1x2");
  // the era variant ran 2.6.29's scheduler: CFS's wakeup granularity differs from EEVDF's slices
  const sw = (v: string) => res.mean("sched.contextSwitches", v);
  assert.notEqual(sw("old"), sw("today"));
  assert.throws(() => variant({ era: "9.9" as never }), /era must be one of/);
  assert.throws(() => variant({ nope: 1 } as never), /unknown option "nope" \(accepted: patches/);
});
