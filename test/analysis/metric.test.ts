// One time unit at the API (src/analysis/metric.ts sampleWindow, src/analysis/trace.ts stepMean):
// sample times come back in the seconds `sample.every` takes, a window selects samples in
// seconds, and a window that selects nothing is an error naming the range, never a silent NaN.
import { test } from "node:test";
import assert from "node:assert/strict";
import { analysis, topology, workload } from "../../src/index";

const sampled = () =>
  topology("core2-2x2")
    .workload(workload.hogs({ n: 3, seconds: 0.05 }))
    .runSync({ sample: { every: 0.01, fn: (k) => ({ nr0: k.rqs[0].nrRunning }) } })
    .iteration("baseline", 0);

test("sample.t is in the seconds sample.every takes, and a window in seconds selects samples", () => {
  const it = sampled();
  assert.deepEqual(it.series["sample.t"], [0.01, 0.02, 0.03, 0.04]);
  const w = analysis.sampleWindow(it, "nr0", 0.015, 0.035);
  assert.deepEqual(w, it.series["sample.nr0"].slice(1, 3));
  assert.ok(Number.isFinite(analysis.mean(w)));
});

test("a window that selects nothing is an error naming the sampled range, not NaN", () => {
  const it = sampled();
  assert.throws(
    () => analysis.sampleWindow(it, "nr0", 10e6, 20e6), // ns given for seconds
    /sampleWindow: no sample of "sample\.nr0" in 10000000\.\.20000000 s; the samples run from 0\.01 to 0\.04 s/,
  );
  assert.throws(
    () => analysis.sampleWindow(it, "nr1", 0, 1),
    /no series "sample\.nr1" .*sampled: sample\.nr0/,
  );
  const steps = { t: [0, 1_000_000], n: [1, 2] };
  assert.equal(analysis.stepMean(steps, 0, 2_000_000), 1.5);
  assert.throws(() => analysis.stepMean(steps, 0.001, 0.002), /times are in ns/);
  assert.throws(() => analysis.stepMean(steps, 5, 5), /start < end/);
  assert.throws(
    () => analysis.stepMean({ t: [3e6], n: [1] }, 0, 2e6),
    /ends before the steps \(3000000\.\.3000000 ns\)/,
  );
});
