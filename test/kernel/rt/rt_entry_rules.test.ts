// RT push/pull entry points and the RT_PUSH_IPI walk on hand-built runqueues (kernel/sched/rt.c
// v3.19, the v4.16 rto_next_cpu walk, 5.x/6.x where named): tell_cpu_to_push / rto_next_cpu /
// rto_push_irq_work_func, task_woken_rt, need_pull_rt_task (the pick-time pull),
// post_schedule_rt, switched_from_rt / switched_to_rt / prio_changed_rt and rq_online_rt.
// find_lowest_rq is steered by the test (rt_push_fixture.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  pullBeforePick,
  rtPostSchedule,
  rtPrioChanged,
  rtRqOnline,
  rtTaskWoken,
  tellCpuToPush,
} from "../../../src/kernel/rt/push";
import { changeScheduling } from "../../../src/kernel/core/setscheduler";
import { checkRt } from "./rt_check";
import { MS, cfs, hog, kernel, locks, other, pullable, quiet, rt } from "./rt_push_fixture";

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

test("switched_from_rt / prio_changed_rt: no resched when nothing was pulled; nothing for a task not queued", () => {
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
