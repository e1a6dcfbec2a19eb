import { test } from "node:test";
import assert from "node:assert/strict";
import { patch, seeds } from "../../src/index";

const snapshot = (p: object) => structuredClone({ ...p, replacements: undefined });

test("a seed is unchanged after .tunable(); the returned patch differs", () => {
  const seed = seeds.groupPower2009;
  const before = snapshot(seed);
  const beforeReplacements = [...seed.replacements];
  const hz100 = seed.tunable("hz", 100);
  assert.deepEqual(snapshot(seed), before);
  assert.deepEqual(seed.replacements, beforeReplacements);
  assert.deepEqual(seed.tunables, {});
  assert.notEqual(hz100, seed);
  assert.deepEqual(hz100.tunables, { hz: 100 });
  assert.equal(hz100.replacements.length, seed.replacements.length);
});

test("every step returns a new frozen patch and leaves the earlier one alone", () => {
  const a = patch("p", { author: "me" });
  const b = a.feature("NEXT_BUDDY", true);
  const c = b.replace("fair.wake_affine", (ctx, base) => base(ctx));
  const d = c.describe({ date: "2009-04-17" });
  assert.deepEqual([a.features, b.features], [{}, { NEXT_BUDDY: true }]);
  assert.deepEqual([b.replacements.length, c.replacements.length], [0, 1]);
  assert.equal(c.source.date, undefined);
  assert.equal(d.source.date, "2009-04-17");
  assert.equal(d.source.author, "me");
  for (const p of [a, b, c, d]) {
    assert.ok(Object.isFrozen(p) && Object.isFrozen(p.tunables) && Object.isFrozen(p.source));
    assert.ok(Object.isFrozen(p.replacements));
  }
  assert.throws(() => {
    (a.tunables as Record<string, number>).hz = 1;
  }, TypeError);
});
