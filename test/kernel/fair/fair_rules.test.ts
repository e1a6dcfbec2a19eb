// CFS rules of fair.ts on hand-built runqueues (kernel/sched/fair.c v3.19 / v4.8, 2.6.29
// kernel/sched_fair.c): __sched_period, sched_slice, wakeup_gran, place_entity,
// pick_next_entity with curr queued, check_preempt_tick, update_min_vruntime, clear_buddies,
// enqueue/dequeue bookkeeping, yield_task_fair, post_init_entity_util_avg and the vruntime
// renormalisation on migration.
import { test } from "node:test";
import assert from "node:assert/strict";
import { preset } from "../../../src/machine/presets";
import { run } from "../../../src/kernel/ops";
import {
  CfsRq,
  DEQUEUE_SLEEP,
  ENQUEUE_INITIAL,
  ENQUEUE_WAKEUP,
  NICE_0_LOAD,
  Task,
} from "../../../src/kernel/sched";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import { SCHED_PRIO_TO_WEIGHT } from "../../../src/kernel/prio";
import type { Policy } from "../../../src/kernel/prio";
import {
  calcDeltaFair,
  clearBuddies,
  schedPeriod,
  schedSlice,
  updateMinVruntime,
  wakeupGran,
} from "../../../src/kernel/fair/fair";
import { boot } from "../boot";

const NICE10 = SCHED_PRIO_TO_WEIGHT[30]; // 110
const NICE_M5 = SCHED_PRIO_TO_WEIGHT[15]; // 3121
const forever = function* () {
  yield run(Infinity);
};

function kernel(era: Era): Kernel {
  return boot(preset("core2-2x2"), era);
}

let pids = 100;
/** A fair task not on any runqueue, with the given vruntime and weight. */
function entity(vruntime: number, weight = NICE_0_LOAD, onRq = true): Task {
  const t = new Task(pids++, `t${pids}`, "t", forever, 4);
  t.se.vruntime = vruntime;
  t.se.weight = weight;
  t.se.onRq = onRq;
  return t;
}

/** A cfs_rq with `tasks` queued (sorted by the caller), their weights summed. */
function cfsOf(tasks: Task[], curr: Task | null = null): CfsRq {
  const cfs = new CfsRq();
  cfs.queue.push(...tasks);
  cfs.curr = curr;
  const all = curr?.se.onRq ? [...tasks, curr] : tasks;
  cfs.nrRunning = all.length;
  cfs.loadWeight = all.reduce((s, t) => s + t.se.weight, 0);
  return cfs;
}

test("__sched_period: the latency up to sched_nr_latency tasks, nr x min_granularity above", () => {
  const k = kernel("4.8");
  const t = k.cfsTiming;
  assert.ok(t.nrLatency * t.minGranularity === t.latency, "8 x 3 ms = 24 ms, scaled alike");
  const other = { ...t, latency: 7 };
  assert.equal(schedPeriod(other, t.nrLatency), 7, "at sched_nr_latency: still the latency");
  assert.equal(schedPeriod(other, t.nrLatency + 1), (t.nrLatency + 1) * t.minGranularity);
  assert.equal(schedPeriod(other, 1), 7);
});

test("sched_slice: the period by weight share, counting an entity not yet queued", () => {
  const k = kernel("4.8");
  const t = k.cfsTiming;
  const queued = Array.from({ length: t.nrLatency }, (_, i) => entity(i));
  const cfs = cfsOf(queued);
  // a queued nice-0 entity among nr_latency: latency / nr
  assert.equal(schedSlice(k, cfs, queued[0]), Math.floor(t.latency / t.nrLatency));
  // a nice -5 entity not yet queued counts itself: nr_latency + 1 tasks stretch the period
  const p = entity(0, NICE_M5, false);
  const load = t.nrLatency * NICE_0_LOAD + NICE_M5;
  const period = (t.nrLatency + 1) * t.minGranularity;
  assert.equal(schedSlice(k, cfs, p), Math.floor((period * NICE_M5) / load));
});

