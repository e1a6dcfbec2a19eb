// Kernel work inside schedule() and interrupts is CPU time (core.ts schedule/finish, cputime.ts),
// and rq locks are held by their owner too (ttwu.ts lockRq/unlockRq): hand-built states.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel, preset } from "../../../src/index";
import type { Era } from "../../../src/index";
import { run, sleep, wait, wake } from "../../../src/kernel/ops";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { tryToWakeUp } from "../../../src/kernel/core/ttwu";

const US = 1_000;
const MS = 1_000_000;
const hog = function* () {
  yield run(Infinity);
};

function kernel(era: Era, opts: { offline?: number[]; trace?: boolean } = {}): Kernel {
  const m = preset("core2-2x2");
  const online = m.online.map((o, i) => o && !(opts.offline ?? []).includes(i));
  return buildKernel({ machine: m, online, era, patches: [], seed: "t", trace: !!opts.trace });
}

function rt(k: Kernel, comm: string, prio: number, cpu: number, pin: boolean, program = hog): Task {
  return k.spawn({
    comm,
    program,
    policy: "fifo",
    rtPriority: prio,
    cpu,
    cpus: pin ? [cpu] : undefined,
  });
}

function switchTo(k: Kernel, cpu: number, comm: string): number {
  const r = k
    .trace!.records()
    .find((x) => x.type === "sched_switch" && x.cpu === cpu && x.nextComm === comm);
  assert.ok(r, `no switch to ${comm} on cpu${cpu}`);
  return r.t;
}

function switchFrom(k: Kernel, cpu: number, comm: string): number {
  const r = k
    .trace!.records()
    .find((x) => x.type === "sched_switch" && x.cpu === cpu && x.prevComm === comm);
  assert.ok(r, `no switch from ${comm} on cpu${cpu}`);
  return r.t;
}

test("per CPU: runtime of its pinned tasks + idle + overhead + offline = the duration", () => {
  for (const era of ["2.6.29", "5.19", "6.19"] as const) {
    const k = kernel(era, { offline: [3] });
    for (const c of [0, 1, 2]) {
      const cpus = [c];
      k.spawn({
        comm: `s${c}`,
        cpus,
        program: function* () {
          for (;;) {
            yield run(300 * US);
            yield sleep(700 * US);
          }
        },
      });
      // a pair across CPUs: remote wakeups (rq lock or wakelist) and switches into idle
      let peer = 0;
      const a = k.spawn({
        comm: `a${c}`,
        cpus,
        program: function* () {
          for (;;) {
            yield run(40 * US);
            yield wake(peer);
            yield wait();
          }
        },
      });
      const b = k.spawn({
        comm: `b${c}`,
        cpus: [(c + 1) % 3],
        program: function* () {
          for (;;) {
            yield wait();
            yield run(60 * US);
            yield wake(a.pid);
          }
        },
      });
      peer = b.pid;
    }
    const end = 200 * MS;
    k.runUntil(end);
    k.flushAccounting();
    k.checkInvariants();
    for (const rq of k.rqs) {
      let runtime = 0;
      for (const p of k.tasks)
        if (p.nrCpusAllowed === 1 && p.cpusAllowed[rq.cpu]) runtime += p.se.sumExecRuntime;
      const sum = runtime + rq.idleNs + k.overheadNs[rq.cpu] + rq.offlineNs;
      assert.ok(Math.abs(sum - end) < 1, `${era} cpu${rq.cpu}: ${sum} != ${end}`);
      if (rq.online) assert.ok(k.overheadNs[rq.cpu] > 0, `${era} cpu${rq.cpu}: no overhead`);
    }
    assert.equal(k.rqs[3].offlineNs, end);
  }
});

/** cpu0: rt 90 + x (rt 50) waiting; cpu1: rt 60 that runs 2 ms then sleeps; cpu2/3: rt 70. */
function pullSetup(trace: boolean): { k: Kernel; x: Task } {
  const k = kernel("3.19", { trace });
  rt(k, "h90", 90, 0, true);
  rt(k, "l60", 60, 1, true, function* () {
    yield run(2 * MS);
    yield sleep(1e12);
  });
  rt(k, "r70a", 70, 2, true);
  rt(k, "r70b", 70, 3, true);
  k.runUntil(MS / 2);
  const x = rt(k, "x50", 50, 0, false);
  return { k, x };
}

