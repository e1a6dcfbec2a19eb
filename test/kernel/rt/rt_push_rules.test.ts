// RT push/pull rules on hand-built runqueues (kernel/sched/rt.c and sched.h, v3.19 / v4.0, and the
// v4.16 RT_PUSH_IPI walk): double_lock_balance, find_lock_lowest_rq, push_rt_task,
// pick_highest_pushable_task, pull_rt_task, tell_cpu_to_push / rto_next_cpu /
// rto_push_irq_work_func, and the push/pull entry points (task_woken_rt, the pick-time pull,
// post_schedule_rt, switched_from_rt / switched_to_rt / prio_changed_rt, rq_online_rt).
// find_lowest_rq is replaced by a hook the test steers, so that nothing is pushed while the
// situation is built and each call below sees exactly the target it names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel, patch, preset } from "../../../src/index";
import type { Era, Patch } from "../../../src/index";
import { run } from "../../../src/kernel/ops";
import type { Kernel } from "../../../src/kernel/core/core";
import { TASK_ON_RQ_MIGRATING, TASK_ON_RQ_QUEUED, type Task } from "../../../src/kernel/sched";
import {
  doubleLockBalance,
  findLockLowestRq,
  pullBeforePick,
  pullRtTask,
  pushRtTask,
  pushRtTasks,
  rtPostSchedule,
  rtPrioChanged,
  rtRqOnline,
  rtTaskWoken,
  tellCpuToPush,
} from "../../../src/kernel/rt/push";
import { changeScheduling } from "../../../src/kernel/core/setscheduler";
import { checkRt } from "./rt_check";

const MS = 1_000_000;
const hog = function* () {
  yield run(Infinity);
};

/** What the steered find_lowest_rq answers: a fixed CPU, a function of the task, or the real one. */
interface Steer {
  target: number;
  fn: ((t: Task) => number) | null;
  real: boolean;
  calls: Task[];
  /** Run between find_lowest_rq and the lock (as if it happened while our lock was dropped). */
  beforeLock: (() => void) | null;
}

function kernel(era: Era, patches: Patch[] = []): { k: Kernel; steer: Steer } {
  const steer: Steer = { target: -1, fn: null, real: false, calls: [], beforeLock: null };
  const steered = patch("find_lowest_rq steered by the test").replace(
    "rt.find_lowest_rq",
    (ctx, base) => {
      if (steer.real) return base(ctx);
      steer.calls.push(ctx.task);
      return steer.fn ? steer.fn(ctx.task) : steer.target;
    },
  );
  const meanwhile = patch("changes while the lock is dropped").replace(
    "rt.target_feasible",
    (ctx, base) => {
      if (ctx.site === "find_lock_lowest_rq" && steer.beforeLock) steer.beforeLock();
      return base(ctx);
    },
  );
  const m = preset("core2-2x2");
  const k = buildKernel({
    machine: m,
    online: m.online,
    era,
    patches: [steered, meanwhile, ...patches],
    seed: "t",
    trace: false,
  });
  return { k, steer };
}

function rt(k: Kernel, comm: string, rtPriority: number, cpu: number, pin: boolean): Task {
  return k.spawn({
    comm,
    program: hog,
    policy: "fifo",
    rtPriority,
    cpu,
    cpus: pin ? [cpu] : undefined,
  });
}

function cfs(k: Kernel, comm: string, cpu: number): Task {
  return k.spawn({ comm, program: hog, cpu, cpus: [cpu] });
}

const noIpi = patch("pull by locking").feature("RT_PUSH_IPI", false);

function locks(k: Kernel, path: string): number {
  return k.counters.rqLock[path]?.acquisitions ?? 0;
}

function other(k: Kernel, key: string): number {
  return k.counters.other[key] ?? 0;
}

/** No rq lock held at this context's clock (the hand-built runs leave some held a little past now). */
function quiet(k: Kernel): void {
  for (const r of k.rqs) r.lockFreeAt = 0;
  k.rqLockHolder.fill(-1);
}

/** Makes rq's lock look held by `holder` for the next millisecond of this context's clock. */
function holdLock(k: Kernel, cpu: number, holder: number): void {
  k.rqs[cpu].lockFreeAt = k.now + k.chargeNs + MS;
  k.rqLockHolder[cpu] = holder;
}