test("wakeup_gran: 2.6.29 (ASYM_GRAN) scales by curr only when curr is heavier than nice 0; later eras by the wakee", () => {
  const old = kernel("2.6.29");
  const g = old.cfsTiming.wakeupGranularity;
  const heavy = entity(0, NICE_M5);
  const light = entity(0, NICE10);
  const nice0 = entity(0);
  assert.equal(wakeupGran(old, nice0, light), g, "nice-0 curr: the plain granularity");
  assert.equal(wakeupGran(old, light, nice0), g, "a light curr is not made easier to keep");
  assert.equal(wakeupGran(old, heavy, light), calcDeltaFair(g, NICE_M5), "heavy curr");
  const k = kernel("4.8");
  const g48 = k.cfsTiming.wakeupGranularity;
  assert.equal(wakeupGran(k, heavy, light), calcDeltaFair(g48, NICE10), "the wakee's weight");
  assert.equal(calcDeltaFair(g48, NICE10), Math.floor((g48 * NICE_0_LOAD) / NICE10));
});

test("place_entity: START_DEBIT puts a new task a vslice behind min_vruntime", () => {
  const k = kernel("4.8");
  const cfs = cfsOf([entity(5_000_000), entity(6_000_000)]);
  cfs.minVruntime = 5_000_000;
  const p = entity(123, NICE10, false);
  k.fair.policy.placeEntity(k, cfs, p, true);
  const vslice = calcDeltaFair(schedSlice(k, cfs, p), NICE10);
  assert.ok(vslice > 0);
  assert.equal(p.se.vruntime, 5_000_000 + vslice, "sched_vslice in the task's virtual time");
  Object.assign(k.features, { START_DEBIT: false });
  const q = entity(0, NICE_0_LOAD, false);
  k.fair.policy.placeEntity(k, cfs, q, true);
  assert.equal(q.se.vruntime, 5_000_000, "without START_DEBIT: at min_vruntime");
});

test("place_entity(initial): 2.6.29 overwrites what the entity held; 3.19+ keep the larger (a child never gains on its parent)", () => {
  for (const [era, kept] of [
    ["2.6.29", false],
    ["3.19", true],
    ["4.8", true],
    ["5.19", true],
  ] as [Era, boolean][]) {
    const k = kernel(era);
    const cfs = cfsOf([entity(5_000_000)]);
    cfs.minVruntime = 5_000_000;
    const ahead = entity(9_000_000_000, NICE_0_LOAD, false);
    k.fair.policy.placeEntity(k, cfs, ahead, true);
    const vslice = calcDeltaFair(schedSlice(k, cfs, ahead), NICE_0_LOAD);
    assert.equal(ahead.se.vruntime, kept ? 9_000_000_000 : 5_000_000 + vslice, era);
    const behind = entity(1, NICE_0_LOAD, false);
    k.fair.policy.placeEntity(k, cfs, behind, true);
    assert.equal(behind.se.vruntime, 5_000_000 + vslice, `${era}: min_vruntime + vslice`);
  }
});

test("task_fork_fair (3.19+): the child starts from its parent's vruntime on the parent's cfs_rq and keeps that lead on its own; 2.6.29 places it on the target alone", () => {
  for (const era of ["2.6.29", "5.19"] as Era[]) {
    const k = kernel(era);
    for (const cpu of [0, 0, 1]) k.spawn({ comm: `hog${cpu}`, program: forever, cpus: [cpu] });
    k.runUntil(50_000_000);
    const [rq0, rq1] = [k.rqs[0], k.rqs[1]];
    const parent = rq0.curr!;
    assert.ok(parent && rq0.cfs.queue.length === 1, "a hog runs on CPU 0, the other waits");
    // the parent 200 ms (virtual) ahead of the hog waiting beside it
    parent.se.vruntime = rq0.cfs.queue[0].se.vruntime + 200_000_000;
    const lead = parent.se.vruntime - rq0.cfs.minVruntime; // update_curr at fork: no time passed
    const min1 = rq1.cfs.minVruntime;
    k.thisCpu = 0; // fork() runs in the parent's context
    const child = k.spawn({ comm: "child", program: forever, cpus: [1] });
    k.thisCpu = -1;
    assert.equal(child.cpu, 1);
    const vslice = calcDeltaFair(schedSlice(k, rq0.cfs, child), NICE_0_LOAD);
    assert.ok(lead > 2 * vslice, "the lead is far more than a vslice");
    if (era === "2.6.29") {
      assert.ok(child.se.vruntime - min1 <= vslice, "2.6.29: a vslice past CPU 1's min only");
    } else {
      assert.equal(child.se.vruntime - min1, lead, "5.19: the parent's lead, not a vslice");
    }
  }
});

