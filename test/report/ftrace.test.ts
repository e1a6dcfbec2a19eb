import { test } from "node:test";
import assert from "node:assert/strict";
import { ftraceTimestamp, toFtrace } from "../../src/report/trace";
import { smallTrace } from "../analysis/fixtures";

// The common prefix of every event line: TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: ARGS
// (the task name may contain anything, so it is matched lazily up to the last "-pid").
const LINE =
  /^\s*(?<task>.+?)-(?<pid>\d+)\s+\[(?<cpu>\d{3})\]\s+(?<flags>[a-zA-Z0-9.]{4})\s+(?<ts>\d+\.\d{6}): (?<event>\w+): (?<args>.*)$/;
const SWITCH =
  /^prev_comm=(?<prevComm>\S+) prev_pid=(?<prevPid>\d+) prev_prio=(?<prevPrio>\d+) prev_state=(?<prevState>[RSDX]\+?) ==> next_comm=(?<nextComm>\S+) next_pid=(?<nextPid>\d+) next_prio=(?<nextPrio>\d+)$/;
const WAKEUP = /^comm=(?<comm>\S+) pid=(?<pid>\d+) prio=(?<prio>\d+) target_cpu=(?<target>\d{3})$/;
const MIGRATE =
  /^comm=(?<comm>\S+) pid=(?<pid>\d+) prio=(?<prio>\d+) orig_cpu=(?<orig>\d+) dest_cpu=(?<dest>\d+)$/;
// Perfetto's systrace tokenizer (src/trace_processor/importers/systrace/systrace_line_tokenizer.cc).
const PERFETTO =
  /-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*[a-zA-Z0-9.]{0,4}\s+(\d+\.\d+):\s+(\S+):/;

test("timestamps: seconds with 6 decimals from ns, truncated", () => {
  assert.equal(ftraceTimestamp(12_345_678_901).trim(), "12.345678");
  assert.equal(ftraceTimestamp(0).trim(), "0.000000");
  assert.equal(ftraceTimestamp(999).trim(), "0.000000");
  assert.equal(ftraceTimestamp(1_000).trim(), "0.000001");
});

test("every line of each type parses back field by field", () => {
  const text = toFtrace(smallTrace(), { nrCpus: 4 });
  const lines = text.split("\n").filter(Boolean);
  assert.equal(lines[0], "# tracer: nop");
  assert.match(text, /# entries-in-buffer\/entries-written: 8\/8 {3}#P:4/);
  const events = lines.filter((l) => !l.startsWith("#"));
  assert.equal(events.length, 8); // 5 switches, sched_waking + sched_wakeup, 1 migration
  const parsed = events.map((l) => {
    const m = LINE.exec(l);
    assert.ok(m?.groups, `line does not parse: ${l}`);
    assert.ok(PERFETTO.test(l), `Perfetto's tokenizer rejects: ${l}`);
    return m.groups;
  });

  const sw = parsed.filter((p) => p.event === "sched_switch");
  assert.equal(sw.length, 5);
  const first = SWITCH.exec(sw[0].args)!.groups!;
  assert.deepEqual(
    { ...first },
    {
      prevComm: "swapper/0",
      prevPid: "0",
      prevPrio: "120",
      prevState: "R",
      nextComm: "a",
      nextPid: "1",
      nextPrio: "120",
    },
  );
  assert.deepEqual(
    [sw[0].task, sw[0].pid, sw[0].cpu, sw[0].flags, sw[0].ts],
    ["<idle>", "0", "000", "d..2", "0.000000"],
  );
  const sleep = SWITCH.exec(sw[3].args)!.groups!; // cpu0 at 3ms: a sleeps, b runs
  assert.deepEqual([sw[3].task, sw[3].pid, sw[3].cpu, sw[3].ts], ["a", "1", "000", "0.003000"]);
  assert.deepEqual(
    [sleep.prevComm, sleep.prevState, sleep.nextComm, sleep.nextPid],
    ["a", "S", "b", "2"],
  );
  for (const s of sw) assert.ok(SWITCH.test(s.args), s.args);

  for (const ev of ["sched_waking", "sched_wakeup"]) {
    const w = parsed.find((p) => p.event === ev)!;
    assert.deepEqual(
      [w.task, w.pid, w.cpu, w.ts],
      ["a", "1", "000", "0.001000"],
      `${ev}: the waker is current on cpu0`,
    );
    assert.deepEqual(
      { ...WAKEUP.exec(w.args)!.groups! },
      { comm: "b", pid: "2", prio: "120", target: "001" },
    );
  }

  const mg = parsed.find((p) => p.event === "sched_migrate_task")!;
  assert.deepEqual([mg.task, mg.pid, mg.cpu, mg.ts], ["a", "1", "000", "0.002000"]);
  assert.deepEqual(
    { ...MIGRATE.exec(mg.args)!.groups! },
    { comm: "b", pid: "2", prio: "120", orig: "1", dest: "0" },
  );

  // Timestamps never go backwards.
  const ts = parsed.map((p) => Number(p.ts));
  assert.deepEqual(
    ts,
    [...ts].sort((a, b) => a - b),
  );
});

test("options: no sched_waking; comms made single tokens and truncated to 15", () => {
  const recs = smallTrace();
  recs[1] = { ...recs[1], comm: "kworker/u16:1 with=space and a long name" } as (typeof recs)[1];
  const lines = toFtrace(recs, { waking: false })
    .split("\n")
    .filter((l) => l && !l.startsWith("#"));
  assert.equal(lines.length, 7);
  const w = lines.find((l) => l.includes("sched_wakeup:"))!;
  assert.match(w, /sched_wakeup: comm=kworker\/u16:1_w pid=2 prio=120 target_cpu=001$/);
  assert.match(toFtrace([]), /^# tracer: nop\n/);
});