test("double_lock_balance (sched.h v3.19, !CONFIG_PREEMPT): trylock; on contention keep our lock only if the other rq is ordered after ours", () => {
  const { k } = kernel("3.19");
  const [r0, r1, r2] = k.rqs;
  assert.equal(doubleLockBalance(k, r1, r0, "t_free"), false, "trylock succeeds");
  assert.equal(locks(k, "t_free"), 1);
  assert.equal(k.rqLockHolder[0], 1, "outside any CPU context the locker is this_rq's CPU");
  holdLock(k, 2, 3);
  const before = k.chargeNs;
  assert.equal(
    doubleLockBalance(k, r1, r2, "t_after"),
    false,
    "busiest > this_rq: spin, ours kept",
  );
  assert.equal(locks(k, "t_after"), 1);
  assert.ok(k.chargeNs - before >= MS, "spun until cpu3 let go");
  assert.equal(other(k, "rt_double_lock_dropped"), 0);
  holdLock(k, 0, 3);
  assert.equal(doubleLockBalance(k, r1, r0, "t_before"), true, "busiest < this_rq: ours dropped");
  assert.equal(locks(k, "t_before"), 2, "both taken again, in order");
  assert.equal(other(k, "rt_double_lock_dropped"), 1);
  // In a CPU's context the locker is that CPU (smp_processor_id), not this_rq's.
  k.thisCpu = 0;
  try {
    doubleLockBalance(k, r1, r2, "t_ctx");
    assert.equal(k.rqLockHolder[2], 0);
  } finally {
    k.thisCpu = -1;
  }
});

/** cpu0 CFS, cpu1 rt 30 (pinned), cpu2 rt 50 (pinned); cpu3 runs rt 90 with x (rt 50) and y (rt 40) waiting. */
function overloaded3(era: Era = "3.19", patches: Patch[] = []) {
  const { k, steer } = kernel(era, patches);
  cfs(k, "f0", 0);
  const r30 = rt(k, "r30", 30, 1, true);
  rt(k, "r50", 50, 2, true);
  const h = rt(k, "h90", 90, 3, true);
  k.runUntil(MS);
  const x = rt(k, "x50", 50, 3, false);
  const y = rt(k, "y40", 40, 3, false);
  k.runUntil(2 * MS);
  const rq3 = k.rqs[3];
  assert.equal(rq3.curr, h);
  assert.deepEqual(rq3.rt.pushable, [x, y]);
  assert.equal(rq3.rt.overloaded, true);
  steer.calls.length = 0;
  quiet(k);
  return { k, steer, x, y, h, r30, rq3 };
}

test("find_lock_lowest_rq (v3.19): no target, or our own CPU, ends the search without a lock", () => {
  const { k, steer, x, rq3 } = overloaded3();
  for (const target of [-1, 3]) {
    steer.target = target;
    assert.equal(findLockLowestRq(k, x, rq3), null, `find_lowest_rq = ${target}`);
    assert.equal(locks(k, "rt_push"), 0);
    assert.equal(other(k, "rt_push_retry"), 0, "no second round");
  }
  steer.target = 0;
  assert.equal(findLockLowestRq(k, x, rq3), k.rqs[0], "a CFS CPU: locked and returned");
  assert.equal(locks(k, "rt_push"), 1);
});

test("find_lock_lowest_rq (v3.19): a target no longer below the task is retried RT_MAX_TRIES times, equal prio included", () => {
  const { k, steer, x, y, rq3 } = overloaded3();
  steer.target = 2; // runs rt 50, as x
  assert.equal(findLockLowestRq(k, x, rq3), null);
  assert.equal(locks(k, "rt_push"), 3);
  assert.equal(other(k, "rt_push_retry"), 2);
  assert.equal(steer.calls.length, 3);
  assert.equal(findLockLowestRq(k, y, rq3), null, "rt 40 does not beat rt 50 either");
  steer.target = 1; // runs rt 30
  assert.equal(findLockLowestRq(k, x, rq3), k.rqs[1], "rt 50 beats rt 30: still suitable");
});

test("find_lock_lowest_rq (v4.0+): a target whose highest prio is not below the task is not locked", () => {
  const { k, steer, x, rq3 } = overloaded3("4.8");
  steer.target = 2;
  assert.equal(findLockLowestRq(k, x, rq3), null);
  assert.equal(locks(k, "rt_push"), 0);
  assert.equal(other(k, "rt_push_infeasible"), 1);
  assert.equal(steer.calls.length, 1, "no retry");
  steer.target = 1;
  assert.equal(findLockLowestRq(k, x, rq3), k.rqs[1]);
});

