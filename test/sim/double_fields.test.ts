// primeDoubles changes how V8 lays a field out, never its value.
import { test } from "node:test";
import assert from "node:assert/strict";
import { primeDoubles } from "../../src/sim/double_fields";

test("primeDoubles leaves every value as it was (0, -0, negatives, fractions, NaN, Infinity)", () => {
  const o = { a: 0, b: -0, c: -7, d: 2.5, e: Number.NaN, f: Number.POSITIVE_INFINITY, g: 2 ** 40 };
  const before = { ...o };
  primeDoubles(o, ["a", "b", "c", "d", "e", "f", "g"]);
  for (const k of Object.keys(before) as (keyof typeof o)[]) {
    assert.ok(Object.is(o[k], before[k]), `${k}: ${o[k]} after, ${before[k]} before`);
  }
  assert.deepEqual(Object.keys(o), Object.keys(before), "no field added or reordered");
});

test("primeDoubles touches only the named fields", () => {
  const o = { x: 1, y: 2 };
  primeDoubles(o, ["x"]);
  assert.deepEqual(o, { x: 1, y: 2 });
});
