// Waking a CPU out of an idle state pays that state's exit latency (cpuidle's exit_latency):
// the woken task starts later by at least that much than on a CPU whose idle state costs
// nothing to leave, for a timer wakeup and for a remote wakeup by IPI. A polling state is
// woken without an IPI (set_nr_if_polling).
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { call, run, sleep, wait, wake } from "../../../src/kernel/ops";
import type { IdleState } from "../../../src/machine/types";
import type { Kernel } from "../../../src/kernel/core/core";
import { boot } from "../boot";
import { exitLatencyNs } from "../../../src/kernel/core/idle";

const STATES: IdleState[] = [
  { name: "POLL", exitLatencyNs: 0, targetResidencyNs: 0, polling: true },
  { name: "C1", exitLatencyNs: 2_000, targetResidencyNs: 2_000, polling: false },
  { name: "C3", exitLatencyNs: 30_000, targetResidencyNs: 100_000, polling: false },
  { name: "C6", exitLatencyNs: 120_000, targetResidencyNs: 400_000, polling: false },
];
const FREE: IdleState = { name: "FREE", exitLatencyNs: 0, targetResidencyNs: 0, polling: false };

/** Two cores; the only idle state is `state`, so the governor has no other choice. */
function kernel(state: IdleState): Kernel {
  const m = machineBuilder()
    .sockets(1)
    .cores(2)
    .costs({ ipiSendNs: 200, ipiDeliveryNs: 1500, contextSwitchNs: 1200, wakeupNs: 400 })
    .idleStates([state])
    .build();
  return boot(m, "5.19");
}

/** A task alone on cpu0 sleeps 1 ms (cpu0 idles); the time from its timer to it running again. */
function timerWakeDelay(state: IdleState): number {
  const k = kernel(state);
  let slept = 0;
  let ran = 0;
  k.spawn({
    comm: "s",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(100_000);
      yield call(() => (slept = k.now));
      yield sleep(1_000_000);
      yield call(() => (ran = k.now));
      yield run(Infinity);
    },
  });
  k.runUntil(3_000_000);
  assert.ok(slept > 0 && ran > slept);
  assert.equal(k.rqs[0].idleStateIdx, -1, "cpu0 busy at the end");
  return ran - slept - 1_000_000;
}

/** cpu0 idles with a waiting task; a task on cpu1 wakes it: delay from the wake to it running. */
function remoteWakeDelay(state: IdleState): { delay: number; ipis: Record<string, number> } {
  const k = kernel(state);
  let woke = 0;
  let ran = 0;
  const w = k.spawn({
    comm: "w",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield wait();
      yield call(() => (ran = k.now));
      yield run(Infinity);
    },
  });
  k.spawn({
    comm: "waker",
    cpu: 1,
    cpus: [1],
    program: function* () {
      yield run(1_000_000);
      yield call(() => (woke = k.now));
      yield wake(w.pid);
      yield run(Infinity);
    },
  });
  k.runUntil(500_000);
  const ipis0 = { ...k.counters.ipis };
  k.runUntil(2_000_000);
  assert.ok(woke > 0 && ran > woke);
  const ipis: Record<string, number> = {};
  for (const [key, v] of Object.entries(k.counters.ipis)) {
    if (v - (ipis0[key] ?? 0) > 0) ipis[key] = v - (ipis0[key] ?? 0);
  }
  return { delay: ran - woke, ipis };
}

test("a timer wakeup on an idle CPU is delayed by the idle state's exit latency", () => {
  const base = timerWakeDelay(FREE);
  for (const s of STATES) {
    const extra = timerWakeDelay(s) - base;
    assert.ok(
      extra >= s.exitLatencyNs,
      `${s.name}: ${extra} ns extra, exit latency ${s.exitLatencyNs}`,
    );
    assert.ok(extra <= s.exitLatencyNs + 5_000, `${s.name}: ${extra} ns extra is not much more`);
  }
});

test("a remote wakeup into an idle CPU is delayed by the exit latency; a polling state needs no IPI", () => {
  const base = remoteWakeDelay(FREE);
  assert.ok(
    Object.keys(base.ipis).some((n) => !n.endsWith("_avoided_polling")),
    "FREE is woken by an IPI",
  );
  for (const s of STATES) {
    const r = remoteWakeDelay(s);
    const sent = Object.keys(r.ipis).filter((n) => !n.endsWith("_avoided_polling"));
    const avoided = Object.keys(r.ipis).filter((n) => n.endsWith("_avoided_polling"));
    if (s.polling) {
      assert.deepEqual(sent, [], `${s.name}: no interrupt sent`);
      assert.ok(avoided.length > 0, `${s.name}: the idle loop saw the flag`);
      assert.ok(r.delay < base.delay, "and it is faster than taking an IPI");
    } else {
      assert.ok(sent.length > 0, `${s.name}: woken by an IPI`);
      const extra = r.delay - base.delay;
      assert.ok(
        extra >= s.exitLatencyNs,
        `${s.name}: ${extra} ns extra, exit latency ${s.exitLatencyNs}`,
      );
      assert.deepEqual(avoided, []);
    }
  }
});