test("find_lock_lowest_rq (v3.19): after double_lock_balance dropped our lock, the task must still be ours, allowed there, not running, RT and queued", () => {
  const { k, steer, x, rq3 } = overloaded3();
  steer.target = 1; // cpu1 < cpu3: a busy cpu1 lock makes us drop ours
  const attempt = (label: string, spoil: () => void, restore: () => void, want: boolean) => {
    holdLock(k, 1, 2);
    const dropped = other(k, "rt_double_lock_dropped");
    steer.beforeLock = spoil;
    try {
      const got = findLockLowestRq(k, x, rq3);
      assert.equal(got, want ? k.rqs[1] : null, label);
    } finally {
      steer.beforeLock = null;
      restore();
    }
    assert.equal(other(k, "rt_double_lock_dropped"), dropped + 1, `${label}: our lock was dropped`);
  };
  const none = () => {};
  attempt("unchanged", none, none, true);
  attempt(
    "migrated meanwhile",
    () => {
      x.cpu = 2;
    },
    () => {
      x.cpu = 3;
    },
    false,
  );
  attempt(
    "affinity changed meanwhile",
    () => x.setAffinity([0, 2, 3]),
    () => x.setAffinity([0, 1, 2, 3]),
    false,
  );
  attempt(
    "scheduled meanwhile",
    () => {
      x.onCpu = true;
    },
    () => {
      x.onCpu = false;
    },
    false,
  );
  attempt(
    "no longer RT",
    () => {
      x.prio = 120;
    },
    () => {
      x.prio = 49;
    },
    false,
  );
  attempt(
    "being migrated",
    () => {
      x.onRq = TASK_ON_RQ_MIGRATING;
    },
    () => {
      x.onRq = TASK_ON_RQ_QUEUED;
    },
    false,
  );
  assert.equal(other(k, "rt_push_retry"), 0, "a stale task ends the search at once");
  // Without the drop nothing is re-checked.
  steer.beforeLock = () => {
    x.onCpu = true;
  };
  try {
    assert.equal(findLockLowestRq(k, x, rq3), k.rqs[1], "lock taken without dropping ours");
  } finally {
    steer.beforeLock = null;
    x.onCpu = false;
  }
  checkRt(k);
});

test("push_rt_task (v3.19): the head of the pushable list goes to the locked target, which is rescheduled", () => {
  const { k, steer, x, y, rq3 } = overloaded3();
  steer.target = 1; // rt 30 running there
  k.rqs[1].needResched = false;
  assert.equal(pushRtTask(k, rq3), true);
  assert.deepEqual(steer.calls, [x], "the highest pushable task first");
  assert.equal(x.cpu, 1);
  assert.equal(k.rqs[1].needResched, true, "resched_curr(lowest_rq)");
  assert.equal(k.counters.migrations.rt_push, 1);
  assert.equal(other(k, "rt_push"), 1);
  assert.equal(other(k, "rt_push_onto_rt"), 1, "a lower RT task was queued there");
  assert.deepEqual(rq3.rt.pushable, [y]);
  checkRt(k);
  // y (rt 40) does not beat cpu1's new rt 50: three rounds, then y is still the head: stop.
  steer.calls.length = 0;
  assert.equal(pushRtTask(k, rq3), false);
  assert.deepEqual(steer.calls, [y, y, y]);
  assert.equal(y.cpu, 3);
  steer.target = 0;
  assert.equal(pushRtTask(k, rq3), true, "onto the CFS CPU");
  assert.equal(y.cpu, 0);
  assert.equal(other(k, "rt_push_onto_rt"), 1, "cpu0 had no RT task queued");
  assert.equal(pushRtTask(k, rq3), false, "h90 alone: not overloaded");
  checkRt(k);
});

test("push_rt_tasks: pushes until one fails, and counts them", () => {
  const { k, steer, x, y, rq3 } = overloaded3();
  steer.fn = (t) => (t === x ? 0 : 1);
  assert.equal(pushRtTasks(k, rq3), 2);
  assert.equal(x.cpu, 0);
  assert.equal(y.cpu, 1);
  assert.equal(pushRtTasks(k, rq3), 0);
  checkRt(k);
});

test("push_rt_task (v3.19): when the search fails and the head of the list changed meanwhile, retry with the new head", () => {
  const { k, steer, x, y, rq3 } = overloaded3();
  steer.fn = (t) => {
    if (t === x) {
      k.moveQueuedTask(x, 1, "rt_pull"); // pulled by cpu1 while our lock was dropped
      return -1;
    }
    return 0;
  };
  assert.equal(pushRtTask(k, rq3), true);
  assert.deepEqual(steer.calls, [x, y]);
  assert.equal(y.cpu, 0);
  assert.equal(x.cpu, 1);
  checkRt(k);
});

test("push_rt_task (v3.19): when the search fails and the pushable list emptied meanwhile, stop", () => {
  const { k, steer } = kernel("3.19");
  rt(k, "h90", 90, 3, true);
  for (const c of [0, 1, 2]) cfs(k, `f${c}`, c);
  k.runUntil(MS);
  const x = rt(k, "x50", 50, 3, false);
  k.runUntil(2 * MS);
  const rq3 = k.rqs[3];
  steer.calls.length = 0;
  steer.fn = () => {
    k.moveQueuedTask(x, 1, "rt_pull");
    return -1;
  };
  assert.equal(pushRtTask(k, rq3), false);
  assert.deepEqual(steer.calls, [x]);
  assert.equal(x.cpu, 1);
});

