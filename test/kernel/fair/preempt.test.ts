// check_preempt_wakeup / wakeup_preempt_entity (kernel/sched/fair.c, v3.19 and v4.8): a woken
// entity preempts curr when curr's vruntime is ahead of it by more than wakeup_gran(), which is
// sysctl_sched_wakeup_granularity converted to the wakee's virtual time (calc_delta_fair), so
// a nice-10 wakee needs NICE_0_LOAD / 110 times the lead of a nice-0 one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { machineBuilder } from "../../../src/machine/builder";
import { call, run, wait, wake } from "../../../src/kernel/ops";
import { SCHED_PRIO_TO_WEIGHT } from "../../../src/kernel/prio";
import { NICE_0_LOAD } from "../../../src/kernel/sched";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";

const NICE10 = SCHED_PRIO_TO_WEIGHT[10 + 20];
const WAKEUP_GRAN = 1_000_000;
const AT = 3_300_000;

/** One socket, two cores (tunables scale by 1 + ilog2(2) = 2). Latency raised so a sleeper's
 *  placement (min_vruntime - latency / 2) never clips the lead the test gives the wakee. */
function kernel(era: Era): Kernel {
  const m = machineBuilder()
    .sockets(1)
    .cores(2)
    .idleStates([{ name: "C1", exitLatencyNs: 1000, targetResidencyNs: 2000, polling: false }])
    .build();
  return buildKernel({
    machine: m,
    online: m.online,
    era,
    patches: [],
    seed: "t",
    trace: false,
    tunables: { sched_wakeup_granularity_ns: WAKEUP_GRAN, sched_latency_ns: 40_000_000 },
  });
}

/** The scaled granularity in the wakee's virtual time: gran * NICE_0_LOAD / weight. */
function scaledGran(k: Kernel, weight: number): number {
  return Math.floor((k.cfsTiming.wakeupGranularity * NICE_0_LOAD) / weight);
}

test("the kernel's weight table: nice 10 weighs 110", () => {
  assert.equal(NICE10, 110);
  assert.equal(SCHED_PRIO_TO_WEIGHT[20], NICE_0_LOAD);
});

for (const era of ["3.19", "4.8"] as const) {
  test(`wakeup_preempt_entity (${era}): below, at and above the scaled granularity`, () => {
    const k = kernel(era);
    const curr = k.spawn({
      comm: "curr",
      cpu: 0,
      cpus: [0],
      program: function* () {
        yield run(Infinity);
      },
    });
    const sleeper = function* () {
      for (;;) yield wait();
    };
    const w10 = k.spawn({ comm: "w10", cpu: 0, cpus: [0], nice: 10, program: sleeper });
    const w0 = k.spawn({ comm: "w0", cpu: 0, cpus: [0], nice: 0, program: sleeper });
    k.runUntil(1_000_000);
    assert.equal(w10.se.weight, NICE10);
    assert.equal(k.cfsTiming.wakeupGranularity, 2 * WAKEUP_GRAN, "1 + ilog2(2) scaling");
    const g10 = scaledGran(k, NICE10);
    const g0 = scaledGran(k, NICE_0_LOAD);
    assert.ok(g10 > 9 * g0);
    const decide = (p: Task, vdiff: number): boolean => {
      p.se.vruntime = curr.se.vruntime - vdiff;
      return k.fair.policy.wakeupPreempt(k, curr, p);
    };
    assert.equal(decide(w10, 0), false, "no lead");
    assert.equal(decide(w10, -g10), false, "behind curr");
    assert.equal(decide(w10, g10 - 1), false, "just below");
    assert.equal(decide(w10, g10), false, "at the granularity: vdiff > gran is strict");
    assert.equal(decide(w10, g10 + 1), true, "just above");
    // The lead that lets a nice-0 wakee preempt is far too small for a nice-10 one.
    assert.equal(decide(w0, g0 + 1), true);
    assert.equal(decide(w10, 2 * g0), false, "gran is scaled by the wakee's weight");
    assert.equal(decide(w0, g0), false);
  });

  test(`check_preempt_wakeup (${era}) through a real wakeup: a nice-10 wakee preempts only with a lead above its scaled granularity`, () => {
    for (const lead of [0.75, 1.25]) {
      const k = kernel(era);
      const wakee = k.spawn({
        comm: "wakee",
        cpu: 0,
        cpus: [0],
        nice: 10,
        program: function* () {
          for (;;) {
            yield wait();
            yield run(500_000);
          }
        },
      });
      k.runUntil(100_000); // the wakee runs first and goes to sleep
      const curr = k.spawn({
        comm: "curr",
        cpu: 0,
        cpus: [0],
        program: function* () {
          yield run(Infinity);
        },
      });
      k.spawn({
        comm: "waker",
        cpu: 1,
        cpus: [1],
        program: function* () {
          yield run(AT);
          yield call(() => {
            // Bring curr's vruntime up to now, then give the sleeping wakee its lead.
            k.fair.updateCurr(k.rqs[0]);
            wakee.se.vruntime = curr.se.vruntime - Math.round(lead * scaledGran(k, NICE10));
          });
          yield wake(wakee.pid);
          yield wait();
        },
      });
      k.runUntil(AT - 10_000);
      const nivcsw = curr.stats.nivcsw;
      k.runUntil(AT + 200_000); // well before the next tick could end curr's slice
      assert.equal(wakee.stats.wakeups, 1);
      const where = `${era}, lead ${lead} x gran`;
      if (lead > 1) {
        assert.equal(k.rqs[0].curr, wakee, `${where}: the wakee preempted curr`);
        assert.equal(curr.stats.nivcsw - nivcsw, 1, where);
      } else {
        assert.equal(k.rqs[0].curr, curr, `${where}: curr keeps the CPU`);
        assert.equal(curr.stats.nivcsw - nivcsw, 0, where);
      }
      k.checkInvariants();
    }
  });
}
