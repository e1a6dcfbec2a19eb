// The recordings' machine files hold the HLT exits calibrated on perf-bench-pipe: the median
// latency of its wakeups to an idle CPU, and of those after more than KVM's polling window of
// halt (scripts/calibrate-recordings.ts): fresh, and the replay with them meets each target; a
// machine that does not halt has no such figure.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { calibratedMachineFiles } from "../../scripts/calibrate-recordings";
import {
  calibrateHaltExit,
  calibrateHaltPollExit,
  KVM_HALT_POLL_NS_DEFAULT,
} from "../../src/experiment/replay_calibrate";
import { machineFromFile, presetSpec } from "../../src/machine/presets";

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
  // after the host's polling window the exit is slower, calibrated on the wakeups that came later
  const p = await calibrateHaltPollExit(PIPE, c);
  assert.equal(p.pollNs, KVM_HALT_POLL_NS_DEFAULT);
  assert.ok(p.realCount >= 5 && p.modelCount >= 5, `${p.realCount} and ${p.modelCount} wakeups`);
  assert.ok(
    Math.abs(p.checkP50Ns - p.realP50Ns) <= 1_000,
    `${p.checkP50Ns} against ${p.realP50Ns}`,
  );
  assert.ok(p.exitNs > 5 * c.exitLatencyNs, `${p.exitNs} ns after a long halt`);
  const m = machineFromFile(path.join(PIPE, "machine.json"));
  const hlt = m.idleStates.find((s) => s.name === "HLT")!;
  assert.deepEqual(hlt.haltPoll, { pollNs: p.pollNs, exitNs: p.exitNs });
  assert.match(m.sources["idle.HLT.haltPoll.pollNs"], /KVM_HALT_POLL_NS_DEFAULT/);
  assert.match(
    m.sources["idle.HLT.haltPoll.exitNs"],
    /^calibrated on data\/traces\/perf-bench-pipe/,
  );
});

test("a machine whose idle CPUs poll has no HLT exit to calibrate", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-halt-"));
  fs.copyFileSync(path.join(PIPE, "trace.txt.gz"), path.join(dir, "trace.txt.gz"));
  fs.copyFileSync(path.join(PIPE, "meta.json"), path.join(dir, "meta.json"));
  const spec = presetSpec("core2-2x2");
  fs.writeFileSync(path.join(dir, "machine.json"), JSON.stringify(spec));
  await assert.rejects(calibrateHaltExit(dir), /has no non-polling HLT idle state/);
});
