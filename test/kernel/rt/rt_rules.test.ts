// RT class rules on hand-set situations (kernel/sched/rt.c v3.19 / v4.8): select_task_rq_rt's
// test, find_lowest_rq's preference for this_cpu, check_preempt_curr_rt, task_tick_rt's RR
// requeue, yield_task_rt, the pushable plist's FIFO order, task_woken_rt's conditions,
// push_rt_task's early exits and rq_online_rt / rq_offline_rt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { preset } from "../../../src/index";
import type { Era } from "../../../src/index";
import { run } from "../../../src/kernel/ops";
import type { Kernel } from "../../../src/kernel/core/core";
import { WF_TTWU } from "../../../src/kernel/sched";
import { findLowestRqDefault, selectTaskRqRtDefault } from "../../../src/kernel/rt/select";
import { pushRtTask, rtRqOffline, rtRqOnline, rtTaskWoken } from "../../../src/kernel/rt/push";
import { CPUPRI_INVALID } from "../../../src/kernel/rt/cpupri";
import { boot } from "../boot";
import { checkRt } from "./rt_check";
import { cfs, rt } from "./rt_push_fixture";

const MS = 1_000_000;
const hog = function* () {
  yield run(Infinity);
};

function kernel(era: Era = "3.19"): Kernel {
  return boot(preset("core2-2x2"), era);
}

test("select_task_rq_rt: look elsewhere only on a wakeup or fork onto an RT curr that is pinned or at least as important", () => {
  const k = kernel();
  const c = rt(k, "c50", 50, 0); // pinned
  for (const cpu of [1, 2, 3]) cfs(k, `f${cpu}`, cpu);
  k.runUntil(MS);
  assert.equal(k.rqs[0].curr, c);
  const p = rt(k, "p60", 60, 1, true); // more important than c; placed by hand below
  p.setAffinity([0, 1, 2, 3]);
  const sel = (wakeFlags: number, prevCpu = 0) =>
    selectTaskRqRtDefault({ k, p, prevCpu, wakerCpu: -1, wakeFlags });
  assert.equal(sel(0), 0, "neither wakeup nor fork: prev_cpu");
  assert.notEqual(sel(WF_TTWU), 0, "curr pinned: p goes to a CPU running CFS");
  c.setAffinity([0, 1]);
  assert.equal(sel(WF_TTWU), 0, "curr may move and p outranks it: p stays");
  assert.equal(sel(WF_TTWU, 2), 2, "curr of prev_cpu is CFS: p stays");
  const q = rt(k, "q40", 40, 3, true); // less important than c
  q.setAffinity([0, 1, 2, 3]);
  const target = selectTaskRqRtDefault({ k, p: q, prevCpu: 0, wakerCpu: -1, wakeFlags: WF_TTWU });
  assert.notEqual(target, 0, "curr as important: q looks elsewhere");
});

test("select_task_rq_rt: prev_cpu when no CPU runs lower, and (4.8) when the target is not below p", () => {
  const k = kernel("3.19");
  for (const cpu of [0, 1, 2, 3]) rt(k, `r${cpu}`, 90, cpu);
  k.runUntil(MS);
  const p = rt(k, "p", 50, 1);
  p.setAffinity([0, 1, 2, 3]);
  assert.equal(
    selectTaskRqRtDefault({ k, p, prevCpu: 2, wakerCpu: -1, wakeFlags: WF_TTWU }),
    2,
    "find_lowest_rq finds nothing",
  );
  // 4.8: cpupri says cpu3 is lower, but a more important task is already queued there
  const n = kernel("4.8");
  rt(n, "c", 50, 0);
  for (const cpu of [1, 2]) rt(n, `r${cpu}`, 90, cpu);
  cfs(n, "f3", 3);
  n.runUntil(MS);
  const w = rt(n, "w", 50, 1);
  w.setAffinity([0, 1, 2, 3]);
  assert.equal(findLowestRqDefault({ k: n, task: w, taskCpu: 0, thisCpu: -1 }), 3);
  n.rqs[3].rt.highestPrio = 10; // as if an rt 89 task had just been queued on cpu3
  assert.equal(
    selectTaskRqRtDefault({ k: n, p: w, prevCpu: 0, wakerCpu: -1, wakeFlags: WF_TTWU }),
    0,
  );
  assert.equal(n.counters.other.rt_select_infeasible, 1);
});

