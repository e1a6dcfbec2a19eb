// RT push/pull through a real kernel: the core calls task_woken (try_to_wake_up,
// wake_up_new_task), balance (before the pick) and the post_schedule push (after the switch).
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel, patch, preset } from "../../../src/index";
import type { Era, Patch } from "../../../src/index";
import { run, sleep } from "../../../src/kernel/ops";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { pushRtTask, RT_MAX_TRIES } from "../../../src/kernel/rt/push";

const MS = 1_000_000;
const hog = function* () {
  yield run(Infinity);
};

function kernel(era: Era, patches: Patch[] = []): Kernel {
  const m = preset("core2-2x2");
  return buildKernel({ machine: m, online: m.online, era, patches, seed: "t", trace: false });
}

function rt(
  k: Kernel,
  comm: string,
  rtPriority: number,
  cpu: number,
  pin = false,
  program = hog,
): Task {
  return k.spawn({ comm, program, policy: "fifo", rtPriority, cpu, cpus: pin ? [cpu] : undefined });
}

function cfs(k: Kernel, comm: string, cpu: number): Task {
  return k.spawn({ comm, program: hog, cpu, cpus: [cpu] });
}

const seed004 = patch("do not push equal prio").replace(
  "rt.wakeup_push_cond",
  (ctx) => ctx.curr.prio < ctx.p.prio,
);

function locks(k: Kernel, path: string): number {
  return k.counters.rqLock[path]?.acquisitions ?? 0;
}

test("select_task_rq_rt: a wakee whose CPU runs an equal-prio RT task goes to a CFS CPU under <=, stays under <", () => {
  for (const era of ["3.19", "4.8", "6.19"] as const) {
    for (const patched of [false, true]) {
      const k = kernel(era, patched ? [seed004] : []);
      // w runs first on cpu0, then sleeps 5 ms; meanwhile an equal-prio hog takes cpu0.
      const w = rt(k, "w", 50, 0, false, function* () {
        yield sleep(5 * MS);
        yield run(Infinity);
      });
      k.runUntil(MS);
      const a = rt(k, "a", 50, 0);
      for (const c of [1, 2, 3]) cfs(k, `c${c}`, c);
      k.runUntil(10 * MS);
      const where = `${era}${patched ? " patched" : ""}`;
      if (!patched) {
        assert.equal(w.cpu, 1, `${where}: find_lowest_rq picks the CFS CPU sharing cpu0's L2`);
        assert.equal(k.rqs[1].curr, w, where);
        assert.equal(k.counters.wakePlacement.rt_lowest, 1, where);
        assert.ok(k.counters.migrations.wakeup >= 1, where);
      } else {
        assert.equal(w.cpu, 0, `${where}: stays behind the equal-prio task`);
        assert.equal(k.rqs[0].curr, a, where);
        assert.equal(w.onCpu, false, where);
        assert.equal(k.counters.wakePlacement.rt_lowest, undefined, where);
      }
      k.checkInvariants();
    }
  }
});

test("task_woken_rt: a queued equal-prio wakee is pushed to a CFS CPU under <=, not under <", () => {
  for (const patched of [false, true]) {
    const k = kernel("3.19", patched ? [seed004] : []);
    const a = rt(k, "a", 50, 0);
    for (const c of [1, 2, 3]) cfs(k, `c${c}`, c);
    k.runUntil(MS);
    // Placed on cpu0 explicitly (no select_task_rq): queued behind a, then wake_up_new_task's
    // task_woken_rt pushes it, or not.
    const w = rt(k, "w", 50, 0);
    k.runUntil(2 * MS);
    if (!patched) {
      assert.equal(w.cpu, 1);
      assert.equal(k.rqs[1].curr, w);
      assert.equal(k.counters.migrations.rt_push, 1);
      assert.ok(locks(k, "rt_push") >= 1, "the push locked the target rq");
    } else {
      assert.equal(w.cpu, 0);
      assert.equal(k.rqs[0].curr, a);
      assert.equal(k.counters.migrations.rt_push, undefined);
      assert.equal(locks(k, "rt_push"), 0);
    }
  }
});