test("push_rt_task: the running task is never pushed (WARN_ON(next_task == rq->curr))", () => {
  const { k, steer, h, rq3 } = overloaded3();
  steer.target = 0;
  rq3.rt.pushable.unshift(h); // as if curr were still listed
  try {
    assert.equal(pushRtTask(k, rq3), false);
  } finally {
    rq3.rt.pushable.shift();
  }
  assert.equal(steer.calls.length, 0);
  assert.equal(h.cpu, 3);
});

/** cpu0: rt 90 with x (rt 50) waiting (overloaded); cpu1 `one`; cpu2 rt 60 pinned; cpu3 CFS. */
function pullable(era: Era, one: "cfs" | "rt50" | "h90", patches: Patch[] = []) {
  const { k, steer } = kernel(era, patches);
  const h = rt(k, "h90", 90, 0, true);
  const t1 = one === "cfs" ? cfs(k, "f1", 1) : rt(k, one, one === "rt50" ? 50 : 90, 1, true);
  rt(k, "r60", 60, 2, true);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  const x = rt(k, "x50", 50, 0, false);
  k.runUntil(2 * MS);
  assert.equal(k.rqs[0].rt.overloaded, true);
  assert.deepEqual(k.rqs[0].rt.pushable, [x]);
  quiet(k);
  return { k, steer, h, t1, x, rq1: k.rqs[1] };
}

test("pull_rt_task (v3.19): takes the waiting task that beats what this rq would run, locking its rq", () => {
  const { k, x, rq1 } = pullable("3.19", "cfs");
  assert.equal(pullRtTask(k, rq1), true);
  assert.equal(x.cpu, 1);
  assert.equal(k.counters.migrations.rt_pull, 1);
  assert.equal(other(k, "rt_pull"), 1);
  assert.equal(locks(k, "rt_pull"), 1);
  assert.equal(other(k, "rt_pull_nothing"), 0);
  assert.equal(pullRtTask(k, rq1), false, "nothing overloaded any more");
  assert.equal(other(k, "rt_pull_attempt"), 1, "rt_overloaded() is read before anything else");
  checkRt(k);
});

test("pull_rt_task (v3.19): a source whose highest_prio.next does not beat our highest_prio.curr is not locked (equal prio included)", () => {
  const { k, x, rq1 } = pullable("3.19", "rt50");
  assert.equal(pullRtTask(k, rq1), false);
  assert.equal(x.cpu, 0);
  assert.equal(locks(k, "rt_pull"), 0);
  assert.equal(other(k, "rt_pull_nothing"), 0);
  assert.equal(other(k, "rt_pull_attempt"), 1);
});

test("pull_rt_task (v3.19): a task above its rq's curr is waking to preempt it and is left there; one equal to curr is pulled", () => {
  // x (rt 50) is queued on cpu0 above curr rt 40 and the switch has not happened yet.
  const { k } = kernel("3.19");
  const lo = rt(k, "r40", 40, 0, true);
  cfs(k, "f1", 1);
  rt(k, "r60", 60, 2, true);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  const x = rt(k, "x50", 50, 0, false);
  const rq0 = k.rqs[0];
  assert.equal(rq0.curr, lo);
  assert.equal(rq0.rt.overloaded, true);
  assert.equal(pullRtTask(k, k.rqs[1]), false);
  assert.equal(x.cpu, 0);
  assert.equal(other(k, "rt_pull_nothing"), 1, "the lock was taken for nothing");
  assert.equal(locks(k, "rt_pull"), 1);
  // Equal to src's curr: pulled (only a strictly higher prio is left).
  const e = kernel("3.19");
  const a = rt(e.k, "a50", 50, 0, true);
  cfs(e.k, "f1", 1);
  rt(e.k, "r60", 60, 2, true);
  cfs(e.k, "f3", 3);
  e.k.runUntil(MS);
  const w = rt(e.k, "w50", 50, 0, false);
  e.k.runUntil(2 * MS);
  assert.equal(e.k.rqs[0].curr, a);
  assert.equal(pullRtTask(e.k, e.k.rqs[1]), true);
  assert.equal(w.cpu, 1);
});

test("pick_highest_pushable_task (v3.19): skips a task running or not allowed on this CPU", () => {
  const { k } = kernel("3.19");
  rt(k, "h90", 90, 0, true);
  cfs(k, "f1", 1);
  rt(k, "r60", 60, 2, true);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  const x = rt(k, "x50", 50, 0, false);
  const y = rt(k, "y45", 45, 0, false);
  const z = rt(k, "z40", 40, 0, false);
  k.runUntil(2 * MS);
  assert.deepEqual(k.rqs[0].rt.pushable, [x, y, z]);
  x.setAffinity([0, 2, 3]);
  y.onCpu = true; // as while it is being switched in elsewhere
  try {
    assert.equal(pullRtTask(k, k.rqs[1]), true);
  } finally {
    y.onCpu = false;
  }
  assert.equal(z.cpu, 1, "the first task allowed here and not running");
  assert.equal(x.cpu, 0);
  assert.equal(y.cpu, 0);
});

