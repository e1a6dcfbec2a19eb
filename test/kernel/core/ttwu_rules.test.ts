// try_to_wake_up's helpers on hand-built states: ttwu_queue_cond per era (v5.19 and today's
// core.c), record_wakee's flip count and its one-second decay, the rq lock's hold and wait,
// select_fallback_rq's node preference, and the sched_waking / sched_wakeup records.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { call, fork, run, sleep, wait, wake } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import { WF_ON_CPU, WF_TTWU } from "../../../src/kernel/sched";
import type { Task } from "../../../src/kernel/sched";
import { selectFallbackRq, selectTaskRq, tryToWakeUp } from "../../../src/kernel/core/ttwu";
import { lockRq, rqLockBusy, unlockRq } from "../../../src/kernel/core/rq_lock";
import { buildKernel } from "../../../src/experiment/run";
import { boot } from "../boot";

/**
 * 2 sockets x 2 cores, one LLC and one NUMA node per socket: cpu0/cpu1 | cpu2/cpu3; with `c1`, a
 * non-polling C1 (exit 1 us) as the only idle state, so an idle target needs an IPI.
 */
function machine(c1 = false) {
  const b = machineBuilder().sockets(2).cores(2).nodes(2);
  if (c1)
    b.idleStates([{ name: "C1", exitLatencyNs: 1000, targetResidencyNs: 2000, polling: false }]);
  return b.build();
}

function sleeper(k: Kernel, comm: string, cpus: number[]): Task {
  return k.spawn({
    comm,
    cpu: cpus[0],
    cpus,
    program: function* () {
      for (;;) yield wait();
    },
  });
}

test("ttwu_queue_cond v3.0-5.19: the wakelist across LLCs; within one only for an on_cpu wakee whose CPU runs at most one task", () => {
  const k = boot(machine(), "5.19");
  const p = sleeper(k, "p", [0, 1, 2, 3]);
  const pinned = sleeper(k, "q", [0, 1]);
  k.runUntil(100_000);
  const cond = (task: Task, cpu: number, thisCpu: number, wakeFlags = 0) =>
    k.ttwuQueueCond({ k, p: task, cpu, thisCpu, wakeFlags });
  assert.equal(cond(p, 2, 0), true, "!cpus_share_cache");
  assert.equal(cond(pinned, 2, 0), true, "5.19 does not test the affinity mask");
  assert.equal(cond(p, 2, -1), false, "no waking CPU");
  k.rqs[2].online = false;
  assert.equal(cond(p, 2, 0), false, "!cpu_active");
  k.rqs[2].online = true;
  assert.equal(cond(p, 1, 0), false, "same LLC, no WF_ON_CPU");
  for (const [n, want] of [
    [0, true],
    [1, true],
    [2, false],
  ] as const) {
    k.rqs[1].nrRunning = n;
    assert.equal(cond(p, 1, 0, WF_ON_CPU), want, `WF_ON_CPU, nr_running ${n}`);
  }
  k.rqs[1].nrRunning = 0;
});

test("ttwu_queue_cond v6.0+: the affinity mask, then across LLCs, then within one only to another, idle CPU", () => {
  for (const era of ["6.6", "6.19"] as Era[]) {
    const k = boot(machine(), era);
    const p = sleeper(k, "p", [0, 1, 2, 3]);
    const pinned = sleeper(k, "q", [0, 1]);
    k.runUntil(100_000);
    const cond = (task: Task, cpu: number, thisCpu: number, wakeFlags = 0) =>
      k.ttwuQueueCond({ k, p: task, cpu, thisCpu, wakeFlags });
    assert.equal(cond(p, 2, 0), true, `${era}: !cpus_share_cache`);
    assert.equal(cond(pinned, 2, 0), false, `${era}: !cpumask_test_cpu(cpu, p->cpus_ptr)`);
    assert.equal(cond(p, 3, -1), false, `${era}: no waking CPU`);
    k.rqs[3].online = false;
    assert.equal(cond(p, 3, 0), false, `${era}: !cpu_active`);
    k.rqs[3].online = true;
    assert.equal(cond(p, 1, 1), false, `${era}: cpu == smp_processor_id()`);
    assert.equal(cond(p, 1, 0), true, `${era}: idle target in the LLC`);
    k.rqs[1].nrRunning = 1;
    assert.equal(cond(p, 1, 0, WF_ON_CPU), false, `${era}: busy target, even on_cpu`);
    k.rqs[1].nrRunning = 0;
  }
});

