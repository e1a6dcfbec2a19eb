// try_to_wake_up of v5.8-v5.19 on hand-built states: the p->on_cpu wakelist shortcut
// (WF_ON_CPU), the spin on on_cpu, ttwu_queue's wakelist or remote enqueue, with the 5.19
// ttwu_queue_cond and seed 001's patch1 / patch1+patch2; who pays for the activation; no IPI to a
// polling CPU.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { run, wait } from "../../../src/kernel/ops";
import { boot } from "../boot";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { WF_SYNC } from "../../../src/kernel/sched";
import { tryToWakeUp } from "../../../src/kernel/core/ttwu";
import { wakelistPatch1, wakelistPatch2 } from "../../../src/patch/seeds/wakelist_2022";
import type { Patch } from "../../../src/patch/patch";
import type { IdleState } from "../../../src/machine/types";

const HALT: IdleState = {
  name: "C1",
  exitLatencyNs: 1000,
  targetResidencyNs: 2000,
  polling: false,
};
const MWAIT: IdleState = { ...HALT, polling: true };

/** 2 sockets x 2 cores, an LLC per socket: cpu0/cpu1 share one, cpu2/cpu3 the other. */
function kernel(patches: Patch[], idle: IdleState = HALT): Kernel {
  const m = machineBuilder()
    .sockets(2)
    .cores(2)
    .costs({ ipiSendNs: 200, ipiDeliveryNs: 1500, wakeupNs: 400, contextSwitchNs: 1000 })
    .idleStates([idle])
    .build();
  return boot(m, "5.19", "t", patches);
}

const VARIANTS: Record<string, Patch[]> = {
  old: [],
  patch1: [wakelistPatch1],
  "patch1+2": [wakelistPatch1, wakelistPatch2],
};

const T = 1_000_000;

interface Built {
  k: Kernel;
  wakee: Task;
}

/** A wakee pinned to `cpu`, asleep since before T, with `queued` hogs runnable there. */
function build(patches: Patch[], cpu: number, queued: number, idle?: IdleState): Built {
  const k = kernel(patches, idle);
  const wakee = k.spawn({
    comm: "wakee",
    cpu,
    cpus: [cpu],
    program: function* () {
      for (;;) yield wait();
    },
  });
  k.runUntil(T / 2);
  for (let i = 0; i < queued; i++)
    k.spawn({
      comm: `hog${i}`,
      cpu,
      cpus: [cpu],
      program: function* () {
        yield run(Infinity);
      },
    });
  k.runUntil(T);
  assert.equal(wakee.onRq, 0, "the wakee sleeps");
  assert.equal(k.rqs[cpu].nrRunning, queued);
  return { k, wakee };
}

/** Wake from cpu0 at T; returns the path counters and the waker's charge. */
function wakeFrom0(b: Built): { path: Record<string, number>; spins: number; wakerNs: number } {
  const { k, wakee } = b;
  const switches = wakee.stats.nvcsw;
  k.thisCpu = 0;
  k.chargeNs = 0;
  tryToWakeUp(k, wakee, 0, 0, null);
  const wakerNs = k.chargeNs;
  k.chargeNs = 0;
  k.thisCpu = -1;
  k.runUntil(T + 100_000);
  k.checkInvariants();
  assert.ok(wakee.stats.nvcsw > switches || wakee.onRq !== 0, "the wakee ran (or waits its turn)");
  return {
    path: { ...k.counters.wakePath },
    spins: k.counters.other.ttwu_on_cpu_spin ?? 0,
    wakerNs,
  };
}

