// EEVDF (v6.6+) on hand-built run queues: V, lag, eligibility, the pick, placement, parity.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  avgVruntime,
  EEVDF_POLICY,
  entityEligible,
  pickEevdf,
} from "../../../src/kernel/fair/eevdf";
import { CfsRq, Task } from "../../../src/kernel/sched";
import type { SchedCore } from "../../../src/kernel/core/api";
import { cfsOf, type EEVDF_FEATURES, entity, fakeCore, forever } from "./eevdf_fixtures";
import { buildKernel, patch, preset, topology, workload } from "../../../src/index";

const core = (over: Partial<typeof EEVDF_FEATURES> = {}) => fakeCore(over);

test("V is the load-weighted mean vruntime; an entity is eligible when its vruntime is not past V", () => {
  const a = entity(1, 0, 1024, 500);
  const b = entity(2, 100, 2048, 300);
  const c = entity(3, 200, 1024, 100);
  const cfs = cfsOf([a, b, c]);
  // (0*1024 + 100*2048 + 200*1024) / 4096 = 100
  assert.equal(avgVruntime(cfs), 100);
  assert.deepEqual(
    [a, b, c].map((t) => entityEligible(cfs, t)),
    [true, true, false],
  );
  // curr counts in V too: a heavy curr far ahead pulls V up and makes c eligible
  const heavy = entity(4, 1000, 8192, 9_999);
  const withCurr = cfsOf([a, b, c], heavy);
  assert.equal(avgVruntime(withCurr), Math.floor((204_800 + 204_800 + 8_192_000) / 12_288));
  assert.equal(entityEligible(withCurr, c), true);
});

test("the pick is the earliest deadline among eligible entities, not the earliest deadline overall", () => {
  const a = entity(1, 0, 1024, 500);
  const b = entity(2, 100, 2048, 300);
  const c = entity(3, 200, 1024, 100); // earliest deadline, but not eligible
  assert.equal(pickEevdf(core(), cfsOf([a, b, c]), true), b);
});

test("RUN_TO_PARITY keeps an eligible curr until it reaches its protected vruntime; without it, one unscaled base slice (v6.17)", () => {
  const curr = entity(1, 0, 1024, 3_000_000);
  const b = entity(2, 0, 1024, 1_000_000);
  // set_protect_slice: with the same slice queued, protection runs to the deadline
  EEVDF_POLICY.onSetNext!(core(), cfsOf([b]), curr);
  assert.equal(curr.se.vprot, 3_000_000);
  assert.equal(pickEevdf(core(), cfsOf([b], curr), true), curr);
  assert.equal(
    pickEevdf(core(), cfsOf([b], curr), false),
    b,
    "no protection asked: earliest deadline",
  );
  // NO_RUN_TO_PARITY: a quantum of sched_min_granularity_ns (0.75 ms unscaled), not the slice
  const k = core({ RUN_TO_PARITY: false });
  EEVDF_POLICY.onSetNext!(k, cfsOf([b]), curr);
  assert.equal(curr.se.vprot, 750_000);
  curr.se.vruntime = 500_000;
  b.se.vruntime = 500_000;
  assert.equal(pickEevdf(k, cfsOf([b], curr), true), curr);
  curr.se.vruntime = 750_000; // protection used up
  b.se.vruntime = 750_000; // keep curr eligible
  assert.equal(pickEevdf(k, cfsOf([b], curr), true), b);
});

test("lag is saved at dequeue and restored at enqueue with PLACE_LAG, so V - v is the same after a sleep; without it the entity lands on V", () => {
  for (const placeLag of [true, false]) {
    const k = core({ PLACE_LAG: placeLag });
    const others = [entity(1, 1_000_000, 1024, 0), entity(2, 4_000_000, 2048, 0)];
    const p = entity(3, 500_000, 1024, 0); // behind V: positive lag
    const before = cfsOf([...others, p]);
    const lag = avgVruntime(before) - p.se.vruntime;
    EEVDF_POLICY.onDequeue!(k, before, p, true);
    assert.equal(p.se.vlag, lag, "vlag = V - v (within the clamp)");
    // the others run on while p sleeps
    for (const t of others) t.se.vruntime += 2_000_000;
    const during = cfsOf(others);
    EEVDF_POLICY.placeEntity(k, during, p, false);
    const after = cfsOf([...others, p]);
    const restored = avgVruntime(after) - p.se.vruntime;
    if (placeLag) assert.ok(Math.abs(restored - lag) <= 1, `lag ${lag} restored as ${restored}`);
    else assert.equal(p.se.vruntime, avgVruntime(during));
    // a new deadline one base slice (in p's virtual time) past the placed vruntime
    assert.equal(p.se.deadline - p.se.vruntime, 3_000_000);
  }
});

