import { test } from "node:test";
import assert from "node:assert/strict";
import { TraceBuffer, type TraceRecord } from "../../src/kernel/trace";
import { RunLimitError, topology, workload } from "../../src/index";

const rec = (t: number): TraceRecord => ({
  type: "sched_waking",
  t,
  cpu: 0,
  comm: "x",
  pid: 1,
  prio: 120,
  targetCpu: 0,
});

test("the trace buffer keeps the newest records in order and counts what it overwrote", () => {
  const b = new TraceBuffer(3);
  for (let t = 1; t <= 7; t++) b.push(rec(t));
  assert.deepEqual(
    b.records().map((r) => r.t),
    [5, 6, 7],
  );
  assert.equal(b.dropped, 4);
  const small = new TraceBuffer(5);
  small.push(rec(1));
  assert.deepEqual(
    small.records().map((r) => r.t),
    [1],
  );
  assert.throws(() => new TraceBuffer(0), /traceLimit must be a positive integer \(got 0\)/);
});

test("a traced run past its trace limit keeps the last records and reports the dropped count", () => {
  const exp = topology("core2-2x2").workload(workload.pingpong({ pairs: 2 }));
  const full = exp.runSync({ iterations: 1, duration: 0.01, trace: true }).data.iterations[0];
  const capped = exp.runSync({ iterations: 1, duration: 0.01, trace: true, traceLimit: 100 }).data
    .iterations[0];
  assert.ok(full.trace!.length > 100);
  assert.equal(full.traceDropped, undefined);
  assert.equal(capped.trace!.length, 100);
  assert.equal(capped.traceDropped, full.trace!.length - 100);
  assert.deepEqual(capped.trace, full.trace!.slice(-100));
  // the limit changes only what is kept, not the run
  assert.deepEqual(capped.metrics, full.metrics);
});

test("a run past maxEvents stops with an error naming the limit; under it, results are unchanged", () => {
  const exp = topology("core2-2x2").workload(workload.pingpong({ pairs: 2 }));
  const free = exp.runSync({ iterations: 1, duration: 0.02 }).data.iterations[0];
  assert.throws(
    () => exp.runSync({ iterations: 1, duration: 0.02, maxEvents: 1000 }),
    /^RunLimitError: run stopped: \d+ events by 0\.0\d0 s simulated passed maxEvents = 1000; raise the limit or shorten the run/,
  );
  const bounded = exp.runSync({ iterations: 1, duration: 0.02, maxEvents: free.events + 1 }).data
    .iterations[0];
  assert.deepEqual(bounded.metrics, free.metrics);
  assert.equal(bounded.events, free.events);
  assert.throws(
    () => exp.runSync({ maxEvents: 0 }),
    /run: maxEvents must be a positive integer \(got 0\)/,
  );
});

test("a stopped run keeps what it had: tasks, CPUs, counters and trace up to the stop, CPU time conserved", () => {
  const exp = topology("core2-2x2").workload(workload.pingpong({ pairs: 2 }));
  let err: unknown;
  try {
    exp.runSync({ iterations: 1, duration: 0.05, maxEvents: 2000, trace: true });
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof RunLimitError, String(err));
  const p = err.partial;
  const stop = err.stoppedAtNs;
  assert.equal(p.durationNs, err.stoppedAtNs);
  assert.ok(err.stoppedAtNs > 0 && err.stoppedAtNs < 50_000_000);
  assert.ok(p.events > 2000);
  assert.deepEqual(p.metrics, {});
  assert.equal(p.tasks.length, 4);
  assert.ok(p.trace!.length > 0 && p.trace!.every((r) => r.t <= stop));
  for (const c of p.cpus) assert.equal(c.busyNs + c.idleNs + c.offlineNs, p.durationNs);
  const runtime = p.tasks.reduce((a, t) => a + t.runtimeNs, 0);
  const busy = p.cpus.reduce((a, c) => a + c.busyNs - c.overheadNs, 0);
  assert.ok(Math.abs(runtime - busy) <= p.cpus.length, `runtime ${runtime} vs busy ${busy}`);
});

test("a run past maxHeapMb stops with an error naming the heap size and the limit", () => {
  const exp = topology("core2-2x2").workload(workload.pingpong({ pairs: 2 }));
  assert.throws(
    () => exp.runSync({ iterations: 1, duration: 0.05, maxHeapMb: 1 }),
    /^RunLimitError: run stopped: heap \d+ MiB by 0\.010 s simulated passed maxHeapMb = 1; raise the limit/,
  );
  assert.throws(
    () => exp.runSync({ maxHeapMb: -5 }),
    /run: maxHeapMb must be a positive integer \(got -5\)/,
  );
});
