// The switch and wakeup-preemption counters (switch_stats.ts): __schedule's nvcsw / nivcsw and
// their totals, wakeups that set need_resched on a running task, and EEVDF's lag at wakeup.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { machineBuilder } from "../../../src/machine/builder";
import { run, recv, send, sleep } from "../../../src/kernel/ops";
import { Channel } from "../../../src/kernel/channel";
import { patch } from "../../../src/patch/patch";
import { explainIteration } from "../../../src/experiment/explain";
import { topology } from "../../../src/index";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import type { Workload } from "../../../src/workload/workload";

const m = machineBuilder().sockets(1).cores(2).build();
const boot = (era: Era, patches = [] as ReturnType<typeof patch>[]): Kernel =>
  buildKernel({ machine: m, online: m.online, era, patches, seed: "t", trace: false });
const hog = function* () {
  yield run(Infinity);
};

/** Totals equal the per-task sums; the rest of the switches left the idle task. */
function checkTotals(k: Kernel): void {
  const c = k.counters;
  const sum = (f: (p: Task) => number) => k.tasks.reduce((s, p) => s + f(p), 0);
  assert.equal(
    c.voluntarySwitches,
    sum((p) => p.stats.nvcsw),
  );
  assert.equal(
    c.involuntarySwitches,
    sum((p) => p.stats.nivcsw),
  );
  assert.ok(c.contextSwitches >= c.voluntarySwitches + c.involuntarySwitches);
}

for (const era of ["2.6.29", "5.19", "6.19"] as const) {
  test(`switch counters (${era}): two hogs sharing one CPU switch only involuntarily`, () => {
    const k = boot(era);
    const a = k.spawn({ comm: "a", cpu: 0, cpus: [0], program: hog });
    const b = k.spawn({ comm: "b", cpu: 0, cpus: [0], program: hog });
    k.runUntil(400_000_000);
    const c = k.counters;
    assert.equal(c.voluntarySwitches, 0);
    assert.ok(c.involuntarySwitches > 10, `${c.involuntarySwitches}`);
    assert.ok(a.stats.nivcsw > 5 && b.stats.nivcsw > 5);
    assert.equal(c.wakeupPreemptions, 0, "nobody woke up");
    checkTotals(k);
  });

  test(`switch counters (${era}): a pipe ping-pong across two CPUs switches only voluntarily`, () => {
    const k = boot(era);
    const p1 = new Channel("p1", "pipe", 65536);
    const p2 = new Channel("p2", "pipe", 65536);
    const ping = k.spawn({
      comm: "ping",
      cpu: 0,
      cpus: [0],
      program: function* () {
        for (;;) {
          yield send(p1, 8);
          yield recv(p2);
        }
      },
    });
    const pong = k.spawn({
      comm: "pong",
      cpu: 1,
      cpus: [1],
      program: function* () {
        for (;;) {
          yield recv(p1);
          yield send(p2, 8);
        }
      },
    });
    k.runUntil(20_000_000);
    const c = k.counters;
    assert.equal(c.involuntarySwitches, 0);
    assert.ok(c.voluntarySwitches > 1000, `${c.voluntarySwitches}`);
    assert.ok(ping.stats.nvcsw > 500 && pong.stats.nvcsw > 500);
    assert.equal(c.wakeupPreemptions, 0, "each wakee lands on an idle CPU");
    // every switch into a task left the idle task or the other task of its CPU
    assert.ok(c.contextSwitches >= 2 * c.voluntarySwitches - 2);
    checkTotals(k);
  });
}

/** A hog on cpu 0 and a task that wakes there every 4 ms for 100 us. */
function hogAndSleeper(k: Kernel): { hog: Task; sleeper: Task } {
  const h = k.spawn({ comm: "hog", cpu: 0, cpus: [0], program: hog });
  const s = k.spawn({
    comm: "sleeper",
    cpu: 0,
    cpus: [0],
    program: function* () {
      for (;;) {
        yield sleep(4_000_000);
        yield run(100_000);
      }
    },
  });
  return { hog: h, sleeper: s };
}