test("place_entity: a sleeper gets a latency (2.6.29) or half a latency (GENTLE_FAIR_SLEEPERS) of credit, never more than it had", () => {
  for (const [era, div] of [
    ["2.6.29", 1],
    ["3.19", 2],
  ] as [Era, number][]) {
    const k = kernel(era);
    const lat = k.cfsTiming.latency;
    const cfs = cfsOf([entity(100 * lat)]);
    cfs.minVruntime = 100 * lat;
    const p = entity(0, NICE_0_LOAD, false);
    k.fair.policy.placeEntity(k, cfs, p, false);
    assert.equal(p.se.vruntime, 100 * lat - Math.floor(lat / div), era);
    const q = entity(100 * lat - 1, NICE_0_LOAD, false);
    k.fair.policy.placeEntity(k, cfs, q, false);
    assert.equal(q.se.vruntime, 100 * lat - 1, `${era}: never placed backwards`);
  }
});

test("pick_next_entity with curr queued: curr only when strictly left of the tree's first; skip avoidance through curr", () => {
  const k = kernel("4.8");
  const gran = k.cfsTiming.wakeupGranularity;
  const pick = (cfs: CfsRq) => k.fair.policy.pickNext(k, cfs);
  const a = entity(10 * gran);
  const curr = entity(9 * gran);
  assert.equal(pick(cfsOf([a], curr)), curr, "curr left of the tree");
  curr.se.vruntime = 11 * gran;
  assert.equal(pick(cfsOf([a], curr)), a);
  curr.se.onRq = false;
  curr.se.vruntime = 0;
  assert.equal(pick(cfsOf([a], curr)), a, "a curr that left the queue is not a candidate");
  assert.equal(pick(cfsOf([], curr)), null, "nothing queued");
  curr.se.onRq = true;
  assert.equal(pick(cfsOf([], curr)), curr, "only curr");
  // the skip buddy is curr: the second is the tree's first, if not too unfair
  curr.se.vruntime = 10 * gran - gran / 2;
  let cfs = cfsOf([a], curr);
  cfs.skip = curr;
  assert.equal(pick(cfs), a);
  curr.se.vruntime = 10 * gran - 2 * gran;
  cfs = cfsOf([a], curr);
  cfs.skip = curr;
  assert.equal(pick(cfs), curr, "the first is too far right of the yielder");
  cfs = cfsOf([], curr);
  cfs.skip = curr;
  assert.equal(pick(cfs), curr, "no second at all");
  // the skip buddy is the tree's first: curr is the second when left of the tree's next one
  const b = entity(10 * gran + 2 * gran);
  curr.se.vruntime = 10 * gran + gran / 2;
  cfs = cfsOf([a, b], curr);
  cfs.skip = a;
  assert.equal(pick(cfs), curr, "curr before the tree's second, within the granularity");
  curr.se.vruntime = 10 * gran + 3 * gran;
  cfs = cfsOf([a, b], curr);
  cfs.skip = a;
  assert.equal(pick(cfs), a, "the tree's second (b) is too far right; curr further");
  const c = entity(10 * gran + gran / 4);
  cfs = cfsOf([a, c], curr);
  cfs.skip = a;
  assert.equal(pick(cfs), c, "the tree's second, left of curr");
  cfs = cfsOf([a], curr);
  cfs.skip = a;
  curr.se.vruntime = 10 * gran + gran / 2;
  assert.equal(pick(cfs), curr, "no second in the tree: curr");
});