test("push_rt_task moves the highest pushable task to the CPU running the least important work", () => {
  const k = kernel("3.19");
  rt(k, "h90", 90, 0, true);
  rt(k, "r60", 60, 1, true);
  rt(k, "r40", 40, 2, true);
  rt(k, "r80", 80, 3, true);
  k.runUntil(MS);
  // Each is pushed at its wakeup (wake_up_new_task's task_woken_rt) if it can preempt anything.
  const y = rt(k, "y70", 70, 0);
  const x = rt(k, "x50", 50, 0);
  k.runUntil(3 * MS);
  assert.equal(y.cpu, 2, "y (rt 70) preempted rt 40 on cpu2");
  assert.equal(k.rqs[2].curr, y);
  assert.equal(x.cpu, 0, "x (rt 50) outranks nobody now: rt 60, 70, 80 elsewhere");
  assert.deepEqual(
    k.rqs[0].rt.pushable.map((t) => t.comm),
    ["x50"],
  );
  assert.equal(k.counters.migrations.rt_push, 1);
  k.checkInvariants();
});

test(`find_lock_lowest_rq: ${RT_MAX_TRIES} lock rounds on a target that is not lower (3.19), none from v4.0 on`, () => {
  for (const era of ["3.19", "4.8"] as const) {
    // A find_lowest_rq that keeps answering a CPU running a more important task (a stale view).
    const stale = patch("stale cpupri").replace("rt.find_lowest_rq", () => 1);
    const k = kernel(era, [stale]);
    rt(k, "h90", 90, 0, true);
    rt(k, "r80", 80, 1, true);
    cfs(k, "c2", 2);
    cfs(k, "c3", 3);
    k.runUntil(MS);
    const x = rt(k, "x50", 50, 0);
    k.runUntil(2 * MS);
    const before = locks(k, "rt_push");
    const retries = k.counters.other.rt_push_retry ?? 0;
    assert.equal(pushRtTask(k, k.rqs[0]), false, era);
    assert.equal(x.cpu, 0);
    if (era === "3.19") {
      assert.equal(locks(k, "rt_push") - before, RT_MAX_TRIES, "double_lock_balance every round");
      assert.equal((k.counters.other.rt_push_retry ?? 0) - retries, RT_MAX_TRIES - 1);
    } else {
      assert.equal(
        locks(k, "rt_push") - before,
        0,
        "4.0's early bail: never lock a non-feasible target",
      );
      assert.ok((k.counters.other.rt_push_infeasible ?? 0) >= 1);
    }
  }
});

test("post_schedule push: the RT task preempted by a higher one is pushed off after the switch", () => {
  for (const era of ["3.19", "6.19"] as const) {
    const k = kernel(era);
    const a = rt(k, "a50", 50, 0);
    for (const c of [1, 2, 3]) cfs(k, `c${c}`, c);
    k.runUntil(MS);
    const localBefore = locks(k, "rt_push_local");
    const b = rt(k, "b60", 60, 0, true);
    k.runUntil(2 * MS);
    assert.equal(k.rqs[0].curr, b);
    assert.equal(a.cpu, 1, era);
    assert.equal(k.rqs[1].curr, a, era);
    assert.equal(
      locks(k, "rt_push_local") - localBefore,
      era === "3.19" ? 1 : 0,
      `${era}: post_schedule retakes the rq lock only before 5.11`,
    );
  }
});

/** cpu0: rt 90 running + x (rt 50) waiting; cpu1: rt 60 that runs 2 ms then sleeps; cpu2/3: rt 70. */
function pullSetup(
  era: Era,
  patches: Patch[] = [],
  cfsOnCpu1 = false,
): { k: Kernel; x: Task; l: Task } {
  const k = kernel(era, patches);
  rt(k, "h90", 90, 0, true);
  const l = rt(k, "l60", 60, 1, true, function* () {
    yield run(2 * MS);
    yield sleep(1e12);
  });
  if (cfsOnCpu1) cfs(k, "c1", 1);
  rt(k, "r70a", 70, 2, true);
  rt(k, "r70b", 70, 3, true);
  k.runUntil(MS / 2);
  const x = rt(k, "x50", 50, 0);
  k.runUntil(MS);
  assert.equal(x.cpu, 0, "nowhere to push x: every other CPU runs a more important task");
  return { k, x, l };
}

