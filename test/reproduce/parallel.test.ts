import { test } from "node:test";
import assert from "node:assert/strict";
import { reproduction, runReproduction, topology } from "../../src/index";
import { defineReproduction } from "../../src/reproduce/registry";
import { ReproductionPool, runReproductionParallel } from "../../src/reproduce/parallel";

test("iterations on worker threads give byte-identical results to a serial run", {
  timeout: 120_000,
}, async () => {
  const r = reproduction("002");
  const profile = { iterations: 3, duration: 10.01 };
  const serial = runReproduction(r, profile, { seed: "11" });
  let progress = 0;
  const parallel = await runReproductionParallel(r, profile, {
    seed: "11",
    workers: 2,
    onProgress: () => progress++,
  });
  assert.equal(progress, 6);
  assert.equal(JSON.stringify(parallel.data), JSON.stringify(serial.data));
});

test("workers must be a positive integer", async () => {
  await assert.rejects(
    runReproductionParallel(reproduction("demo"), { iterations: 1, duration: 0.1 }, { workers: 0 }),
    /workers must be a positive integer/,
  );
});

test("one pool serves several reproductions, each byte-identical to a serial run", {
  timeout: 120_000,
}, async () => {
  const pool = new ReproductionPool(3);
  try {
    for (const id of ["demo", "002-ht", "002"]) {
      const r = reproduction(id);
      const serial = runReproduction(r, r.quick, { seed: "5" });
      const seen: string[] = [];
      const pooled = await pool.run(r, r.quick, {
        seed: "5",
        onProgress: (_done, _total, last) => seen.push(`${last.variant}/${last.iteration}`),
      });
      assert.equal(seen.length, serial.data.iterations.length, id);
      assert.equal(new Set(seen).size, seen.length, `${id}: every run reported once`);
      assert.equal(JSON.stringify(pooled.data), JSON.stringify(serial.data), id);
    }
  } finally {
    await pool.close();
  }
});

/** A reproduction whose workload throws when it is set up for the second time (iteration 1). */
function failingReproduction(id: string) {
  let setups = 0;
  return defineReproduction({
    id,
    title: "fails on its second run",
    machine: "core2-2x2",
    source: "test",
    experiment: () =>
      topology("core2-2x2").workload({
        name: "fails",
        params: {},
        defaultDurationNs: 1e7,
        defaultWarmupNs: 0,
        setup: () => {
          if (++setups === 2) throw new Error("workload exploded");
          return { metrics: () => ({ x: 1 }) };
        },
      }),
    full: { iterations: 3, duration: 0.01 },
    quick: { iterations: 3, duration: 0.01 },
    rows: () => [],
  });
}

test("a run that throws rejects naming the experiment, variant and iteration", async () => {
  const r = failingReproduction("fails-in-thread");
  const pool = new ReproductionPool(1);
  try {
    await assert.rejects(
      pool.run(r, r.quick),
      /^Error: fails-in-thread variant baseline iteration 1: workload exploded$/,
    );
  } finally {
    await pool.close();
  }
});

test("a worker's failure names the job it was running, and the run stops", {
  timeout: 60_000,
}, async () => {
  // worker threads rebuild reproductions from the registry at load: one defined here is unknown there
  const r = failingReproduction("unknown-in-workers");
  const pool = new ReproductionPool(2);
  const seen: number[] = [];
  try {
    await assert.rejects(
      pool.run(r, { iterations: 6, duration: 0.01 }, { onProgress: (d) => seen.push(d) }),
      /^Error: unknown-in-workers variant baseline iteration \d: (unknown experiment|workload exploded)/,
    );
  } finally {
    await pool.close();
  }
  assert.ok(seen.length < 6, `the run stopped early (${seen.length} of 6 runs reported)`);
});

test("runTask runs single jobs on worker threads only, equal to the serial run; a failure names its job", {
  timeout: 120_000,
}, async () => {
  const r = reproduction("demo");
  const profile = { iterations: 3, duration: 0.5, warmup: 0.1 };
  const serial = runReproduction(r, profile, { seed: "3" });
  const pool = new ReproductionPool(2);
  try {
    await pool.warm();
    const exp = r.experiment();
    const opts = { ...profile, seed: "3" };
    const done = await Promise.all(
      exp.jobs(opts).map((job) => pool.runTask({ id: "demo", opts, job })),
    );
    assert.equal(JSON.stringify(exp.assemble(opts, done).data), JSON.stringify(serial.data));
    // a job the threads cannot build rejects naming it; the pool goes on serving
    await assert.rejects(
      pool.runTask({ id: "nope", opts, job: { variant: "baseline", iteration: 2 } }),
      /^Error: nope variant baseline iteration 2: unknown experiment "nope"/,
    );
    const again = await pool.runTask({
      id: "demo",
      opts,
      job: { variant: "baseline", iteration: 0 },
    });
    assert.equal(JSON.stringify(again), JSON.stringify(serial.data.iterations[0]));
  } finally {
    await pool.close();
  }
  // a closed pool takes no task
  await assert.rejects(
    pool.runTask({ id: "demo", opts: profile, job: { variant: "baseline", iteration: 0 } }),
    /the pool is closed/,
  );
});
