// The two Tim Chen RT patches of seed 004 as data, on hand-built 3.19 states.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel, patch, preset, seeds } from "../../../src/index";
import type { Era, Patch } from "../../../src/index";
import { run, sleep } from "../../../src/kernel/ops";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { pushRtTask, RT_MAX_TRIES } from "../../../src/kernel/rt/push";

const MS = 1_000_000;
const hog = function* () {
  yield run(Infinity);
};

function kernel(era: Era, patches: Patch[]): Kernel {
  const m = preset("core2-2x2");
  return buildKernel({ machine: m, online: m.online, era, patches, seed: "t", trace: false });
}
const rt = (k: Kernel, comm: string, prio: number, cpu: number, pin = false, program = hog): Task =>
  k.spawn({ comm, program, policy: "fifo", rtPriority: prio, cpu, cpus: pin ? [cpu] : undefined });
const cfs = (k: Kernel, comm: string, cpu: number): Task =>
  k.spawn({ comm, program: hog, cpu, cpus: [cpu] });
const locks = (k: Kernel, path: string) => k.counters.rqLock[path]?.acquisitions ?? 0;
/** A find_lowest_rq that keeps answering cpu1 (a stale view of cpupri). */
const stale = patch("stale cpupri").replace("rt.find_lowest_rq", () => 1);

test("rtFeasibleTarget2015 on 3.19: find_lock_lowest_rq gives up on a non-feasible target without locking it", () => {
  for (const patched of [false, true]) {
    const k = kernel("3.19", patched ? [stale, seeds.rtFeasibleTarget2015] : [stale]);
    rt(k, "h90", 90, 0, true);
    rt(k, "r80", 80, 1, true);
    cfs(k, "c2", 2);
    cfs(k, "c3", 3);
    k.runUntil(MS);
    const x = rt(k, "x50", 50, 0);
    k.runUntil(2 * MS);
    const before = locks(k, "rt_push");
    assert.equal(pushRtTask(k, k.rqs[0]), false);
    assert.equal(x.cpu, 0);
    const taken = locks(k, "rt_push") - before;
    if (patched) {
      assert.equal(taken, 0, "the bail-out: no double_lock_balance on cpu1");
      assert.ok((k.counters.other.rt_push_infeasible ?? 0) >= 1);
    } else {
      assert.equal(taken, RT_MAX_TRIES, "3.19: a lock round per try");
    }
  }
});

test("rtFeasibleTarget2015 on 3.19: select_task_rq_rt keeps the wakee home when the target is not lower", () => {
  for (const patched of [false, true]) {
    const k = kernel("3.19", patched ? [stale, seeds.rtFeasibleTarget2015] : [stale]);
    rt(k, "r80", 80, 1, true);
    // w sleeps on cpu0 while an equal-prio hog takes cpu0; at its wakeup find_lowest_rq says cpu1.
    const w = rt(k, "w", 50, 0, false, function* () {
      yield sleep(3 * MS);
      yield run(Infinity);
    });
    k.runUntil(MS);
    rt(k, "a", 50, 0, true);
    k.runUntil(5 * MS);
    assert.equal(w.cpu, patched ? 0 : 1, patched ? "stays behind a" : "3.19 trusts the target");
    assert.notEqual(k.rqs[1].curr, w, "rt 80 keeps cpu1 either way");
    k.checkInvariants();
  }
});

test("rtFeasibleTarget2015 changes nothing on a 4.8 baseline (the rule is already there)", () => {
  const base = kernel("4.8", [stale]);
  const withPatch = kernel("4.8", [stale, seeds.rtFeasibleTarget2015]);
  for (const k of [base, withPatch]) {
    rt(k, "h90", 90, 0, true);
    rt(k, "r80", 80, 1, true);
    k.runUntil(MS);
    rt(k, "x50", 50, 0);
    k.runUntil(2 * MS);
  }
  assert.deepEqual(withPatch.counters, base.counters);
});

test("rtEqualPrio2015: `<` leaves an equal-prio wakee queued but still moves one away from a more important curr", () => {
  for (const [currPrio, patched, moves] of [
    [50, false, true],
    [50, true, false],
    [60, true, true],
  ] as const) {
    const k = kernel(
      "3.19",
      patched ? [seeds.rtFeasibleTarget2015, seeds.rtEqualPrio2015] : [seeds.rtFeasibleTarget2015],
    );
    const w = rt(k, "w", 50, 0, false, function* () {
      yield sleep(3 * MS);
      yield run(Infinity);
    });
    k.runUntil(MS);
    rt(k, "a", currPrio, 0); // not pinned: a pinned curr makes both tests move the wakee
    for (const c of [1, 2, 3]) cfs(k, `c${c}`, c);
    k.runUntil(5 * MS);
    const where = `curr rt ${currPrio}, ${patched ? "<" : "<="}`;
    assert.equal(w.cpu !== 0, moves, where);
    assert.equal(w.onCpu, moves, where);
    if (!moves) assert.ok(k.rqs[0].rt.overloaded, `${where}: cpu0 overloaded, w pushable`);
  }
});

test("the seeds name their source and diff", () => {
  for (const p of [seeds.rtFeasibleTarget2015, seeds.rtEqualPrio2015]) {
    assert.equal(p.source.author, "Tim Chen");
    assert.equal(p.source.baseline, "3.19");
    assert.match(p.source.diff ?? "", /select_task_rq_rt/);
  }
});
