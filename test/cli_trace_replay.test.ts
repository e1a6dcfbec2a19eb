// `schedlab trace replay` (src/cli_trace_replay.ts): a recording directory replayed and compared,
// with a patch as a second replay; the era nearest a kernel release; patches named on the command
// line; what is missing is refused naming it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { patchFromArg } from "../src/cli_trace_replay";
import { nearestEra, recordingAt } from "../src/experiment/replay_run";
import { presetSpec } from "../src/machine/presets";

const BIN = path.join(__dirname, "..", "bin", "schedlab.js");
const SHIPPED = path.join(__dirname, "..", "data", "traces", "perf-bench-pipe");
const REAL = path.join(__dirname, "analysis", "traces", "linux-6.18-perf-bench-pipe.txt");
const run = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, "trace", "replay", ...args], { encoding: "utf8" });

test("trace replay: a recording directory (trace, machine, meta) against the model, and again with a patch", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-replay-cli-"));
  fs.copyFileSync(REAL, path.join(dir, "trace.txt"));
  fs.writeFileSync(path.join(dir, "machine.json"), JSON.stringify(presetSpec("core2-2x2")));
  const meta = JSON.parse(fs.readFileSync(path.join(SHIPPED, "meta.json"), "utf8"));
  fs.writeFileSync(
    path.join(dir, "meta.json"),
    JSON.stringify({ ...meta, kernelRelease: "6.18.44" }),
  );
  const r = run(dir, "--patch", "TTWU_QUEUE=off");
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    /23 tasks over 68\.7 ms recorded on Linux 6\.18\.44, replayed \(closed\) on core2-2x2 at era 6\.19/,
  );
  assert.match(r.stdout, /real against the model:\nfigure/);
  assert.match(r.stdout, /real against the model with TTWU_QUEUE=off:/);
  const j = JSON.parse(run(dir, "--json", "--mode", "open", "--era", "5.10").stdout);
  assert.equal(j.era, "5.10");
  assert.equal(j.mode, "open");
  const rows = new Map(j.baseline.rows.map((x: { figure: string }) => [x.figure, x]));
  assert.equal((rows.get("tasks matched") as { real: number }).real, 23);
  assert.equal(j.baseline.metrics.replay_unfinished, 0);
});

test("trace replay: the nearest era, patches by name, and what is missing refused naming it", () => {
  assert.equal(nearestEra("6.18.44-fc-v1272"), "6.19");
  assert.equal(nearestEra("5.15.0-91-generic"), "5.19");
  assert.equal(nearestEra("4.19.0"), "4.8");
  assert.equal(nearestEra("3.10.0-1160.el7"), "3.19");
  assert.throws(() => nearestEra("linux"), /not a kernel release/);
  assert.equal(patchFromArg("wakelistPatch1").name, patchFromArg("wakelistPatch1").name);
  assert.equal(patchFromArg("TTWU_QUEUE=off").features.TTWU_QUEUE, false);
  assert.throws(() => patchFromArg("TTWU_QUEUE=maybe"), /a feature takes on or off/);
  assert.throws(
    () => patchFromArg("nonsense"),
    /not a seed patch \(.*groupPower2009.*\), FEATURE=on\|off/,
  );
  assert.throws(() => recordingAt("/nonexistent/dir"), /no such file or directory/);
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-replay-empty-"));
  assert.throws(() => recordingAt(empty), /has no trace\.txt or trace\.txt\.gz/);
  fs.writeFileSync(path.join(empty, "trace.txt"), "");
  fs.writeFileSync(path.join(empty, "meta.json"), JSON.stringify({ kernel: "6.18" }));
  assert.throws(() => recordingAt(empty), /trace replay: .*meta\.json: .*kernelRelease/);
  const bare = run(REAL);
  assert.notEqual(bare.status, 0);
  assert.match(bare.stderr, /--era is needed/);
  const noMachine = run(REAL, "--era", "6.19");
  assert.match(noMachine.stderr, /--machine is needed/);
});

test("trace replay: a perf sched script file, with a machine and an era, counts its wakeups from sched_waking", () => {
  const perf = path.join(
    __dirname,
    "analysis",
    "traces",
    "linux-6.18-perf-sched-script-pipe.txt.gz",
  );
  const r = run(perf, "--machine", path.join(SHIPPED, "machine.json"), "--era", "6.19", "--json");
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  const rows = new Map(
    j.baseline.rows.map((x: { figure: string; real: number }) => [x.figure, x.real]),
  );
  // perf sched record keeps sched_waking only: 211 of its 212 wakings find the task neither
  // running nor woken already
  assert.equal(rows.get("wakeups"), 211);
  assert.equal(rows.get("tasks matched"), 7);
  assert.equal(j.baseline.metrics.replay_unfinished, 0);
});
