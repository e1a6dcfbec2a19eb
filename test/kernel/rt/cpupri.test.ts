import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel, preset } from "../../../src/index";
import type { Era } from "../../../src/index";
import { run } from "../../../src/kernel/ops";
import {
  convertPrio,
  CpuPri,
  cpupriNumbering,
  cpupriNrPriorities,
  CPUPRI_HIGHER,
  CPUPRI_IDLE,
  CPUPRI_INVALID,
  CPUPRI_NORMAL,
  CPUPRI_NORMAL_619,
  MAX_PRIO,
} from "../../../src/kernel/rt/cpupri";
import { rtPriorityToPrio } from "../../../src/kernel/prio";
import type { Kernel } from "../../../src/kernel/core/core";
import { boot } from "../boot";

const MS = 1_000_000;
const hog = function* () {
  yield run(Infinity);
};

function kernel(era: Era): Kernel {
  const m = preset("core2-2x2");
  return boot(m, era);
}

function task(rtPriority: number, cpus = [0, 1, 2, 3]): { prio: number; cpusAllowed: Uint8Array } {
  const cpusAllowed = new Uint8Array(4);
  for (const c of cpus) cpusAllowed[c] = 1;
  return { prio: rtPriorityToPrio(rtPriority), cpusAllowed };
}

function maskOf(m: Uint8Array): number[] {
  return [...m].flatMap((v, i) => (v ? [i] : []));
}

test("convert_prio: 3.19 numbering INVALID/IDLE/NORMAL/RT 2..101, 6.19 NORMAL 0, RT 1..99, HIGHER 100", () => {
  assert.equal(convertPrio("3.19", CPUPRI_INVALID), CPUPRI_INVALID);
  assert.equal(convertPrio("3.19", MAX_PRIO), CPUPRI_IDLE);
  assert.equal(convertPrio("3.19", 120), CPUPRI_NORMAL);
  assert.equal(convertPrio("3.19", 100), CPUPRI_NORMAL);
  assert.equal(convertPrio("3.19", 99), 2);
  assert.equal(convertPrio("3.19", 0), 101);
  assert.equal(convertPrio("6.19", CPUPRI_INVALID), CPUPRI_INVALID);
  assert.equal(convertPrio("6.19", 99), CPUPRI_NORMAL_619);
  assert.equal(convertPrio("6.19", 98), 1); // rt_priority 1
  assert.equal(convertPrio("6.19", 0), 99); // rt_priority 99
  assert.equal(convertPrio("6.19", 100), CPUPRI_HIGHER);
  assert.equal(cpupriNumbering("3.19"), "3.19");
  assert.equal(cpupriNumbering("4.8"), "3.19");
  assert.equal(cpupriNumbering("5.19"), "6.19"); // the remap is in 5.11
  assert.equal(cpupriNumbering("6.19"), "6.19");
  // CPUPRI_NR_PRIORITIES: MAX_RT_PRIO + 2 before the remap, MAX_RT_PRIO + 1 after
  assert.equal(cpupriNrPriorities("3.19"), 102);
  assert.equal(cpupriNrPriorities("6.19"), 101);
  // a CFS prio never reaches cpupri in 6.x; if it did, it would file with the CFS CPUs
  assert.equal(convertPrio("6.19", 120), CPUPRI_NORMAL_619);
});

