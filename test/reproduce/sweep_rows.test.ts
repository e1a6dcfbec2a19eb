// Committed sweep rows (schedlab sweep --json): tornado and envelope data read back from them.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  envelopeOfRows,
  readSweepRows,
  sensitivityOfRows,
  type SweepFigureRow,
} from "../../src/reproduce/sweep_rows";

const row = (point: number, a: number, b: string, simulated: number): SweepFigureRow => ({
  point,
  a,
  b,
  figure: "f/post",
  simulated,
  published: 2,
  band_low: 1,
  band_high: 3,
});
// one at a time from a=1, b=x: a over 0, 1, 5; b over x, y
const rows = [row(0, 1, "x", 10), row(1, 0, "x", 8), row(2, 5, "x", 30), row(3, 1, "y", 11)];
const base = { a: 1, b: "x" };

test("sensitivityOfRows: each unknown's first and last swept value, the others at base", () => {
  const d = sensitivityOfRows(rows, base, { a: [0, 1, 5], b: ["x", "y"] }, ["f/post"]);
  assert.deepEqual(
    d.rows.map((r) => [r.unknown, r.low.value, r.low.figure, r.high.value, r.high.figure, r.base]),
    [
      ["a", 0, 8, 5, 30, 10],
      ["b", "x", 10, "y", 11, 10],
    ],
  );
  assert.equal(d.rows[0].published, 2);
});

test("envelopeOfRows: the figure over one unknown in its order, with the band", () => {
  const e = envelopeOfRows(rows, base, "a", "f/post", "count");
  assert.deepEqual(
    e.points.map((p) => [p.value, p.mean]),
    [
      [0, 8],
      [1, 10],
      [5, 30],
    ],
  );
  assert.deepEqual(e.band, [1, 3]);
  assert.equal(e.base, 1);
  assert.throws(() => envelopeOfRows(rows, base, "a", "g/post", "count"), /no rows of g\/post/);
});

test("readSweepRows: 004's committed sweeps load and hold the ledger's figures", () => {
  for (const name of ["one-at-a-time", "grid"]) {
    const rs = readSweepRows("004", name);
    assert.ok(
      rs.some((r) => r.figure === "throughput_gain_pct/post"),
      name,
    );
    assert.ok(
      rs.some((r) => r.figure === "push_rq_locks_pre_over_post/pre"),
      name,
    );
  }
  assert.throws(() => readSweepRows("004", "nope"), /no committed sweep 004-nope/);
});