test("lag is clamped to max(2 slices, a tick) of virtual time; a new task starts half a slice from its deadline", () => {
  const k = core();
  const far = entity(1, 0, 1024, 0);
  const ahead = entity(2, 100_000_000, 1024, 0);
  const cfs = cfsOf([far, ahead]);
  EEVDF_POLICY.onDequeue!(k, cfs, far, true);
  assert.equal(far.se.vlag, 6_000_000);
  const fresh = new Task(9, "new", "t", forever, 4);
  EEVDF_POLICY.placeEntity(k, cfsOf([ahead]), fresh, true);
  assert.equal(fresh.se.deadline - fresh.se.vruntime, 1_500_000);
});

test("a migrated entity keeps its deadline relative to its vruntime (PLACE_REL_DEADLINE)", () => {
  const k = core();
  const p = entity(1, 7_000_000, 1024, 8_200_000);
  const src = cfsOf([p, entity(2, 7_500_000, 1024, 0)]);
  EEVDF_POLICY.onDequeue!(k, src, p, false);
  const dst = cfsOf([entity(3, 50_000_000, 1024, 0)]);
  EEVDF_POLICY.placeEntity(k, dst, p, false);
  assert.equal(p.se.deadline - p.se.vruntime, 1_200_000);
});

test("6.19 runs: nice weights give the weight table's shares within 1% over a long run", () => {
  const res = topology("core2-2x2")
    .era("6.19")
    .workload(workload.hogs({ n: 3, nice: [0, 5, 10], cpus: [0], seconds: 6 }))
    .runSync();
  const w = [1024, 335, 110];
  const total = w.reduce((a, b) => a + b, 0);
  w.forEach((wi, i) => {
    const share = res.mean(`share_hog${i}`, "baseline");
    assert.ok(Math.abs(share / (wi / total) - 1) < 0.01, `hog${i}: ${share} vs ${wi / total}`);
  });
});

test("6.19 runs: two hogs on a CPU alternate every base slice, rounded up to the tick that notices the deadline", () => {
  const res = topology("core2-2x2")
    .era("6.19")
    .workload(workload.hogs({ n: 2, cpus: [0], seconds: 1 }))
    .runSync();
  const switches = res.mean("sched.contextSwitches", "baseline");
  // base slice 0.75 ms x (1 + ilog2(4)) = 2.25 ms; the tick (HZ 1000) sees it at 3 ms
  assert.ok(switches > 1 / 0.0031 && switches < 1 / 0.0029, `${switches} switches/s`);
  // the base slice is the knob: four times longer, about a third as many switches
  const long = topology("core2-2x2")
    .era("6.19")
    .workload(workload.hogs({ n: 2, cpus: [0], seconds: 1 }))
    .variants({ slice: [patch("x4").tunable("sched_min_granularity_ns", 3_000_000)] })
    .runSync();
  assert.ok(long.mean("sched.contextSwitches", "slice") < switches / 2.5);
});

test("V and eligibility do not depend on where min_vruntime sits", () => {
  const shift = 7_000_000_000;
  const a = entity(1, shift, 1024, 0);
  const b = entity(2, shift + 100, 2048, 0);
  const c = entity(3, shift + 200, 1024, 0);
  const curr = entity(4, shift + 1000, 8192, 0);
  const cfs = cfsOf([a, b, c], curr);
  assert.equal(avgVruntime(cfs), shift + Math.floor((204_800 + 204_800 + 8_192_000) / 12_288));
  assert.deepEqual(
    [a, b, c, curr].map((t) => entityEligible(cfs, t)),
    [true, true, true, false],
  );
});

