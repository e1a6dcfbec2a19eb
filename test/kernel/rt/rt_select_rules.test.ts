// RT placement and class rules on hand-built runqueues (kernel/sched/rt.c): find_lowest_rq's
// fallbacks after the wake-affine domains (v3.19, and v5.11+ with cpumask_any_and_distribute),
// select_task_rq_rt's exits and counters, the v4.0 feasibility test at equality, and
// sched_class callbacks of the RT class the push/pull rules rely on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel, preset } from "../../../src/index";
import type { Era } from "../../../src/index";
import { run } from "../../../src/kernel/ops";
import type { Kernel } from "../../../src/kernel/core/core";
import { type Task, WF_FORK, WF_TTWU } from "../../../src/kernel/sched";
import {
  findLowestRqDefault,
  selectTaskRqRtDefault,
  targetFeasible40,
} from "../../../src/kernel/rt/select";
import { machineBuilder } from "../../../src/machine/builder";
import type { Machine } from "../../../src/machine/types";
import { checkRt } from "./rt_check";
import { cfs, rt } from "./rt_push_fixture";

const MS = 1_000_000;
const hog = function* () {
  yield run(Infinity);
};

function boot(m: Machine, era: Era): Kernel {
  return buildKernel({ machine: m, online: m.online, era, patches: [], seed: "t", trace: false });
}

/** Two nodes of two CPUs, SLIT distance 40 (> RECLAIM_DISTANCE): the NUMA level is not wake-affine. */
function farNuma(): Machine {
  return machineBuilder()
    .sockets(2)
    .cores(2)
    .nodes(2)
    .distance([
      [10, 40],
      [40, 10],
    ])
    .build();
}

/** cpu0 rt 90, cpu1 rt 80 (node 0); cpu2, cpu3 CFS (node 1); p (rt 50) may run anywhere. */
function numaWorld(era: Era): { k: Kernel; p: Task } {
  const k = boot(farNuma(), era);
  rt(k, "h90", 90, 0);
  rt(k, "h80", 80, 1);
  cfs(k, "f2", 2);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  const p = rt(k, "p50", 50, 0);
  p.setAffinity([0, 1, 2, 3]);
  return { k, p };
}

test("find_lowest_rq (v3.19): no wake-affine domain of task_cpu holds a lowest CPU: this_cpu if it is one, else the first", () => {
  const { k, p } = numaWorld("3.19");
  const sd = k.domains.domains[0];
  assert.ok(sd.length >= 2 && sd.some((d) => d.span.length === 4));
  const find = (thisCpu: number) => findLowestRqDefault({ k, task: p, taskCpu: 0, thisCpu });
  assert.equal(find(-1), 2, "cpumask_any(lowest_mask)");
  assert.equal(find(3), 3, "this_cpu, though no affine domain of cpu0 holds it");
  assert.equal(find(1), 2, "this_cpu not in the lowest mask");
  p.setAffinity([0, 1, 3]);
  assert.equal(find(-1), 3);
  p.setAffinity([0, 1]);
  assert.equal(find(-1), -1, "no allowed CPU below p");
});

test("find_lowest_rq (v5.11+): the fallback spreads over the lowest mask with this CPU's distribute cursor", () => {
  const { k, p } = numaWorld("5.19");
  const find = (thisCpu: number) => {
    const saved = k.thisCpu;
    k.thisCpu = thisCpu;
    try {
      return findLowestRqDefault({ k, task: p, taskCpu: 0, thisCpu });
    } finally {
      k.thisCpu = saved;
    }
  };
  assert.equal(find(-1), 2, "cursor 0: the next CPU of the mask after it");
  assert.equal(find(-1), 3);
  assert.equal(find(-1), 2, "wraps around");
  assert.equal(find(1), 2, "cpu1 has its own cursor (cpu1 is not in the mask)");
  assert.equal(find(1), 3);
  assert.equal(find(-1), 3, "outside any CPU: cpu0's cursor, left at 2");
  assert.equal(find(3), 3, "this_cpu in the mask: no distribution");
  p.setAffinity([0, 1, 2]);
  assert.equal(find(1), 2, "only cpu2 below p, after cpu1's cursor at 3");
  assert.equal(find(1), 2, "cursor at 2 and the mask is {2}: the full wrap returns it");
});