test("an RT pull inside schedule() delays the pulled task by exactly its lock costs", () => {
  const probe = pullSetup(true);
  probe.k.runUntil(3 * MS);
  assert.equal(probe.k.rqs[1].curr, probe.x, "l60 blocked at ~2 ms, cpu1 pulled x");
  const ts = switchTo(probe.k, 1, "x50");
  const { k, x } = pullSetup(false);
  const c = k.machine.costs;
  k.runUntil(ts + 10 * US);
  assert.equal(k.rqs[1].curr, x);
  assert.equal(k.counters.rqLock.rt_pull.waitNs, 0);
  // __schedule's own lock, the pull's unlocked read of cpu0's highest_prio.next (a line cpu0
  // wrote), its lock on cpu0 (shared L2), then switch_to: all before x runs. (x was queued from
  // outside any CPU, so rto_count/rto_mask have no line owner yet.) The clock is in whole ns.
  const expected =
    c.rqLockLocalNs +
    k.cache.cacheLineNs(0, 1) +
    c.rqLockLocalNs +
    c.rqLockRemoteNs[k.cache.level(1, 0)] +
    c.contextSwitchNs;
  assert.ok(Math.abs(k.now - ts - k.workDone(x) / k.speed(1) - expected) < 1);
  // The CPU time is x's: runtime counts from the switch.
  k.flushAccounting();
  assert.equal(x.se.sumExecRuntime, k.now - ts);
});

test("work charged in schedule() on a CPU going idle is overhead, not idle, and delays a wakeup", () => {
  const X = 20 * US;
  const out = [0, X].map((extra) => {
    const k = kernel("2.6.29");
    // A stand-in newidle balance that costs X (the real one finds nothing to pull here).
    k.newIdleHooks.push(() => {
      k.chargeNs += extra;
    });
    const p = k.spawn({
      comm: "s",
      cpus: [1],
      program: function* () {
        for (;;) {
          yield run(MS);
          yield sleep(5 * US); // shorter than X: the timer fires while schedule() still runs
        }
      },
    });
    k.runUntil(10 * MS);
    k.flushAccounting();
    return { k, p, rq: k.rqs[1] };
  });
  const [a, b] = out;
  const sleeps = b.p.stats.nvcsw;
  assert.ok(sleeps >= 5);
  // Each pending X ends when s is switched back in: the part left over delays s and is its time.
  const overheadMore = b.k.overheadNs[1] - a.k.overheadNs[1];
  assert.ok(overheadMore > 0, "some of X ran as overhead before the wakeup");
  assert.ok(b.rq.idleNs < a.rq.idleNs, "X is not idle time");
  assert.ok(b.k.workDone(b.p) < a.k.workDone(a.p), "s made less progress");
  for (const { k, p, rq } of out)
    assert.ok(Math.abs(p.se.sumExecRuntime + rq.idleNs + k.overheadNs[1] - 10 * MS) < 1);
});

test("work charged in schedule() on a CPU going idle for long is overhead by exactly that amount", () => {
  const X = 20 * US;
  const [a, b] = [0, X].map((extra) => {
    const k = kernel("2.6.29");
    k.newIdleHooks.push(() => {
      k.chargeNs += extra;
    });
    const p = k.spawn({
      comm: "s",
      cpus: [1],
      program: function* () {
        for (;;) {
          yield run(MS);
          yield sleep(MS);
        }
      },
    });
    k.runUntil(9.5 * MS);
    k.flushAccounting();
    return { k, p, rq: k.rqs[1] };
  });
  const sleeps = a.p.stats.nvcsw;
  assert.equal(sleeps, b.p.stats.nvcsw);
  assert.ok(sleeps >= 4);
  assert.equal(b.k.overheadNs[1] - a.k.overheadNs[1], sleeps * X);
  assert.equal(a.rq.idleNs - b.rq.idleNs, sleeps * X);
  assert.equal(a.p.se.sumExecRuntime, b.p.se.sumExecRuntime);
});

