import { test } from "node:test";
import assert from "node:assert/strict";
import {
  HISTOGRAM_RELATIVE_ERROR,
  LatencyHistogram,
  SCHBENCH_PERCENTILES,
} from "../../src/analysis/histogram";
import { percentile } from "../../src/analysis/stats";
import { RandomSource } from "../../src/sim/random";

/** The exact percentile as HdrHistogram defines it: the smallest sample with rank >= p% of n. */
function exactRank(sorted: number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

test("histogram percentiles match the exact ones on random data within the stated error", () => {
  const rnd = new RandomSource("hist").stream("lat");
  // a latency-like mix: a body near 40 us and a long tail to ~100 ms, 200k samples
  const xs: number[] = [];
  for (let i = 0; i < 200_000; i++) {
    const u = rnd.next();
    xs.push(
      u < 0.95 ? 30 + Math.floor(rnd.next() * 40) : Math.floor(1 + rnd.next() ** 3 * 100_000),
    );
  }
  const h = new LatencyHistogram();
  for (const x of xs) h.record(x);
  const sorted = [...xs].sort((a, b) => a - b);
  assert.equal(h.count, xs.length);
  for (const p of [...SCHBENCH_PERCENTILES, 99.99, 100]) {
    const exact = exactRank(sorted, p);
    const got = h.percentile(p);
    assert.ok(
      Math.abs(got - exact) <= Math.max(1, exact * HISTOGRAM_RELATIVE_ERROR),
      `p${p}: histogram ${got}, exact ${exact}`,
    );
    // and close to the interpolated definition of stats.percentile for the body
    if (p <= 95) assert.ok(Math.abs(got - percentile(xs, p)) <= 1, `p${p} vs interpolated`);
  }
});

test("integer values below 2048 are exact", () => {
  const h = new LatencyHistogram();
  for (const v of [1, 2, 3, 44, 2047]) h.record(v);
  assert.deepEqual(h.percentiles([0, 20, 40, 60, 100]), [1, 1, 2, 3, 2047]);
  assert.equal(h.percentile(80), 44);
});

test("merging iterations equals recording every sample into one histogram", () => {
  const rnd = new RandomSource("merge").stream("x");
  const parts = [0, 1, 2].map(() => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 5000; i++) h.record(Math.floor(rnd.next() * 5000));
    return h;
  });
  const merged = LatencyHistogram.merged(parts);
  const all = LatencyHistogram.fromSeries(parts.flatMap((p) => p.toSeries()));
  assert.equal(merged.count, 15_000);
  assert.deepEqual(merged.percentiles(SCHBENCH_PERCENTILES), all.percentiles(SCHBENCH_PERCENTILES));
  // the serialised form round-trips
  assert.deepEqual(LatencyHistogram.fromSeries(merged.toSeries()).toSeries(), merged.toSeries());
});

test("bad input is refused with the field named", () => {
  const h = new LatencyHistogram();
  assert.throws(() => h.record(-1), /value must be a finite number >= 0/);
  assert.throws(() => LatencyHistogram.fromSeries([1, 2, 3]), /pairs/);
  assert.ok(Number.isNaN(h.percentile(50)));
  h.record(10);
  assert.deepEqual(h.cdf([5, 10, 20]), [0, 1, 1]);
});
