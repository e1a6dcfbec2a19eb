// Deterministic workloads give identical iterations (src/analysis/variation.ts): the run says so,
// naming the experiment, and docs/variation.md says where variation comes from.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { analysis, topology, workload } from "../../src/index";

test("identical iterations are found per variant; random ones are not", () => {
  const hogs = topology("core2-2x2")
    .workload(workload.hogs({ n: 3, seconds: 0.05 }))
    .runSync({ iterations: 3 });
  assert.deepEqual(analysis.identicalIterations(hogs.data), ["baseline"]);
  assert.match(
    analysis.variationWarning(hogs.data)!,
    /^experiment hogs on core2-2x2, era 6\.19: the 3 iterations of variant baseline are identical .*docs\/variation\.md/,
  );
  const sleepers = topology("core2-2x2")
    .workload(workload.sleepers({ n: 3, runNs: 1e6, sleepNs: 1e6, seconds: 0.05 }))
    .runSync({ iterations: 3 });
  assert.deepEqual(analysis.identicalIterations(sleepers.data), []);
  assert.equal(analysis.variationWarning(sleepers.data), null);
});

test("run() warns naming the experiment; schedlab reproduce names its id", async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on("warning", onWarning);
  try {
    await topology("core2-2x2")
      .workload(workload.hogs({ n: 2, seconds: 0.02 }))
      .run({ iterations: 2 });
    await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
  } finally {
    process.off("warning", onWarning);
  }
  assert.ok(
    warnings.some((w) =>
      /^SchedlabWarning: experiment hogs on core2-2x2, era 6\.19: the 2 iterations/.test(w),
    ),
    warnings.join("\n"),
  );
  const bin = path.join(__dirname, "..", "..", "bin", "schedlab.js");
  const r = spawnSync(process.execPath, [bin, "reproduce", "demo", "--quick", "--json"], {
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stderr,
    /warning: experiment demo: the 2 iterations of variant baseline are identical/,
  );
});
