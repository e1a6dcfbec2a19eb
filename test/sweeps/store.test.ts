// The sweep database refuses what is not one, whatever it is, and leaves it as it was; a run
// and its metrics are written together or not at all.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import "../../src/index";
import { SweepStore } from "../../src/sweeps/store";
import { loadSweepSpec, planSweep } from "../../src/sweeps/spec";
import { identity } from "../../src/sweeps/identity";
import { openSweep } from "../../src/sweeps/open";
import { SMALL, tempDir } from "../support/sweep";

function duckdb() {
  return require("@duckdb/node-api") as typeof import("@duckdb/node-api");
}

test("a DuckDB database of something else is refused, naming its tables, and not changed", async () => {
  const dir = tempDir("otherdb");
  const file = path.join(dir, "other.duckdb");
  const inst = await duckdb().DuckDBInstance.create(file);
  const c = await inst.connect();
  await c.run("CREATE TABLE orders (id INTEGER, total DOUBLE)");
  await c.run("INSERT INTO orders VALUES (1, 9.5)");
  c.closeSync();
  inst.closeSync();
  for (const open of [() => SweepStore.open(file, { create: true }), () => openSweep(file)])
    await assert.rejects(
      open(),
      /other\.duckdb is not a sweep database: it is a DuckDB database with tables orders and no schedlab_meta/,
    );
  const again = await duckdb().DuckDBInstance.create(file, { access_mode: "READ_ONLY" });
  const c2 = await again.connect();
  const tables = (await c2.runAndReadAll("SHOW TABLES")).getRowObjectsJS().map((r) => r.name);
  assert.deepEqual(tables, ["orders"]);
  c2.closeSync();
  again.closeSync();
});

test("a file of another format, or a missing one for reading, is refused", async () => {
  const dir = tempDir("formats");
  const text = path.join(dir, "notes.txt");
  fs.writeFileSync(text, "hello\n");
  await assert.rejects(
    openSweep(text),
    /notes\.txt is not a sweep database: DuckDB cannot open it/,
  );
  assert.equal(fs.readFileSync(text, "utf8"), "hello\n");
  await assert.rejects(
    openSweep(path.join(dir, "none.duckdb")),
    /no sweep database at .*none\.duckdb \(schedlab sweep SPEC\.json --db/,
  );
  // a database that says it is of another kind
  const file = path.join(dir, "meta.duckdb");
  const inst = await duckdb().DuckDBInstance.create(file);
  const c = await inst.connect();
  await c.run("CREATE TABLE schedlab_meta (format VARCHAR, format_version INTEGER)");
  await c.run("INSERT INTO schedlab_meta VALUES ('schedlab-trace', 1)");
  c.closeSync();
  inst.closeSync();
  await assert.rejects(
    openSweep(file),
    /its schedlab_meta says "schedlab-trace", not schedlab-sweep/,
  );
});

test("a run and its metrics are written in one transaction: a failed write leaves neither", async () => {
  const dir = tempDir("atomic");
  const file = path.join(dir, "a.duckdb");
  const plan = planSweep(loadSweepSpec(SMALL), SMALL, identity());
  const store = await SweepStore.open(file, { create: true });
  try {
    await store.recordSweep(plan);
    const [job, other] = plan.jobs;
    const result = (variant: string, iteration: number) =>
      JSON.stringify({
        variant,
        iteration,
        seed: "s",
        durationNs: 1,
        metrics: { a: 1, b: 2 },
        series: {},
        tasks: [],
        cpus: [],
        sched: {},
        events: 3,
      });
    // a metrics row already there makes the second insert of the write fail, after the run's row
    await store.exec(`INSERT INTO metrics VALUES ('${job.key}', 'b', 0)`);
    await assert.rejects(
      store.writeRun(plan, job, result(job.variant, job.iteration), { worker: "t", wallMs: 1 }),
      /constraint|duplicate/i,
    );
    const count = async () =>
      (
        await store.rows(
          "SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM metrics) AS metrics",
        )
      )[0];
    assert.deepEqual(await count(), { runs: 0, metrics: 1 });
    // the next write goes through whole
    await store.writeRun(plan, other, result(other.variant, other.iteration), {
      worker: "t",
      wallMs: 1,
    });
    assert.deepEqual(await count(), { runs: 1, metrics: 3 });
  } finally {
    await store.close();
  }
});
