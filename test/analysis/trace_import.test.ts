// A kernel's sched trace as text read back into TraceRecords: the model's own export round-trips,
// each layout real kernels and tools print is read, and what is not understood is counted with
// its line number.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { topology, workload, type TraceRecord } from "../../src/index";
import { importTraceFile, importTraceText, traceFields } from "../../src/analysis/trace_import";
import { toFtrace } from "../../src/report/trace";
import { byTime } from "../../src/analysis/trace";

/** What the text keeps of a record: microseconds, comms as one token of at most 15 characters. */
function asExported(r: TraceRecord): TraceRecord {
  const c = (s: string) => (s || "<...>").replace(/[\s=]+/g, "_").slice(0, 15);
  const t = Math.floor(r.t / 1000) * 1000;
  switch (r.type) {
    case "sched_switch":
      return {
        ...r,
        t,
        prevComm: r.prevPid === 0 ? r.prevComm : c(r.prevComm),
        nextComm: c(r.nextComm),
      };
    case "sched_process_fork":
      return { ...r, t, parentComm: c(r.parentComm), childComm: c(r.childComm) };
    case "sched_migrate_task":
      return { ...r, t, comm: c(r.comm), reason: "unknown" };
    default:
      return { ...r, t, comm: c(r.comm) };
  }
}

test("the model's own ftrace export imports back to the same events (hackbench: forks, wakeups, switches, migrations, exits)", () => {
  const it = topology("core2-2x2")
    .era("6.19")
    .workload(workload.hackbench({ groups: 1, loops: 20 }))
    .runSync({ iterations: 1, seed: 1, trace: true })
    .iteration("baseline", 0);
  const model = byTime(it.trace ?? []);
  assert.ok(model.length > 100);
  const kinds = new Set(model.map((r) => r.type));
  for (const k of [
    "sched_switch",
    "sched_wakeup",
    "sched_wakeup_new",
    "sched_process_fork",
    "sched_process_exit",
  ])
    assert.ok(kinds.has(k as TraceRecord["type"]), `${k} in the model's trace`);
  const back = importTraceText(toFtrace(model));
  assert.equal(back.badCount, 0, JSON.stringify(back.bad.slice(0, 3)));
  assert.equal(back.nrCpus, 4);
  const expected = model.map(asExported);
  // An imported sched_waking also names the task current on its CPU (the waker) and its context.
  const got = back.records
    .filter((r) => r.type !== "sched_waking" || kinds.has("sched_waking"))
    .map((r) => {
      if (r.type !== "sched_waking") return r;
      assert.equal(r.context, "task");
      assert.ok(Number.isInteger(r.wakerPid), "the waker's pid from the line");
      const { wakerPid: _w, context: _c, ...rest } = r;
      return rest;
    });
  assert.equal(got.length, expected.length);
  for (let i = 0; i < got.length; i++) assert.deepEqual(got[i], expected[i], `record ${i}`);
});

test("layouts: the old numeric prev_state, trace-cmd report's header and <...> comms, 5-character flags", () => {
  const text = [
    "version = 6",
    "cpus=2",
    "          <idle>-0     [001] d..2.   100.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=perf bench next_pid=42 next_prio=120",
    "           <...>-42    [001] d..3    100.000010: sched_wakeup: comm=sleeper pid=7 prio=120 success=1 target_cpu=000",
    "        sleeper-7      [000] d..2    100.000020: sched_switch: prev_comm=sleeper prev_pid=7 prev_prio=120 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120",
    "        sleeper-7      [000] d..2    100.000030: sched_switch: prev_comm=sleeper prev_pid=7 prev_prio=120 prev_state=2 next_comm=swapper/0 next_pid=0 next_prio=120",
  ].join("\n");
  const r = importTraceText(text);
  assert.equal(r.badCount, 0, JSON.stringify(r.bad));
  assert.equal(r.nrCpus, 2);
  const [sw, wk, s1, s2] = r.records;
  assert.ok(sw.type === "sched_switch");
  assert.deepEqual(
    [sw.t, sw.cpu, sw.prevState, sw.nextComm, sw.nextPid],
    [100_000_001_000, 1, "R", "perf bench", 42],
  );
  assert.deepEqual(wk.type === "sched_wakeup" && [wk.comm, wk.pid, wk.targetCpu, wk.cpu], [
    "sleeper",
    7,
    0,
    1,
  ]);
  assert.equal(s1.type === "sched_switch" && s1.prevState, "S");
  assert.equal(s2.type === "sched_switch" && s2.prevState, "D");
});

