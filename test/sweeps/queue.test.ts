// The example sweep through a real Redis (a redis-server of the test's own, with a password)
// with two `schedlab worker` processes, one killed with SIGKILL in the middle of a job: its job
// is retried by the other worker after the stall timeout, and the database holds the same rows
// as a sweep run on this machine. A worker of another schedlab version or model refuses a job,
// naming both, and leaves it in the queue untouched.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import * as os from "node:os";
import * as path from "node:path";
import "../../src/index";
import { loadSweepSpec, planSweep } from "../../src/sweeps/spec";
import { identity } from "../../src/sweeps/identity";
import { runSweep } from "../../src/sweeps/run";
import { redisTarget } from "../../src/sweeps/redis";
import { enqueue, openQueue, queuedJob } from "../../src/sweeps/queue";
import { startRedis, type TestRedis } from "../support/redis";
import { SMALL, comparable, queryDb, startCli, tempDir, type CliProcess } from "../support/sweep";

let redis: TestRedis;
before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

test("a worker of another version or model refuses the job, naming both, and leaves it queued", {
  timeout: 120_000,
}, async () => {
  const plan = planSweep(loadSweepSpec(SMALL), SMALL, identity());
  const queue = openQueue(redisTarget(redis.url, redis.env));
  try {
    const other = { version: "0.0.1", model: "0123456789ab" };
    const entry = { ...queuedJob(plan, plan.jobs[0], other), key: "job-of-another-version" };
    await enqueue(queue, [entry]);
    const w = startCli(["worker", "--queue", redis.url], redis.env);
    assert.equal(await w.exit, 3, w.output());
    assert.match(
      w.output(),
      new RegExp(
        `refused job job-of-another-version \\(demo hz=100 context_switch_scale=0\\.5, variant cfs-2\\.6\\.29, iteration 0\\): it was submitted by schedlab 0\\.0\\.1 \\(model 0123456789ab\\) and this worker runs schedlab ${identity().version.replace(/\./g, "\\.")} \\(model ${identity().model}\\)`,
      ),
    );
    assert.doesNotMatch(w.output(), /start job-of-another-version/);
    const job = await queue.getJob("job-of-another-version");
    assert.ok(job);
    assert.equal(await job.getState(), "waiting");
    assert.equal(job.attemptsMade, 0);
    assert.equal(job.returnvalue ?? null, null);
    await job.remove();
  } finally {
    await queue.close();
  }
});

test("through Redis with two workers, one killed with SIGKILL mid-job, the rows are the local run's", {
  timeout: 300_000,
}, async () => {
  const dir = tempDir("queue");
  const args = ["worker", "--queue", redis.url, "--stall-timeout", "2"];
  const workers = [startCli(args, redis.env), startCli(args, redis.env)];
  // the same sweep on this machine, while the workers start
  const local = path.join(dir, "local.duckdb");
  const plan = planSweep(loadSweepSpec(SMALL), SMALL, identity());
  const ref = await runSweep(plan, { db: local, jobs: 1, progress: false });
  assert.equal(ref.ran, 36);
  for (const w of workers) await w.waitFor(/serving redis:/, "a worker ready");

  const db = path.join(dir, "queue.duckdb");
  const sub = startCli(["sweep", SMALL, "--db", db, "--queue", redis.url], redis.env);
  const first = await Promise.race(
    workers.map((w) =>
      w.waitFor(/start ([0-9a-f]{32}) /, "a job started").then((m) => ({ w, key: m[1] })),
    ),
  );
  first.w.proc.kill("SIGKILL");
  const survivor = workers.find((w) => w !== first.w) as CliProcess;
  assert.equal(await sub.exit, 0, sub.output());
  assert.match(
    sub.output(),
    new RegExp(
      `job ${first.key} \\(demo .*\\) stalled: its worker stopped renewing its lock; it is retried`,
    ),
  );
  assert.match(sub.output(), /36 jobs run, 0 reused, 0 failed, of 36/);
  assert.doesNotMatch(first.w.output(), new RegExp(`done ${first.key}`));
  const [row] = await queryDb(db, `SELECT worker FROM runs WHERE key = '${first.key}'`);
  assert.equal(row.worker, `${os.hostname()}:${survivor.proc.pid}`);
  assert.equal(await comparable(db), await comparable(local));

  // a job that fails on every worker is reported with its spec and error after its attempts,
  // and the sweep finishes with the rest
  const small = planSweep(
    {
      experiment: "demo",
      grid: { hz: [250, 1000] },
      iterations: 1,
      profile: { duration: 0.5, warmup: 0.1 },
    },
    "spec",
  );
  const [good, bad] = small.jobs;
  const broken = {
    ...small,
    jobs: [good, { ...bad, task: { ...bad.task, id: '{"experiment":"gone","values":{}}' } }],
  };
  const s = await runSweep(broken, {
    db: path.join(dir, "failing.duckdb"),
    queue: redis.url,
    env: redis.env,
    progress: false,
    pollMs: 500,
  });
  assert.deepEqual([s.ran, s.failed.length], [1, 1]);
  assert.equal(
    s.failed[0].job,
    "demo hz=1000 context_switch_scale=1, variant baseline, iteration 0",
  );
  assert.match(s.failed[0].error, /unknown experiment "gone"/);
  assert.equal(s.failed[0].attempts, 2);

  survivor.proc.kill("SIGTERM");
  assert.equal(await survivor.exit, 0, survivor.output());
});