test("pull_rt_task (v3.19): goes on after a pull, taking a better task from a later source", () => {
  const { k } = kernel("3.19");
  rt(k, "h90", 90, 0, true);
  cfs(k, "f1", 1);
  rt(k, "h91", 91, 2, true);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  const x = rt(k, "x50", 50, 0, false);
  const z = rt(k, "z60", 60, 2, false);
  const w = rt(k, "w30", 30, 2, false);
  k.runUntil(2 * MS);
  assert.equal(pullRtTask(k, k.rqs[1]), true);
  assert.equal(x.cpu, 1, "cpu0 first");
  assert.equal(z.cpu, 1, "rt 60 beats the rt 50 pulled already");
  assert.equal(w.cpu, 2, "rt 30 does not: cpu2's next is z's prio when read, w is not taken");
  assert.equal(k.counters.migrations.rt_pull, 2);
  checkRt(k);
});

test('pull_rt_task (v4.15+, "Do not pull from current CPU if only one CPU to pull"; model era 5.6 on): nothing when this CPU is the only overloaded one (not in v4.8)', () => {
  for (const era of ["4.8", "5.6"] as const) {
    const { k } = kernel(era, [noIpi]);
    cfs(k, "f0", 0);
    rt(k, "h90", 90, 1, true);
    rt(k, "r60", 60, 2, true);
    cfs(k, "f3", 3);
    k.runUntil(MS);
    const v = rt(k, "v50", 50, 1, false);
    k.runUntil(2 * MS);
    quiet(k);
    assert.equal(k.rt.rd.rtoCount, 1);
    assert.equal(k.rt.rd.rtoMask[1], 1);
    assert.equal(pullRtTask(k, k.rqs[1]), false);
    assert.equal(other(k, "rt_pull_attempt"), era === "4.8" ? 1 : 0, era);
    assert.equal(v.cpu, 1);
    // Another CPU, with cpu1 as the only overloaded one, still pulls.
    assert.equal(pullRtTask(k, k.rqs[0]), true, `${era}: cpu0 runs CFS`);
    assert.equal(v.cpu, 0);
  }
});

test("pull_rt_task with RT_PUSH_IPI (v4.16+): no lock taken, the overloaded CPU is told to push", () => {
  const { k, x, rq1 } = pullable("6.19", "cfs");
  assert.equal(pullRtTask(k, rq1), false);
  assert.equal(other(k, "rt_tell_cpu_to_push"), 1);
  assert.equal(other(k, "rt_pull_attempt"), 0);
  assert.equal(locks(k, "rt_pull"), 0);
  assert.equal(k.rt.rd.rtoCpu, 0, "the walk starts at the first overloaded CPU");
  assert.equal(other(k, "rt_push_ipi"), 1);
  assert.equal(x.cpu, 0, "nothing moves before the IPI arrives");
  const none = pullable("6.19", "cfs");
  none.k.moveQueuedTask(none.x, 3, "rt_push");
  assert.equal(pullRtTask(none.k, none.rq1), false);
  assert.equal(other(none.k, "rt_tell_cpu_to_push"), 0, "not overloaded: no walk");
});

/** 6.19: cpu0 and cpu2 overloaded (rt 90 / 91 running, x and z waiting), cpu1 and cpu3 CFS. */
function twoOverloaded() {
  const { k, steer } = kernel("6.19");
  rt(k, "h90", 90, 0, true);
  cfs(k, "f1", 1);
  rt(k, "h91", 91, 2, true);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  const x = rt(k, "x50", 50, 0, false);
  const z = rt(k, "z60", 60, 2, false);
  k.runUntil(2 * MS);
  assert.deepEqual([...k.rt.rd.rtoMask], [1, 0, 1, 0]);
  return { k, steer, x, z };
}

