// The recordings' machine files hold the HLT exit latency calibrated on perf-bench-pipe's median
// latency of wakeups to an idle CPU (scripts/calibrate-recordings.ts): fresh, and the replay with
// it meets its target; a machine that does not halt has no such figure.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { calibratedMachineFiles } from "../../scripts/calibrate-recordings";
import { calibrateHaltExit } from "../../src/experiment/replay_calibrate";
import { presetSpec } from "../../src/machine/presets";

const PIPE = path.join(__dirname, "..", "..", "data", "traces", "perf-bench-pipe");

test("every recording's machine.json holds the HLT exit calibrated on perf-bench-pipe (run scripts/calibrate-recordings.ts after a model change)", async () => {
  const files = await calibratedMachineFiles();
  assert.ok(files.size >= 5);
  for (const [file, text] of files)
    assert.equal(fs.readFileSync(file, "utf8"), text, `${file} is stale`);
  const c = await calibrateHaltExit(PIPE);
  assert.ok(c.realCount > 30_000, `${c.realCount} wakeups of an idle CPU`);
  // the check replay lands on the target, and the exit is what the guest adds to the model's path
  assert.ok(Math.abs(c.checkP50Ns - c.realP50Ns) <= 500, `${c.checkP50Ns} against ${c.realP50Ns}`);
  assert.ok(c.exitLatencyNs > 2_000 && c.exitLatencyNs < 20_000, `${c.exitLatencyNs} ns`);
});

test("a machine whose idle CPUs poll has no HLT exit to calibrate", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-halt-"));
  fs.copyFileSync(path.join(PIPE, "trace.txt.gz"), path.join(dir, "trace.txt.gz"));
  fs.copyFileSync(path.join(PIPE, "meta.json"), path.join(dir, "meta.json"));
  const spec = presetSpec("core2-2x2");
  fs.writeFileSync(path.join(dir, "machine.json"), JSON.stringify(spec));
  await assert.rejects(calibrateHaltExit(dir), /has no non-polling HLT idle state/);
});
