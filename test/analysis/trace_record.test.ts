// `schedlab trace record`'s logic (src/analysis/trace_record.ts) on a fake tracefs directory:
// root required, --events checked before anything changes, the settings written back after a
// command that succeeds, fails, cannot start or is interrupted, the directory whole or absent,
// lost events counted; and one real recording when this box lets us (root and tracefs).
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { importTraceFile } from "../../src/analysis/trace_import";
import { readTraceMeta } from "../../src/analysis/trace_meta";
import { type RecordOptions, recordTrace } from "../../src/analysis/trace_record";
import { saveSettings, TRACEFS, tracefsMounted } from "../../src/analysis/tracefs";
import { fakeSysfs, fakeTracefs, settingsOf } from "../support/fake_tracefs";

const tmpOut = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-record-")), "rec");
const quiet = { log: () => {} };

function fake(command: string[], more: Partial<RecordOptions> = {}) {
  const root = fakeTracefs();
  const opts: RecordOptions = {
    command,
    out: tmpOut(),
    tracefs: root,
    sysfs: fakeSysfs(),
    uid: 0,
    signals: new EventEmitter(),
    ...quiet,
    ...more,
  };
  return { root, opts, before: settingsOf(root) };
}

test("trace record: refuses a user other than root, before touching tracefs", async () => {
  const { root, opts, before } = fake(["true"], { uid: 1000 });
  await assert.rejects(recordTrace(opts), /trace record: needs root .*uid 1000.*run it as root/);
  assert.deepEqual(settingsOf(root), before);
  assert.equal(fs.existsSync(opts.out), false);
});

test("trace record: a bad --events name is refused naming the accepted ones, nothing changed", async () => {
  const { root, opts, before } = fake(["true"], { events: "sched_switch,sched_wakeupp" });
  await assert.rejects(
    recordTrace(opts),
    /--events sched_wakeupp: no such event .*\(accepted: .*sched_switch.*sched_wakeup_new/,
  );
  assert.deepEqual(settingsOf(root), before);
  assert.equal(fs.existsSync(opts.out), false);
  assert.deepEqual(fs.readdirSync(path.dirname(opts.out)), []);
});

test("trace record: writes trace.txt as the buffer held it, machine.json, meta.json; lost events counted; settings restored", async () => {
  // the command writes the fake buffer, as the kernel would during the run
  const lines =
    "# tracer: nop\n          <idle>-0       [000] d..2.   1.000001: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=5 next_prio=120\nCPU:1 [LOST 30 EVENTS]\n";
  const { root, opts, before } = fake([]);
  opts.command = ["sh", "-c", `printf '%s' "$0" > ${path.join(root, "trace")}`, lines];
  const logs: string[] = [];
  opts.log = (s) => logs.push(s);
  opts.bufferKb = 2048;
  const r = await recordTrace(opts);
  assert.equal(r.status, 0);
  assert.deepEqual(fs.readdirSync(opts.out).sort(), ["machine.json", "meta.json", "trace.txt"]);
  assert.equal(fs.readFileSync(path.join(opts.out, "trace.txt"), "utf8"), lines);
  const meta = readTraceMeta(path.join(opts.out, "meta.json"));
  assert.deepEqual(meta, r.meta);
  assert.equal(meta.traceClock, "local");
  assert.equal(meta.bufferSizeKb, 2048);
  assert.deepEqual(meta.lostByCpu, { "0": 7, "1": 0 });
  assert.equal(meta.lostEvents, 30); // the larger of 7 overrun and 30 in [LOST] lines
  assert.match(logs.join("\n"), /lost 30 events \(2048 kB per CPU\).*--buffer-kb 8192/);
  const machine = JSON.parse(fs.readFileSync(path.join(opts.out, "machine.json"), "utf8"));
  assert.equal(machine.topology.sockets * machine.topology.coresPerSocket, 4);
  assert.deepEqual(settingsOf(root), {
    ...before,
    trace_clock: "global",
    buffer_size_kb: "7",
  });
  assert.deepEqual(fs.readdirSync(path.dirname(opts.out)), ["rec"]); // no temporary left
});

test("trace record: a failing command's status is returned, the files written and the settings restored", async () => {
  const { root, opts } = fake(["sh", "-c", "exit 3"]);
  const r = await recordTrace(opts);
  assert.equal(r.status, 3);
  assert.equal(r.meta.exitStatus, 3);
  assert.ok(fs.existsSync(path.join(opts.out, "meta.json")));
  assert.equal(settingsOf(root).tracing_on, "1");
  assert.equal(settingsOf(root).current_tracer, "function");
});

test("trace record: a command that cannot start is status 127, settings restored", async () => {
  const { root, opts } = fake(["/nonexistent/schedlab-no-such-command"]);
  const r = await recordTrace(opts);
  assert.equal(r.status, 127);
  assert.equal(settingsOf(root).sched_switch, "0");
});

test("trace record: SIGINT is forwarded to the command, which ends; the settings are restored", async () => {
  const signals = new EventEmitter();
  const { root, opts, before } = fake(["sleep", "30"], {
    signals,
    onSpawn: () => signals.emit("SIGINT"),
  });
  const r = await recordTrace(opts);
  assert.equal(r.status, 128 + os.constants.signals.SIGINT);
  assert.equal(r.meta.signal, "SIGINT");
  assert.deepEqual(settingsOf(root), { ...before, trace_clock: "global" }); // no --buffer-kb: untouched
  assert.equal(signals.listenerCount("SIGINT"), 0);
});

test("trace record: a non-empty --out is refused; an unmounted tracefs is mounted or refused clearly", async () => {
  const { opts } = fake(["true"]);
  fs.mkdirSync(opts.out);
  fs.writeFileSync(path.join(opts.out, "x"), "");
  await assert.rejects(recordTrace(opts), /--out .*rec exists and is not empty/);
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-notracefs-"));
  const o2 = { ...opts, out: tmpOut(), tracefs: empty };
  await assert.rejects(
    recordTrace({
      ...o2,
      mount: () => {
        throw new Error("trace record: mount failed (test)");
      },
    }),
    /mount failed \(test\)/,
  );
  await assert.rejects(recordTrace({ ...o2, mount: () => {} }), /holds no tracefs after mounting/);
});

const real =
  process.getuid?.() === 0 && tracefsMounted(TRACEFS)
    ? ""
    : "needs root and tracefs mounted at /sys/kernel/tracing";
test("trace record: a real recording of sleep 0.01 imports whole and leaves tracefs as it was", {
  skip: real || false,
}, async () => {
  const events = ["sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new"];
  const before = saveSettings(TRACEFS, events);
  const out = tmpOut();
  const r = await recordTrace({ command: ["sleep", "0.01"], out, ...quiet });
  assert.equal(r.status, 0);
  assert.deepEqual(saveSettings(TRACEFS, events), before);
  const t = await importTraceFile(path.join(out, "trace.txt"));
  assert.equal(t.badCount, 0, JSON.stringify(t.bad.slice(0, 3)));
  assert.ok(t.records.some((x) => x.type === "sched_switch"));
  assert.ok(
    t.records.some(
      (x) => x.type === "sched_process_exit" && x.comm === "sleep" && x.pid === r.meta.pid,
    ),
    "the command's own exit is in the trace",
  );
  assert.equal(readTraceMeta(path.join(out, "meta.json")).kernelRelease, os.release());
});