test("record_wakee: a flip per change of wakee, halved once more than HZ has passed", () => {
  const k = boot(machine(), "5.19");
  // Wakees that may run on two CPUs: select_task_rq_fair, where record_wakee is, runs for them.
  const a = sleeper(k, "a", [1, 3]);
  const b = sleeper(k, "b", [1, 3]);
  const waker = k.spawn({
    comm: "waker",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(100_000);
      yield wake(a.pid);
      yield run(100_000);
      yield wake(a.pid); // same wakee: no flip
      yield run(100_000);
      yield wake(b.pid);
      yield sleep(1_500_000_000);
      yield wake(a.pid); // jiffies > decay_ts + HZ: flips >>= 1, then +1
      yield wait();
    },
  });
  k.runUntil(1_000_000);
  assert.equal(waker.wakeeFlips, 2);
  assert.equal(waker.lastWakee, b);
  assert.equal(waker.wakeeFlipDecayTs, 0);
  k.runUntil(1_700_000_000);
  assert.equal(waker.lastWakee, a);
  assert.equal(waker.wakeeFlips, 2, "2 >> 1, + 1");
  assert.ok(waker.wakeeFlipDecayTs > 1_000_000_000, "decay stamp moved to the wake");
});

test("rq lock: the holder pays local + remote cost; another CPU waits for the hold and counts it; unlock extends, never shortens", () => {
  for (const era of ["5.6", "5.19"] as Era[]) {
    const k = boot(machine(), era);
    const c = k.machine.costs;
    const rq = k.rqs[1];
    k.chargeNs = 0;
    lockRq(k, rq, 0, "ttwu_remote");
    const held = c.rqLockLocalNs + k.cache.rqLockRemoteNs(0, 1);
    assert.ok(k.cache.rqLockRemoteNs(0, 1) > 0);
    assert.equal(k.chargeNs, held);
    assert.equal(rq.lockFreeAt, held);
    assert.equal(k.rqLockHolder[1], 0);
    k.chargeNs = 0; // the same instant, seen from other contexts
    assert.equal(rqLockBusy(k, rq, 0), false, "a CPU never waits for its own hold");
    assert.equal(rqLockBusy(k, rq, 2), true);
    assert.equal(rqLockBusy(k, rq, -1), true, "no CPU context: any hold is busy");
    lockRq(k, rq, 2, "ttwu_remote");
    const s = k.counters.rqLock.ttwu_remote;
    assert.equal(s.acquisitions, 2);
    // the wait, then the handoff: the lock word comes from cpu0, which held it (queued: one line)
    const handoff = k.cache.cacheLineNs(0, 2);
    assert.equal(s.waitNs, held + handoff);
    assert.equal(k.chargeNs, held + handoff + c.rqLockLocalNs + k.cache.rqLockRemoteNs(2, 1));
    assert.equal(rq.lockFreeAt, k.chargeNs);
    assert.equal(k.rqLockHolder[1], 2);
    // The count of waits exists from v5.8 (seed 001's ledger).
    assert.equal(k.counters.other.ttwu_remote_lock_waits, era === "5.19" ? 1 : undefined, era);
    k.chargeNs += 500;
    unlockRq(k, rq);
    assert.equal(rq.lockFreeAt, k.chargeNs, "unlock at this context's clock");
    const end = rq.lockFreeAt;
    k.chargeNs = 0;
    unlockRq(k, rq);
    assert.equal(rq.lockFreeAt, end, "an earlier context does not shorten the hold");
    // A local lock after the hold: no remote cost, no wait.
    k.chargeNs = end + 1;
    lockRq(k, k.rqs[0], 0, "ttwu_local");
    assert.equal(k.chargeNs, end + 1 + c.rqLockLocalNs);
    assert.equal(k.counters.rqLock.ttwu_local.waitNs, 0);
    k.chargeNs = 0;
  }
});

test("select_fallback_rq: an allowed online CPU of the same node first, else the first allowed online CPU", () => {
  const k = boot(machine(), "5.19");
  const t = (cpus: number[]) => sleeper(k, `m${cpus.join("")}`, cpus);
  assert.equal(selectFallbackRq(k, t([1, 2, 3]), 0), 1, "node 0 before node 1");
  assert.equal(selectFallbackRq(k, t([0, 1, 3]), 2), 3, "node 1 before node 0");
  assert.equal(selectFallbackRq(k, t([2, 3]), 0), 2, "none on the node: the first allowed");
  const only3 = t([3]);
  k.rqs[3].online = false;
  assert.equal(selectFallbackRq(k, t([0, 1, 3]), 2), 0, "offline CPUs are skipped");
  assert.throws(
    () => selectFallbackRq(k, only3, 2),
    /task m3\/\d+: no online CPU in its affinity mask/,
  );
  k.rqs[3].online = true;
});