// A state whose table figure is a package state's worst case (intel_idle's C6 = PC6) and whose
// core-only exit is measured: the wakeup pays the table figure only while the package state can
// be in force, i.e. every CPU of its scope idle in that state or deeper.
const PKG_C6: IdleState = {
  name: "C6",
  exitLatencyNs: 120_000,
  targetResidencyNs: 400_000,
  polling: true,
  coreExitLatencyNs: 40_000,
  packageScope: "package",
};

/** Two packages of two cores, every CPU idle in `states`' deepest state. */
function twoPackages(scope: "package" | "system"): Kernel {
  const c1: IdleState = {
    name: "C1",
    exitLatencyNs: 2_000,
    targetResidencyNs: 2_000,
    polling: true,
  };
  const m = machineBuilder()
    .sockets(2)
    .cores(2)
    .idleStates([c1, { ...PKG_C6, packageScope: scope }])
    .build();
  const k = boot(m, "5.19");
  for (const rq of k.rqs) rq.idleStateIdx = 1;
  return k;
}

test("a package-state exit is paid only when every CPU of the package (or system) is in it", () => {
  const k = twoPackages("package");
  const states = k.machine.idleStates;
  const pkg0 = k.rqs.filter((r) => k.machine.cpus[r.cpu].package === 0);
  const other = k.rqs.find((r) => k.machine.cpus[r.cpu].package === 1)!;
  const [a, b] = pkg0;
  assert.equal(exitLatencyNs(states, a), 120_000, "whole machine in C6: the table figure");
  b.idleStateIdx = 0;
  assert.equal(exitLatencyNs(states, a), 40_000, "a package sibling in C1: core C6 only");
  b.idleStateIdx = 1;
  other.idleStateIdx = 0;
  assert.equal(exitLatencyNs(states, a), 120_000, "the other package awake: ours may sleep");
  b.online = false;
  assert.equal(exitLatencyNs(states, a), 120_000, "an offline CPU does not hold the package");
  const sys = twoPackages("system");
  const far = sys.rqs.find((r) => sys.machine.cpus[r.cpu].package === 1)!;
  far.idleStateIdx = 0;
  assert.equal(exitLatencyNs(sys.machine.idleStates, sys.rqs[0]), 40_000, "system scope: no PC6");
});

test("the wakeup path charges the core-only exit while the waker keeps the package awake", () => {
  // timer wakeup: cpu1 idle too, so the package state is in force and the table figure is paid
  const base = timerWakeDelay(FREE);
  const alone = timerWakeDelay(PKG_C6) - base;
  assert.ok(alone >= 120_000 && alone <= 125_000, `timer wake ${alone} ns`);
  // cpu1 runs the waker: core C6 only
  const r = remoteWakeDelay(PKG_C6);
  const polled = remoteWakeDelay({ ...FREE, polling: true });
  const extra = r.delay - polled.delay;
  assert.ok(extra >= 40_000 && extra < 45_000, `remote wake ${extra} ns extra`);
});

// Drawn exits (exitDraw): the core exit, plus a package wake when the package must first leave
// its package state. With logSd 0 every draw is its median, so the rules show exactly.
const DRAWN_C6: IdleState = {
  name: "C6",
  exitLatencyNs: 120_000,
  targetResidencyNs: 400_000,
  polling: true,
  packageScope: "package",
  exitDraw: {
    core: { medianNs: 30_000, logSd: 0 },
    packageExtra: { medianNs: 50_000, logSd: 0 },
  },
};

/** Two packages of two cores, every CPU idle in the drawn C6 (index 1 after C1). */
function drawnPackages(c6: IdleState = DRAWN_C6, seed = "t"): Kernel {
  const c1: IdleState = {
    name: "C1",
    exitLatencyNs: 2_000,
    targetResidencyNs: 2_000,
    polling: true,
  };
  const m = machineBuilder().sockets(2).cores(2).idleStates([c1, c6]).build();
  const k = boot(m, "5.19", seed);
  for (const rq of k.rqs) rq.idleStateIdx = 1;
  return k;
}

const pkgRqs = (k: Kernel, pkg: number) =>
  k.rqs.filter((r) => k.machine.cpus[r.cpu].package === pkg);

test("drawn exit: a wakeup into a fully idle package pays the package wake too; into a package with a CPU awake, the core exit only", () => {
  let k = drawnPackages();
  let [a, b] = pkgRqs(k, 0);
  assert.equal(
    exitLatencyNs(k.machine.idleStates, a, 1_000),
    80_000,
    "package asleep: core + package",
  );
  k = drawnPackages();
  [a, b] = pkgRqs(k, 0);
  b.idleStateIdx = 0; // a CPU of the package in C1: no package C6
  assert.equal(exitLatencyNs(k.machine.idleStates, a, 1_000), 30_000, "package awake: core only");
  k = drawnPackages();
  [a] = pkgRqs(k, 0);
  pkgRqs(k, 1)[0].idleStateIdx = 0; // the other package awake does not keep this one awake
  assert.equal(exitLatencyNs(k.machine.idleStates, a, 1_000), 80_000, "per-package scope");
  k = drawnPackages({ ...DRAWN_C6, packageScope: "system" });
  [a] = pkgRqs(k, 0);
  pkgRqs(k, 1)[0].idleStateIdx = 0;
  assert.equal(exitLatencyNs(k.machine.idleStates, a, 1_000), 30_000, "system scope: core only");
});

