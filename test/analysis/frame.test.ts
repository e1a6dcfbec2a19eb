import { test } from "node:test";
import assert from "node:assert/strict";
import { toFrame, toRows } from "../../src/analysis/frame";
import { abResults } from "./fixtures";

test("toRows: one row per variant x iteration, same columns everywhere", () => {
  const rows = toRows(abResults());
  assert.equal(rows.length, 10);
  assert.deepEqual(
    rows.slice(0, 2).map((r) => [r.variant, r.iteration]),
    [
      ["pre", 0],
      ["pre", 1],
    ],
  );
  assert.equal(rows[5].variant, "post");
  const keys = Object.keys(rows[0]);
  for (const r of rows) assert.deepEqual(Object.keys(r), keys);
  assert.deepEqual(keys.slice(0, 6), [
    "variant",
    "iteration",
    "seed",
    "durationNs",
    "events",
    "throughput_mbps",
  ]);
  assert.equal(rows[0]["sched.contextSwitches"], 1000);
  assert.ok(Number.isNaN(rows[0]["migrations.active_balance"] as number), "absent in pre: NaN");
  assert.equal(rows[5]["migrations.active_balance"], 2);
  assert.equal(rows[5]["balance.MC.activeBalances"], 2);
  assert.equal(rows[5]["rqLock.wakeup.acquisitions"], 20);
  // the switch and preemption counters, and lag at wakeup as lagAtWakeup.<field>
  for (const c of [
    "sched.voluntarySwitches",
    "sched.involuntarySwitches",
    "sched.wakeupPreemptions",
  ])
    assert.equal(rows[0][c], 0, c);
  assert.equal(rows[0]["lagAtWakeup.count"], 0);
  assert.deepEqual(Object.keys(toRows(abResults(), { counters: false })[0]), keys.slice(0, 6));
});

test("danfojs-node is not loaded until a frame is asked for", () => {
  const loaded = () => Object.keys(require.cache).some((k) => k.includes(`${"danfojs-node"}`));
  toRows(abResults());
  assert.equal(loaded(), false);
  const df = toFrame(abResults());
  assert.equal(loaded(), true);
  assert.deepEqual(df.shape, [10, Object.keys(toRows(abResults())[0]).length]);
  assert.ok(df.columns.includes("throughput_mbps"));
  const col = df.column("throughput_mbps").values as number[];
  assert.deepEqual(col.slice(0, 5), [100, 102, 98, 101, 99]);
});