test("check_preempt_tick: the slice, then (3.x+) min_granularity and the lead over the leftmost", () => {
  for (const era of ["2.6.29", "3.19"] as Era[]) {
    const k = kernel(era);
    const t = k.cfsTiming;
    const curr = entity(0);
    const left = entity(1_000_000_000); // the lead is a difference: not from vruntime 0
    const tick = (ran: number, lead: number, queue = [left]) => {
      const cfs = cfsOf(queue, curr);
      cfs.next = curr;
      curr.se.prevSumExecRuntime = 1_000;
      curr.se.sumExecRuntime = 1_000 + ran;
      curr.se.vruntime = left.se.vruntime + lead;
      const r = k.fair.policy.checkPreemptTick(k, cfs, curr);
      return { r, next: cfs.next };
    };
    const ideal = schedSlice(k, cfsOf([left], curr), curr);
    assert.equal(ideal, Math.floor(t.latency / 2));
    assert.deepEqual(
      tick(ideal + 1, 0),
      { r: true, next: null },
      `${era}: slice used, buddy cleared`,
    );
    assert.deepEqual(tick(ideal, 0), { r: false, next: curr }, `${era}: at the slice (strict)`);
    const modern = era !== "2.6.29";
    const min = t.minGranularity;
    assert.ok(min < ideal);
    // ran min_granularity, curr ahead of the leftmost by more than a slice
    assert.equal(tick(min, ideal + 1).r, modern, `${era}: ahead by more than a slice`);
    assert.equal(tick(min, ideal).r, false, `${era}: ahead by exactly a slice`);
    assert.equal(tick(min - 1, ideal + 1).r, false, `${era}: before min_granularity`);
    assert.equal(tick(min, -ideal - 1).r, false, `${era}: behind the leftmost`);
  }
});

test("update_min_vruntime: min(curr, leftmost), never backwards; a dequeued curr does not count", () => {
  const cfs = cfsOf([entity(500)], entity(300));
  cfs.minVruntime = 100;
  updateMinVruntime(cfs);
  assert.equal(cfs.minVruntime, 300, "curr is the smaller");
  cfs.curr!.se.vruntime = 800;
  updateMinVruntime(cfs);
  assert.equal(cfs.minVruntime, 500, "the leftmost is the smaller");
  cfs.queue[0].se.vruntime = 400;
  updateMinVruntime(cfs);
  assert.equal(cfs.minVruntime, 500, "never backwards");
  const c2 = cfsOf([], entity(900));
  c2.minVruntime = 100;
  updateMinVruntime(c2);
  assert.equal(c2.minVruntime, 900, "only curr");
  const c3 = cfsOf([entity(700)], entity(50, NICE_0_LOAD, false));
  c3.minVruntime = 100;
  updateMinVruntime(c3);
  assert.equal(c3.minVruntime, 700, "curr off the queue: the leftmost alone");
  const c4 = cfsOf([]);
  c4.minVruntime = 100;
  updateMinVruntime(c4);
  assert.equal(c4.minVruntime, 100, "empty: unchanged");
});

test("clear_buddies clears only the buddies that are p", () => {
  const [p, q] = [entity(0), entity(0)];
  const cfs = new CfsRq();
  Object.assign(cfs, { next: p, last: p, skip: p });
  clearBuddies(cfs, p);
  assert.deepEqual([cfs.next, cfs.last, cfs.skip], [null, null, null]);
  Object.assign(cfs, { next: q, last: q, skip: q });
  clearBuddies(cfs, p);
  assert.deepEqual([cfs.next, cfs.last, cfs.skip], [q, q, q]);
});

