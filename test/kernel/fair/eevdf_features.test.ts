// EEVDF's v6.12+ features on hand-built run queues and small kernels: DELAY_DEQUEUE with
// DELAY_ZERO and the ttwu_runnable paths, per-task slices with PREEMPT_SHORT, RUN_TO_PARITY to
// the shortest queued slice, and lag kept across reweight_entity.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  avgVruntime,
  CUSTOM_SLICE_MAX_NS,
  CUSTOM_SLICE_MIN_NS,
  EEVDF_POLICY,
  entityEligible,
  setCustomSlice,
} from "../../../src/kernel/fair/eevdf";
import { type Task, TASK_INTERRUPTIBLE, WF_FORK } from "../../../src/kernel/sched";
import { cfsOf, entity, fakeCore, forever } from "./eevdf_fixtures";
import type { SchedCore } from "../../../src/kernel/core/api";
import { buildKernel, call, type Kernel, patch, preset, run, wait, wake } from "../../../src/index";
import type { Patch } from "../../../src/patch/patch";

const core = fakeCore;

function kernel619(...patches: Patch[]): Kernel {
  return buildKernel({
    machine: preset("core2-2x2"),
    online: [true, true, true, true],
    era: "6.19",
    patches,
    seed: "eevdf-features",
    trace: false,
  });
}

// ---------------------------------------------------------------- DELAY_DEQUEUE

test("DELAY_DEQUEUE keeps a sleeper queued only while it is not eligible", () => {
  const a = entity(1, 0, 1024, 0);
  const ahead = entity(2, 2_000_000, 1024, 0); // v > V: negative lag
  const cfs = cfsOf([a, ahead]);
  assert.equal(entityEligible(cfs, ahead), false);
  assert.equal(EEVDF_POLICY.delayDequeue!(core(), cfs, ahead), true);
  assert.equal(EEVDF_POLICY.delayDequeue!(core(), cfs, a), false, "eligible: dequeued now");
  assert.equal(EEVDF_POLICY.delayDequeue!(core({ DELAY_DEQUEUE: false }), cfs, ahead), false);
});

/**
 * cpu0 runs two pinned hogs and a pinned task s that runs 1 ms and then waits. Just before it
 * waits, s is put `ahead` of its vruntime (a hand-made negative lag: by itself s would block
 * near zero lag, as update_curr preempts it at its deadline). Stepped until s blocks.
 */
function sleeperScenario(ahead: number, ...patches: Patch[]): { k: Kernel; s: Task } {
  const k = kernel619(...patches);
  for (const i of [0, 1]) k.spawn({ comm: `hog${i}`, cpu: 0, cpus: [0], program: forever });
  const s: Task = k.spawn({
    comm: "s",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(1_000_000);
      yield call(() => {
        s.se.vruntime += ahead;
      });
      for (;;) yield wait();
    },
  });
  for (let t = 0; s.state !== TASK_INTERRUPTIBLE; t += 50_000) k.runUntil(t);
  return { k, s };
}

test("with DELAY_DEQUEUE a negative-lag sleeper stays queued until it is picked (then eligible), and leaves with zero lag (DELAY_ZERO)", () => {
  for (const zero of [true, false]) {
    const { k, s } = sleeperScenario(4_000_000, patch("dz").feature("DELAY_ZERO", zero));
    const rq = k.rqs[0];
    assert.ok(avgVruntime(rq.cfs) < s.se.vruntime, "precondition: s blocked with negative lag");
    assert.equal(s.se.schedDelayed, true);
    assert.notEqual(s.onRq, 0, "p->on_rq stays set");
    assert.equal(rq.nrRunning, 3, "a delayed task still counts in nr_running");
    assert.equal(rq.cfs.hNrDelayed, 1);
    assert.ok(rq.cfs.queue.includes(s), "still in the tree, competing");
    let steps = 0;
    let wasEligible = false;
    while (s.onRq !== 0) {
      wasEligible = entityEligible(rq.cfs, s);
      k.runUntil(k.now + 100_000);
      k.checkInvariants();
      assert.ok(++steps < 1000, "s is dequeued within 100 ms");
    }
    assert.equal(s.se.schedDelayed, false);
    assert.equal(rq.nrRunning, 2);
    assert.equal(rq.cfs.hNrDelayed, 0);
    assert.ok(wasEligible, "it was eligible when the pick reached it");
    if (zero) assert.equal(s.se.vlag, 0, "DELAY_ZERO clips the positive lag it earned");
    else assert.ok(s.se.vlag >= 0, `picked means eligible: vlag ${s.se.vlag} >= 0`);
  }
});

