// A sweep spec run on this machine into a DuckDB file: interrupted part way with Ctrl-C and run
// again, only the missing jobs run, and the database ends up identical to an uninterrupted
// run's; a repeated sweep runs nothing; a file that is not a sweep database is refused and left
// as it was; a malformed spec is refused naming the field.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import "../../src/index";
import { loadSweepSpec, planSweep } from "../../src/sweeps/spec";
import { identity } from "../../src/sweeps/identity";
import { runSweep } from "../../src/sweeps/run";
import { SMALL, comparable, queryDb, runCli, startCli, tempDir } from "../support/sweep";

test("a sweep interrupted part way resumes with only the missing jobs, and ends as an uninterrupted one", {
  timeout: 300_000,
}, async () => {
  const dir = tempDir("resume");
  const db = path.join(dir, "resume.duckdb");
  // the example with longer runs, so that many jobs are left when the first one's progress line
  // is seen. The interrupt follows that first line: a later line is not a safe point to wait
  // for, since on a loaded machine the lines (at most one a second) bunch up and the last jobs
  // can all finish between two of them.
  const spec = path.join(dir, "spec.json");
  const example = JSON.parse(fs.readFileSync(SMALL, "utf8"));
  fs.writeFileSync(spec, JSON.stringify({ ...example, profile: { duration: 16, warmup: 0.2 } }));
  const first = startCli(["sweep", spec, "--db", db, "--jobs", "1"]);
  // meanwhile, the same sweep uninterrupted, in this process
  const whole = path.join(dir, "whole.duckdb");
  const plan = planSweep(loadSweepSpec(spec), spec, identity());
  const reference = runSweep(plan, { db: whole, jobs: 1, progress: false });
  await first.waitFor(/\[sweep demo\] ([1-9]|[12]\d|3[0-5])\/36 done/, "a job done");
  first.proc.kill("SIGINT");
  assert.equal(await first.exit, 130, first.output());
  assert.match(first.output(), /interrupted: \d+ jobs run, 0 reused, 0 failed, of 36/);
  const kept = await queryDb(db, "SELECT key, finished_at FROM runs ORDER BY key");
  const k = kept.length;
  assert.ok(k >= 1 && k < 36, `${k} runs written before the interrupt`);
  // every run written is whole: its metrics are there
  const [m] = await queryDb(db, "SELECT count(DISTINCT key) AS n FROM metrics");
  assert.equal(m.n, k);

  const second = await runCli(["sweep", spec, "--db", db, "--jobs", "1"]);
  assert.equal(second.code, 0, second.output);
  assert.match(
    second.output,
    new RegExp(`${k} in ${db.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} already, ${36 - k} to run`),
  );
  assert.match(second.output, new RegExp(`${36 - k} jobs run, ${k} reused, 0 failed, of 36`));
  const after = await queryDb(db, "SELECT key, finished_at FROM runs ORDER BY key");
  assert.equal(after.length, 36);
  const firstRun = new Map(kept.map((r) => [r.key, r.finished_at]));
  for (const r of after)
    if (firstRun.has(r.key)) assert.equal(r.finished_at, firstRun.get(r.key), `${r.key} rewritten`);

  const ref = await reference;
  assert.equal(ref.ran, 36);
  assert.equal(await comparable(db), await comparable(whole));

  // the same sweep again: everything is in the database, nothing runs
  const again = await runSweep(plan, { db: whole, jobs: 1, progress: false });
  assert.deepEqual([again.ran, again.reused, again.failed.length], [0, 36, 0]);
});

test("a file that is not a sweep database is refused and left as it was", async () => {
  const dir = tempDir("notdb");
  const file = path.join(dir, "notes.duckdb");
  fs.writeFileSync(file, "not a database\n");
  const plan = planSweep(loadSweepSpec(SMALL), SMALL, identity());
  await assert.rejects(
    runSweep(plan, { db: file, progress: false }),
    /notes\.duckdb is not a sweep database: DuckDB cannot open it/,
  );
  assert.equal(fs.readFileSync(file, "utf8"), "not a database\n");
});

test("a malformed spec is refused naming the field, before anything is written", {
  timeout: 120_000,
}, async () => {
  const dir = tempDir("badspec");
  const spec = path.join(dir, "bad.json");
  const db = path.join(dir, "bad.duckdb");
  fs.writeFileSync(
    spec,
    JSON.stringify({ experiment: "demo", grid: { hz: [100, 5000] }, iterations: 1 }),
  );
  const r = await runCli(["sweep", spec, "--db", db]);
  assert.equal(r.code, 2, r.output);
  assert.match(
    r.output,
    /bad\.json: unknown hz: grid\.hz value must be a number in its range \[100, 1000\] Hz \(got 5000\)/,
  );
  assert.equal(fs.existsSync(db), false);
});

test("a job that fails is reported with its spec and error, recorded, and the rest finish", {
  timeout: 120_000,
}, async () => {
  const dir = tempDir("failing");
  const db = path.join(dir, "f.duckdb");
  const plan = planSweep(
    {
      experiment: "demo",
      grid: { hz: [250, 1000] },
      iterations: 1,
      profile: { duration: 0.5, warmup: 0.1 },
    },
    "spec",
  );
  // a job its thread cannot rebuild: it fails wherever it runs
  const [good, bad] = plan.jobs;
  const broken = {
    ...plan,
    jobs: [good, { ...bad, task: { ...bad.task, id: '{"experiment":"gone","values":{}}' } }],
  };
  const s = await runSweep(broken, { db, progress: false });
  assert.deepEqual([s.ran, s.failed.length], [1, 1]);
  assert.equal(s.failed[0].key, bad.key);
  assert.equal(
    s.failed[0].job,
    "demo hz=1000 context_switch_scale=1, variant baseline, iteration 0",
  );
  assert.match(s.failed[0].error, /unknown experiment "gone"/);
  const rows = await queryDb(db, "SELECT key, error FROM failures");
  assert.deepEqual(
    rows.map((r) => r.key),
    [bad.key],
  );
  // the next run tries the failed job again (and, whole now, runs it)
  const again = await runSweep(plan, { db, progress: false });
  assert.deepEqual([again.ran, again.reused, again.failed.length], [1, 1, 0]);
  assert.deepEqual(await queryDb(db, "SELECT count(*) AS n FROM failures"), [{ n: 0 }]);
});
