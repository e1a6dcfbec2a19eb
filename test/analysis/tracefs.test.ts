// The tracefs settings a recording changes (src/analysis/tracefs.ts), on a fake tracefs
// directory: saved, applied, and written back as they were; --events checked against
// events/sched; the per-CPU lost events of per_cpu/cpuN/stats.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import {
  applySettings,
  DEFAULT_SCHED_EVENTS,
  parseSchedEvents,
  perCpuLost,
  restoreSettings,
  saveSettings,
  selectedClock,
} from "../../src/analysis/tracefs";
import { FAKE_BEFORE, fakeTracefs, settingsOf } from "../support/fake_tracefs";

const read = (root: string, f: string) => fs.readFileSync(path.join(root, f), "utf8").trim();

test("tracefs: apply sets nop, local clock, buffer size, events and clears the buffer; restore writes every setting back", () => {
  const root = fakeTracefs();
  const before = settingsOf(root);
  const events = ["sched_switch", "sched_wakeup", "sched_stat_runtime"];
  const saved = saveSettings(root, events);
  assert.deepEqual(saved, {
    tracingOn: "1",
    bufferSizeKb: "7",
    traceClock: "global",
    currentTracer: "function",
    enable: { sched_switch: "0", sched_wakeup: "0", sched_stat_runtime: "1" },
  });
  applySettings(root, { clock: "local", bufferKb: 4096, events });
  assert.equal(read(root, "tracing_on"), "0");
  assert.equal(read(root, "current_tracer"), "nop");
  assert.equal(read(root, "trace_clock"), "local");
  assert.equal(read(root, "buffer_size_kb"), "4096");
  assert.equal(read(root, "trace"), "");
  assert.equal(read(root, "events/sched/sched_switch/enable"), "1");
  assert.equal(read(root, "events/sched/sched_waking/enable"), "0"); // not asked for
  assert.deepEqual(restoreSettings(root, saved), []);
  const after = settingsOf(root);
  // the fake keeps what was written: the clock's name and the buffer's number come back
  assert.equal(after.trace_clock, "global");
  assert.equal(after.buffer_size_kb, "7");
  assert.deepEqual(
    { ...after, trace_clock: before.trace_clock, buffer_size_kb: before.buffer_size_kb },
    before,
  );
  assert.equal(FAKE_BEFORE.tracing_on, after.tracing_on);
});

test("tracefs: a setting that cannot be written back is reported and the others are still restored", () => {
  const root = fakeTracefs();
  const saved = saveSettings(root, ["sched_switch"]);
  applySettings(root, { clock: "local", events: ["sched_switch"] });
  fs.rmSync(path.join(root, "events", "sched", "sched_switch"), { recursive: true });
  const errors = restoreSettings(root, saved);
  assert.equal(errors.length, 1);
  assert.match(errors[0], /events\/sched\/sched_switch\/enable <- 0/);
  assert.equal(read(root, "current_tracer"), "function");
  assert.equal(read(root, "tracing_on"), "1");
});

test("tracefs: --events is checked against events/sched, a bad name is refused naming the accepted ones", () => {
  const root = fakeTracefs();
  assert.deepEqual(parseSchedEvents(undefined, root), [...DEFAULT_SCHED_EVENTS]);
  assert.deepEqual(parseSchedEvents("sched_switch, sched_switch,sched_waking", root), [
    "sched_switch",
    "sched_waking",
  ]);
  assert.throws(
    () => parseSchedEvents("sched_switch,sched_wakup", root),
    /--events sched_wakup: no such event under .*events\/sched \(accepted: .*sched_wakeup, sched_wakeup_new/,
  );
  assert.throws(() => parseSchedEvents(",", root), /--events is empty \(accepted: /);
  // an older kernel without sched_waking (before v4.3): the default takes what it has
  fs.rmSync(path.join(root, "events", "sched", "sched_waking"), { recursive: true });
  assert.deepEqual(
    parseSchedEvents(undefined, root),
    DEFAULT_SCHED_EVENTS.filter((e) => e !== "sched_waking"),
  );
});

test("tracefs: lost events per CPU are overrun plus dropped events; the clock is the bracketed name", () => {
  assert.deepEqual(perCpuLost(fakeTracefs()), { "0": 7, "1": 0 });
  assert.equal(selectedClock("[local] global counter"), "local");
  assert.equal(selectedClock("local global [mono]"), "mono");
  assert.equal(selectedClock("local\n"), "local");
});
