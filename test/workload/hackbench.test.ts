import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder, patch, topology, workload } from "../../src/index";
import { unixSkbTruesize } from "../../src/workload/hackbench";
import type { Machine } from "../../src/machine/types";

test("hackbench: bad options are refused with the field and accepted values named", () => {
  assert.throws(() => workload.hackbench({ groups: 0 }), /groups must be an integer from 1/);
  assert.throws(() => workload.hackbench({ loops: 1.5 }), /loops must be an integer from 1/);
  assert.throws(
    // @ts-expect-error: -t is a flag
    () => workload.hackbench({ thread: "yes" }),
    /thread must be true or false/,
  );
  assert.throws(
    // @ts-expect-error: perf's option is -g/--group, named groups
    () => workload.hackbench({ group: 4 }),
    /unknown option "group" \(accepted: groups, loops, thread, pipe, fds, datasize, cpus\)/,
  );
  // the source's defaults: 10 groups, 100 loops, 20 fds, DATASIZE 100, processes, sockets
  assert.deepEqual(workload.hackbench().params, {
    groups: 10,
    loops: 100,
    thread: false,
    pipe: false,
    fds: 20,
    datasize: 100,
  });
});

test("hackbench: a 100-byte unix stream write carries a 768-byte truesize (kmalloc-512 + sk_buff)", () => {
  assert.equal(unixSkbTruesize(100), 768);
  // SKB_DATA_ALIGN(200) + 320 = 576: the next cache is 1024
  assert.equal(unixSkbTruesize(200), 1024 + 256);
});

const runOn = (
  m: Machine | string,
  opts: Parameters<typeof workload.hackbench>[0],
  era = "6.19",
) => {
  const hb = workload.hackbench(opts);
  const it = topology(m)
    .era(era as "6.19")
    .workload(hb)
    .runSync()
    .iteration("baseline", 0);
  return { hb, m: it.metrics, it };
};

test("hackbench: prints perf's report; every message is received and every child reaped", () => {
  for (const thread of [false, true]) {
    const { hb, m, it } = runOn("core2-2x2", { groups: 2, loops: 20, thread });
    assert.equal(m.finished, 1);
    assert.equal(m.messages, 2 * 20 * 20 * 20);
    assert.equal(m.tasks, 80);
    // the main task plus 80 children, all exited but main
    assert.equal(it.tasks.length, 81);
    const kind = thread ? "threads" : "processes";
    const lines = hb.format(m).split("\n");
    assert.deepEqual(lines.slice(0, 4), [
      "# Running 'sched/messaging' benchmark:",
      `# 20 sender and receiver ${kind} per group`,
      `# 2 groups == 80 ${kind} run`,
      "",
    ]);
    // " %14s: %lu.%03lu [sec]"
    assert.match(lines[4], /^ {5}Total time: \d+\.\d{3} \[sec\]$/);
    assert.equal(lines.length, 5);
    assert.ok(m.total_time_s > 0);
  }
});

test("hackbench: a slower machine takes longer (lower capacity, dearer system calls)", () => {
  const opts = { groups: 1, loops: 30 };
  const mk = (capacity: number, syscallNs: number) =>
    machineBuilder().cores(2).capacity(capacity).costs({ syscallNs }).build();
  const fast = runOn(mk(1024, 100), opts).m;
  const slowCpu = runOn(mk(512, 100), opts).m;
  const slowSys = runOn(mk(1024, 400), opts).m;
  assert.ok(
    slowCpu.total_time_s > 1.3 * fast.total_time_s,
    `${slowCpu.total_time_s} vs ${fast.total_time_s}`,
  );
  assert.ok(
    slowSys.total_time_s > fast.total_time_s,
    `${slowSys.total_time_s} vs ${fast.total_time_s}`,
  );
});

test("hackbench: pipes (-p) skip the socket layer's work and take less time than sockets", () => {
  const opts = { groups: 2, loops: 50 };
  const sock = runOn("core2-2x2", opts, "5.19").m;
  const pipe = runOn("core2-2x2", { ...opts, pipe: true }, "5.19").m;
  assert.equal(pipe.messages, sock.messages);
  assert.ok(pipe.total_time_s < sock.total_time_s, `${pipe.total_time_s} vs ${sock.total_time_s}`);
});

test("hackbench: one sender far ahead of its receiver fills the socket's send buffer and sleeps; each sleep ends in a wakeup", () => {
  // One CPU: the sender runs its slice before the receiver gets the CPU back (no wakeup
  // preemption), so it writes until sk_wmem_alloc reaches sk_sndbuf: ceil(212992 / 768) = 278
  // messages, then sleeps until the reader has brought it down to a quarter.
  const one = machineBuilder().cores(1).build();
  const noPreempt = (era: "5.19" | "6.19") => {
    const hb = workload.hackbench({ groups: 1, fds: 1, loops: 2000 });
    return topology(one)
      .era(era)
      .patch(patch("no wakeup preemption").feature("WAKEUP_PREEMPTION", false))
      .workload(hb)
      .runSync()
      .iteration("no wakeup preemption", 0).metrics;
  };
  for (const era of ["5.19", "6.19"] as const) {
    const m = noPreempt(era);
    assert.equal(m.finished, 1, era);
    assert.equal(m.messages, 2000);
    assert.ok(m.writer_sleeps >= 1, `${era}: ${m.writer_sleeps}`);
    assert.equal(m.writer_sleeps, m.writer_wakeups, era);
  }
});

test("hackbench -p: pipe writer wakeups by release: 5.5-6.13 wake a writer at every read of a full pipe (often before a page is free), today only when a page is released", () => {
  const two = machineBuilder().cores(2).build();
  const spurious = (era: "4.8" | "5.19" | "6.19") => {
    const { m } = runOn(two, { groups: 1, fds: 4, loops: 1000, pipe: true }, era);
    assert.equal(m.finished, 1, era);
    assert.equal(m.writer_sleeps, m.writer_wakeups, era);
    return m;
  };
  const wasFull = spurious("5.19");
  const released = spurious("6.19");
  const all = spurious("4.8");
  assert.ok(wasFull.writer_spurious_wakeups > 100, `${wasFull.writer_spurious_wakeups}`);
  assert.ok(
    released.writer_spurious_wakeups * 10 < wasFull.writer_spurious_wakeups,
    `${released.writer_spurious_wakeups} vs ${wasFull.writer_spurious_wakeups}`,
  );
  assert.ok(all.writer_spurious_wakeups < wasFull.writer_spurious_wakeups);
  // sockets wake every sleeping writer at a quarter of the send buffer, in every era
  const sock = runOn(two, { groups: 1, fds: 4, loops: 1000 }, "5.19").m;
  assert.equal(sock.writer_sleeps, sock.writer_wakeups);
});

test("hackbench: 40 groups (1600 processes) run to completion on the 104-CPU box", () => {
  const { m } = runOn("x86-104t", { groups: 40, loops: 5 }, "6.19");
  assert.equal(m.finished, 1);
  assert.equal(m.tasks, 1600);
  assert.equal(m.messages, 40 * 20 * 20 * 5);
});