test("enqueue/dequeue_task_fair: counts, load, vruntime order, cfs_tasks; only wakeups and new tasks are placed", () => {
  const k = kernel("4.8");
  const rq = k.rqs[3];
  const cfs = rq.cfs;
  cfs.minVruntime = 50_000_000;
  const a = entity(60_000_000, NICE10, false);
  const b = entity(55_000_000, NICE_0_LOAD, false);
  const c = entity(0, NICE_0_LOAD, false);
  k.fair.enqueueTask(rq, a, 0); // a migration: no placement
  assert.equal(a.se.vruntime, 60_000_000);
  assert.equal(cfs.minVruntime, 60_000_000, "min_vruntime follows the leftmost forward");
  k.fair.enqueueTask(rq, b, 0);
  k.fair.enqueueTask(rq, c, ENQUEUE_WAKEUP); // a sleeper: min_vruntime - latency / 2
  assert.equal(c.se.vruntime, 60_000_000 - Math.floor(k.cfsTiming.latency / 2));
  assert.deepEqual(cfs.queue, [c, b, a]);
  assert.deepEqual([cfs.nrRunning, cfs.hNrRunning, cfs.loadWeight], [3, 3, NICE10 + 2048]);
  assert.deepEqual(cfs.tasks, [c, b, a], "cfs_tasks: added at the head");
  assert.equal(cfs.minVruntime, 60_000_000, "min_vruntime does not follow a placed sleeper back");
  const d = entity(0, NICE_0_LOAD, false);
  k.fair.enqueueTask(rq, d, ENQUEUE_INITIAL);
  assert.ok(d.se.vruntime > 60_000_000, "a new task starts behind");
  const e = entity(55_000_000, NICE_0_LOAD, false);
  k.fair.enqueueTask(rq, e, 0);
  assert.deepEqual(cfs.queue.slice(0, 3), [c, b, e], "equal vruntime: behind the earlier one");
  cfs.next = b;
  k.fair.dequeueTask(rq, b, DEQUEUE_SLEEP);
  assert.equal(b.se.onRq, false);
  assert.equal(cfs.next, null, "a dequeued buddy is cleared");
  assert.deepEqual(cfs.queue.includes(b) || cfs.tasks.includes(b), false);
  assert.deepEqual([cfs.nrRunning, cfs.hNrRunning, cfs.loadWeight], [4, 4, NICE10 + 3072]);
  k.fair.dequeueTask(rq, c, 0);
  assert.deepEqual(cfs.queue[0], e);
  assert.equal(cfs.minVruntime, 60_000_000);
});

test("task_tick_fair: no preemption check with curr alone on the queue", () => {
  const k = kernel("4.8");
  const rq = k.rqs[2];
  const p = k.spawn({ comm: "solo", cpu: 2, cpus: [2], program: forever });
  k.runUntil(200_000_000); // far past any slice
  assert.equal(rq.curr, p);
  rq.needResched = false;
  p.se.prevSumExecRuntime = 0; // far past its slice
  k.fair.taskTick(rq, p);
  assert.equal(rq.needResched, false);
  k.fair.enqueueTask(rq, entity(p.se.vruntime - 1, NICE_0_LOAD, false), 0);
  k.fair.taskTick(rq, p);
  assert.equal(rq.needResched, true, "with a second task the used slice preempts");
});

test("yield_task_fair: nothing with one task; 2.6.29 SCHED_BATCH goes behind the rightmost", () => {
  const k = kernel("4.8");
  const rq = k.rqs[2];
  const p = k.spawn({ comm: "solo", cpu: 2, cpus: [2], program: forever });
  k.runUntil(1_000_000);
  k.fair.yieldTask(rq, p);
  assert.equal(rq.cfs.skip, null, "alone: no skip buddy");
  const old = kernel("2.6.29");
  const orq = old.rqs[2];
  const [x, y] = ["x", "y"].map((comm) =>
    old.spawn({ comm, cpu: 2, cpus: [2], policy: "batch", program: forever }),
  );
  old.runUntil(1_000_000);
  const curr = orq.curr!;
  const other = curr === x ? y : x;
  old.fair.updateCurr(orq);
  other.se.vruntime = curr.se.vruntime; // a tie moves it too
  old.fair.yieldTask(orq, curr);
  assert.equal(curr.se.vruntime, other.se.vruntime + 1);
  const v = curr.se.vruntime;
  other.se.vruntime = v - 10;
  old.fair.yieldTask(orq, curr);
  assert.equal(curr.se.vruntime, v, "already right of the rightmost: unchanged");
});

