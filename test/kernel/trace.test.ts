import { test } from "node:test";
import assert from "node:assert/strict";
import { TraceBuffer, type TraceRecord } from "../../src/kernel/trace";
import { RunLimitError, fork, run, topology, workload } from "../../src/index";

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

test("a fork records sched_process_fork then sched_wakeup_new, an exit sched_process_exit, as kernel_clone and do_exit do; ftrace prints the kernel's fields", () => {
  const run619 = (era: "5.19" | "6.19") =>
    topology("core2-2x2")
      .era(era)
      .workload({
        name: "forker",
        params: {},
        defaultDurationNs: 5e6,
        defaultWarmupNs: 0,
        setup(ctx) {
          ctx.spawn({
            comm: "parent",
            cpu: 0,
            program: function* () {
              yield run(100_000);
              yield fork({
                comm: "child",
                program: function* () {
                  yield run(50_000);
                },
              });
              yield run(1_000_000);
            },
          });
          return { metrics: () => ({}) };
        },
      })
      .runSync({ trace: true });
  const res = run619("6.19");
  const trace = res.iteration("baseline", 0).trace!;
  const fork0 = trace.findIndex((r) => r.type === "sched_process_fork");
  assert.ok(fork0 >= 0, "sched_process_fork recorded");
  const f = trace[fork0] as Extract<TraceRecord, { type: "sched_process_fork" }>;
  assert.deepEqual([f.parentComm, f.childComm, f.cpu], ["parent", "child", 0]);
  const wn = trace.findIndex((r) => r.type === "sched_wakeup_new" && r.pid === f.childPid);
  assert.ok(wn > fork0, "sched_wakeup_new after the fork record");
  assert.ok(
    !trace.some((r) => r.type === "sched_wakeup" && r.pid === f.childPid),
    "a new task's first activation is not a sched_wakeup",
  );
  const exits = trace.filter((r) => r.type === "sched_process_exit");
  assert.deepEqual(
    exits.map((r) => r.type === "sched_process_exit" && [r.comm, r.groupDead]),
    [
      ["child", true],
      ["parent", true],
    ],
  );
  const text = res.trace("baseline", 0);
  assert.match(text, /: sched_process_fork: comm=parent pid=\d+ child_comm=child child_pid=\d+$/m);
  assert.match(text, /: sched_wakeup_new: comm=child pid=\d+ prio=120 target_cpu=\d{3}$/m);
  assert.match(text, /: sched_process_exit: comm=child pid=\d+ prio=120 group_dead=true$/m);
  // before v6.17 the exit record has no group_dead field
  assert.match(
    run619("5.19").trace("baseline", 0),
    /: sched_process_exit: comm=child pid=\d+ prio=120$/m,
  );
});