test("without DELAY_DEQUEUE the same sleeper leaves the run queue at once", () => {
  const { k, s } = sleeperScenario(4_000_000, patch("nodd").feature("DELAY_DEQUEUE", false));
  assert.equal(s.se.schedDelayed, false);
  assert.equal(s.onRq, 0);
  assert.equal(k.rqs[0].nrRunning, 2);
  assert.ok(s.se.vlag < 0, "its negative lag is saved for the next placement instead");
});

test("ttwu_runnable: a pinned delayed sleeper is requeued where it sleeps; DELAY_ZERO places one with positive lag at V", () => {
  const { k, s } = sleeperScenario(4_000_000);
  assert.equal(s.se.schedDelayed, true);
  k.spawn({
    comm: "waker",
    cpu: 1,
    cpus: [1],
    program: function* () {
      yield wake(s.pid);
      for (;;) yield wait();
    },
  });
  k.runUntil(k.now + 100_000);
  assert.equal(k.counters.wakePath.delayed_requeue, 1);
  assert.equal(s.se.schedDelayed, false);
  assert.equal(s.cpu, 0, "no select_task_rq: it stays where it slept");
  assert.notEqual(s.onRq, 0);
  assert.equal(k.rqs[0].nrRunning, 3, "ENQUEUE_DELAYED adds nothing to nr_running");
  k.checkInvariants();
});

test("ttwu_runnable: a delayed sleeper that may run elsewhere, on a busy CPU, is dequeued and goes through select_task_rq (v6.12-rc7)", () => {
  const k = kernel619();
  for (const c of [0, 0, 1, 1, 1])
    k.spawn({ comm: `hog${c}`, cpu: c, cpus: [c], program: forever });
  const s: Task = k.spawn({
    comm: "s",
    cpu: 0,
    cpus: [0, 1],
    program: function* () {
      yield run(1_000_000);
      yield call(() => {
        s.se.vruntime += 4_000_000;
      });
      for (;;) yield wait();
    },
  });
  for (let t = 0; s.state !== TASK_INTERRUPTIBLE; t += 50_000) k.runUntil(t);
  assert.ok(s.se.schedDelayed, "precondition: s sleeps delayed");
  const from = k.rqs[s.cpu];
  const nr = from.nrRunning;
  k.spawn({
    comm: "waker",
    cpu: 2,
    cpus: [2],
    program: function* () {
      yield wake(s.pid);
      for (;;) yield wait();
    },
  });
  k.runUntil(k.now + 200_000);
  assert.equal(k.counters.wakePath.delayed_dequeue, 1);
  assert.equal(k.counters.wakePath.delayed_requeue, undefined);
  assert.equal(s.se.schedDelayed, false);
  assert.notEqual(s.onRq, 0, "woken and queued again");
  assert.equal(k.counters.wakePath.wakelist, 1, "then the ordinary remote wakeup path");
  assert.equal(
    Object.values(k.counters.wakePlacement).reduce((a, b) => a + b, 0),
    1,
    "select_task_rq ran",
  );
  assert.ok(from.nrRunning <= nr, "it left its old queue before being placed");
  k.checkInvariants();
});

// ---------------------------------------------------------------- per-task slices, PREEMPT_SHORT

