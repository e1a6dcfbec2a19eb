import { test } from "node:test";
import assert from "node:assert/strict";
import { impliedComponent, impliedShare } from "../../src/analysis/mixture";

// Two uniform components: K on [30, 40] (the "local" wakeups), U on [45, 65] (its CDF below).
const U = (x: number) => Math.min(1, Math.max(0, (x - 45) / 20));
const P = [50, 75, 90, 95, 99, 99.5, 99.9];
const quantK = (q: number) => 30 + 10 * q;
const quantU = (q: number) => 45 + 20 * q;
/** Exact percentiles of (1 - g)·K + g·U (K and U do not overlap). */
const mixPercentiles = (g: number) =>
  Object.fromEntries(
    P.map((p) => {
      const q = p / 100;
      return [p, q <= 1 - g ? quantK(q / (1 - g)) : quantU((q - (1 - g)) / g)];
    }),
  );
const percentilesOf = (quant: (q: number) => number) =>
  Object.fromEntries(P.map((p) => [p, quant(p / 100)]));

test("impliedComponent: recovers the unknown component's CDF at the mixture's points", () => {
  const pts = impliedComponent(mixPercentiles(0.5), percentilesOf(quantK), 0.5);
  assert.equal(pts.length, P.length);
  for (const p of pts) {
    assert.ok(
      p.lo <= U(p.x) + 1e-9 && U(p.x) <= p.hi + 1e-9,
      `U(${p.x}) = ${U(p.x)} in [${p.lo}, ${p.hi}]`,
    );
    // beyond K's listed range only K's p99.9 bounds it: the range is at most 0.001 / 0.5 wide
    assert.ok(p.hi - p.lo <= 0.002 + 1e-9);
  }
  // the mixture's p75 is U's median
  assert.ok(Math.abs(pts[1].lo - 0.5) < 1e-9 && pts[1].x === 55);
});

test("impliedComponent: a wrong share gives a CDF that misses the truth", () => {
  const pts = impliedComponent(mixPercentiles(0.5), percentilesOf(quantK), 0.25);
  assert.ok(pts.some((p) => U(p.x) < p.lo - 0.01 || U(p.x) > p.hi + 0.01));
});

test("impliedShare: recovers the share where both components are read inside their listed range", () => {
  for (const g of [0.05, 0.2, 0.5]) {
    const rows = impliedShare(mixPercentiles(g), percentilesOf(quantK), percentilesOf(quantU));
    for (const r of rows)
      if (Number.isFinite(r.lo))
        assert.ok(r.lo - 1e-9 <= g && g <= r.hi + 1e-9, `g ${g} in [${r.lo}, ${r.hi}] at ${r.x}`);
    const tight = rows.filter((r) => r.hi - r.lo < 0.01);
    assert.ok(tight.length > 0, `some point pins g = ${g}`);
  }
});

test("impliedComponent / impliedShare refuse malformed input", () => {
  assert.throws(() => impliedComponent({ 50: 1 }, { 50: 1 }, 0), /share/);
  assert.throws(() => impliedComponent({}, { 50: 1 }, 0.5), /no percentiles/);
  assert.throws(() => impliedComponent({ 50: 2, 90: 1 }, { 50: 1 }, 0.5), /must not fall/);
  assert.throws(() => impliedShare({ 100: 2 }, { 50: 1 }, { 50: 1 }), /\(0, 100\)/);
});
