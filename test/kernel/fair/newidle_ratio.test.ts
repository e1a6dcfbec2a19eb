// Proportional newidle balance (v6.19 NI_RANDOM, src/kernel/fair/newidle_ratio.ts): the die's
// decision, the counters' movement on success and failure, and the success weighting that keeps
// newidle_ratio an estimate of the success rate.
import { test } from "node:test";
import assert from "node:assert/strict";
import { NEWIDLE_DICE, NewidleRatio } from "../../../src/kernel/fair/newidle_ratio";
import { RandomSource } from "../../../src/sim/random";
import type { SchedDomain } from "../../../src/kernel/topology/sched_domain";

const sd = (): SchedDomain => ({}) as SchedDomain;

/** A RandomSource whose every stream returns d1k / 1024 for the next queued roll. */
function dice(rolls: number[]): RandomSource {
  const stream = { next: () => (rolls.shift()! + 0.5) / NEWIDLE_DICE };
  return { stream: () => stream } as unknown as RandomSource;
}

test("sd_init: a 50% success rate; 1024 calls refresh the ratio from the success count and halve both", () => {
  const r = new NewidleRatio(new RandomSource("t"));
  const d = sd();
  assert.deepEqual(r.stats(d), { call: 512, success: 256, ratio: 512 });
  for (let i = 0; i < 511; i++) r.update(d, 0);
  assert.deepEqual(r.stats(d), { call: 1023, success: 256, ratio: 512 }, "not yet 1024 calls");
  r.update(d, 0); // the 1024th call: ratio = success, then both halve
  assert.deepEqual(r.stats(d), { call: 512, success: 128, ratio: 256 });
  // a success adds its weight to newidle_success, a failure only counts the call
  r.update(d, 4);
  r.update(d, 0);
  assert.deepEqual(r.stats(d), { call: 514, success: 132, ratio: 256 });
});

test("the die: the pass runs when d1k <= 1 + newidle_ratio; a skip counts a call without success", () => {
  const r = new NewidleRatio(dice([513, 514, 0, 1, 2]));
  const d = sd();
  // ratio 512: 513 runs, with a success weight of round(1024 / 513) = 2
  assert.equal(r.roll(d, 0), 2);
  assert.deepEqual(
    r.stats(d),
    { call: 512, success: 256, ratio: 512 },
    "a roll that runs counts nothing yet",
  );
  assert.equal(r.roll(d, 0), null);
  assert.deepEqual(r.stats(d), { call: 513, success: 256, ratio: 512 });
  // ratio 0: only 0 and 1 of the 1024 faces run, and a success then counts 1024
  const z = sd();
  r.stats(z).ratio = 0;
  assert.equal(r.roll(z, 0), 1024);
  assert.equal(r.roll(z, 0), 1024);
  assert.equal(r.roll(z, 0), null);
});

test("success weights are the rounded 1024 / (1 + ratio): 1 in 4 sampled counts 4 per success", () => {
  const r = new NewidleRatio(dice([0, 0, 0, 0]));
  const weightAt = (ratio: number) => {
    const d = sd();
    r.stats(d).ratio = ratio;
    return r.roll(d, 0);
  };
  assert.equal(weightAt(255), 4); // (1024 + 128) / 256 = 4.5, floored
  assert.equal(weightAt(256), 4); // (1024 + 128) / 257
  assert.equal(weightAt(1023), 1);
  assert.equal(weightAt(340), 3); // (1024 + 170) / 341 = 3.5
});

test("newidle_ratio follows the success rate of the passes that run (1024 x p), whatever it started at", () => {
  // Each pass that runs succeeds with probability p. Without the weighting a sampled domain
  // would sink to ratio 0; with it the ratio settles near 1024 * p from either side.
  for (const [p, start] of [
    [0.25, 1000],
    [0.25, 0],
    [0.05, 512],
  ] as const) {
    const src = new RandomSource(`p${p}/${start}`);
    const r = new NewidleRatio(src);
    const outcome = src.stream("outcome");
    const d = sd();
    r.stats(d).ratio = start;
    let sum = 0;
    let n = 0;
    for (let call = 0; call < 400_000; call++) {
      const w = r.roll(d, 0);
      if (w !== null) r.update(d, outcome.next() < p ? w : 0);
      if (call >= 100_000) {
        sum += r.stats(d).ratio;
        n++;
      }
    }
    const mean = sum / n;
    assert.ok(
      Math.abs(mean - 1024 * p) < 0.2 * 1024 * p + 8,
      `p ${p} from ${start}: ratio ${mean}`,
    );
  }
});

test("a domain whose every pass succeeds climbs from ratio 0 back to running every time", () => {
  const r = new NewidleRatio(new RandomSource("climb"));
  const d = sd();
  r.stats(d).ratio = 0;
  let ranLast = 0;
  for (let call = 0; call < 20_000; call++) {
    const w = r.roll(d, 0);
    if (w !== null) r.update(d, w);
    if (call >= 19_000 && w !== null) ranLast++;
  }
  assert.ok(r.stats(d).ratio >= NEWIDLE_DICE - 1, `ratio ${r.stats(d).ratio}`);
  assert.equal(ranLast, 1000);
});

test("sched_rng is per CPU: one CPU's rolls do not move another's sequence", () => {
  const seq = (interleave: boolean) => {
    const r = new NewidleRatio(new RandomSource("cpus"));
    const d = sd();
    const e = sd();
    const out: Array<number | null> = [];
    for (let i = 0; i < 50; i++) {
      if (interleave) r.roll(e, 1);
      out.push(r.roll(d, 0));
    }
    return out;
  };
  assert.deepEqual(seq(true), seq(false));
});
