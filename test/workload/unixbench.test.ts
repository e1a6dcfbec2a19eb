import { test } from "node:test";
import assert from "node:assert/strict";
import { topology, workload } from "../../src/index";
import {
  CONTEXT1_BASELINE_LPS,
  context1Index,
  unixbenchCombine,
} from "../../src/workload/unixbench";

test("UnixBench's combination: the worst third of the passes dropped, geometric mean of the rest", () => {
  // 10 passes: the 3 lowest (1, 2, 3) dropped; the rest all 8 -> 8
  assert.ok(Math.abs(unixbenchCombine([8, 1, 8, 2, 8, 3, 8, 8, 8, 8]) - 8) < 1e-12);
  // 3 passes: the lowest dropped; sqrt(4 * 9) = 6
  assert.ok(Math.abs(unixbenchCombine([1, 4, 9]) - 6) < 1e-12);
  assert.ok(Math.abs(unixbenchCombine([5]) - 5) < 1e-12);
  assert.equal(unixbenchCombine([]), 0);
  // index = lps / 4000 x 10
  assert.equal(context1Index(CONTEXT1_BASELINE_LPS), 10);
  assert.ok(Math.abs(context1Index(3_130_000) - 7825) < 1e-9);
});

test("unixbenchContext1: bad input names the field and what is accepted", () => {
  const f = workload.unixbenchContext1;
  assert.throws(() => f({ copies: 0 }), /workload\.unixbenchContext1: copies must be an integer/);
  assert.throws(() => f({ copies: 2, passes: 1.5 }), /passes must be an integer from 1 to 1000/);
  assert.throws(() => f({ copies: 2, passSeconds: 0 }), /passSeconds must be a finite number > 0/);
  assert.throws(
    () => f({ copies: 2, copyStartUs: -1 }),
    /copyStartUs must be a finite number >= 0/,
  );
  assert.throws(
    () => f({ copies: 2, pairs: 3 } as never),
    /unknown option "pairs" \(accepted: copies, passes, passSeconds, copyStartUs, cpus\)/,
  );
});

test("unixbenchContext1: passes counted, score = index of the combined passes, runs differ by seed", () => {
  const w = workload.unixbenchContext1({ copies: 4, passes: 6, passSeconds: 0.002 });
  const res = topology("core2-2x2").era("5.19").workload(w).runSync({ iterations: 2, seed: 3 });
  const its = res.data.iterations;
  for (const it of its) {
    const passes = it.series.pass_lps;
    assert.equal(passes.length, 6);
    assert.ok(passes.every((x) => x > 0));
    const score = it.metrics.score;
    assert.ok(Math.abs(score - context1Index(unixbenchCombine(passes))) < 1e-6);
    // 4 copies, each a round trip of a few us on a 4-CPU box
    const rt = it.metrics.round_trip_us;
    assert.ok(rt > 1 && rt < 100, `round trip ${rt} us`);
  }
  assert.notEqual(its[0].metrics.score, its[1].metrics.score, "each run has its own seed");
});