test("rto_next_cpu / rto_push_irq_work_func (v4.16): the IPI visits each overloaded CPU, and once more since the walk was asked for after it started", () => {
  const { k, x, z } = twoOverloaded();
  const rd = k.rt.rd;
  tellCpuToPush(k);
  assert.equal(rd.rtoLoopNext, 1);
  assert.equal(rd.rtoCpu, 0);
  assert.equal(other(k, "rt_push_ipi"), 1);
  tellCpuToPush(k);
  assert.equal(other(k, "rt_push_ipi"), 1, "a walk is running: only rto_loop_next moves");
  assert.equal(rd.rtoLoopNext, 2);
  k.runUntil(3 * MS);
  // Nothing can be pushed (find_lowest_rq answers -1): cpu0, cpu2, then a second pass.
  assert.equal(other(k, "rt_push_ipi"), 4);
  assert.equal(locks(k, "rt_push_local"), 4, "each overloaded CPU locked its rq to push");
  assert.equal(rd.rtoCpu, -1, "the walk ended");
  assert.equal(rd.rtoLoop, 2, "it saw the last rto_loop_next");
  assert.equal(x.cpu, 0);
  assert.equal(z.cpu, 2);
  // A new request starts a new walk.
  tellCpuToPush(k);
  assert.equal(other(k, "rt_push_ipi"), 5);
  assert.equal(rd.rtoCpu, 0);
});

test("rto_push_irq_work_func (v4.16): the CPUs push their tasks; the walk ends when rto_mask is empty", () => {
  const { k, steer, x, z } = twoOverloaded();
  steer.real = true;
  tellCpuToPush(k);
  k.runUntil(3 * MS);
  assert.equal(other(k, "rt_push_ipi"), 2, "cpu0 then cpu2; the second pass finds no CPU");
  assert.deepEqual([x.cpu, z.cpu].sort(), [1, 3]);
  assert.equal(k.counters.migrations.rt_push, 2);
  assert.equal(k.rt.rd.rtoCpu, -1);
  assert.equal(k.rt.rd.rtoCount, 0);
  checkRt(k);
});

test("rto_push_irq_work_func (v4.16): an overloaded CPU without pushable tasks does not take its lock", () => {
  const { k, steer } = kernel("6.19");
  const x = rt(k, "x50", 50, 0, false); // runs, may move
  for (const c of [1, 2, 3]) cfs(k, `f${c}`, c);
  k.runUntil(MS);
  rt(k, "p40", 40, 0, true); // waits behind x, pinned
  k.runUntil(2 * MS);
  assert.equal(k.rqs[0].curr, x);
  assert.equal(k.rt.rd.rtoMask[0], 1, "two RT tasks, one migratory");
  assert.equal(k.rqs[0].rt.pushable.length, 0);
  steer.calls.length = 0;
  tellCpuToPush(k);
  k.runUntil(3 * MS);
  assert.equal(other(k, "rt_push_ipi"), 2, "cpu0, and cpu0 again on the second pass");
  assert.equal(locks(k, "rt_push_local"), 0);
  assert.equal(steer.calls.length, 0);
});

test("task_woken_rt (v3.19, v6.19): no push when curr may move and the wakee outranks it", () => {
  for (const era of ["3.19", "6.19"] as const) {
    const { k } = kernel(era);
    const c = rt(k, "c50", 50, 0, true);
    for (const cpu of [1, 2, 3]) cfs(k, `f${cpu}`, cpu);
    k.runUntil(MS);
    const p = rt(k, "p60", 60, 0, false); // queued above c, the switch not done yet
    const rq = k.rqs[0];
    assert.equal(rq.curr, c);
    rq.needResched = false;
    c.setAffinity([0, 1]);
    const pushes = other(k, "rt_task_woken_push");
    rtTaskWoken(k, rq, p);
    assert.equal(other(k, "rt_task_woken_push"), pushes, `${era}: curr has two CPUs`);
    c.setAffinity([0]);
    rtTaskWoken(k, rq, p);
    assert.equal(other(k, "rt_task_woken_push"), pushes + 1, `${era}: curr pinned`);
  }
});

test("task_woken_rt: only for an RT wakee", () => {
  const { k } = kernel("6.19");
  const c = rt(k, "c50", 50, 0, true);
  for (const cpu of [1, 2, 3]) cfs(k, `f${cpu}`, cpu);
  k.runUntil(MS);
  const f = k.spawn({ comm: "f", program: hog, cpu: 0 });
  const rq = k.rqs[0];
  assert.equal(rq.curr, c);
  rq.needResched = false;
  rtTaskWoken(k, rq, f);
  assert.equal(other(k, "rt_task_woken_push"), 0);
});

test("need_pull_rt_task (v3.19 pick_next_task_rt): pull only if this rq's best RT prio is below prev's; not with a stop task queued", () => {
  const { k, h, t1, x, rq1 } = pullable("3.19", "rt50");
  pullBeforePick(k, rq1, t1); // highest_prio.curr == prev->prio
  assert.equal(other(k, "rt_pull_attempt"), 0);
  rq1.stopQueued = true;
  try {
    pullBeforePick(k, rq1, h);
  } finally {
    rq1.stopQueued = false;
  }
  assert.equal(other(k, "rt_pull_attempt"), 0);
  pullBeforePick(k, rq1, h); // prev rt 90 above rq1's rt 50
  assert.equal(other(k, "rt_pull_attempt"), 1);
  assert.equal(x.cpu, 0, "x (rt 50) does not beat rq1's rt 50");
});