test("find_lowest_rq (v5.11+): within a wake-affine domain the CPU after the cursor, the domain's span only", () => {
  const k = boot(preset("core2-2x2"), "5.19");
  rt(k, "h90", 90, 0);
  cfs(k, "f1", 1);
  cfs(k, "f2", 2);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  const p = rt(k, "p50", 50, 0); // queued behind h90 (no placement), then allowed everywhere
  p.setAffinity([0, 1, 2, 3]);
  const find = () => findLowestRqDefault({ k, task: p, taskCpu: 0, thisCpu: -1 });
  assert.equal(find(), 1, "cpu0's L2 domain {0,1} first");
  assert.equal(find(), 1, "still the only lowest CPU of that span");
  k.rt.rd.distributePrev[0] = 0;
  p.setAffinity([0, 2, 3]);
  assert.equal(find(), 2, "the package domain");
  assert.equal(find(), 3, "the next one");
});

test("find_lowest_rq (v3.19): this_cpu is taken only in a wake-affine domain whose span holds it", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  rt(k, "h90", 90, 0);
  cfs(k, "f1", 1);
  rt(k, "h80", 80, 2);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  const p = rt(k, "p50", 50, 0);
  p.setAffinity([0, 1, 2, 3]);
  assert.equal(findLowestRqDefault({ k, task: p, taskCpu: 0, thisCpu: 3 }), 1, "L2 {0,1} first");
  assert.equal(
    findLowestRqDefault({ k, task: p, taskCpu: 2, thisCpu: 3 }),
    3,
    "L2 {2,3} holds cpu3",
  );
});

test("select_task_rq_rt (v3.19): forks go through the test too; an idle or CFS prev_cpu keeps the task", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  const c = rt(k, "c50", 50, 0); // pinned
  cfs(k, "f1", 1);
  k.runUntil(MS);
  const p = rt(k, "p60", 60, 1, false);
  const sel = (prevCpu: number, wakeFlags: number) =>
    selectTaskRqRtDefault({ k, p, prevCpu, wakerCpu: -1, wakeFlags });
  assert.equal(k.rqs[0].curr, c);
  assert.notEqual(sel(0, WF_FORK), 0, "a fork onto a pinned RT curr looks elsewhere");
  assert.equal(k.counters.other.rt_select_find_lowest, 1);
  assert.equal(k.rqs[2].curr, null, "cpu2 idle");
  assert.equal(sel(2, WF_TTWU), 2);
  assert.equal(sel(1, WF_TTWU), 1, "CFS curr");
  assert.equal(k.counters.other.rt_select_find_lowest, 1);
});

test("select_task_rq_rt (v3.19): prev_cpu itself lowest: no placement counted; a target with RT queued is counted", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  rt(k, "c40", 40, 0); // pinned and below p
  for (const c of [1, 2, 3]) rt(k, `h${c}`, 90, c);
  k.runUntil(MS);
  const p = rt(k, "p50", 50, 1);
  p.setAffinity([0, 1, 2, 3]); // queued behind an rt 90 first: no placement of its own
  assert.equal(selectTaskRqRtDefault({ k, p, prevCpu: 0, wakerCpu: -1, wakeFlags: WF_TTWU }), 0);
  assert.equal(k.counters.other.rt_select_find_lowest, 1);
  assert.equal(k.counters.wakePlacement.rt_lowest, undefined, "target == prev_cpu");
  assert.equal(k.counters.other.rt_select_onto_rt, 1, "p preempts an RT task there");
});

