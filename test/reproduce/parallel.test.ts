import { test } from "node:test";
import assert from "node:assert/strict";
import { reproduction, runReproduction } from "../../src/index";
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