test("sched_runtime sets a custom slice clamped to 0.1-100 ms; the placed deadline is one slice out", () => {
  const k = core();
  const p = entity(1, 0, 1024, 0);
  setCustomSlice(k, p, 10_000);
  assert.equal(p.se.slice, CUSTOM_SLICE_MIN_NS);
  setCustomSlice(k, p, 1e12);
  assert.equal(p.se.slice, CUSTOM_SLICE_MAX_NS);
  setCustomSlice(k, p, 300_000);
  assert.equal(p.se.slice, 300_000);
  const q = entity(2, 0, 1024, 0);
  EEVDF_POLICY.placeEntity(k, cfsOf([entity(3, 0, 1024, 0)]), p, false);
  EEVDF_POLICY.placeEntity(k, cfsOf([entity(3, 0, 1024, 0)]), q, false);
  assert.equal(p.se.deadline - p.se.vruntime, 300_000, "custom slice kept by place_entity");
  assert.equal(q.se.deadline - q.se.vruntime, 3_000_000, "the base slice otherwise");
  assert.ok(p.se.deadline < q.se.deadline, "same vruntime, shorter request: earlier deadline");
  setCustomSlice(k, p, 0);
  assert.equal(p.se.customSlice, false);
  assert.equal(p.se.slice, 3_000_000);
});

test("PREEMPT_SHORT: a shorter-slice wakee with an earlier deadline preempts a protected curr and cancels its protection", () => {
  const setup = () => {
    const curr = entity(1, 1_000_000, 1024, 4_000_000);
    curr.cpu = 0;
    curr.se.vprot = curr.se.deadline; // RUN_TO_PARITY protection from the pick
    const wakee = entity(2, 1_000_000, 1024, 1_300_000);
    wakee.se.slice = 300_000;
    wakee.se.customSlice = true;
    const other = entity(3, 1_000_000, 1024, 3_500_000);
    return { curr, wakee, cfs: cfsOf([wakee, other], curr) };
  };
  let s = setup();
  assert.equal(EEVDF_POLICY.wakeupPreempt(core({}, s.cfs), s.curr, s.wakee), true);
  assert.equal(s.curr.se.vprot, s.curr.se.vruntime, "cancel_protect_slice");
  s = setup();
  assert.equal(
    EEVDF_POLICY.wakeupPreempt(core({ PREEMPT_SHORT: false }, s.cfs), s.curr, s.wakee),
    false,
    "without PREEMPT_SHORT curr's protection holds",
  );
  // RUN_TO_PARITY shortens curr's protection to the shortest queued slice instead
  assert.equal(s.curr.se.vprot, s.curr.se.vruntime + 300_000);
  // a shorter slice alone is not enough: the wakee must be what the unprotected pick runs
  s = setup();
  s.wakee.se.deadline = 5_000_000;
  assert.equal(EEVDF_POLICY.wakeupPreempt(core({}, s.cfs), s.curr, s.wakee), false);
});

test("v6.19: a new task (WF_FORK) that is the EEVDF pick does not preempt its parent, unless its slice is shorter; v6.6 lets it", () => {
  const setup = () => {
    const curr = entity(1, 1_000_000, 1024, 4_000_000);
    curr.cpu = 0;
    curr.se.vprot = curr.se.vruntime; // past its protection: only the pick decides
    const child = entity(2, 1_000_000, 1024, 2_000_000); // eligible, earliest deadline
    return { curr, child, cfs: cfsOf([child], curr) };
  };
  let s = setup();
  assert.equal(
    EEVDF_POLICY.wakeupPreempt(core({}, s.cfs), s.curr, s.child, 0),
    true,
    "a wakeup preempts",
  );
  s = setup();
  assert.equal(EEVDF_POLICY.wakeupPreempt(core({}, s.cfs), s.curr, s.child, WF_FORK), false);
  s = setup();
  assert.equal(
    EEVDF_POLICY.wakeupPreempt(core({}, s.cfs, "6.6"), s.curr, s.child, WF_FORK),
    true,
    "before e837456fdca8 a forked child went through the pick like any wakee",
  );
  s = setup();
  s.child.se.slice = 300_000; // PREEMPT_SHORT is checked before the WF_FORK return
  assert.equal(EEVDF_POLICY.wakeupPreempt(core({}, s.cfs), s.curr, s.child, WF_FORK), true);
});

