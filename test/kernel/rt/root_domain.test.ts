// The lockless view of cpupri and highest_prio.curr: a write is seen by other CPUs only from the
// writer's clock at the write; cpupri's count/mask lines are charged when they move.
import { test } from "node:test";
import assert from "node:assert/strict";
import { preset } from "../../../src/index";
import { MAX_RT_PRIO } from "../../../src/kernel/sched";
import { boot } from "../boot";

const task = (prio: number) => ({ prio, cpusAllowed: new Uint8Array([1, 1, 1, 1]) });

test("an in-flight enqueue on cpu1 is invisible to another CPU's reader until the writer's clock", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  const rd = k.rt.rd;
  const mask = new Uint8Array(4);
  // cpu0's wakeup path, 1000 ns into its work, files cpu1 under FIFO 50 (prio 49).
  k.thisCpu = 0;
  k.chargeNs = 1000;
  k.rqs[1].rt.highestPrio = 49;
  rd.updateCpupri(k.rqs[1]);
  // cpu3 reads 400 ns into its own path: cpu1 still looks like a CFS CPU.
  k.thisCpu = 3;
  k.chargeNs = 400;
  assert.equal(rd.visibleHighestPrio(k.rqs[1]), MAX_RT_PRIO);
  assert.equal(rd.find(task(49), mask), true);
  assert.deepEqual([...mask], [1, 1, 1, 1]);
  // From 1000 ns on it sees the write: cpu1 is no longer below an equal-prio task.
  k.chargeNs = 1000;
  assert.equal(rd.visibleHighestPrio(k.rqs[1]), 49);
  rd.find(task(49), mask);
  assert.deepEqual([...mask], [1, 0, 1, 1]);
  // The writer itself sees it at once; the invariant (cpupri = rt_rq) holds throughout.
  k.thisCpu = 0;
  assert.equal(rd.visibleHighestPrio(k.rqs[1]), 49);
  assert.equal(rd.cpupri.level(1), 101 - 49);
});

test("cpupri_find pays a cache-line transfer per line another CPU wrote, once", () => {
  const k = boot(preset("xeon-x5472"), "3.19");
  const rd = k.rt.rd;
  k.thisCpu = 0;
  k.chargeNs = 0;
  k.rqs[0].rt.highestPrio = 49;
  rd.updateCpupri(k.rqs[0]); // cpu0 writes the NORMAL level's count and mask, and level 52's
  const writer = k.chargeNs;
  assert.equal(writer, 0, "first writes: nobody held the lines");
  k.thisCpu = 5; // another die of the other package
  k.chargeNs = 0;
  const p = { prio: 49, cpusAllowed: new Uint8Array(8).fill(1) };
  rd.find(p, rd.lowestMask);
  const line = k.cache.cacheLineNs(0, 5);
  assert.equal(k.chargeNs, 2 * line, "NORMAL's count and mask from cpu0 (IDLE was never written)");
  rd.find(p, rd.lowestMask);
  assert.equal(k.chargeNs, 2 * line, "held now: no second transfer");
  // cpu5 refiles itself: cpupri_set writes NORMAL's and level 52's lines, both last written by
  // cpu0, so it pays for taking them exclusive (2 lines each).
  k.rqs[5].rt.highestPrio = 49;
  rd.updateCpupri(k.rqs[5]);
  assert.equal(k.chargeNs, 2 * line + 2 * line + 2 * k.cache.cacheLineNs(0, 5));
});

test("rto_mask and highest_prio.next: a set and a clear in one step are seen at their own times", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  const rd = k.rt.rd;
  const rq1 = k.rqs[1];
  // cpu1's step: overloaded at 500 ns (a wakee queued), cleared at 2000 ns (pushed after the switch).
  k.thisCpu = 1;
  k.chargeNs = 500;
  rd.setOverload(rq1);
  rd.updateNext(rq1, 49);
  k.chargeNs = 2000;
  rd.clearOverload(rq1);
  rd.updateNext(rq1, MAX_RT_PRIO);
  assert.equal(rd.rtoCount, 0, "the exact state: nothing overloaded");
  // cpu3 reading in the same instant sees what held at its own clock.
  k.thisCpu = 3;
  const at = (ns: number) => {
    k.chargeNs = ns;
    return [rd.rtOverloaded(), rd.rtoVisible(1), rd.readNext(rq1)];
  };
  assert.deepEqual(at(300), [false, false, MAX_RT_PRIO], "before the set");
  assert.deepEqual(at(1000), [true, true, 49], "between: a pull would take cpu1's lock");
  assert.deepEqual(at(2500), [false, false, MAX_RT_PRIO], "after the clear");
});

test("pull_rt_task's reads pay for rto_count, rto_mask and a source's highest_prio.next lines once per write", () => {
  const k = boot(preset("xeon-x5472"), "3.19");
  const rd = k.rt.rd;
  const line = k.cache.cacheLineNs(0, 5);
  k.thisCpu = 0;
  k.chargeNs = 0;
  rd.setOverload(k.rqs[0]); // first writer of the two lines: nothing to fetch
  rd.updateNext(k.rqs[0], 49);
  assert.equal(k.chargeNs, 0);
  k.thisCpu = 5;
  k.chargeNs = 0;
  assert.equal(rd.rtOverloaded(), true);
  assert.equal(k.chargeNs, 2 * line, "rto_count, then rto_mask since the count is not zero");
  assert.equal(rd.readNext(k.rqs[0]), 49);
  assert.equal(k.chargeNs, 3 * line, "cpu0's rt_rq line");
  rd.rtOverloaded();
  rd.readNext(k.rqs[0]);
  assert.equal(k.chargeNs, 3 * line, "held: no second transfer");
  // cpu5 sets its own bit: both lines come exclusive from cpu0.
  rd.setOverload(k.rqs[5]);
  assert.equal(k.chargeNs, 5 * line);
  // cpu0 writes its next again: cpu5's copy is stale.
  k.thisCpu = 0;
  rd.updateNext(k.rqs[0], 48);
  k.thisCpu = 5;
  rd.readNext(k.rqs[0]);
  assert.equal(k.chargeNs, 6 * line);
});