/** The wake path per variant and state (the wakee is pinned, so select_task_rq keeps its CPU). */
const CASES: Array<{
  name: string;
  cpu: number;
  queued: number;
  onCpu: boolean;
  want: Record<string, string>;
}> = [
  {
    name: "on_cpu wakee, nothing else queued",
    cpu: 1,
    queued: 0,
    onCpu: true,
    want: { old: "wakelist_on_cpu", patch1: "wakelist_on_cpu", "patch1+2": "wakelist_on_cpu" },
  },
  {
    name: "on_cpu wakee, 1 task queued",
    cpu: 1,
    queued: 1,
    onCpu: true,
    // old: nr_running <= 1 queues behind the other task; patch1: !nr_running spins, locks
    want: { old: "wakelist_on_cpu", patch1: "spin+remote", "patch1+2": "spin+remote" },
  },
  {
    name: "on_cpu wakee, 2 tasks queued",
    cpu: 1,
    queued: 2,
    onCpu: true,
    want: { old: "spin+remote", patch1: "spin+remote", "patch1+2": "spin+remote" },
  },
  {
    name: "idle target in the LLC",
    cpu: 1,
    queued: 0,
    onCpu: false,
    want: { old: "remote", patch1: "remote", "patch1+2": "wakelist_llc" },
  },
  {
    name: "busy target in the LLC",
    cpu: 1,
    queued: 1,
    onCpu: false,
    want: { old: "remote", patch1: "remote", "patch1+2": "remote" },
  },
  {
    name: "target in another LLC",
    cpu: 2,
    queued: 0,
    onCpu: false,
    want: { old: "wakelist", patch1: "wakelist", "patch1+2": "wakelist" },
  },
];

for (const [variant, patches] of Object.entries(VARIANTS)) {
  test(`5.19 try_to_wake_up path, ${variant}`, () => {
    for (const c of CASES) {
      const b = build(patches, c.cpu, c.queued);
      // The wakee's CPU is still switching it out: p->on_cpu until T + 5 us.
      if (c.onCpu) b.wakee.onCpuUntil = T + 5000;
      const got = wakeFrom0(b);
      const want = c.want[variant];
      const where = `${variant}: ${c.name}`;
      if (want === "spin+remote") {
        assert.equal(got.spins, 1, `${where}: spun on on_cpu`);
        assert.deepEqual(got.path, { remote: 1 }, where);
        assert.ok(got.wakerNs >= 5000, `${where}: the waker paid the spin (${got.wakerNs} ns)`);
      } else {
        assert.equal(got.spins, 0, `${where}: no spin`);
        assert.deepEqual(got.path, { [want]: 1 }, where);
      }
    }
  });
}

test("ttwu_runnable: a wakee still queued is made running in place, no enqueue", () => {
  const b = build([], 1, 1);
  const { k, wakee } = b;
  // Hand-built: it set TASK_INTERRUPTIBLE but __schedule has not dequeued it yet.
  const hog = k.rqs[1].curr!;
  k.enqueueTask(k.rqs[1], wakee, 0);
  wakee.onRq = 1;
  wakee.state = 1;
  k.thisCpu = 0;
  assert.equal(tryToWakeUp(k, wakee, 0, 0, null), true);
  assert.deepEqual(k.counters.wakePath, { runnable: 1 });
  assert.equal(wakee.state, 0);
  assert.equal(k.rqs[1].nrRunning, 2, "not enqueued twice");
  assert.equal(k.rqs[1].curr, hog);
  k.chargeNs = 0;
  k.thisCpu = -1;
});

test("the wakelist moves the activation to the target: the waker pays less than a remote enqueue", () => {
  const bd = build(VARIANTS.old, 1, 0, MWAIT);
  const direct = wakeFrom0(bd);
  const bw = build(VARIANTS["patch1+2"], 1, 0, MWAIT);
  const wl = wakeFrom0(bw);
  assert.deepEqual(direct.path, { remote: 1 });
  assert.deepEqual(wl.path, { wakelist_llc: 1 });
  // direct: select + activation (wakeupNs) + the remote lock; wakelist: select + one line.
  assert.ok(direct.wakerNs >= 400, `direct ${direct.wakerNs}`);
  assert.ok(
    wl.wakerNs < direct.wakerNs - 150,
    `wakelist ${wl.wakerNs} vs direct ${direct.wakerNs}`,
  );
  // sched_ttwu_pending on cpu1 took its own rq lock and did the enqueue: that time is cpu1's,
  // before the wakee runs (its CPU time from the top of __schedule, as sum_exec_runtime counts).
  assert.equal(bw.k.counters.rqLock.ttwu_pending?.acquisitions, 1);
  const extra = bw.wakee.se.sumExecRuntime - bd.wakee.se.sumExecRuntime;
  assert.ok(extra >= 200, `the target paid the activation (${extra} ns more on cpu1)`);
});

