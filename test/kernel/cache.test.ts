// The cache-refill cost: a working set warm elsewhere comes back at the bandwidth of the level
// that holds it, the evicted part from memory, the two added; a migrated task pays it before
// its work makes progress.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../src/machine/builder";
import { call, run, setAffinity, sleep } from "../../src/kernel/ops";
import type { Kernel } from "../../src/kernel/core/core";
import { boot } from "./boot";
import { SHARE_LEVELS } from "../../src/machine/types";

const COPY = {
  same_core: 20,
  shared_l2: 15,
  shared_llc: 12,
  same_package: 12,
  same_node: 6,
  other_node: 6,
};
const MEM = 4;

/** 2 sockets x 2 cores, LLC per socket, explicit copy bandwidths (bytes/ns). */
function kernel(): Kernel {
  const m = machineBuilder()
    .sockets(2)
    .cores(2)
    .costs({ copyBytesPerNs: COPY, memoryBytesPerNs: MEM, contextSwitchNs: 1200 })
    .caches({ llcBytes: 32 << 20 })
    .build();
  return boot(m, "5.19");
}

test("refillNs: the warm part at the sharing level's bandwidth plus the evicted part from memory", () => {
  const c = kernel().cache;
  const B = 1 << 20;
  assert.equal(c.level(0, 1), "shared_llc");
  assert.equal(c.level(0, 2), "same_node");
  assert.equal(c.refillNs(B, 0, 0, 0), 0, "still warm where it ran");
  assert.equal(c.refillNs(B, 0, 1, 0), B / COPY.shared_llc);
  assert.equal(c.refillNs(B, 0, 2, 0), B / COPY.same_node);
  assert.equal(c.refillNs(B, 0, 1, 1), B / MEM, "all evicted: from memory");
  assert.equal(c.refillNs(B, 0, 2, 0.25), (0.75 * B) / COPY.same_node + (0.25 * B) / MEM);
  assert.equal(
    c.refillNs(B, 0, 0, 0.25),
    (0.25 * B) / MEM,
    "the evicted part even on the same CPU",
  );
  assert.equal(c.refillNs(B, -1, 3, 0), B / MEM, "never ran: from memory");
  assert.equal(c.refillNs(0, 0, 2, 0), 0);
});

test("per-pair costs: a cache line, a remote rq lock and a copy cost the figure of the pair's sharing level", () => {
  const LINE = {
    same_cpu: 1,
    same_core: 2,
    shared_l2: 10,
    shared_llc: 40,
    same_package: 45,
    same_node: 120,
    other_node: 130,
  };
  const LOCK = {
    same_cpu: 0,
    same_core: 10,
    shared_l2: 40,
    shared_llc: 150,
    same_package: 160,
    same_node: 400,
    other_node: 410,
  };
  const BW = { same_cpu: 20, ...COPY }; // the builder's same_cpu figure
  const m = machineBuilder()
    .sockets(2)
    .cores(2)
    .costs({ copyBytesPerNs: BW, memoryBytesPerNs: MEM, cacheLineNs: LINE, rqLockRemoteNs: LOCK })
    .caches({ llcBytes: 32 << 20 })
    .build();
  const c = boot(m, "5.19").cache;
  // cpu0/cpu1 share the socket's LLC; cpu2/cpu3 are on the other socket (same node: no NUMA).
  for (const [a, b, level] of [
    [0, 0, "same_cpu"],
    [0, 1, "shared_llc"],
    [1, 0, "shared_llc"],
    [0, 3, "same_node"],
    [3, 2, "shared_llc"],
  ] as const) {
    assert.equal(c.level(a, b), level, `${a}-${b}`);
    assert.equal(c.levelIndex(a, b), SHARE_LEVELS.indexOf(level));
    assert.equal(c.cacheLineNs(a, b), LINE[level], `cacheLineNs ${a}-${b}`);
    assert.equal(c.rqLockRemoteNs(a, b), LOCK[level], `rqLockRemoteNs ${a}-${b}`);
    // copyNs: the first line's latency, then the bytes at the level's bandwidth.
    assert.equal(c.copyNs(4096, a, b), LINE[level] + 4096 / BW[level], `copyNs ${a}-${b}`);
  }
  assert.equal(c.cacheBytes(), 32 << 20, "the LLC is what a CPU evicts from");
  // An evicted fraction outside [0, 1] is clamped: all warm below 0, all cold above 1.
  assert.equal(c.refillNs(1 << 20, 0, 1, -0.5), (1 << 20) / COPY.shared_llc);
  assert.equal(c.refillNs(1 << 20, 0, 1, 1.5), (1 << 20) / MEM);
  assert.equal(c.refillNs(-1, 0, 1, 0), 0, "no working set, no refill");
});

