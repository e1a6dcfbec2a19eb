import { test } from "node:test";
import assert from "node:assert/strict";
import { EventQueue } from "../../src/sim/event_queue";
import { RandomSource } from "../../src/sim/random";

test("events pop in time order, simultaneous ones in insertion order", () => {
  const q = new EventQueue(4); // small: forces growth
  const times = [50, 10, 30, 10, 20, 10, 40, 30, 0, 100];
  times.forEach((t, i) => {
    q.push(t, 1, i, 0);
  });
  const out: Array<[number, number]> = [];
  while (q.pop()) out.push([q.popTime, q.popA]);
  assert.deepEqual(out, [
    [0, 8],
    [10, 1],
    [10, 3],
    [10, 5],
    [20, 4],
    [30, 2],
    [30, 7],
    [40, 6],
    [50, 0],
    [100, 9],
  ]);
  assert.equal(q.length, 0);
  assert.equal(q.pop(), false);
});

test("a random interleaving of pushes and pops stays sorted", () => {
  const q = new EventQueue(8);
  const rng = new RandomSource("heap").stream("t");
  let last = -1;
  let pending = 0;
  for (let i = 0; i < 20000; i++) {
    if (pending === 0 || rng.next() < 0.6) {
      q.push(Math.max(last, 0) + rng.int(0, 1000), 0, i, 0);
      pending++;
    } else {
      assert.ok(q.pop());
      assert.ok(q.popTime >= last, `time went backwards: ${q.popTime} < ${last}`);
      last = q.popTime;
      pending--;
    }
  }
});

test("popUntil pops exactly what pop would, and nothing after the bound", () => {
  // Two queues fed the same stream (front-slot and heap paths both taken): popUntil(until)
  // must give pop()'s sequence, stop at the first event later than until, and leave it queued.
  const a = new EventQueue(4);
  const b = new EventQueue(4);
  const rng = new RandomSource("popUntil").stream("t");
  let now = 0;
  for (let i = 0; i < 5000; i++) {
    const t = now + rng.int(0, 50);
    a.push(t, 1, i, 0);
    b.push(t, 1, i, 0);
    if (rng.next() < 0.5) {
      const until = now + rng.int(0, 30);
      while (b.popUntil(until)) {
        assert.ok(a.pop());
        assert.deepEqual([b.popTime, b.popA], [a.popTime, a.popA]);
        assert.ok(b.popTime <= until);
        now = b.popTime;
      }
      assert.equal(b.length, a.length);
      assert.ok(b.length === 0 || b.peekTime() > until, "an event due by until was left");
    }
  }
  const pending = b.length > 0;
  assert.equal(b.popUntil(Infinity), pending);
  const empty = new EventQueue(2);
  assert.equal(empty.popUntil(Infinity), false);
});

test("keyed events pop exactly as pushed events with stale ones skipped would", () => {
  // Reference: every keyed event pushed into the heap with a generation, a replaced or cleared
  // one left behind as stale (the engine's old scheme). Keyed: setKeyed / clearKeyed. Both
  // must pop the same live events in the same order, interleaved with plain events.
  const ref = new EventQueue(4);
  const q = new EventQueue(4);
  const gen = new Array(10).fill(0);
  const live = new Array(10).fill(false);
  const rng = new RandomSource("keyed").stream("t");
  let now = 0;
  const popRef = (until: number): boolean => {
    while (ref.popUntil(until)) {
      const key = ref.popKind === 2 ? ref.popA : -1;
      if (key >= 0 && (ref.popB !== gen[key] || !live[key])) continue; // stale
      if (key >= 0) live[key] = false;
      return true;
    }
    return false;
  };
  for (let i = 0; i < 20000; i++) {
    const r = rng.next();
    if (r < 0.3) {
      const t = now + rng.int(0, 40);
      ref.push(t, 1, i, 0);
      q.push(t, 1, i, 0);
    } else if (r < 0.6) {
      const key = rng.int(0, 9);
      const t = now + rng.int(0, 40);
      gen[key]++;
      live[key] = true;
      ref.push(t, 2, key, gen[key]);
      q.setKeyed(key, t, 2, key, gen[key]);
    } else if (r < 0.65) {
      const key = rng.int(0, 9);
      live[key] = false;
      q.clearKeyed(key);
    } else {
      const until = now + rng.int(0, 20);
      for (;;) {
        const a = popRef(until);
        const b = q.popUntil(until);
        assert.equal(b, a);
        if (!a) break;
        assert.deepEqual(
          [q.popTime, q.popKind, q.popA, q.popB],
          [ref.popTime, ref.popKind, ref.popA, ref.popB],
        );
        now = q.popTime;
      }
    }
  }
  const pendingLive = live.filter(Boolean).length;
  assert.ok(q.length >= pendingLive);
});

test("random streams are per consumer and reproducible", () => {
  const a = new RandomSource("s1");
  const b = new RandomSource("s1");
  const xs = [a.stream("x").next(), a.stream("x").next()];
  // Drawing from another consumer first does not change consumer x's sequence.
  b.stream("y").next();
  b.stream("y").next();
  assert.deepEqual([b.stream("x").next(), b.stream("x").next()], xs);
  assert.notEqual(new RandomSource("s2").stream("x").next(), xs[0]);
});