test("post_init_entity_util_avg: half the spare capacity, or the weight share of the cfs_rq's util (in 4.8, 1024 times too big)", () => {
  for (const era of ["4.8", "5.10"] as Era[]) {
    const k = kernel(era);
    const rq = k.rqs[1];
    const cap = rq.cpuCapacityOrig;
    const init = (util: number, load: number) => {
      rq.cfs.avg.utilAvg = util;
      rq.cfs.avg.loadAvg = load;
      const p = entity(0, NICE_0_LOAD, false);
      p.se.avg.utilAvg = 7;
      p.se.avg.runnableAvg = 3;
      k.fair.postInitEntity(rq, p);
      return [p.se.avg.utilAvg, p.se.avg.runnableAvg];
    };
    const rf = era === "5.10"; // 5.7+: runnable_avg starts at util_avg
    assert.deepEqual(init(0, 0), [cap / 2, rf ? cap / 2 : 3], `${era}: idle cfs_rq`);
    // 4.8 scales by se->load.weight in the 20-bit fixed point of 64-bit kernels (2159197d6677,
    // v4.7): the share is 1024 times too big and always capped at half the spare capacity
    const share = era === "4.8" ? Math.floor((cap - 200) / 2) : 200;
    assert.deepEqual(init(200, 1023), [share, rf ? share : 3], `${era}: the weight share`);
    const spare = Math.floor((cap - 600) / 2);
    assert.deepEqual(init(600, 100), [spare, rf ? spare : 3], `${era}: capped at half the spare`);
    assert.deepEqual(init(cap, 100), [7, rf ? 7 : 3], `${era}: no spare capacity`);
  }
});

test("migrate_task_rq_fair (3.x-5.x): vruntime renormalised from the old min_vruntime to the new", () => {
  const k = kernel("4.8");
  const [from, to] = [k.rqs[0], k.rqs[1]];
  from.cfs.minVruntime = 1_000_000;
  to.cfs.minVruntime = 5_000_000;
  const p = entity(1_300_000, NICE_0_LOAD, false);
  k.fair.migrateTaskRq(p, from, to, false);
  assert.equal(p.se.vruntime, 5_300_000);
});

/**
 * check_preempt_wakeup on cpu1 running `hogs` hogs of policy `currPolicy`, for a hand-built
 * wakee of policy `policy` queued `lead` ns of vruntime left of curr. Returns the decision and
 * the buddies it left.
 */
function wakeupCheck(
  era: Era,
  hogs: number,
  o: { policy?: Policy; currPolicy?: Policy; lead?: number; features?: object; resched?: boolean },
) {
  const k = kernel(era);
  Object.assign(k.features, o.features ?? {});
  for (let i = 0; i < hogs; i++)
    k.spawn({
      comm: `h${i}`,
      cpu: 1,
      cpus: [1],
      policy: o.currPolicy ?? "normal",
      program: forever,
    });
  k.runUntil(30_000_000);
  const rq = k.rqs[1];
  const curr = rq.curr!;
  k.fair.updateCurr(rq);
  const p = entity(curr.se.vruntime - (o.lead ?? 0), NICE_0_LOAD, false);
  p.policy = o.policy ?? "normal";
  k.fair.enqueueTask(rq, p, 0);
  rq.needResched = o.resched ?? false;
  rq.cfs.next = rq.cfs.last = null;
  k.fair.checkPreemptCurr(rq, p);
  const { next, last } = rq.cfs;
  return {
    resched: rq.needResched,
    next: next === p ? "p" : next,
    last: last === curr ? "curr" : last,
  };
}