test("wakeup preemption: the wakee preempts when it is what the pick would run; curr's protection holds it off until used up", () => {
  const curr = entity(1, 1_000_000, 1024, 4_000_000);
  curr.cpu = 0;
  const woken = entity(2, 900_000, 1024, 2_000_000); // eligible, earlier deadline
  const late = entity(3, 5_000_000, 1024, 1_500_000); // earliest deadline, not eligible
  const run = (vprot: number, wakee: Task, over: Partial<typeof EEVDF_FEATURES> = {}) => {
    curr.se.vprot = vprot;
    const kk = core(over) as unknown as { rqs: Array<{ cfs: CfsRq }> };
    kk.rqs = [{ cfs: cfsOf([woken, late], curr) }];
    return EEVDF_POLICY.wakeupPreempt(kk as unknown as SchedCore, curr, wakee);
  };
  assert.equal(run(4_000_000, woken), false, "curr is protected until it reaches vprot");
  assert.equal(run(0, woken), true, "protection used up");
  assert.equal(run(0, late), false, "an ineligible wakee does not preempt");
  woken.se.schedDelayed = true;
  assert.equal(run(0, woken), false, "a delayed wakee never preempts");
  woken.se.schedDelayed = false;
});

test("set_next_entity protects the picked entity up to its deadline; PICK_BUDDY runs an eligible next buddy first", () => {
  const p = entity(1, 0, 1024, 3_000_000);
  EEVDF_POLICY.onSetNext!(core(), new CfsRq(), p);
  assert.equal(p.se.vprot, 3_000_000);
  const a = entity(2, 0, 1024, 1_000_000);
  const buddy = entity(3, 0, 1024, 2_000_000);
  const cfs = cfsOf([a, buddy]);
  cfs.next = buddy;
  assert.equal(EEVDF_POLICY.pickNext(core(), cfs), buddy);
  assert.equal(EEVDF_POLICY.pickNext(core({ PICK_BUDDY: false }), cfs), a);
});

test("a migrated task keeps its lag and relative deadline across runqueues whose vruntimes are far apart (no min_vruntime renormalisation)", () => {
  const k = buildKernel({
    machine: preset("core2-2x2"),
    online: [true, true, true, true],
    era: "6.19",
    patches: [],
    seed: "t",
    trace: false,
  });
  // cpu0 runs long before cpu1 gets anyone: their vruntime clocks drift apart (pinned, or an
  // idle cpu1 would pull one: 5.10+ spreads tasks by count within an LLC)
  for (const i of [0, 1, 2]) k.spawn({ comm: `a${i}`, cpu: 0, cpus: [0], program: forever });
  k.runUntil(200_000_000);
  k.spawn({ comm: "b0", cpu: 1, cpus: [1], program: forever });
  k.runUntil(201_000_000);
  const rq0 = k.rqs[0];
  const p = rq0.cfs.queue[0];
  const lagBefore = avgVruntime(rq0.cfs) - p.se.vruntime;
  const relDeadline = p.se.deadline - p.se.vruntime;
  k.moveQueuedTask(p, 1, "load_balance");
  const rq1 = k.rqs[1];
  const lagAfter = avgVruntime(rq1.cfs) - p.se.vruntime;
  assert.ok(Math.abs(lagAfter - lagBefore) <= 2, `lag ${lagBefore} -> ${lagAfter}`);
  assert.equal(p.se.deadline - p.se.vruntime, relDeadline);
});

test("curr competes in the pick by its deadline while eligible, and drops out once it is past V", () => {
  const q = entity(2, 1_000_000, 1024, 5_000_000);
  const curr = entity(1, 1_000_000, 1024, 4_000_000); // unprotected, eligible, earlier deadline
  assert.equal(pickEevdf(core(), cfsOf([q], curr), true), curr);
  curr.se.vruntime = 9_000_000; // now ahead of V: not eligible, whatever its deadline
  curr.se.deadline = 1_000_000;
  assert.equal(pickEevdf(core(), cfsOf([q], curr), true), q);
  // a relative deadline is used once: the next placement starts a fresh request
  const p = entity(3, 0, 1024, 0);
  p.se.relDeadline = true;
  p.se.deadline = 700_000;
  EEVDF_POLICY.placeEntity(core(), cfsOf([q]), p, false);
  assert.equal(p.se.relDeadline, false);
  assert.equal(p.se.deadline - p.se.vruntime, 700_000);
});
