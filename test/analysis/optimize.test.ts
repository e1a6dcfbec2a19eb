// fmin's Nelder-Mead as loaded by analysis/optimize.ts: its shrink step runs (the pinned build
// assigns an undeclared loop counter there, which strict code refuses).
import { test } from "node:test";
import assert from "node:assert/strict";
import { nelderMead } from "../../src/analysis/optimize";

test("nelderMead finds a quadratic's minimum", () => {
  const r = nelderMead()((x) => (x[0] - 0.3) ** 2 + (x[1] + 0.2) ** 2, [2, 2]);
  assert.ok(Math.abs(r.x[0] - 0.3) < 1e-3 && Math.abs(r.x[1] + 0.2) < 1e-3, String(r.x));
});

test("nelderMead survives a rough function whose contractions fail (the shrink step)", () => {
  // a ripple far finer than the simplex: contractions land on worse points and the simplex shrinks
  const f = (x: number[]) => x[0] * x[0] + 0.3 * Math.abs(Math.sin(1e4 * x[0]));
  const r = nelderMead()(f, [1]);
  assert.ok(Number.isFinite(r.fx) && r.fx <= f([1]), `fx ${r.fx}`);
});