test("check_preempt_wakeup: preemption beyond wakeup_gran; next (and, at sched_nr_latency, last) marked on it (4.8)", () => {
  const big = 10 * kernel("4.8").cfsTiming.wakeupGranularity;
  assert.deepEqual(wakeupCheck("4.8", 2, { lead: big }), { resched: true, next: "p", last: null });
  assert.deepEqual(wakeupCheck("4.8", 8, { lead: big }), {
    resched: true,
    next: "p",
    last: "curr",
  });
  assert.deepEqual(wakeupCheck("4.8", 8, { lead: 0 }), { resched: false, next: null, last: null });
  const noLast = { LAST_BUDDY: false };
  assert.deepEqual(wakeupCheck("4.8", 8, { lead: big, features: noLast }).last, null);
  // SCHED_IDLE: a SCHED_IDLE curr is preempted by any normal wakee; an idle wakee is no buddy
  assert.deepEqual(wakeupCheck("4.8", 8, { lead: 0, currPolicy: "idle" }), {
    resched: true,
    next: null,
    last: null,
  });
  assert.equal(wakeupCheck("4.8", 8, { lead: big, policy: "idle" }).resched, false);
  assert.equal(
    wakeupCheck("4.8", 8, { lead: 0, currPolicy: "idle", policy: "idle" }).resched,
    false,
  );
  assert.equal(wakeupCheck("4.8", 8, { lead: big, policy: "batch" }).resched, false);
  assert.equal(
    wakeupCheck("4.8", 2, { lead: big, features: { WAKEUP_PREEMPTION: false } }).resched,
    false,
  );
  // a pending resched: buddies only, no second decision
  assert.deepEqual(wakeupCheck("4.8", 2, { lead: big, resched: true }).next, null);
});

test("check_preempt_wakeup with NEXT_BUDDY (4.8): the wakee is next from sched_nr_latency runnable, preempting or not", () => {
  const on = { NEXT_BUDDY: true };
  assert.deepEqual(wakeupCheck("4.8", 8, { lead: 0, features: on }).next, "p");
  assert.deepEqual(wakeupCheck("4.8", 6, { lead: 0, features: on }).next, null, "7 runnable");
  assert.deepEqual(wakeupCheck("4.8", 7, { lead: 0, features: on }).next, "p", "8 runnable");
  assert.deepEqual(wakeupCheck("4.8", 8, { lead: 0, features: on, policy: "idle" }).next, null);
  assert.deepEqual(wakeupCheck("4.8", 8, { lead: 0, resched: true, features: on }).next, "p");
});

test("2.6.29 check_preempt_wakeup: buddies on every check, none for SCHED_IDLE tasks or without LAST_BUDDY", () => {
  assert.deepEqual(wakeupCheck("2.6.29", 2, { lead: 0 }), {
    resched: false,
    next: "p",
    last: "curr",
  });
  assert.deepEqual(wakeupCheck("2.6.29", 2, { lead: 0, policy: "idle" }).next, null);
  assert.deepEqual(wakeupCheck("2.6.29", 2, { lead: 0, currPolicy: "idle" }).last, null);
  assert.deepEqual(
    wakeupCheck("2.6.29", 2, { lead: 0, features: { LAST_BUDDY: false } }).last,
    null,
  );
  const big = 10 * kernel("2.6.29").cfsTiming.wakeupGranularity;
  assert.deepEqual(wakeupCheck("2.6.29", 2, { lead: big }), {
    resched: true,
    next: "p",
    last: "curr",
  });
});