test("sched_waking is recorded on the waker's CPU; sched_wakeup where the wakee is activated", () => {
  for (const [era, target, activator] of [
    ["5.6", 2, 2], // across LLCs: the wakelist, the target activates
    ["5.19", 2, 2],
    ["5.19", 1, 0], // same LLC, idle target (v5.8-5.19): the waker locks it and activates
  ] as const) {
    const k = buildKernel({
      machine: machine(),
      online: machine().online,
      era,
      patches: [],
      seed: "t",
      trace: true,
    });
    const p = sleeper(k, "wakee", [target]);
    k.spawn({
      comm: "waker",
      cpu: 0,
      cpus: [0],
      program: function* () {
        yield run(500_000);
        yield wake(p.pid);
        yield wait();
      },
    });
    k.runUntil(1_000_000);
    type Wake = {
      type: string;
      t: number;
      cpu: number;
      comm: string;
      pid: number;
      prio: number;
      targetCpu: number;
    };
    const recs = k
      .trace!.records()
      .filter((r) => r.type === "sched_waking" || r.type === "sched_wakeup") as Wake[];
    const mine = recs.filter((r) => r.pid === p.pid && r.t >= 500_000);
    const waking = mine.find((r) => r.type === "sched_waking");
    const wakeup = mine.find((r) => r.type === "sched_wakeup");
    assert.deepEqual(
      waking && { cpu: waking.cpu, comm: waking.comm, prio: waking.prio, target: waking.targetCpu },
      { cpu: 0, comm: "wakee", prio: p.prio, target },
      era,
    );
    assert.deepEqual(
      wakeup && { cpu: wakeup.cpu, comm: wakeup.comm, prio: wakeup.prio, target: wakeup.targetCpu },
      { cpu: activator, comm: "wakee", prio: p.prio, target },
      era,
    );
  }
});

test("try_to_wake_up: a running task is not woken; a remote wakeup costs the waker wakeupNs + the lock + the resched IPI in every era", () => {
  // (v6.0+ queue a same-LLC wakeup to an idle CPU on its wakelist instead: ttwu_queue_cond above.)
  for (const era of ["3.19", "5.6", "5.19"] as Era[]) {
    const m = machine(true);
    const k = boot(m, era);
    const p = sleeper(k, "p", [1]);
    const hog = k.spawn({
      comm: "hog",
      cpu: 3,
      cpus: [3],
      program: function* () {
        yield run(Infinity);
      },
    });
    k.runUntil(100_000);
    const sleptAt = p.lastStateChange;
    k.chargeNs = 0;
    assert.equal(tryToWakeUp(k, hog, 0, 0, null), false, `${era}: already running`);
    assert.equal(k.chargeNs, 0);
    assert.equal(hog.stats.wakeups, 0);
    // cpu0 wakes p on idle cpu1 (same LLC, not on_cpu): rq lock, enqueue, resched IPI.
    const c = m.costs;
    assert.equal(tryToWakeUp(k, p, 0, 0, null), true);
    assert.equal(
      k.chargeNs,
      c.wakeupNs + c.rqLockLocalNs + k.cache.rqLockRemoteNs(0, 1) + c.ipiSendNs,
      era,
    );
    assert.deepEqual(k.counters.wakePath, { remote: 1 }, era);
    assert.equal(k.counters.rqLock.ttwu_remote.acquisitions, 1, `${era}: the target's lock`);
    assert.equal(p.stats.wakeups, 1);
    assert.equal(p.stats.sleepNs, 100_000 - sleptAt, `${era}: the sleep ends at the wakeup`);
    assert.equal(p.onRq, 1);
    assert.equal(k.rqs[1].nrRunning, 1);
    // A wakeup onto the waking CPU itself takes the local lock.
    const q = sleeper(k, "q", [0]);
    k.runUntil(200_000);
    k.chargeNs = 0;
    tryToWakeUp(k, q, 0, 0, null);
    assert.equal((k.counters.wakePath as Record<string, number>).local, 1, era);
    assert.equal(k.counters.rqLock.ttwu_local.acquisitions, 1, `${era}: the local lock`);
    k.chargeNs = 0;
  }
});