test("update_protect_slice after a wakee that does not preempt: v6.19 for every wakee, v6.6 never", () => {
  const setup = () => {
    const curr = entity(1, 1_000_000, 1024, 4_000_000);
    curr.cpu = 0;
    curr.se.vprot = curr.se.deadline;
    const wakee = entity(2, 1_000_000, 1024, 5_000_000); // later deadline: no preemption
    const short = entity(3, 2_000_000, 1024, 2_500_000);
    short.se.slice = 500_000; // the shortest slice queued
    return { curr, wakee, cfs: cfsOf([wakee, short], curr) };
  };
  let s = setup();
  assert.equal(EEVDF_POLICY.wakeupPreempt(core({}, s.cfs), s.curr, s.wakee, 0), false);
  assert.equal(
    s.curr.se.vprot,
    s.curr.se.vruntime + 500_000,
    "6.19: shortened to the shortest slice",
  );
  s = setup();
  assert.equal(EEVDF_POLICY.wakeupPreempt(core({}, s.cfs, "6.6"), s.curr, s.wakee, 0), false);
  assert.equal(s.curr.se.vprot, s.curr.se.deadline, "6.6 has no update_protect_slice");
});

test("RUN_TO_PARITY protects curr only up to the shortest slice queued beside it, and update_curr reschedules past it", () => {
  const curr = entity(1, 0, 1024, 3_000_000);
  const short = entity(2, 0, 1024, 500_000);
  short.se.slice = 500_000;
  const cfs = cfsOf([short]);
  EEVDF_POLICY.onSetNext!(core(), cfs, curr);
  assert.equal(curr.se.vprot, 500_000);
  let resched = 0;
  const k = { ...core(), reschedCurr: () => resched++ } as unknown as SchedCore;
  const rq = { cfs: cfsOf([short], curr) };
  curr.se.vruntime = 400_000;
  EEVDF_POLICY.afterUpdateCurr!(k, rq as never, curr);
  assert.equal(resched, 0, "inside its protection, before its deadline");
  curr.se.vruntime = 600_000;
  EEVDF_POLICY.afterUpdateCurr!(k, rq as never, curr);
  assert.equal(resched, 1, "past vprot: resched although its deadline is 2.4 ms away");
  assert.equal(curr.se.deadline, 3_000_000, "the request is not renewed");
});

test("v6.6-v6.16: RUN_TO_PARITY protects curr to its deadline, and only a renewed deadline reschedules", () => {
  const curr = entity(1, 0, 1024, 3_000_000);
  const short = entity(2, 0, 1024, 500_000);
  short.se.slice = 500_000;
  EEVDF_POLICY.onSetNext!(core({}, null, "6.6"), cfsOf([short]), curr);
  assert.equal(curr.se.vprot, 3_000_000, "to the deadline, whatever is queued beside it");
  EEVDF_POLICY.onSetNext!(core({ RUN_TO_PARITY: false }, null, "6.6"), cfsOf([short]), curr);
  assert.equal(curr.se.vprot, curr.se.vruntime, "no protection without RUN_TO_PARITY");
  let resched = 0;
  const k = { ...core({}, null, "6.6"), reschedCurr: () => resched++ } as unknown as SchedCore;
  const rq = { cfs: cfsOf([short], curr) };
  curr.se.vruntime = 600_000;
  EEVDF_POLICY.afterUpdateCurr!(k, rq as never, curr);
  assert.equal(resched, 0, "past the 6.17 protection but before the deadline");
  curr.se.vruntime = 3_000_000;
  EEVDF_POLICY.afterUpdateCurr!(k, rq as never, curr);
  assert.equal(resched, 1, "the deadline renewed");
});

