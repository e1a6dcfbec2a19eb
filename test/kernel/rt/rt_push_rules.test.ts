// RT push/pull rules on hand-built runqueues (kernel/sched/rt.c and sched.h, v3.19 / v4.0):
// double_lock_balance, find_lock_lowest_rq, push_rt_task, pick_highest_pushable_task and
// pull_rt_task (locking and RT_PUSH_IPI forms). find_lowest_rq is steered by the test
// (rt_push_fixture.ts). The entry points and the RT_PUSH_IPI walk are in rt_entry_rules.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TASK_ON_RQ_MIGRATING, TASK_ON_RQ_QUEUED } from "../../../src/kernel/sched";
import {
  doubleLockBalance,
  findLockLowestRq,
  pullRtTask,
  pushRtTask,
  pushRtTasks,
} from "../../../src/kernel/rt/push";
import { checkRt } from "./rt_check";
import {
  MS,
  cfs,
  holdLock,
  kernel,
  locks,
  noIpi,
  other,
  overloaded3,
  pullable,
  quiet,
  rt,
} from "./rt_push_fixture";

test("double_lock_balance (sched.h v3.19, !CONFIG_PREEMPT): trylock; on contention keep our lock only if the other rq is ordered after ours", () => {
  const { k } = kernel("3.19");
  const [r0, r1, r2] = k.rqs;
  const P = "rt_pull";
  assert.equal(doubleLockBalance(k, r1, r0, P), false, "trylock succeeds");
  assert.equal(locks(k, "rt_pull"), 1);
  assert.equal(k.rqLockHolder[0], 1, "outside any CPU context the locker is this_rq's CPU");
  holdLock(k, 2, 3);
  const before = k.chargeNs;
  assert.equal(doubleLockBalance(k, r1, r2, P), false, "busiest > this_rq: spin, ours kept");
  assert.equal(locks(k, "rt_pull"), 2);
  assert.ok(k.chargeNs - before >= MS, "spun until cpu3 let go");
  assert.equal(other(k, "rt_double_lock_dropped"), 0);
  holdLock(k, 0, 3);
  assert.equal(doubleLockBalance(k, r1, r0, P), true, "busiest < this_rq: ours dropped");
  assert.equal(locks(k, "rt_pull"), 4, "both taken again, in order");
  assert.equal(other(k, "rt_double_lock_dropped"), 1);
  // In a CPU's context the locker is that CPU (smp_processor_id), not this_rq's.
  k.thisCpu = 0;
  try {
    doubleLockBalance(k, r1, r2, P);
    assert.equal(k.rqLockHolder[2], 0);
  } finally {
    k.thisCpu = -1;
  }
});

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

test("push_rt_task / pull_rt_task: the other rq's lock is held over the move (double_unlock_balance comes last)", () => {
  const push = overloaded3();
  push.steer.target = 0;
  assert.equal(pushRtTask(push.k, push.rq3), true);
  assert.equal(push.k.rqs[0].lockFreeAt, push.k.now + push.k.chargeNs, "target held to the end");
  const pull = pullable("3.19", "cfs");
  assert.equal(pullRtTask(pull.k, pull.rq1), true);
  assert.equal(pull.k.rqs[0].lockFreeAt, pull.k.now + pull.k.chargeNs, "source held to the end");
});