test("find_lowest_rq: none for a pinned task; task_cpu first; this_cpu in the first wake-affine domain that holds it", () => {
  const k = kernel();
  rt(k, "a", 50, 0);
  rt(k, "b", 50, 1);
  cfs(k, "f2", 2);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  const p = rt(k, "p", 60, 0);
  const find = (taskCpu: number, thisCpu: number) =>
    findLowestRqDefault({ k, task: p, taskCpu, thisCpu });
  assert.equal(find(0, 3), -1, "nr_cpus_allowed 1");
  p.setAffinity([0, 1, 2, 3]);
  assert.equal(find(2, 3), 2, "task_cpu is in the lowest mask: cache hot");
  assert.equal(find(0, -1), 2, "the first CPU of the package");
  assert.equal(find(0, 3), 3, "this_cpu is in the package domain: cheaper to preempt");
  assert.equal(find(0, 1), 2, "this_cpu not in the mask");
});

test("check_preempt_curr_rt: a CFS curr always, an RT curr only by a strictly higher prio", () => {
  const k = kernel();
  const f = cfs(k, "f", 1);
  const a = rt(k, "a", 50, 0);
  k.runUntil(MS);
  const rq0 = k.rqs[0];
  const rq1 = k.rqs[1];
  assert.equal(rq1.curr, f);
  const hi = rt(k, "hi", 60, 2);
  const lo = rt(k, "lo", 40, 3);
  k.runUntil(2 * MS);
  for (const r of [rq0, rq1]) r.needResched = false;
  k.rt.checkPreemptCurr(rq1, lo);
  assert.equal(rq1.needResched, true, "CFS curr");
  k.rt.checkPreemptCurr(rq0, lo);
  assert.equal(rq0.needResched, false, "lower prio");
  k.rt.checkPreemptCurr(rq0, hi);
  assert.equal(rq0.needResched, true, "higher prio");
  assert.equal(rq0.curr, a);
});

test("check_preempt_equal_prio: nothing when curr cannot move or p could go elsewhere", () => {
  const k = kernel();
  const a = rt(k, "a", 50, 0); // pinned curr
  for (const cpu of [1, 2, 3]) cfs(k, `f${cpu}`, cpu);
  k.runUntil(MS);
  const rq = k.rqs[0];
  const p = rt(k, "p", 50, 0); // equal prio, pinned: queued behind a
  k.runUntil(2 * MS);
  assert.equal(rq.curr, a, "a pinned curr is not preempted by its equal");
  rq.needResched = false;
  a.setAffinity([0, 1, 2, 3]);
  p.setAffinity([0, 1, 2, 3]);
  k.rt.checkPreemptCurr(rq, p);
  assert.equal(rq.needResched, false, "p can go elsewhere itself");
  p.setAffinity([0]);
  rq.needResched = true;
  k.rt.checkPreemptCurr(rq, p);
  assert.deepEqual(rq.rt.queues[p.prio], [a, p], "a pending resched: no requeue");
  rq.needResched = false;
  k.rt.checkPreemptCurr(rq, p);
  assert.equal(rq.needResched, true);
  assert.deepEqual(rq.rt.queues[p.prio], [p, a], "requeued at the head");
});

test("task_tick_rt: an RR task alone at its prio gets a new slice and keeps the CPU; FIFO has none", () => {
  const k = kernel();
  const r = k.spawn({ comm: "r", program: hog, policy: "rr", rtPriority: 50, cpu: 0, cpus: [0] });
  const f = k.spawn({ comm: "f", program: hog, policy: "fifo", rtPriority: 50, cpu: 1, cpus: [1] });
  k.runUntil(MS);
  const tick = 1e9 / k.tunables.hz;
  r.rtTimeSlice = tick;
  k.rqs[0].needResched = false;
  k.rt.taskTick(k.rqs[0], r);
  assert.equal(r.rtTimeSlice, k.tunables.rr_timeslice_ns);
  assert.equal(k.rqs[0].needResched, false);
  r.rtTimeSlice = 2 * tick;
  k.rt.taskTick(k.rqs[0], r);
  assert.equal(r.rtTimeSlice, tick, "one tick used");
  f.rtTimeSlice = 5;
  k.rt.taskTick(k.rqs[1], f);
  assert.equal(f.rtTimeSlice, 5);
});