test("select_task_rq_rt (v3.19): a CFS target is not counted as onto RT", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  rt(k, "c50", 50, 0);
  cfs(k, "f1", 1);
  for (const c of [2, 3]) rt(k, `h${c}`, 90, c);
  k.runUntil(MS);
  const p = rt(k, "p50", 50, 2);
  p.setAffinity([0, 1, 2, 3]); // queued behind an rt 90 first: no placement of its own
  assert.equal(selectTaskRqRtDefault({ k, p, prevCpu: 0, wakerCpu: -1, wakeFlags: WF_TTWU }), 1);
  assert.equal(k.counters.wakePlacement.rt_lowest, 1);
  assert.equal(k.counters.other.rt_select_onto_rt, undefined);
});

test("v4.0 feasibility (select_task_rq_rt, find_lock_lowest_rq): p must be strictly above the target's highest_prio.curr", () => {
  const k = boot(preset("core2-2x2"), "4.8");
  rt(k, "r50", 50, 1);
  k.runUntil(MS);
  const p = rt(k, "p50", 50, 0, false);
  const q = rt(k, "q51", 51, 0, false);
  const at = (t: Task, target: number) =>
    targetFeasible40({ k, p: t, target, site: "select_task_rq" });
  assert.equal(at(p, 1), false, "equal prio");
  assert.equal(at(q, 1), true);
  assert.equal(at(p, 2), true, "no RT there");
});

test("the RT class's update_curr_rt: only an RT curr is charged, and only for time that passed", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  const a = rt(k, "a", 50, 0);
  const f = cfs(k, "f", 1);
  k.runUntil(MS);
  const sum = a.se.sumExecRuntime;
  a.se.execStart = k.now - 1000;
  k.rt.updateCurr(k.rqs[0]);
  assert.equal(a.se.sumExecRuntime, sum + 1000);
  assert.equal(a.se.execStart, k.now);
  k.rt.updateCurr(k.rqs[0]);
  assert.equal(a.se.sumExecRuntime, sum + 1000, "no time passed");
  f.se.execStart = k.now - 1000; // time pending for the fair class to charge
  const fs = f.se.sumExecRuntime;
  const fe = f.se.execStart;
  k.rt.updateCurr(k.rqs[1]);
  assert.equal(f.se.sumExecRuntime, fs, "a CFS curr is not the RT class's to charge");
  assert.equal(f.se.execStart, fe);
  k.rt.updateCurr(k.rqs[2]); // an idle CPU (curr null): nothing to charge
  // dequeue_task_rt charges the running task first.
  a.se.execStart = k.now - 500;
  k.rt.dequeueTask(k.rqs[0], a, 0);
  assert.equal(a.se.sumExecRuntime, sum + 1500);
  k.rt.enqueueTask(k.rqs[0], a, 0);
  checkRt(k);
});

test("put_prev_task_rt: a preempted RT task becomes pushable only if still queued and allowed elsewhere", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  for (const c of [1, 2, 3]) rt(k, `h${c}`, 90, c);
  const a = rt(k, "a", 50, 0, false);
  k.runUntil(MS);
  const rq = k.rqs[0];
  assert.equal(rq.curr, a);
  assert.deepEqual(rq.rt.pushable, []);
  k.rt.putPrevTask(rq, a);
  assert.deepEqual(rq.rt.pushable, [a], "queued, may move");
  rq.rt.pushable.length = 0;
  a.se.onRq = false;
  k.rt.putPrevTask(rq, a);
  a.se.onRq = true;
  assert.deepEqual(rq.rt.pushable, [], "not queued (it blocked)");
  a.setAffinity([0]);
  k.rt.putPrevTask(rq, a);
  assert.deepEqual(rq.rt.pushable, [], "pinned");
});

test("pick_next_task_rt: nothing without RT tasks; the head of the best list, no longer pushable", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  for (const c of [1, 2, 3]) rt(k, `h${c}`, 90, c);
  cfs(k, "f", 0);
  k.runUntil(MS);
  const rq = k.rqs[0];
  assert.equal(k.rt.pickNextTask(rq), null);
  const a = rt(k, "a", 40, 0, false);
  const b = rt(k, "b", 60, 0, false);
  assert.deepEqual(rq.rt.pushable, [b, a]);
  assert.equal(k.rt.pickNextTask(rq), b);
  assert.deepEqual(rq.rt.pushable, [a]);
  assert.equal(k.rt.highestPrioNext(rq), a.prio);
});