test("the pick-time pull on this CPU leaves need_resched as it was: __schedule picks right after", () => {
  for (const own of [true, false]) {
    const { k, h, x, rq1 } = pullable("3.19", "cfs");
    rq1.needResched = false;
    if (own) k.thisCpu = 1;
    try {
      pullBeforePick(k, rq1, h);
    } finally {
      k.thisCpu = -1;
    }
    assert.equal(x.cpu, 1);
    assert.equal(rq1.needResched, !own, own ? "restored" : "set by the pull's preemption check");
  }
});

test("post_schedule_rt (v3.19) / the push balance_callback: only with an RT curr and pushable tasks; relocks before v5.19", () => {
  for (const era of ["3.19", "5.10", "5.19"] as const) {
    const { k, steer } = kernel(era);
    cfs(k, "f1", 1);
    const a = rt(k, "a50", 50, 0, true);
    k.runUntil(MS);
    const x = rt(k, "x40", 40, 1, false); // queued behind nothing RT: CFS runs on cpu1
    assert.equal(k.rqs[1].curr?.schedClass, "fair");
    assert.deepEqual(k.rqs[1].rt.pushable, [x]);
    steer.calls.length = 0;
    rtPostSchedule(k, k.rqs[1]);
    assert.equal(other(k, "rt_post_schedule"), 0, `${era}: CFS curr`);
    rtPostSchedule(k, k.rqs[0]);
    assert.equal(other(k, "rt_post_schedule"), 0, `${era}: RT curr, nothing pushable`);
    assert.equal(k.rqs[0].curr, a);
    k.runUntil(2 * MS);
    const y = rt(k, "y30", 30, 0, false);
    k.runUntil(3 * MS);
    assert.deepEqual(k.rqs[0].rt.pushable, [y]);
    const before = locks(k, "rt_push_local");
    rtPostSchedule(k, k.rqs[0]);
    assert.equal(other(k, "rt_post_schedule"), 1, era);
    assert.equal(locks(k, "rt_push_local") - before, era === "5.19" ? 0 : 1, era);
  }
});

/** 3.19: cpu0 overloaded (rt 90 + x rt 50 waiting), cpu1 runs s (rt 60, pinned), cpu2/3 CFS. */
function prioWorld(extraOnCpu1 = false) {
  const { k, steer } = kernel("3.19");
  rt(k, "h90", 90, 0, true);
  const s = rt(k, "s60", 60, 1, true);
  const extra = extraOnCpu1 ? rt(k, "e20", 20, 1, true) : null;
  cfs(k, "f2", 2);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  const x = rt(k, "x50", 50, 0, false);
  k.runUntil(2 * MS);
  assert.equal(k.rqs[1].curr, s);
  return { k, steer, s, x, extra };
}

test("switched_from_rt (v3.19): the last RT task of a rq leaving the class pulls; with another RT task queued it does not", () => {
  const { k, s, x } = prioWorld();
  changeScheduling(k, s, "normal", 0, 0);
  assert.equal(x.cpu, 1, "pulled onto cpu1");
  assert.equal(k.counters.migrations.rt_pull, 1);
  const w = prioWorld(true);
  changeScheduling(w.k, w.s, "normal", 0, 0);
  assert.equal(other(w.k, "rt_pull_attempt"), 0, "rt 20 still queued on cpu1");
  assert.equal(w.x.cpu, 0);
});

test("switched_from_rt: reschedules this rq when it pulled", () => {
  const { k, s, x } = prioWorld();
  const rq1 = k.rqs[1];
  // The class change itself is done; only the RT class's hook runs here.
  changeScheduling(k, s, "normal", 0, 0);
  assert.equal(x.cpu, 1);
  rq1.needResched = false;
  assert.equal(rtPrioChanged(k, rq1, s, "rt", 39), undefined);
  assert.equal(rq1.needResched, false, "nothing to pull any more: no resched");
  const w = prioWorld();
  w.k.dequeueTask(w.k.rqs[1], w.s, 0);
  w.s.onRq = 0;
  // Even with a drop from rt 80 (prio 19), which would pull for a queued running task.
  rtPrioChanged(w.k, w.k.rqs[1], w.s, "rt", 19);
  assert.equal(other(w.k, "rt_pull_attempt"), 0, "a task not queued: nothing");
});