test("no IPI to a polling CPU: the wakelist sets need_resched (set_nr_if_polling)", () => {
  const poll = build(VARIANTS["patch1+2"], 1, 0, MWAIT);
  wakeFrom0(poll);
  assert.equal(poll.k.counters.ipis.call_function_single ?? 0, 0);
  assert.equal(poll.k.counters.ipis.call_function_single_avoided_polling, 1);
  const halt = build(VARIANTS["patch1+2"], 1, 0, HALT);
  wakeFrom0(halt);
  assert.equal(halt.k.counters.ipis.call_function_single, 1);
  // A CPU still switching its task out has not re-entered the polling idle loop: an IPI.
  const sw = build(VARIANTS.old, 1, 0, MWAIT);
  sw.wakee.onCpuUntil = T + 5000;
  sw.k.rqs[1].switchDoneAt = T + 5000;
  wakeFrom0(sw);
  assert.equal(sw.k.counters.wakePath.wakelist_on_cpu, 1);
  assert.equal(sw.k.counters.ipis.call_function_single, 1);
});

test("before v5.8 the on_cpu window is ignored (3.19-5.6 ledgers unchanged)", () => {
  const m = machineBuilder().sockets(2).cores(2).idleStates([HALT]).build();
  const k = boot(m, "5.6");
  const wakee = k.spawn({
    comm: "wakee",
    cpu: 1,
    cpus: [1],
    program: function* () {
      for (;;) yield wait();
    },
  });
  k.runUntil(T);
  wakee.onCpuUntil = T + 5000;
  k.thisCpu = 0;
  tryToWakeUp(k, wakee, 0, 0, null);
  assert.deepEqual(k.counters.wakePath, { remote: 1 });
  assert.equal(k.counters.other.ttwu_on_cpu_spin, undefined);
  k.chargeNs = 0;
  k.thisCpu = -1;
});

test("the on_cpu wakelist skips select_task_rq: a sync wakee still switching out stays on its CPU (old); patch1 spins and wake_affine stacks it on the waker", () => {
  for (const [variant, want] of [
    ["old", { path: { wakelist_on_cpu: 1 }, cpu: 1, spins: 0 }],
    ["patch1", { path: { local: 1 }, cpu: 0, spins: 1 }],
  ] as const) {
    const k = kernel(VARIANTS[variant]);
    const wakee = k.spawn({
      comm: "wakee",
      cpu: 1,
      program: function* () {
        for (;;) yield wait();
      },
    });
    k.runUntil(T / 2);
    const spawnHog = (cpu: number) =>
      k.spawn({
        comm: `hog${cpu}`,
        cpu,
        cpus: [cpu],
        program: function* () {
          yield run(Infinity);
        },
      });
    spawnHog(1); // queued on the wakee's CPU: nr_running 1 when the wakeup looks
    const waker = spawnHog(0); // the waker, alone on cpu0 (wake_affine_idle's sync rule)
    k.runUntil(T);
    assert.equal(k.rqs[0].curr, waker);
    assert.equal(k.rqs[1].nrRunning, 1);
    wakee.onCpuUntil = T + 5000; // cpu1 is still switching the wakee out
    k.thisCpu = 0;
    k.chargeNs = 0;
    tryToWakeUp(k, wakee, WF_SYNC, 0, waker);
    k.chargeNs = 0;
    k.thisCpu = -1;
    k.runUntil(T + 100_000);
    k.checkInvariants();
    assert.deepEqual(k.counters.wakePath, want.path, variant);
    assert.equal(k.counters.other.ttwu_on_cpu_spin ?? 0, want.spins, variant);
    assert.equal(wakee.cpu, want.cpu, `${variant}: the wakee is on cpu${wakee.cpu}`);
  }
});