test("task_tick_rt: an RR task sharing its prio goes to the tail when its slice ends, and curr is rescheduled", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  const spec = { program: hog, policy: "rr" as const, rtPriority: 50, cpu: 0, cpus: [0] };
  const r = k.spawn({ comm: "r", ...spec });
  k.runUntil(MS / 10);
  const s = k.spawn({ comm: "s", ...spec });
  const rq = k.rqs[0];
  const q = rq.rt.queues[r.prio];
  assert.equal(rq.curr, r);
  assert.deepEqual(q, [r, s]);
  rq.needResched = false;
  r.rtTimeSlice = 1;
  k.rt.taskTick(rq, r);
  assert.deepEqual(q, [s, r]);
  assert.equal(rq.needResched, true);
  assert.equal(r.rtTimeSlice, k.tunables.rr_timeslice_ns);
});

test("check_preempt_curr_rt: an idle CPU is always rescheduled", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  const p = rt(k, "p", 50, 1);
  const rq = k.rqs[0];
  assert.equal(rq.curr, null);
  rq.needResched = false;
  k.rt.checkPreemptCurr(rq, p);
  assert.equal(rq.needResched, true);
});

test("yield_task_rt: a task not in this rq's list changes nothing", () => {
  const k = boot(preset("core2-2x2"), "3.19");
  const a = rt(k, "a", 50, 0);
  const b = rt(k, "b", 50, 0);
  const c = rt(k, "c", 50, 1); // same prio, another rq
  const q = k.rqs[0].rt.queues[a.prio];
  assert.deepEqual(q, [a, b]);
  k.rt.yieldTask(k.rqs[0], c);
  assert.deepEqual(q, [a, b]);
  assert.equal(c.cpu, 1);
});

test("the RT class's root domain reads and writes at this context's clock, and charges this CPU", () => {
  const k = boot(preset("core2-2x2"), "4.8");
  k.runUntil(MS);
  const rd = k.rt.rd;
  const rq2 = k.rqs[2];
  // A cpupri / highest_prio.curr write made 5 us into this context's work is not yet visible
  // to a reader at the start of it (another CPU reading without the lock).
  k.chargeNs = 5000;
  assert.equal(rd.clock(), k.now + 5000);
  rq2.rt.highestPrio = 10;
  rd.updateCpupri(rq2);
  k.chargeNs = 0;
  assert.equal(rd.visibleHighestPrio(rq2), 100, "the old value until the write lands");
  k.chargeNs = 5000;
  assert.equal(rd.visibleHighestPrio(rq2), 10);
  rq2.rt.highestPrio = 100;
  rd.updateCpupri(rq2);
  k.chargeNs = 0;
  const ctx = rd.ctx;
  assert.ok(ctx);
  k.thisCpu = 3;
  try {
    assert.equal(ctx.cpu(), 3);
    ctx.charge(7);
    assert.equal(k.chargeNs, 7);
    assert.equal(ctx.lineNs(0, 3), k.cache.cacheLineNs(0, 3));
  } finally {
    k.thisCpu = -1;
    k.chargeNs = 0;
  }
});

test("find_lowest_rq (v5.11+): this_cpu 0 is this_cpu too, taken before the distributed pick", () => {
  const k = boot(preset("core2-2x2"), "5.19");
  cfs(k, "f0", 0);
  cfs(k, "f1", 1);
  rt(k, "h90", 90, 2);
  rt(k, "h91", 91, 3);
  k.runUntil(MS);
  const p = rt(k, "p50", 50, 2);
  p.setAffinity([0, 1, 2, 3]);
  k.thisCpu = 0;
  try {
    assert.equal(findLowestRqDefault({ k, task: p, taskCpu: 2, thisCpu: 0 }), 0);
  } finally {
    k.thisCpu = -1;
  }
  assert.equal(
    findLowestRqDefault({ k, task: p, taskCpu: 2, thisCpu: -1 }),
    1,
    "without it: the CPU after cpu0's cursor",
  );
});
