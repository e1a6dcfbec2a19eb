import { test } from "node:test";
import assert from "node:assert/strict";
import { TraceBuffer, type TraceRecord } from "../../src/kernel/trace";
import { topology, workload } from "../../src/index";

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
    /^Error: run stopped: \d+ events by 0\.0\d0 s simulated passed maxEvents = 1000; raise the limit or shorten the run$/,
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