test("yield_task_rt: to the tail of its prio list; alone, nothing changes", () => {
  const k = kernel();
  const a = rt(k, "a", 50, 0);
  k.runUntil(MS);
  const q = k.rqs[0].rt.queues[a.prio];
  k.rt.yieldTask(k.rqs[0], a);
  assert.deepEqual(q, [a]);
  const b = rt(k, "b", 50, 0);
  k.rt.yieldTask(k.rqs[0], a);
  assert.deepEqual(q, [b, a]);
});

test("the pushable plist is FIFO among equal prios; highest_prio.next is its head", () => {
  const k = kernel();
  for (const cpu of [0, 1, 2, 3]) rt(k, `top${cpu}`, 90, cpu); // nowhere to push to
  k.runUntil(MS);
  const rq = k.rqs[0];
  const [x, y, z] = ["x", "y", "z"].map((c, i) => rt(k, c, i === 2 ? 60 : 40, 0, false));
  assert.deepEqual(rq.rt.pushable, [z, x, y]);
  assert.equal(k.rt.highestPrioNext(rq), z.prio);
  k.rt.enqueuePushable(rq, x); // re-added: behind its equal
  assert.deepEqual(rq.rt.pushable, [z, y, x]);
  checkRt(k);
});

test("task_woken_rt: no push for a pinned wakee, a pending resched, a CFS curr, or (3.19) no pushable task", () => {
  for (const era of ["3.19", "6.19"] as Era[]) {
    const k = kernel(era);
    const c = rt(k, "c", 50, 0); // pinned curr: any waiting movable RT task should be pushed
    for (const cpu of [1, 2, 3]) cfs(k, `f${cpu}`, cpu);
    k.runUntil(MS);
    const rq = k.rqs[0];
    const p = rt(k, "p", 40, 0); // pinned, queued behind c
    const pushes = () => k.counters.other.rt_task_woken_push ?? 0;
    const before = pushes();
    rtTaskWoken(k, rq, p);
    assert.equal(pushes(), before, `${era}: pinned wakee`);
    p.setAffinity([0, 1, 2, 3]);
    rq.rt.pushable.length = 0; // as if p were not listed
    rtTaskWoken(k, rq, p);
    assert.equal(pushes(), before + (era === "6.19" ? 1 : 0), `${era}: no pushable task`);
    rq.needResched = true;
    rtTaskWoken(k, rq, p);
    assert.equal(pushes(), before + (era === "6.19" ? 1 : 0), `${era}: resched pending`);
    rq.needResched = false;
    rtTaskWoken(k, k.rqs[1], p);
    assert.equal(pushes(), before + (era === "6.19" ? 1 : 0), `${era}: CFS curr`);
    rtTaskWoken(k, rq, c);
    assert.equal(pushes(), before + (era === "6.19" ? 1 : 0), `${era}: p is curr`);
  }
});

test("push_rt_task: nothing unless overloaded; a pushable task above curr only reschedules", () => {
  const k = kernel();
  const a = rt(k, "a", 50, 0, false);
  for (const cpu of [1, 2, 3]) cfs(k, `f${cpu}`, cpu);
  k.runUntil(MS);
  const rq = k.rqs[0];
  assert.equal(rq.curr, a);
  assert.equal(pushRtTask(k, rq), false, "one RT task: not overloaded");
  // b slips in above curr without a preemption check (as a racing enqueue would)
  const b = rt(k, "b", 60, 1, true);
  k.runUntil(2 * MS);
  k.dequeueTask(k.rqs[1], b, 0);
  b.setAffinity([0, 1, 2, 3]);
  b.cpu = 0;
  k.rt.enqueueTask(rq, b, 0);
  rq.needResched = false;
  assert.equal(pushRtTask(k, rq), false);
  assert.equal(rq.needResched, true);
  assert.equal(k.counters.other.rt_push_resched, 1);
});

test("rq_offline_rt / rq_online_rt: out of cpupri (INVALID) and rto_mask, then back", () => {
  const k = kernel();
  for (const cpu of [1, 2, 3]) rt(k, `top${cpu}`, 90, cpu);
  rt(k, "a", 50, 0);
  rt(k, "b", 40, 0, false);
  k.runUntil(MS);
  const rq = k.rqs[0];
  const cp = k.rt.rd.cpupri;
  const level = cp.level(0);
  assert.equal(rq.rt.overloaded, true);
  rtRqOffline(k, rq);
  assert.equal(cp.level(0), CPUPRI_INVALID);
  assert.equal(k.rt.rd.rtoMask[0], 0);
  rtRqOnline(k, rq);
  assert.equal(cp.level(0), level);
  assert.equal(k.rt.rd.rtoMask[0], 1);
});