test("cpupri_find: the lowest non-empty level strictly below the task, within its affinity", () => {
  for (const n of ["3.19", "6.19"] as const) {
    const cp = new CpuPri(n, 4);
    cp.set(0, rtPriorityToPrio(50));
    cp.set(1, rtPriorityToPrio(40));
    cp.set(2, rtPriorityToPrio(50));
    cp.set(3, rtPriorityToPrio(60));
    const mask = new Uint8Array(4);
    assert.equal(cp.find(task(50), mask), true, n);
    assert.deepEqual(maskOf(mask), [1], `${n}: only the CPU running rt 40 is below rt 50`);
    assert.equal(cp.find(task(40), mask), false, `${n}: nothing runs below rt 40`);
    assert.equal(cp.find(task(70), mask), true);
    assert.deepEqual(maskOf(mask), [1], `${n}: the lowest level wins, not any lower one`);
    assert.equal(cp.find(task(70, [0, 2, 3]), mask), true);
    assert.deepEqual(maskOf(mask), [0, 2], `${n}: affinity drops cpu1, next level up`);
    // A CPU running CFS (or idle) sits below every RT level.
    cp.set(3, n === "3.19" ? 120 : 99);
    assert.equal(cp.find(task(40), mask), true);
    assert.deepEqual(maskOf(mask), [3]);
    // Refiling moves a CPU; INVALID takes it out.
    cp.set(3, CPUPRI_INVALID);
    assert.equal(cp.level(3), CPUPRI_INVALID);
    assert.equal(cp.find(task(40), mask), false);
    assert.deepEqual(
      [...cp.vecCount].reduce((a, b) => a + b, 0),
      3,
    );
  }
});

test("through a kernel: cpupri_find returns only CPUs running strictly lower priority", () => {
  for (const era of ["3.19", "6.19"] as const) {
    const k = kernel(era);
    k.spawn({ comm: "r50a", program: hog, policy: "fifo", rtPriority: 50, cpu: 0, cpus: [0] });
    k.spawn({ comm: "r40", program: hog, policy: "fifo", rtPriority: 40, cpu: 1, cpus: [1] });
    k.spawn({ comm: "r50b", program: hog, policy: "fifo", rtPriority: 50, cpu: 2, cpus: [2] });
    k.spawn({ comm: "cfs", program: hog, cpu: 3, cpus: [3] });
    k.runUntil(2 * MS);
    const rd = k.rt.rd;
    const mask = rd.lowestMask;
    assert.equal(rd.find(task(50), mask), true);
    assert.deepEqual(maskOf(mask), [3], `${era}: CFS below everything`);
    assert.equal(rd.find(task(30), mask), true);
    assert.deepEqual(maskOf(mask), [3]);
    assert.equal(
      rd.find(task(30, [0, 1, 2]), mask),
      false,
      `${era}: no CPU runs below rt 30 among 0-2`,
    );
    assert.equal(rd.find(task(45, [0, 1, 2]), mask), true);
    assert.deepEqual(maskOf(mask), [1], `${era}: rt 40 is below rt 45; the two rt 50 CPUs are not`);
    assert.equal(rd.find(task(50, [0, 1, 2]), mask), true);
    assert.deepEqual(maskOf(mask), [1], `${era}: equal priority is not lower`);
    for (const rq of k.rqs) {
      assert.equal(
        rd.cpupri.level(rq.cpu),
        convertPrio(
          rd.cpupri.numbering,
          rq.rt.highestPrio < 100 ? rq.rt.highestPrio : era === "3.19" ? 100 : 99,
        ),
      );
    }
  }
});

test("an idle CPU and a CFS CPU share one level in both numberings (3.19 never files IDLE)", () => {
  for (const era of ["3.19", "6.19"] as const) {
    const k = kernel(era);
    k.spawn({ comm: "cfs", program: hog, cpu: 1, cpus: [1] });
    k.runUntil(MS);
    const levels = k.rqs.map((rq) => k.rt.rd.cpupri.level(rq.cpu));
    assert.deepEqual(new Set(levels).size, 1, `${era}: ${levels}`);
    assert.equal(levels[0], era === "3.19" ? CPUPRI_NORMAL : CPUPRI_NORMAL_619);
  }
});

test("an offline CPU is not a target", () => {
  const m = preset("core2-2x2");
  const online = m.online.map((_, i) => i !== 3);
  const k = buildKernel({ machine: m, online, era: "3.19", patches: [], seed: "t", trace: false });
  assert.equal(k.rt.rd.cpupri.level(3), CPUPRI_INVALID);
  const mask = k.rt.rd.lowestMask;
  assert.equal(k.rt.rd.find(task(50), mask), true);
  assert.deepEqual(maskOf(mask), [0, 1, 2]);
});