test("wakelist batching: two wakees queued on one remote idle CPU cost one IPI and one ttwu_pending lock", () => {
  for (const era of ["3.19", "5.19", "6.19"] as Era[]) {
    const k = boot(machine(), era);
    const a = sleeper(k, "a", [2]);
    const b = sleeper(k, "b", [2]);
    k.spawn({
      comm: "waker",
      cpu: 0,
      cpus: [0],
      program: function* () {
        yield run(500_000);
        yield wake(a.pid);
        yield wake(b.pid);
        yield wait();
      },
    });
    k.runUntil(400_000);
    const ipis = k.counters.ipis.call_function_single ?? 0;
    const locks = k.counters.rqLock.ttwu_pending?.acquisitions ?? 0;
    k.runUntil(1_000_000);
    assert.equal(a.stats.wakeups + b.stats.wakeups, 2);
    assert.equal(k.counters.wakePath.wakelist, 2, era);
    assert.equal((k.counters.ipis.call_function_single ?? 0) - ipis, 1, `${era}: one IPI`);
    assert.equal(
      (k.counters.rqLock.ttwu_pending?.acquisitions ?? 0) - locks,
      1,
      `${era}: the target activates the list under one lock (sched_ttwu_pending)`,
    );
    assert.equal(k.rqs[2].ttwuPending, 0);
    assert.equal(k.rqs[2].wakeList.length, 0);
  }
});

test("a wakelist wakeup: the waker pays the list head's line and the IPI; from v5.8 the activation half of wakeupNs moves to the target", () => {
  for (const era of ["3.19", "5.6", "5.19"] as Era[]) {
    const m = machine(true);
    const k = boot(m, era);
    const p = sleeper(k, "p", [2]);
    k.runUntil(100_000);
    k.chargeNs = 0;
    assert.equal(tryToWakeUp(k, p, 0, 0, null), true);
    const c = m.costs;
    const wakeup = era === "5.19" ? c.wakeupNs / 2 : c.wakeupNs;
    assert.equal(k.chargeNs, wakeup + k.cache.cacheLineNs(0, 2) + c.ipiSendNs, era);
    assert.deepEqual(k.counters.wakePath, { wakelist: 1 }, era);
    assert.deepEqual(k.rqs[2].wakeList, [p]);
    assert.equal(k.rqs[2].ttwuPending, 1);
    assert.equal(k.rqs[2].nrRunning, 0, "activated later, by the target");
    k.chargeNs = 0;
  }
});

test("rq lock later in the run: the hold and the wait are measured from this context's clock (now + chargeNs); a context with no CPU pays no remote cost and waits for any holder", () => {
  const k = boot(machine(), "5.19");
  k.runUntil(3_000_000);
  const c = k.machine.costs;
  const rq = k.rqs[3];
  const now = k.now;
  assert.ok(now > 0);
  k.chargeNs = 1000;
  lockRq(k, rq, 2, "ttwu_remote");
  const held = 1000 + c.rqLockLocalNs + k.cache.rqLockRemoteNs(2, 3);
  assert.equal(k.chargeNs, held);
  assert.equal(rq.lockFreeAt, now + held);
  k.chargeNs = 300;
  assert.equal(rqLockBusy(k, rq, 0), true);
  k.chargeNs = held + 1;
  assert.equal(rqLockBusy(k, rq, 0), false, "free once its clock is past the hold");
  k.chargeNs = 300;
  lockRq(k, rq, -1, "ttwu_pending");
  assert.equal(k.counters.rqLock.ttwu_pending.waitNs, held - 300, "no CPU: waits for the holder");
  assert.equal(k.chargeNs, held + c.rqLockLocalNs, "no remote cost without a CPU");
  assert.equal(k.counters.other.ttwu_remote_lock_waits, undefined, "only ttwu_remote waits count");
  k.chargeNs += 50;
  unlockRq(k, rq);
  assert.equal(rq.lockFreeAt, now + k.chargeNs);
  k.chargeNs = 0;
});