test("unsorted per-CPU buffers are sorted; lost events add up; bad and truncated lines are counted with their numbers", () => {
  const text = [
    "# tracer: nop",
    "# entries-in-buffer/entries-written: 3/9   #P:2",
    "  a-1 [001] d..3   2.000002: sched_waking: comm=b pid=2 prio=120 target_cpu=001",
    "CPU:1 [LOST 5 EVENTS]",
    "  a-1 [000] d..3   2.000001: sched_waking: comm=c pid=3 prio=120 target_cpu=000",
    "this is not a trace line",
    "  a-1 [000] d..3   2.000003: sched_wakeup: comm=c pid=3",
    "  a-1 [000] d.h.   2.000004: irq_handler_entry: irq=1 name=timer",
    "[LOST 4 EVENTS]",
    "  a-1 [001] d..2   2.0000",
  ].join("\n");
  const r = importTraceText(text);
  assert.deepEqual(
    r.records.map((x) => x.t),
    [2_000_001_000, 2_000_002_000],
  );
  assert.equal(r.lostEvents, 9);
  assert.equal(r.nrCpus, 2);
  assert.deepEqual(
    r.bad.map((b) => b.line),
    [6, 7, 10],
  );
  assert.match(r.bad[1].why, /sched_wakeup without prio/);
  assert.deepEqual(r.otherEvents, { irq_handler_entry: 1 });
});

test("a trace file is read line by line; a missing one is refused naming it", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-trace-"));
  const file = path.join(dir, "trace.txt");
  fs.writeFileSync(
    file,
    "# tracer: nop\n  a-1 [000] d..3   1.000001: sched_wakeup_new: comm=b pid=2 prio=120 target_cpu=001\n",
  );
  const r = await importTraceFile(file);
  assert.equal(r.records.length, 1);
  assert.equal(r.records[0].type, "sched_wakeup_new");
  await assert.rejects(importTraceFile(path.join(dir, "none.txt")), /no file .*none\.txt/);
  assert.deepEqual(traceFields("comm=a b pid=3 ==>"), { comm: "a b", pid: "3" });
});

test("a gzip trace file is decompressed as it streams (by its .gz name or its magic bytes); a corrupt one is refused", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-trace-gz-"));
  const plain = path.join(__dirname, "traces", "linux-6.18-perf-bench-pipe.txt");
  const gz = new Uint8Array(zlib.gzipSync(fs.readFileSync(plain, "utf8")));
  fs.writeFileSync(path.join(dir, "trace.txt.gz"), gz);
  fs.writeFileSync(path.join(dir, "trace.bin"), gz);
  const want = await importTraceFile(plain);
  assert.deepEqual(await importTraceFile(path.join(dir, "trace.txt.gz")), want);
  assert.deepEqual(await importTraceFile(path.join(dir, "trace.bin")), want);
  assert.equal(want.records.length, 400);
  fs.writeFileSync(path.join(dir, "cut.txt.gz"), gz.subarray(0, gz.length >> 1));
  await assert.rejects(importTraceFile(path.join(dir, "cut.txt.gz")), /unexpected end of file/);
});

test("a real trace (Linux 6.18 guest, 2 CPUs, perf bench sched pipe, tracefs, 5-character flags) imports whole", async () => {
  // recorded on this project's 2-CPU guest with the sched_switch, sched_waking, sched_wakeup,
  // sched_wakeup_new, sched_migrate_task and sched_process_fork/exit events on; the first 400 events
  const r = await importTraceFile(path.join(__dirname, "traces", "linux-6.18-perf-bench-pipe.txt"));
  assert.equal(r.badCount, 0, JSON.stringify(r.bad.slice(0, 3)));
  assert.equal(r.nrCpus, 2);
  assert.equal(r.records.length, 400);
  const types = new Set(r.records.map((x) => x.type));
  for (const k of ["sched_switch", "sched_waking", "sched_wakeup", "sched_process_fork"])
    assert.ok(types.has(k as TraceRecord["type"]), k);
  // every wakeup's sched_waking comes first
  const waking = new Set<number>();
  for (const x of r.records) {
    if (x.type === "sched_waking") waking.add(x.pid);
    if (x.type === "sched_wakeup")
      assert.ok(waking.has(x.pid), `wakeup of ${x.pid} after its waking`);
  }
});

