// eraAtLeastFn: the hot paths' form of eraAtLeast must give eraAtLeast's answer for every era,
// whatever order eras are asked in (one process runs kernels of several eras one after another).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ERAS, eraAtLeast, eraAtLeastFn } from "../../src/kernel/features";

const SINCES = [
  "2.6.29",
  "2.6.32",
  "3.16",
  "4.7",
  "4.20",
  "5.6",
  "5.7",
  "5.10",
  "5.19",
  "6.6",
  "6.17",
  "6.19",
];

test("eraAtLeastFn(since)(era) equals eraAtLeast(era, since), eras asked in any order", () => {
  for (const since of SINCES) {
    const atLeast = eraAtLeastFn(since);
    // forward, backward, then alternating: the remembered answer must follow the era asked
    const order = [...ERAS, ...[...ERAS].reverse(), ...ERAS.flatMap((e) => [e, ERAS[0], e])];
    for (const era of order) {
      assert.equal(atLeast(era), eraAtLeast(era, since), `era ${era} since ${since}`);
    }
  }
});

test("eraAtLeast orders releases numerically, not as strings", () => {
  assert.equal(eraAtLeast("5.10", "5.9"), true, "5.10 is after 5.9");
  assert.equal(eraAtLeast("5.6", "5.10"), false);
  assert.equal(eraAtLeastFn("5.10")("5.19"), true);
  assert.equal(eraAtLeastFn("4.20")("4.8"), false, "4.8 is before 4.20");
});