test("pull_rt_task (3.19): a CPU whose RT task blocks pulls the waiting task, locking the overloaded rq", () => {
  const { k, x } = pullSetup("3.19");
  k.runUntil(5 * MS); // l60 sleeps at ~2 ms: cpu1 goes idle and pulls
  assert.equal(x.cpu, 1);
  assert.equal(k.rqs[1].curr, x);
  assert.equal(k.counters.migrations.rt_pull, 1);
  assert.ok(locks(k, "rt_pull") >= 1);
  assert.equal(k.counters.other.rt_push_ipi, undefined);
  k.checkInvariants();
});

test("pull_rt_task: also when the CPU falls back to a CFS task (balance before the pick)", () => {
  const { k, x } = pullSetup("3.19", [], true);
  k.runUntil(6 * MS);
  assert.equal(x.cpu, 1);
  assert.equal(k.rqs[1].curr, x);
  assert.equal(k.counters.migrations.rt_pull, 1);
});

test("RT_PUSH_IPI (6.19): the CPU lowering its priority sends an IPI; the overloaded CPU pushes", () => {
  const { k, x } = pullSetup("6.19");
  k.runUntil(5 * MS);
  assert.equal(x.cpu, 1);
  assert.equal(k.rqs[1].curr, x);
  assert.equal(k.counters.migrations.rt_push, 1);
  assert.equal(k.counters.migrations.rt_pull, undefined);
  assert.equal(locks(k, "rt_pull"), 0, "no remote rq lock taken by the puller");
  assert.ok((k.counters.other.rt_push_ipi ?? 0) >= 1);
  assert.ok((k.counters.ipis.call_function_single ?? 0) >= 1);
  assert.equal(k.rt.rd.rtoCpu, -1, "the IPI walk ended");
  // The same kernel with the feature off pulls with double_lock_balance.
  const off = pullSetup("6.19", [patch("no ipi").feature("RT_PUSH_IPI", false)]);
  off.k.runUntil(5 * MS);
  assert.equal(off.x.cpu, 1);
  assert.equal(off.k.counters.migrations.rt_pull, 1);
});

test("pull_rt_task (3.19): two CPUs lowering their priority at once both lock the overloaded rq; the second finds nothing", () => {
  const k = kernel("3.19");
  rt(k, "h90", 90, 2, true);
  const blocker = function* () {
    yield run(2 * MS);
    yield sleep(1e12);
  };
  // cpu0 and cpu1 (one L2) run the same program from the same instant, so they reach
  // pull_rt_task together; cpu2, across the FSB, is overloaded.
  rt(k, "l60", 60, 0, true, blocker);
  rt(k, "l61", 60, 1, true, blocker);
  rt(k, "r70", 70, 3, true);
  k.runUntil(MS / 2);
  const x = rt(k, "x50", 50, 2);
  k.runUntil(MS);
  assert.equal(x.cpu, 2);
  assert.equal(k.rt.rd.rtoMask[2], 1, "cpu2 is overloaded");
  k.runUntil(5 * MS);
  assert.equal(k.counters.migrations.rt_pull, 1, "one of them pulls x");
  assert.ok([0, 1].includes(x.cpu), `x on cpu${x.cpu}`);
  // The other read cpu2's highest_prio.next before the winner's dequeue was visible, took the
  // lock (spinning behind the winner) and found no pushable task.
  assert.equal(k.counters.other.rt_pull_attempt, 2);
  assert.equal(k.counters.other.rt_pull_nothing, 1);
  assert.equal(locks(k, "rt_pull"), 2);
  assert.ok((k.counters.rqLock.rt_pull?.waitNs ?? 0) > 0, "the loser spun on the winner's hold");
  k.checkInvariants();
});
