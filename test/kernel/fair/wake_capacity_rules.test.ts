// The capacity checks of wakeup placement on hand-set utilisations: 5.6's wake_cap (skip the affine
// path when p does not fit the smaller of the two CPUs, unless that one is within 1/8 of the
// biggest) and 5.7+'s select_idle_capacity (the first idle CPU from target that p fits, else the
// biggest idle one).
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { wait } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import {
  asymFitsCpu,
  fitsCapacity,
  selectIdleCapacity,
  wakeCap,
} from "../../../src/kernel/fair/wake/capacity";
import { selectIdleSibling5x } from "../../../src/kernel/fair/wake/v5x";
import { boot } from "../boot";

function kernel(caps: number[], era: Era): Kernel {
  const m = machineBuilder()
    .cores(caps.length)
    .llc("l2")
    .l2SharedBy(caps.length)
    .capacities(caps)
    .build();
  return boot(m, era);
}

/** A sleeping task on `cpu` allowed everywhere, with util_avg set by hand (no time passes). */
function task(k: Kernel, cpu: number, util: number): Task {
  const p = k.spawn({
    comm: "p",
    cpu,
    cpus: k.rqs.map((r) => r.cpu),
    program: function* () {
      for (;;) yield wait();
    },
  });
  p.se.avg.utilAvg = util;
  return p;
}

test("wake_cap (5.6): the affine path is skipped only for a task that does not fit the smaller CPU, and only if that CPU is 1/8 or more below the biggest", () => {
  const k = kernel([462, 462, 1024, 1024], "5.6");
  assert.equal(k.domains.asymCpucapacity, true);
  // fits_capacity(util, 462): util * 1280 < 462 * 1024, i.e. util <= 369; strict at 80%
  assert.equal(fitsCapacity(800, 1000), false, "800 * 1280 = 1000 * 1024 does not fit");
  assert.equal(fitsCapacity(799, 1000), true);
  assert.equal(wakeCap(k, task(k, 0, 369), 2, 0), false, "fits the little CPU");
  assert.equal(wakeCap(k, task(k, 0, 370), 2, 0), true, "too big for the little prev");
  assert.equal(wakeCap(k, task(k, 2, 370), 0, 2), true, "too big for the little waker");
  assert.equal(wakeCap(k, task(k, 2, 900), 3, 2), false, "both big: min_cap = max_cap");
  // max_cap - min_cap < max_cap >> 3 (128): close enough, wake_affine stays
  const near = kernel([897, 897, 1024, 1024], "5.6");
  assert.equal(wakeCap(near, task(near, 0, 1000), 2, 0), false, "127 below the biggest");
  const far = kernel([896, 896, 1024, 1024], "5.6");
  assert.equal(wakeCap(far, task(far, 0, 1000), 2, 0), true, "128 below the biggest");
  const sym = kernel([1024, 1024, 1024, 1024], "5.6");
  assert.equal(sym.domains.asymCpucapacity, false);
  assert.equal(wakeCap(sym, task(sym, 0, 1024), 1, 0), false, "no sched_asym_cpucapacity");
  assert.equal(asymFitsCpu(sym, 1024, 0), true, "asym_fits_cpu is true on symmetric machines");
  assert.equal(asymFitsCpu(k, 370, 0), false);
  assert.equal(asymFitsCpu(k, 370, 2), true);
});

test("select_idle_capacity (5.7+): from target, the first idle CPU the task fits; else the idle CPU of the largest capacity; else -1", () => {
  const k = kernel([462, 462, 700, 1024, 1024, 600], "5.19");
  const sd = k.domains.sdAsymCpucapacity[0]!;
  assert.deepEqual([...sd.span].sort(), [0, 1, 2, 3, 4, 5]);
  const small = task(k, 0, 100);
  assert.equal(selectIdleCapacity(k, small, sd, 1), 1, "target itself first");
  assert.equal(selectIdleCapacity(k, small, sd, 5), 5);
  const big = task(k, 0, 500); // fits 700 and 1024 (500 * 1280 < 700 * 1024), not 600 or 462
  assert.equal(selectIdleCapacity(k, big, sd, 0), 2, "the first fitting CPU after target");
  assert.equal(selectIdleCapacity(k, big, sd, 5), 2, "the scan wraps from target");
  assert.equal(selectIdleCapacity(k, big, sd, 4), 4);
  const huge = task(k, 0, 1000); // fits nowhere: the biggest idle CPU, the first of equals
  assert.equal(selectIdleCapacity(k, huge, sd, 0), 3);
  assert.equal(selectIdleCapacity(k, huge, sd, 4), 4, "equal capacity: the first seen from target");
  const pinned = k.spawn({
    comm: "pinned",
    cpu: 0,
    cpus: [0, 1, 5],
    program: function* () {
      for (;;) yield wait();
    },
  });
  pinned.se.avg.utilAvg = 1000;
  assert.equal(selectIdleCapacity(k, pinned, sd, 0), 5, "only allowed CPUs: 600 is the biggest");
  for (const rq of k.rqs) rq.nrRunning = 1; // nothing idle (available_idle_cpu is false)
  assert.equal(selectIdleCapacity(k, huge, sd, 0), -1);
  for (const rq of k.rqs) rq.nrRunning = 0;
});

test("select_idle_sibling on an idle big.LITTLE box: from v5.7 (5.10 on) a big task leaves its idle little target for an idle big CPU; 5.6 keeps the target", () => {
  for (const [era, want] of [
    ["5.6", 1],
    ["5.10", 2],
    ["5.19", 2],
  ] as [Era, number][]) {
    const k = kernel([462, 462, 1024, 1024], era);
    const p = task(k, 0, 600); // fits no little CPU (600 * 1280 > 462 * 1024)
    // the little CPU 1 is idle: the wakeup's target and prev
    assert.equal(selectIdleSibling5x({ k, p, prev: 1, target: 1, thisCpu: 1 }), want, era);
  }
});