test("a spawned task's slice (v6.12+) shortens its deadline; eras before 6.12 ignore it", () => {
  const k = kernel619();
  const p = k.spawn({ comm: "short", cpu: 0, program: forever, slice: 200_000 });
  assert.equal(p.se.customSlice, true);
  assert.equal(p.se.deadline - p.se.vruntime, 100_000, "PLACE_DEADLINE_INITIAL: half the slice");
  const old = buildKernel({
    machine: preset("core2-2x2"),
    online: [true, true, true, true],
    era: "5.19",
    patches: [],
    seed: "s",
    trace: false,
  });
  assert.equal(old.spawn({ comm: "s", program: forever, slice: 200_000 }).se.customSlice, false);
  assert.throws(() => k.spawn({ comm: "bad", program: forever, slice: -1 }), /slice must be/);
});

// ---------------------------------------------------------------- V, lag, reweight

test("V after dequeue: removing an entity at V leaves V, removing one behind V raises it", () => {
  const a = entity(1, 1_000_000, 1024, 0);
  const b = entity(2, 3_000_000, 1024, 0);
  const atV = entity(3, 2_000_000, 2048, 0);
  assert.equal(avgVruntime(cfsOf([a, b, atV])), 2_000_000);
  assert.equal(avgVruntime(cfsOf([a, b])), 2_000_000);
  assert.ok(avgVruntime(cfsOf([b, atV])) > 2_000_000);
});

test("reweight_entity keeps the lag w * (V - v): vlag and a relative deadline scale by w_old / w_new, eligibility is kept", () => {
  const k = core();
  const others = [entity(1, 1_000_000, 1024, 0), entity(2, 5_000_000, 1024, 0)];
  const p = entity(3, 2_000_000, 1024, 4_000_000); // behind V = 8e6/3: eligible
  const before = cfsOf([...others, p]);
  const lagBefore = avgVruntime(before) - p.se.vruntime;
  assert.ok(lagBefore > 0 && entityEligible(before, p));
  EEVDF_POLICY.onDequeue!(k, before, p, false); // DEQUEUE_SAVE: lag and relative deadline
  p.se.weight = 2048; // set_load_weight
  EEVDF_POLICY.reweight!(k, p, 1024);
  assert.equal(p.se.vlag, Math.trunc(lagBefore / 2));
  assert.equal(p.se.deadline, 1_000_000, "relative deadline 2 ms of virtual time, halved");
  EEVDF_POLICY.placeEntity(k, cfsOf(others), p, false); // ENQUEUE_RESTORE
  const after = cfsOf([...others, p]);
  const lagAfter = avgVruntime(after) - p.se.vruntime;
  assert.ok(
    Math.abs(2048 * lagAfter - 1024 * lagBefore) <= 2048 * 2,
    `w*lag ${1024 * lagBefore} -> ${2048 * lagAfter}`,
  );
  assert.equal(entityEligible(after, p), true);
  assert.equal(p.se.deadline - p.se.vruntime, 1_000_000);
});

test("set_user_nice on 6.19 goes through reweight: the running task's lag survives the new weight", () => {
  const k = kernel619();
  k.spawn({ comm: "hog", cpu: 0, cpus: [0], program: forever });
  const p = k.spawn({ comm: "p", cpu: 0, cpus: [0], program: forever });
  k.runUntil(20_000_000);
  const rq = k.rqs[0];
  const q = rq.curr === p ? p : rq.cfs.queue.find((t) => t === p)!;
  const w0 = q.se.weight;
  const lag0 = avgVruntime(rq.cfs) - q.se.vruntime;
  // what changeScheduling does around set_load_weight, on a queued (not running) or running p
  const running = rq.curr === p;
  if (running) k.putPrevTask(rq, p);
  k.dequeueTask(rq, p, 0);
  p.se.weight = 3121; // nice -5
  k.classFor(p).reweightTask!(rq, p, w0);
  k.enqueueTask(rq, p, 0);
  const lag1 = avgVruntime(rq.cfs) - p.se.vruntime;
  assert.ok(Math.abs(3121 * lag1 - w0 * lag0) <= 3121 * 2, `${w0 * lag0} vs ${3121 * lag1}`);
});