test("a sched_waking names the task current on its CPU and the context from the flags column", () => {
  const text = [
    "  pipe-a-10 [000] d..3.   5.000001: sched_waking: comm=b pid=2 prio=120 target_cpu=001",
    "  <idle>-0  [001] d.h3.   5.000002: sched_waking: comm=c pid=3 prio=120 target_cpu=001",
    "  hog-11    [000] d.s3    5.000003: sched_waking: comm=d pid=4 prio=120 target_cpu=000",
    "  hog-11    [000] d.H3.   5.000004: sched_waking: comm=e pid=5 prio=120 target_cpu=000",
  ].join("\n");
  const r = importTraceText(text);
  assert.equal(r.badCount, 0, JSON.stringify(r.bad));
  const got = r.records.map((x) =>
    x.type === "sched_waking" ? [x.pid, x.wakerPid, x.context] : null,
  );
  assert.deepEqual(got, [
    [2, 10, "task"],
    [3, 0, "irq"],
    [4, 11, "softirq"],
    [5, 11, "irq"],
  ]);
});

test("perf sched script's layout (comm, tid, [cpu], time, sched:event) reads as the same records", () => {
  const text = [
    "            perf 19512 [000] 45893.869494:       sched:sched_waking: comm=migration/0 pid=18 prio=0 target_cpu=000",
    "            perf 19512 [000] 45893.869497: sched:sched_stat_runtime: comm=perf pid=19512 runtime=13175 [ns]",
    "            perf 19512 [000] 45893.869499:       sched:sched_switch: prev_comm=perf prev_pid=19512 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0",
    "     migration/0    18 [000] 45893.869504: sched:sched_migrate_task: comm=perf pid=19512 prio=120 orig_cpu=0 dest_cpu=1",
  ].join("\n");
  const r = importTraceText(text);
  assert.equal(r.badCount, 0, JSON.stringify(r.bad));
  assert.deepEqual(r.otherEvents, { sched_stat_runtime: 1 });
  const [wk, sw, mg] = r.records;
  assert.deepEqual(
    wk.type === "sched_waking" && [wk.t, wk.cpu, wk.pid, wk.targetCpu, wk.wakerPid, wk.context],
    [45_893_869_494_000, 0, 18, 0, 19512, "task"],
  );
  assert.deepEqual(
    sw.type === "sched_switch" && [sw.prevComm, sw.prevPid, sw.prevState, sw.nextComm, sw.nextPid],
    ["perf", 19512, "D", "migration/0", 18],
  );
  assert.deepEqual(
    mg.type === "sched_migrate_task" && [mg.pid, mg.origCpu, mg.destCpu],
    [19512, 0, 1],
  );
});

test("a real `perf sched script` of perf bench sched pipe (Linux 6.18, perf 6.1) imports whole", async () => {
  const file = path.join(__dirname, "traces", "linux-6.18-perf-sched-script-pipe.txt.gz");
  const text = zlib.gunzipSync(new Uint8Array(fs.readFileSync(file))).toString("utf8");
  const count = (ev: string) => text.split("\n").filter((l) => l.includes(` sched:${ev}: `)).length;
  const r = await importTraceFile(file);
  assert.equal(r.badCount, 0, JSON.stringify(r.bad.slice(0, 3)));
  assert.equal(r.nrCpus, 2);
  for (const ev of ["sched_switch", "sched_waking", "sched_migrate_task", "sched_wakeup_new"]) {
    assert.ok(count(ev) > 0, ev);
    assert.equal(r.records.filter((x) => x.type === ev).length, count(ev), ev);
  }
  assert.equal(r.otherEvents.sched_stat_runtime, count("sched_stat_runtime"));
  // the benchmark's two tasks pass the pipe back and forth: each wakes the other
  const pipe = new Set(
    r.records.flatMap((x) =>
      x.type === "sched_switch" && x.prevComm === "sched-pipe" ? [x.prevPid] : [],
    ),
  );
  assert.equal(pipe.size, 2, [...pipe].join(" "));
  const [a, b] = [...pipe];
  const woke = (from: number, to: number) =>
    r.records.filter((x) => x.type === "sched_waking" && x.wakerPid === from && x.pid === to)
      .length;
  assert.ok(woke(a, b) >= 90 && woke(b, a) >= 90, `${woke(a, b)} ${woke(b, a)}`);
});
