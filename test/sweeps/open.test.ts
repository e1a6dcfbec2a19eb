// A sweep database in a notebook: SQL, a DataFrame, a Parquet file other tools read, and the
// finished sweep as a SweepResult whose sensitivity and envelope data are those of the same
// sweep run in memory (sweepReproduction), published values included.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import "../../src/index";
import { planSweep } from "../../src/sweeps/spec";
import { identity } from "../../src/sweeps/identity";
import { runSweep } from "../../src/sweeps/run";
import { openSweep } from "../../src/sweeps/open";
import { SweepStore } from "../../src/sweeps/store";
import { sweepReproduction } from "../../src/reproduce/unknowns";
import { tempDir } from "../support/sweep";

const spec = {
  experiment: "demo",
  grid: { hz: [100, 1000], context_switch_scale: [1, 3] },
  iterations: 1,
  profile: { duration: 1, warmup: 0.2 },
};

test("openSweep: query, frame, Parquet, and a SweepResult equal to an in-memory sweep's", {
  timeout: 180_000,
}, async () => {
  const dir = tempDir("open");
  const file = path.join(dir, "s.duckdb");
  const plan = planSweep(spec, "spec", identity());
  await runSweep(plan, { db: file, jobs: 2, progress: false });
  // two runs lost: the sweep is not finished, and running it again runs those two only
  const w = await SweepStore.open(file);
  await w.exec("DELETE FROM metrics WHERE key IN (SELECT key FROM runs ORDER BY key LIMIT 2)");
  await w.exec("DELETE FROM runs WHERE key IN (SELECT key FROM runs ORDER BY key LIMIT 2)");
  await w.close();
  const partial = await openSweep(file);
  await assert.rejects(partial.result(), /is not finished: 2 of 4 jobs have results/);
  await partial.close();
  const summary = await runSweep(plan, { db: file, jobs: 2, progress: false });
  assert.deepEqual([summary.ran, summary.reused], [2, 2]);

  const db = await openSweep(file);
  try {
    const counts = await db.query("SELECT count(*) AS runs FROM runs");
    assert.deepEqual(counts, [{ runs: 4 }]);
    const wide = await db.wide();
    assert.equal(wide.length, 4);
    assert.deepEqual(Object.keys(wide[0]).slice(0, 5), [
      "point",
      "hz",
      "context_switch_scale",
      "variant",
      "iteration",
    ]);
    assert.ok(typeof wide[0].share_hog0 === "number");
    const df = await db.frame("SELECT variant, count(*) AS n FROM runs GROUP BY variant");
    assert.deepEqual(df.columns, ["variant", "n"]);
    const parquet = path.join(dir, "runs.parquet");
    await db.toParquet(parquet);
    const back = await db.query(
      `SELECT count(*) AS n, count(DISTINCT key) AS runs FROM read_parquet('${parquet}')`,
    );
    const metrics = await db.query("SELECT count(*) AS n FROM metrics");
    assert.deepEqual(back, [{ n: metrics[0].n, runs: 4 }]);

    const fromDb = await db.result();
    const inMemory = await sweepReproduction("demo", spec.grid, {
      profile: { iterations: 1, duration: 1, warmup: 0.2 },
    });
    assert.deepEqual(fromDb.sensitivity(), inMemory.sensitivity());
    assert.deepEqual(
      fromDb.envelope("hz", "share_hog0/baseline"),
      inMemory.envelope("hz", "share_hog0/baseline"),
    );
    assert.equal(fromDb.sensitivity().rows[0].published, 0.7535);
    assert.equal(
      JSON.stringify(fromDb.points.map((p) => p.results.data)),
      JSON.stringify(inMemory.points.map((p) => p.results.data)),
    );
  } finally {
    await db.close();
  }
});