test("ttwu_do_wakeup's avg_idle: a short idle period moves it 1/8 of the way (update_avg), below the cap", () => {
  const k = boot(machine(), "5.19");
  const max = 2 * k.tunables.sched_migration_cost_ns;
  const p = k.spawn({
    comm: "p",
    cpu: 1,
    cpus: [1],
    program: function* () {
      yield run(1_000_000);
      for (;;) yield wait();
    },
  });
  let at = 0;
  k.spawn({
    comm: "waker",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(1_200_000);
      yield call(() => (at = k.now));
      yield wake(p.pid);
      yield wait();
    },
  });
  k.runUntil(1_150_000);
  const rq = k.rqs[1];
  const stamp = rq.idleStamp;
  assert.ok(stamp > 1_000_000 && rq.curr === null, "cpu1 idle since p slept");
  assert.equal(rq.avgIdle, max);
  k.runUntil(1_300_000);
  assert.ok(at > 0);
  assert.equal(k.counters.wakePath.remote, 1, "same LLC, 5.19: the waker activates");
  // The sample ends at the target's clock under its lock (core/avg_idle.ts): the waker's clock
  // at the wakeup plus the work it did first (select_task_rq, the remote rq lock), under 1 us.
  const sample = (rq.avgIdle - max) * 8 + max;
  assert.ok(
    sample > at - stamp && sample < at - stamp + 1000,
    `sample ${sample}, waker at ${at - stamp}`,
  );
  assert.ok(rq.avgIdle < max);
  assert.equal(rq.wakeAvgIdle, Math.floor(rq.avgIdle / 2));
});

test("without TTWU_QUEUE every wakeup locks the target's rq, across LLCs too", () => {
  for (const era of ["3.19", "5.19", "6.19"] as Era[]) {
    const k = boot(machine(), era);
    k.features.TTWU_QUEUE = false;
    const p = sleeper(k, "p", [2]);
    k.runUntil(100_000);
    k.chargeNs = 0;
    tryToWakeUp(k, p, 0, 0, null);
    assert.deepEqual(k.counters.wakePath, { remote: 1 }, era);
    assert.equal(k.rqs[2].nrRunning, 1);
    k.chargeNs = 0;
  }
});

test("wake_up_new_task: the new task's sched_wakeup_new is on the parent's CPU (the target at setup); a fork without a CPU is placed by select_task_rq", () => {
  const m = machine();
  const k = buildKernel({
    machine: m,
    online: m.online,
    era: "5.19",
    patches: [],
    seed: "t",
    trace: true,
  });
  const boot0 = k.spawn({ comm: "setup", cpu: 3, cpus: [3], program: function* () {} });
  let child = -1;
  k.spawn({
    comm: "parent",
    cpu: 1,
    cpus: [1],
    program: function* () {
      yield run(200_000);
      child = (yield fork({ comm: "child", cpus: [2], program: function* () {} })) as number;
      yield wait();
    },
  });
  k.runUntil(1_000_000);
  type Wake = { type: string; cpu: number; pid: number; targetCpu: number };
  const wakeups = (k.trace!.records() as Wake[]).filter((r) => r.type === "sched_wakeup_new");
  const first = (pid: number) => wakeups.find((r) => r.pid === pid);
  assert.deepEqual(
    first(boot0.pid) && [first(boot0.pid)!.cpu, first(boot0.pid)!.targetCpu],
    [3, 3],
  );
  assert.ok(child > 0);
  assert.deepEqual(
    first(child) && [first(child)!.cpu, first(child)!.targetCpu],
    [1, 2],
    "forked on cpu1, placed on its only CPU",
  );
});

test("select_task_rq keeps the class's choice when it is allowed and online: an unpinned wakee goes back to its idle prev, not to select_fallback_rq's first CPU", () => {
  const k = boot(machine(), "5.19");
  const p = sleeper(k, "p", [0, 1, 2, 3]);
  p.cpu = 1; // it slept on cpu1
  k.spawn({
    comm: "hog",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(Infinity);
    },
  });
  k.runUntil(100_000);
  assert.equal(p.cpu, 1);
  k.chargeNs = 0;
  // wake_affine: this_cpu busy, prev idle -> prev; select_idle_sibling: prev is idle.
  assert.equal(selectTaskRq(k, p, 1, WF_TTWU, 0), 1);
  assert.equal(selectFallbackRq(k, p, 1), 0, "the fallback would have taken cpu0");
  k.chargeNs = 0;
});

test("select_task_rq: a class's pick outside the mask falls back from task_cpu(p)'s node, not from the pick's", () => {
  // kernel/sched/core.c select_task_rq (v3.19 ... v6.19): `if (unlikely(!is_cpu_allowed(p, cpu)))
  // cpu = select_fallback_rq(task_cpu(p), p);` The 5.12 ... 6.4 recent_used_cpu test can return
  // such a CPU (wake_scan_rules).
  const k = boot(machine());
  const p = sleeper(k, "p", [1, 3]); // task_cpu(p) = 1, node 0; CPU 3 is node 1's allowed CPU
  const fair = k.classFor(p);
  fair.selectTaskRq = () => 2; // node 1, outside the mask
  assert.equal(selectTaskRq(k, p, p.cpu, WF_TTWU, 0), 1, "node 0's allowed CPU, task_cpu's node");
});
