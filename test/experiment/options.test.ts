import { test } from "node:test";
import assert from "node:assert/strict";
import { type Kernel, patch, topology, workload } from "../../src/index";

const exp = () =>
  topology("core2-2x2")
    .workload(workload.pingpong({ pairs: 2 }))
    .variants({ pre: [], post: [patch("noop").tunable("sched_migration_cost_ns", 250_000)] });

test("onKernel sees each iteration's kernel with its variant and iteration, before the workload starts", () => {
  const seen: Array<[string, number, number]> = [];
  const kernels = new Set<Kernel>();
  const res = exp().runSync({
    iterations: 2,
    duration: 0.02,
    onKernel: (k, variant, iteration) => {
      seen.push([variant, iteration, k.tasks.length]);
      kernels.add(k);
    },
  });
  assert.deepEqual(seen, [
    ["pre", 0, 0],
    ["post", 0, 0],
    ["pre", 1, 0],
    ["post", 1, 0],
  ]);
  assert.equal(kernels.size, 4);
  // the same kernel ran the workload: its tasks are the iteration's tasks
  const k = [...kernels][3];
  assert.equal(k.tasks.length, res.data.iterations.at(-1)!.tasks.length);
});

test("sample reads the kernel on a period without changing the run", () => {
  const plain = exp().runSync({ iterations: 1, duration: 0.02 }).data.iterations[0];
  const sampled = exp().runSync({
    iterations: 1,
    duration: 0.02,
    sample: {
      every: 0.005,
      fn: (k) => ({ nr0: k.rqs[0].nrRunning, switches: k.rqs[0].contextSwitches }),
    },
  }).data.iterations[0];
  assert.deepEqual(sampled.series["sample.t"], [0.005, 0.01, 0.015]); // seconds, as `every`
  assert.equal(sampled.series["sample.nr0"].length, 3);
  const sw = sampled.series["sample.switches"];
  assert.ok(sw[0] > 0 && sw[0] <= sw[1] && sw[1] <= sw[2], `switches ${sw}`);
  assert.equal(sampled.events, plain.events);
  assert.deepEqual(sampled.metrics, plain.metrics);
  assert.deepEqual(sampled.tasks, plain.tasks);
});

test("a bad sample is refused naming the option and what is accepted", () => {
  assert.throws(
    () => exp().runSync({ sample: { every: 0, fn: () => ({}) } }),
    /run: sample must be \{ every: seconds > 0, fn: \(k\) => \(\{ name: number \}\) \} \(got every = 0\)/,
  );
  assert.throws(
    () =>
      exp().runSync({
        duration: 0.01,
        sample: { every: 0.001, fn: () => ({ bad: "x" as unknown as number }) },
      }),
    /sample: the probe returned "x" for "bad"; values must be numbers/,
  );
});