/** A task with `ws` bytes of working set runs 1 ms on cpu0, sleeps, wakes on `to` and runs 1 ms. */
function secondRunNs(ws: number, to: number): number {
  const k = kernel();
  let t0 = 0;
  let t1 = 0;
  k.spawn({
    comm: "m",
    cpu: 0,
    cpus: [0],
    workingSetBytes: ws,
    program: function* () {
      yield run(1_000_000);
      yield call(() => (t0 = k.now));
      // A mask without cpu0 moves the task at once (migration_cpu_stop), cold on the new CPU.
      yield setAffinity([to]);
      yield sleep(100_000);
      yield run(1_000_000);
      yield call(() => (t1 = k.now));
      yield run(Infinity);
    },
  });
  k.runUntil(10_000_000);
  assert.ok(t1 > t0 && t0 > 0);
  assert.equal(k.tasks[0].cpu, to);
  return t1 - t0;
}

test("a task moved to another socket pays its working set's refill before its work is done", () => {
  const ws = 8 << 20;
  const k = kernel();
  const refill = k.cache.refillNs(ws, 0, 2, 0);
  const none = secondRunNs(0, 2);
  const moved = secondRunNs(ws, 2);
  assert.ok(moved - none >= refill, `extra ${moved - none} ns, refill ${refill} ns`);
  assert.ok(moved - none < 2 * refill, `extra ${moved - none} ns is about one refill`);
  // Staying on the same CPU costs no refill.
  const stay = secondRunNs(ws, 0);
  assert.ok(stay - secondRunNs(0, 0) < refill / 10);
});

test("privateRefillNs: what ran since, at most one L2 and the working set, at min(task rate, LLC streaming)", () => {
  const m = machineBuilder()
    .sockets(1)
    .cores(2)
    .costs({ copyBytesPerNs: COPY, memoryBytesPerNs: MEM })
    .caches({ l2Bytes: 256 << 10, llcBytes: 32 << 20 })
    .build();
  const c = boot(m, "3.19").cache;
  const KB = 1024;
  assert.equal(c.privateRefillNs(256 * KB, 64 * KB, 4), (64 * KB) / 4, "64 KB displaced at 4 GB/s");
  assert.equal(c.privateRefillNs(256 * KB, 1 << 20, 4), (256 * KB) / 4, "at most one L2");
  assert.equal(c.privateRefillNs(16 * KB, 64 * KB, 4), (16 * KB) / 4, "at most the working set");
  assert.equal(
    c.privateRefillNs(256 * KB, 64 * KB, 100),
    (64 * KB) / COPY.shared_llc,
    "no faster than the LLC streams",
  );
  assert.equal(c.privateRefillNs(256 * KB, 0, 4), 0, "nothing ran in between");
  assert.equal(c.privateRefillNs(256 * KB, -5, 4), 0);
  assert.equal(c.privateRefillNs(256 * KB, 64 * KB, 0), 0, "rate 0: not modelled");
});

/**
 * A transaction-like task (256 KB working set, pinned to cpu0) is preempted by a SCHED_FIFO task
 * with a 64 KB working set that runs 20 us there; returns how long the first task's 1 ms of work
 * took from its start (ns).
 */
function preemptedRunNs(refillBytesPerNs: number): number {
  const m = machineBuilder()
    .sockets(1)
    .cores(2)
    .costs({ copyBytesPerNs: COPY, memoryBytesPerNs: MEM, contextSwitchNs: 1000 })
    .caches({ l2Bytes: 256 << 10, llcBytes: 32 << 20 })
    .build();
  const k = boot(m, "3.19");
  let done = 0;
  k.spawn({
    comm: "tx",
    cpu: 0,
    cpus: [0],
    workingSetBytes: 256 << 10,
    privateRefillBytesPerNs: refillBytesPerNs,
    program: function* () {
      yield run(1_000_000);
      yield call(() => (done = k.now));
      yield run(Infinity);
    },
  });
  k.spawn({
    comm: "rt",
    cpu: 0,
    cpus: [0],
    policy: "fifo",
    rtPriority: 50,
    workingSetBytes: 64 << 10,
    program: function* () {
      yield sleep(300_000);
      yield run(20_000);
      yield sleep(100_000_000);
    },
  });
  k.runUntil(5_000_000);
  assert.ok(done > 0);
  return done;
}

test("a task preempted on its own CPU re-reads what the preempting task displaced from its L2 (only when its rate is set)", () => {
  const off = preemptedRunNs(0);
  const on = preemptedRunNs(4);
  const lost = (64 << 10) / 4; // the RT task's 64 KB, at 4 GB/s
  assert.ok(on - off >= lost * 0.99, `extra ${on - off} ns, expected ~${lost} ns`);
  assert.ok(on - off < lost * 1.5, `extra ${on - off} ns is about one 64 KB refill`);
});

test("spawn refuses a negative or non-finite privateRefillBytesPerNs, naming it", () => {
  const k = kernel();
  assert.throws(
    () => k.spawn({ comm: "x", program: function* () {}, privateRefillBytesPerNs: -1 }),
    /privateRefillBytesPerNs must be a finite number >= 0/,
  );
});
