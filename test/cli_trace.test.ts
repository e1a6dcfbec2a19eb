// `schedlab trace import` (src/cli_trace.ts): the summary of a real trace, the JSON form, lines
// not understood with their numbers (status 1), a missing file refused naming it (status 2).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const BIN = path.join(__dirname, "..", "bin", "schedlab.js");
const REAL = path.join(__dirname, "analysis", "traces", "linux-6.18-perf-bench-pipe.txt");
const run = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, "trace", "import", ...args], { encoding: "utf8" });

test("trace import: a real trace's events by kind, its CPUs and lost events; --json the same as one object", () => {
  const r = run(REAL);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /400 sched events of 412 lines, 2 CPUs/);
  assert.match(r.stdout, /sched_switch\s+175/);
  assert.match(r.stdout, /lost events: 0/);
  const j = run(REAL, "--json");
  assert.equal(j.status, 0, j.stderr);
  const o = JSON.parse(j.stdout);
  assert.equal(o.nrCpus, 2);
  assert.equal(o.events.sched_switch, 175);
  assert.equal(o.badCount, 0);
  assert.equal(o.records, undefined);
});

test("trace import: lines not understood are listed by number with status 1; a missing file is refused with status 2", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-trace-cli-"));
  const file = path.join(dir, "t.txt");
  fs.writeFileSync(
    file,
    "# tracer: nop\n  a-1 [000] d..3   1.000001: sched_wakeup_new: comm=b pid=2 prio=120 target_cpu=001\nnot a line\n",
  );
  const r = run(file);
  assert.equal(r.status, 1);
  assert.match(r.stdout, /1 sched events of 3 lines/);
  assert.match(r.stdout, /line 3: not an event line/);
  const m = run(path.join(dir, "none.txt"));
  assert.equal(m.status, 2);
  assert.match(m.stderr, /trace import: .*none\.txt is not a file/);
});

test("trace record: a bad --buffer-kb and a missing command are refused with status 2, naming what is accepted", () => {
  const rec = (...args: string[]) =>
    spawnSync(process.execPath, [BIN, "trace", "record", ...args], { encoding: "utf8" });
  const b = rec("--buffer-kb", "lots", "--", "true");
  assert.equal(b.status, 2);
  assert.match(b.stderr, /--buffer-kb lots \(accepted: a positive integer, kB per CPU\)/);
  const o = rec("perf", "bench", "sched", "pipe", "-l", "5");
  assert.equal(o.status, 2);
  assert.match(o.stderr, /unknown option -l .*give the command to record after --/);
  const m = rec("--out", "x");
  assert.equal(m.status, 2);
  assert.match(m.stderr, /missing required argument 'command'/);
});
