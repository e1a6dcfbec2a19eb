// The shipped traces (data/traces/<name>/): each meta.json passes its schema, each trace.txt.gz
// imports whole (no line not understood, nothing lost) on the CPUs its meta.json states, and a
// meta.json with a bad field is refused naming it.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { importTraceFile } from "../../src/analysis/trace_import";
import { readTraceMeta } from "../../src/analysis/trace_meta";

const TRACES = path.join(__dirname, "..", "..", "data", "traces");
const names = fs
  .readdirSync(TRACES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);

test("data/traces: the five recordings are there, each with trace.txt.gz, machine.json and meta.json", () => {
  assert.deepEqual(names.sort(), [
    "cpu-sleeper-mix",
    "fork-burst",
    "messaging-procs",
    "messaging-threads",
    "perf-bench-pipe",
  ]);
  for (const n of names)
    for (const f of ["trace.txt.gz", "machine.json", "meta.json"])
      assert.ok(fs.existsSync(path.join(TRACES, n, f)), `${n}/${f}`);
});

for (const n of names)
  test(`data/traces/${n}: meta.json is valid and the trace imports whole on its CPUs`, async () => {
    const meta = readTraceMeta(path.join(TRACES, n, "meta.json"));
    const t = await importTraceFile(path.join(TRACES, n, "trace.txt.gz"));
    assert.equal(t.badCount, 0, JSON.stringify(t.bad.slice(0, 3)));
    assert.equal(t.lostEvents, 0);
    assert.equal(meta.lostEvents, 0);
    assert.equal(t.nrCpus, meta.nrCpus);
    assert.ok(t.records.some((r) => r.type === "sched_switch"));
  });

test("a meta.json with a bad field is refused naming the field", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-meta-"));
  const file = path.join(dir, "meta.json");
  const good = JSON.parse(fs.readFileSync(path.join(TRACES, names[0], "meta.json"), "utf8"));
  fs.writeFileSync(file, JSON.stringify({ ...good, nrCpus: 0 }));
  assert.throws(() => readTraceMeta(file), /meta\.json: nrCpus: /);
  fs.writeFileSync(file, JSON.stringify({ ...good, clock: "local" }));
  assert.throws(() => readTraceMeta(file), /clock/);
});
