import { test } from "node:test";
import assert from "node:assert/strict";
import { cpuSegments, runqueueSteps, stepMean } from "../../src/analysis/trace";
import { smallTrace } from "./fixtures";

test("cpu segments from sched_switch", () => {
  const segs = cpuSegments(smallTrace());
  assert.deepEqual(
    segs.map((s) => [s.cpu, s.comm, s.start, s.end]),
    [
      [0, "a", 0, 3_000_000],
      [0, "b", 3_000_000, 4_000_000],
      [1, "b", 1_000_000, 2_000_000],
    ],
  );
  assert.deepEqual(
    cpuSegments(smallTrace(), { start: 500_000, end: 3_500_000 }).map((s) => [
      s.cpu,
      s.start,
      s.end,
    ]),
    [
      [0, 500_000, 3_000_000],
      [0, 3_000_000, 3_500_000],
      [1, 1_000_000, 2_000_000],
    ],
  );
});

test("runqueue length follows wakeups, sleeps and migrations", () => {
  const [c0, c1] = runqueueSteps(smallTrace());
  assert.equal(c0.cpu, 0);
  // cpu0: a runs from 0; b arrives by load balance at 2ms+1; a sleeps at 3ms; b sleeps at 4ms.
  assert.deepEqual(
    [c0.t, c0.n],
    [
      [0, 2_000_001, 3_000_000, 4_000_000],
      [1, 2, 1, 0],
    ],
  );
  // cpu1: b woken at 1ms, preempted (still runnable) at 2ms, pulled away at 2ms+1.
  assert.deepEqual(
    [c1.t, c1.n],
    [
      [1_000_000, 2_000_001],
      [1, 0],
    ],
  );
  assert.equal(
    stepMean(c0, 0, 4_000_000),
    (2_000_001 * 1 + 999_999 * 2 + 1_000_000 * 1) / 4_000_000,
  );
});