test("switched_to_rt (v3.19): a queued task becoming RT on an overloaded rq makes it push, if it may move and is not running", () => {
  const { k, steer } = kernel("3.19");
  rt(k, "h90", 90, 0, true);
  const g = k.spawn({ comm: "g", program: hog, cpu: 0 }); // CFS, may move, waits on cpu0
  const pinned = k.spawn({ comm: "q", program: hog, cpu: 0, cpus: [0] });
  const f1 = cfs(k, "f1", 1);
  rt(k, "r60", 60, 2, true);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  assert.equal(g.cpu, 0);
  steer.target = 3;
  changeScheduling(k, pinned, "fifo", 0, 40);
  assert.equal(other(k, "rt_push_attempt"), 0, "pinned: not pushable, rq not overloaded");
  changeScheduling(k, g, "fifo", 0, 50);
  assert.equal(other(k, "rt_push_attempt"), 1);
  assert.equal(g.cpu, 3, "pushed to the target");
  // The running task of a CFS CPU becoming RT: nothing to push from there.
  steer.target = 2;
  changeScheduling(k, f1, "fifo", 0, 10);
  assert.equal(other(k, "rt_push_attempt"), 1);
  checkRt(k);
});

test("prio_changed_rt (v3.19): the running task whose priority dropped pulls; raised or unchanged, it does not", () => {
  const cases: Array<[number, boolean]> = [
    [30, true], // rt 60 -> 30: x (rt 50) now beats it
    [60, false],
    [70, false],
  ];
  for (const [to, pull] of cases) {
    const { k, s, x } = prioWorld();
    changeScheduling(k, s, "fifo", 0, to);
    assert.equal(other(k, "rt_pull_attempt"), pull ? 1 : 0, `rt 60 -> ${to}`);
    assert.equal(x.cpu, pull ? 1 : 0, `rt 60 -> ${to}`);
  }
  // A queued, not running, RT task whose priority drops: no pull.
  const { k, x } = prioWorld(true);
  const e = k.rqs[1].rt.queues.flat().find((t) => t.comm === "e20");
  assert.ok(e && e !== k.rqs[1].curr);
  changeScheduling(k, e, "fifo", 0, 10);
  assert.equal(other(k, "rt_pull_attempt"), 0);
  assert.equal(x.cpu, 0);
});

test("rq_online_rt (v3.19): a rq that is not overloaded stays out of rto_mask", () => {
  const { k } = kernel("3.19");
  rt(k, "a", 50, 0, false);
  k.runUntil(MS);
  assert.equal(k.rqs[0].rt.overloaded, false);
  rtRqOnline(k, k.rqs[0]);
  assert.equal(k.rt.rd.rtoMask[0], 0);
  assert.equal(k.rt.rd.rtoCount, 0);
});

test("push_rt_task / pull_rt_task: the other rq's lock is held over the move (double_unlock_balance comes last)", () => {
  const push = overloaded3();
  push.steer.target = 0;
  assert.equal(pushRtTask(push.k, push.rq3), true);
  assert.equal(push.k.rqs[0].lockFreeAt, push.k.now + push.k.chargeNs, "target held to the end");
  const pull = pullable("3.19", "cfs");
  assert.equal(pullRtTask(pull.k, pull.rq1), true);
  assert.equal(pull.k.rqs[0].lockFreeAt, pull.k.now + pull.k.chargeNs, "source held to the end");
});

test("post_schedule_rt (v3.19): the retaken rq lock is held over the push", () => {
  const { k, steer } = kernel("3.19");
  rt(k, "h90", 90, 0, true);
  for (const c of [1, 2, 3]) cfs(k, `f${c}`, c);
  k.runUntil(MS);
  const x = rt(k, "x50", 50, 0, false);
  k.runUntil(2 * MS);
  quiet(k);
  steer.target = 2;
  rtPostSchedule(k, k.rqs[0]);
  assert.equal(x.cpu, 2);
  assert.equal(k.rqs[0].lockFreeAt, k.now + k.chargeNs);
});

test("switched_to_rt (v3.19): no push from an overloaded rq when the task is the running one, or pinned", () => {
  // cpu0 runs CFS g; h (rt 90, pinned) and x (rt 50) were just queued: overloaded, the switch
  // not done yet.
  const { k, steer } = kernel("3.19");
  const g = k.spawn({ comm: "g", program: hog, cpu: 0 });
  const q = k.spawn({ comm: "q", program: hog, cpu: 0, cpus: [0] });
  for (const c of [1, 2, 3]) cfs(k, `f${c}`, c);
  k.runUntil(MS);
  assert.equal(k.rqs[0].curr, g);
  rt(k, "h90", 90, 0, true);
  rt(k, "x50", 50, 0, false);
  assert.equal(k.rqs[0].rt.overloaded, true);
  steer.target = 1;
  changeScheduling(k, q, "fifo", 0, 40);
  assert.equal(other(k, "rt_push_attempt"), 0, "q pinned");
  changeScheduling(k, g, "fifo", 0, 30);
  assert.equal(other(k, "rt_push_attempt"), 0, "g is rq->curr");
});
