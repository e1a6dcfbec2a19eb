import { test } from "node:test";
import assert from "node:assert/strict";
import { topology, workload } from "../../src/index";

test("two workloads share the machine: the first keeps its metric names, the others are prefixed", () => {
  const pp = workload.pingpong({ pairs: 1, seconds: 0.05 });
  const alone = topology("core2-2x2").workload(pp).runSync().data.iterations[0];
  const both = topology("core2-2x2")
    .workload(pp, workload.hogs({ n: 4 }), workload.hogs({ n: 1 }))
    .runSync().data.iterations[0];
  const names = Object.keys(both.metrics);
  for (const m of Object.keys(alone.metrics)) assert.ok(names.includes(m), `${m} kept`);
  assert.ok(names.some((m) => m.startsWith("hogs.")));
  assert.ok(names.some((m) => m.startsWith("hogs#2.")));
  // all tasks of every part ran on the same kernel: 2 pingpong + 4 + 1 hogs
  assert.equal(both.tasks.length, alone.tasks.length + 5);
  // and they competed: the four hogs got less than the four CPUs' whole time
  const hogWork = both.metrics["hogs.total_work_s"];
  assert.ok(hogWork > 0.1 && hogWork < 4 * 0.05 * 0.99, `hog work ${hogWork} s`);
});

test("a mix is recorded in the spec, runs for the first part's length, and is deterministic", () => {
  const exp = topology("core2-2x2").workload(
    workload.pingpong({ pairs: 1, seconds: 0.03 }),
    workload.sleepers({ n: 2, runNs: 1e6, sleepNs: 3e6 }),
  );
  const s = exp.spec();
  assert.equal(s.workload.name, "pingpong+sleepers");
  assert.equal(s.durationNs, 30_000_000);
  assert.deepEqual(exp.runSync({ seed: 7 }).data, exp.runSync({ seed: 7 }).data);
});

test("workload.mix refuses a part that is not a workload, naming its position", () => {
  assert.throws(
    () => workload.mix(workload.hogs({ n: 1 }), {} as never),
    /workload.mix: part 2 is not a Workload/,
  );
});