for (const era of ["4.8", "6.19"] as const) {
  test(`wakeup preemptions (${era}): a short sleeper preempts a hog at its wakeups, and never with WAKEUP_PREEMPTION off`, () => {
    const k = boot(era);
    const { hog: h, sleeper } = hogAndSleeper(k);
    k.runUntil(400_000_000);
    const c = k.counters;
    const wakeups = sleeper.stats.wakeups;
    assert.ok(wakeups > 80, `${wakeups}`);
    // the sleeper has run far less than its share: every wakeup preempts (at most one wakeup
    // can find need_resched already set by a tick)
    assert.ok(c.wakeupPreemptions >= wakeups - 1, `${c.wakeupPreemptions} of ${wakeups}`);
    assert.ok(c.wakeupPreemptions <= wakeups);
    // each preemption is one involuntary switch of the hog; the sleeper only blocks
    assert.ok(h.stats.nivcsw >= c.wakeupPreemptions);
    assert.equal(sleeper.stats.nivcsw, 0);
    checkTotals(k);

    const off = boot(era, [patch("no wakeup preemption").feature("WAKEUP_PREEMPTION", false)]);
    const o = hogAndSleeper(off);
    off.runUntil(400_000_000);
    // the wakee now waits for the tick to end the hog's slice: fewer rounds, none preempting
    assert.ok(o.sleeper.stats.wakeups > 50);
    assert.equal(off.counters.wakeupPreemptions, 0);
    assert.ok(o.hog.stats.nivcsw >= o.sleeper.stats.wakeups - 1, "the tick still preempts");
  });
}

test("lag at wakeup: counted for every wakeup under EEVDF (6.19), within update_entity_lag's clamp; none under CFS", () => {
  const k = boot("6.19");
  const { sleeper } = hogAndSleeper(k);
  k.runUntil(400_000_000);
  const l = k.counters.lagAtWakeup;
  assert.equal(l.count, sleeper.stats.wakeups);
  // clamp: +-max(2 x slice, TICK_NSEC) in the entity's virtual time (nice 0: real ns)
  const limit = Math.max(2 * sleeper.se.slice, k.tickNs);
  assert.ok(l.minNs >= -limit && l.maxNs <= limit, `${l.minNs}..${l.maxNs} vs ${limit}`);
  assert.ok(l.sumAbsNs >= Math.abs(l.sumNs));
  assert.ok(l.sumAbsNs > 0, "a sleeper that ran 100 us in a queue with a hog had lag");

  const cfs = boot("5.19");
  hogAndSleeper(cfs);
  cfs.runUntil(100_000_000);
  assert.equal(cfs.counters.lagAtWakeup.count, 0);
});

test("the new counters reach the iteration result and explain()", () => {
  const w: Workload = {
    name: "hog+sleeper",
    params: {},
    defaultDurationNs: 100_000_000,
    defaultWarmupNs: 0,
    setup(ctx) {
      hogAndSleeper(ctx.kernel);
      return { metrics: () => ({}) };
    },
  };
  const res = topology(m).era("6.19").workload(w).runSync();
  const it = res.iteration("baseline", 0);
  assert.ok(it.sched.involuntarySwitches > 0);
  assert.ok(it.sched.wakeupPreemptions > 0);
  assert.equal(
    it.sched.voluntarySwitches,
    it.tasks.reduce((s, t) => s + t.voluntarySwitches, 0),
  );
  assert.equal(res.mean("sched.wakeupPreemptions", "baseline"), it.sched.wakeupPreemptions);
  const text = explainIteration(it, "6.19");
  assert.match(text, /voluntary \d+ \(nvcsw\), involuntary \d+ \(nivcsw\), out of idle \d+/);
  assert.match(text, /wakeup preemptions: \d+/);
  assert.match(text, /lag at wakeup \(EEVDF, virtual us\): \d+ wakeups/);
});