test("pick_next_task_fair / put_prev_task_fair: the pick leaves the tree as curr; 4.16+ moves it to the head of cfs_tasks", () => {
  for (const era of ["4.8", "5.10"] as Era[]) {
    const k = kernel(era);
    k.runUntil(5_000_000);
    const rq = k.rqs[3];
    const cfs = rq.cfs;
    assert.equal(k.fair.pickNextTask(rq), null, `${era}: empty`);
    const a = entity(cfs.minVruntime, NICE_0_LOAD, false);
    const b = entity(cfs.minVruntime + 1_000_000, NICE_0_LOAD, false);
    k.fair.enqueueTask(rq, a, 0);
    k.fair.enqueueTask(rq, b, 0);
    assert.deepEqual(cfs.tasks, [b, a]);
    a.se.sumExecRuntime = 777;
    assert.equal(k.fair.pickNextTask(rq), a);
    assert.equal(cfs.curr, a);
    assert.deepEqual(cfs.queue, [b], `${era}: curr is not kept in the tree`);
    assert.deepEqual([a.se.prevSumExecRuntime, a.se.execStart], [777, k.now]);
    assert.deepEqual(cfs.tasks, era === "5.10" ? [a, b] : [b, a], era);
    k.fair.putPrevTask(rq, b);
    assert.deepEqual([cfs.curr, cfs.queue], [a, [b]], `${era}: b is not curr: nothing`);
    k.fair.putPrevTask(rq, a);
    assert.deepEqual([cfs.curr, cfs.queue], [null, [a, b]], `${era}: back in the tree`);
    assert.equal(k.fair.pickNextTask(rq), a);
    a.se.onRq = false; // as after a dequeue of the running task
    k.fair.putPrevTask(rq, a);
    assert.deepEqual([cfs.curr, cfs.queue], [null, [b]], `${era}: not queued: not reinserted`);
  }
});

test("PELT on enqueue: none in 2.6.29; 4.x also keeps runnable_load_avg; migration keeps the vruntime from 6.6 (EEVDF)", () => {
  for (const era of ["2.6.29", "4.8", "5.10"] as Era[]) {
    const k = kernel(era);
    k.runUntil(5_000_000);
    const rq = k.rqs[3];
    const before = { ...rq.cfs.avg };
    k.fair.enqueueTask(rq, entity(rq.cfs.minVruntime, NICE_0_LOAD, false), 0);
    const updated = rq.cfs.avg.lastUpdateTime !== before.lastUpdateTime;
    assert.equal(updated, era !== "2.6.29", `${era}: cfs_rq load average updated`);
    assert.equal(rq.cfs.runnableLoad !== null, era === "4.8", `${era}: runnable_load_avg`);
  }
  const k = kernel("6.19");
  const [from, to] = [k.rqs[0], k.rqs[1]];
  to.cfs.minVruntime = 5_000_000;
  const p = entity(1_300_000, NICE_0_LOAD, false);
  k.fair.migrateTaskRq(p, from, to, false);
  assert.equal(p.se.vruntime, 1_300_000);
});

test("check_preempt_wakeup under an RT curr: no decision and no buddies (the RT class runs)", () => {
  const k = kernel("2.6.29");
  k.spawn({ comm: "r", cpu: 1, cpus: [1], policy: "fifo", rtPriority: 10, program: forever });
  k.runUntil(1_000_000);
  const rq = k.rqs[1];
  const p = entity(rq.cfs.minVruntime - 1_000_000_000, NICE_0_LOAD, false);
  k.fair.enqueueTask(rq, p, 0);
  rq.needResched = false;
  k.fair.checkPreemptCurr(rq, p);
  assert.deepEqual([rq.needResched, rq.cfs.next, rq.cfs.last], [false, null, null]);
});

test("post_init_entity_util_avg reads the cfs_rq's util as last stored, not decayed to the fork's instant (5.x, 6.x)", () => {
  for (const era of ["5.6", "6.6"] as Era[]) {
    const k = kernel(era);
    k.runUntil(20_000_000);
    const rq = k.rqs[1];
    const cap = rq.cpuCapacityOrig;
    // CPU 1's averages were stored 8 ms ago (its last update, before it went idle)
    rq.cfs.avg.utilAvg = 600;
    rq.cfs.avg.loadAvg = 100;
    rq.cfs.avg.lastUpdateTime = rq.cfs.avg.lastUpdateTime - 8_000_000;
    const p = entity(0, NICE_0_LOAD, false);
    k.fair.postInitEntity(rq, p);
    assert.equal(p.se.avg.utilAvg, Math.floor((cap - 600) / 2), `${era}: half the spare of 600`);
  }
});
