// The cache-refill cost: a working set warm elsewhere comes back at the bandwidth of the level
// that holds it, the evicted part from memory, the two added; a migrated task pays it before
// its work makes progress.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../src/machine/builder";
import { call, run, setAffinity, sleep } from "../../src/kernel/ops";
import type { Kernel } from "../../src/kernel/core/core";
import { boot } from "./boot";

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