test("drawn exit: back-to-back wakeups into one package share its wake; a CPU leaves its state once", () => {
  const k = drawnPackages();
  const states = k.machine.idleStates;
  const [a, b] = pkgRqs(k, 0);
  const [c, d] = pkgRqs(k, 1);
  assert.equal(
    exitLatencyNs(states, a, 0),
    80_000,
    "the first wakeup wakes package 0 (up at 50 us)",
  );
  assert.equal(
    exitLatencyNs(states, a, 10_000),
    70_000,
    "the same CPU again: the rest of its exit",
  );
  assert.equal(
    exitLatencyNs(states, b, 20_000),
    60_000,
    "package 0 waking: 30 us of it left + core",
  );
  assert.equal(exitLatencyNs(states, c, 20_000), 80_000, "package 1 is still asleep");
  assert.equal(
    exitLatencyNs(states, d, 75_000),
    30_000,
    "package 1 up, c still leaving: core only",
  );
});

test("drawn exit: capped at the table's worst case; draws are per-CPU streams of the seed", () => {
  const capped = drawnPackages({
    ...DRAWN_C6,
    exitDraw: {
      core: { medianNs: 100_000, logSd: 0 },
      packageExtra: { medianNs: 50_000, logSd: 0 },
    },
  });
  assert.equal(exitLatencyNs(capped.machine.idleStates, capped.rqs[0], 0), 120_000);
  const spread: IdleState = {
    ...DRAWN_C6,
    exitDraw: {
      core: { medianNs: 30_000, logSd: 0.3 },
      packageExtra: { medianNs: 50_000, logSd: 0 },
    },
  };
  const draws = (seed: string) => {
    const k = drawnPackages(spread, seed);
    const [a, b] = pkgRqs(k, 0);
    b.idleStateIdx = 0; // core exits only
    const out: number[] = [];
    for (let i = 0; i < 2001; i++) out.push(exitLatencyNs(k.machine.idleStates, a, i * 200_000));
    return out;
  };
  const one = draws("s1");
  assert.deepEqual(draws("s1"), one, "same seed, same draws");
  assert.notDeepEqual(draws("s2"), one, "another seed, other draws");
  const sorted = [...one].sort((x, y) => x - y);
  const median = sorted[1000];
  assert.ok(Math.abs(median - 30_000) < 1_500, `median ${median} ns`);
  const p84 = sorted[Math.round(0.8413 * 2000)];
  assert.ok(
    Math.abs(Math.log(p84 / median) - 0.3) < 0.03,
    `log(p84/p50) ${Math.log(p84 / median)}`,
  );
});

test("drawn exit on the wakeup path: the waker keeps the package awake, a timer finds it asleep", () => {
  const base = timerWakeDelay(FREE);
  const alone = timerWakeDelay(DRAWN_C6) - base;
  assert.ok(alone >= 80_000 && alone <= 85_000, `timer wake ${alone} ns`);
  const r = remoteWakeDelay(DRAWN_C6);
  const polled = remoteWakeDelay({ ...FREE, polling: true });
  const extra = r.delay - polled.delay;
  assert.ok(extra >= 30_000 && extra < 35_000, `remote wake ${extra} ns extra`);
});

test("a vCPU's halt: the fast exit while the host still polls, the slow one after pollNs of halt", () => {
  const HLT: IdleState = {
    name: "HLT",
    exitLatencyNs: 10_000,
    targetResidencyNs: 0,
    polling: false,
    haltPoll: { pollNs: 200_000, exitNs: 90_000 },
  };
  const k = kernel(HLT);
  const rq = k.rqs[1];
  rq.idleStateIdx = 0;
  rq.idleSince = 1_000_000;
  const states = k.machine.idleStates;
  assert.equal(exitLatencyNs(states, rq, 1_150_000), 10_000, "halted 150 us: the host polls");
  assert.equal(exitLatencyNs(states, rq, 1_200_000), 10_000, "halted exactly pollNs");
  assert.equal(exitLatencyNs(states, rq, 1_250_000), 90_000, "halted 250 us: the slow exit");
  // a timer wakeup after a 1 ms sleep finds its CPU halted for 1 ms
  const slow = timerWakeDelay(HLT) - timerWakeDelay(FREE);
  assert.ok(slow >= 90_000 && slow <= 95_000, `timer wake ${slow} ns`);
  const noPoll = timerWakeDelay({ ...HLT, haltPoll: undefined }) - timerWakeDelay(FREE);
  assert.ok(noPoll >= 10_000 && noPoll <= 15_000, `without haltPoll ${noPoll} ns`);
});