test("rq lock: a remote wakeup arriving while the owner is in schedule() spins; one after does not", () => {
  // cpu1: c (rt 60) sleeps at once, a (rt 50) runs 1 ms then sleeps, then the hog b runs; cpu0
  // (same LLC) wakes c under cpu1's rq lock (5.19: no wakelist within an LLC for a sleeper).
  const setup = (trace: boolean) => {
    const k = kernel("5.19", { trace });
    rt(k, "a", 50, 1, true, function* () {
      yield run(MS);
      yield sleep(1e12);
    });
    k.spawn({ comm: "b", cpus: [1], program: hog });
    const c = rt(k, "c", 60, 1, true, function* () {
      yield wait();
      yield run(Infinity);
    });
    return { k, c };
  };
  const probe = setup(true);
  probe.k.runUntil(2 * MS);
  const tBlock = switchFrom(probe.k, 1, "a");
  assert.equal(probe.k.domains.sdLlcId[0], probe.k.domains.sdLlcId[1]);
  for (const delta of [100, 50 * US]) {
    const { k, c } = setup(false);
    k.runUntil(tBlock - 1);
    const c0 = k.machine.costs;
    k.at(tBlock + delta, () => {
      k.thisCpu = 0;
      tryToWakeUp(k, c, 0, 0, null);
      k.finish(k.rqs[0]);
    });
    k.runUntil(tBlock + 100 * US);
    const s = k.counters.rqLock.ttwu_remote;
    assert.equal(s.acquisitions, 1);
    // cpu1 holds its lock from tBlock over its acquisition and switch_to (a -> b).
    const heldUntil = tBlock + c0.rqLockLocalNs + c0.contextSwitchNs;
    // v5.8+: the waker reaches the lock after select_task_rq's half of wakeupNs (ttwu.ts);
    // the activation half is done under the lock.
    const arrives = tBlock + delta + (c0.wakeupNs - c0.wakeupNs / 2);
    // a spin ends with the handoff of the lock word from cpu1, its holder (a queued lock: a line)
    const spin = Math.max(0, heldUntil - arrives);
    const handoff = spin > 0 ? k.cache.cacheLineNs(1, 0) : 0;
    assert.equal(s.waitNs, spin + handoff, `delta ${delta}`);
    if (delta === 100) assert.ok(s.waitNs > 0);
    else assert.equal(s.waitNs, 0);
  }
});

test("rq lock: RT push and pull spin on a target lock another CPU holds, and count it", () => {
  // push: cpu0 runs rt 90; x (rt 50) woken onto cpu0 is pushed to a CFS CPU whose lock its
  // owner holds for 5 us more.
  for (const held of [0, 5 * US]) {
    const k = kernel("3.19");
    rt(k, "h90", 90, 0, true);
    for (const c of [1, 2, 3]) k.spawn({ comm: `c${c}`, cpus: [c], program: hog });
    k.runUntil(MS);
    for (const c of [1, 2, 3]) {
      k.rqs[c].lockFreeAt = k.now + held;
      k.rqLockHolder[c] = c;
    }
    const x = rt(k, "x50", 50, 0, false);
    assert.notEqual(x.cpu, 0, "pushed");
    // then the handoff: the lock word comes from the owner (3.19's ticket lock, one waiter: a line)
    const handoff = held > 0 ? k.cache.cacheLineNs(x.cpu, 0) : 0;
    assert.equal(k.counters.rqLock.rt_push.waitNs, held + handoff);
  }
  // pull: cpu0's owner holds its lock from 1.5 to 2.5 ms; cpu1 pulls x from it at ~2 ms.
  const { k, x } = pullSetup(true);
  k.at(1.5 * MS, () => {
    k.rqs[0].lockFreeAt = 2.5 * MS;
    k.rqLockHolder[0] = 0;
  });
  k.runUntil(3 * MS);
  assert.equal(x.cpu, 1);
  const ts = switchTo(k, 1, "x50");
  const s = k.counters.rqLock.rt_pull;
  // The spin starts after __schedule's own lock and the read of cpu0's highest_prio.next line,
  // and ends with the handoff of the lock word from cpu0.
  assert.equal(
    s.waitNs,
    2.5 * MS -
      (ts + k.machine.costs.rqLockLocalNs + k.cache.cacheLineNs(0, 1)) +
      k.cache.cacheLineNs(0, 1),
  );
  assert.equal(k.counters.rqLock.tick.waitNs, 0, "cpu0's own ticks do not wait for its hold");
});
