// util_est (src/kernel/fair/util_est.ts): the estimate's update rules in each era's form, and the
// cfs_rq's sum of its queued tasks' estimates through sleeps, wakeups and delayed dequeues.
import { test } from "node:test";
import assert from "node:assert/strict";
import { boot } from "../boot";
import { preset } from "../../../src/machine/presets";
import { run, sleep } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Rq, Task } from "../../../src/kernel/sched";
import { taskUtilEst, utilEstUpdate } from "../../../src/kernel/fair/util_est";

const MS = 1_000_000;

/** A kernel of `era` with one task that never runs (its fields are set by hand). */
function fixture(era: Era): { k: Kernel; p: Task; rq: Rq } {
  const k = boot(preset("core2-2x2"), era);
  const p = k.spawn({
    comm: "t",
    cpu: 1,
    program: function* () {
      yield sleep(10_000 * MS);
    },
  });
  return { k, p, rq: k.rqs[1] };
}

/** One util_est_update of a task going to sleep with util_avg `util` (runnable_avg `runnable`). */
function sample(
  f: { k: Kernel; p: Task; rq: Rq },
  util: number,
  runnable = util,
): { ewma: number; enqueued: number; est: number; flagged: boolean } {
  const a = f.p.se.avg;
  a.utilEstUnchanged = false; // cfs_se_util_change: util_avg moved since the last update
  a.utilAvg = util;
  a.runnableAvg = runnable;
  utilEstUpdate(f.k, f.rq, f.p, true);
  return {
    ewma: a.utilEstEwma,
    enqueued: a.utilEstEnqueued,
    est: a.utilEst,
    flagged: a.utilEstUnchanged,
  };
}

test("v6.8+ (6.19): the EWMA resets up, moves a quarter of the way down, skips within 1% and a starved task; decays above the CPU's capacity", () => {
  const f = fixture("6.19");
  assert.deepEqual(sample(f, 600), { ewma: 600, enqueued: 0, est: 600, flagged: true });
  // a decrease: ewma = (4 * 600 - 200) >> 2
  assert.equal(sample(f, 400).ewma, 550);
  // within UTIL_EST_MARGIN (10) below: kept, flag set
  assert.deepEqual(sample(f, 545), { ewma: 550, enqueued: 0, est: 550, flagged: true });
  // runnable_avg above util + 1%: the task did not get the CPU it wanted, no update
  assert.equal(sample(f, 300, 311).ewma, 550);
  assert.equal(sample(f, 300, 310).ewma, (550 * 4 - 250) >> 2);
  // util above the CPU's capacity: f2d650618bc7 (v6.16) lets the EWMA decay there
  f.rq.cpuCapacityOrig = 400;
  f.p.se.avg.utilEstEwma = 900;
  assert.equal(sample(f, 401).ewma, (900 * 4 - 499) >> 2);
});

test("5.6 to 6.6: a sample above the CPU's capacity is not kept (no idle time to trust it)", () => {
  for (const era of ["5.6", "5.19", "6.6"] as Era[]) {
    const f = fixture(era);
    f.p.se.avg.utilEstEwma = 900;
    f.rq.cpuCapacityOrig = 400;
    const s = sample(f, 401);
    assert.deepEqual([s.ewma, s.flagged], [900, false], era);
    f.rq.cpuCapacityOrig = 1024;
    assert.ok(sample(f, 401).ewma < 900, era);
  }
});

test("UTIL_AVG_UNCHANGED: no update until util_avg has moved; not on a migration (no sleep)", () => {
  const f = fixture("6.19");
  sample(f, 600);
  const a = f.p.se.avg;
  a.utilAvg = 100; // flag still set: util_est_update returns at once
  utilEstUpdate(f.k, f.rq, f.p, true);
  assert.equal(a.utilEstEwma, 600);
  a.utilEstUnchanged = false;
  utilEstUpdate(f.k, f.rq, f.p, false); // !task_sleep
  assert.equal(a.utilEstEwma, 600);
});

test("v5.13-v6.7 (5.19): a sample within 1% of the EWMA is stored only when it moved 1% from the last; FASTUP", () => {
  const f = fixture("5.19");
  assert.deepEqual(sample(f, 600), { ewma: 600, enqueued: 600, est: 600, flagged: true });
  // 595: within 1% of the EWMA and of the last sample: nothing stored
  assert.deepEqual(sample(f, 595), { ewma: 600, enqueued: 600, est: 600, flagged: false });
  f.p.se.avg.utilEstEnqueued = 620;
  // 595: within 1% of the EWMA, 25 from the last sample: stored, EWMA kept
  assert.deepEqual(sample(f, 595), { ewma: 600, enqueued: 595, est: 600, flagged: true });
  // a decrease: ewma = (4 * 600 + (400 - 600)) >> 2; _task_util_est = max(ewma, enqueued)
  assert.deepEqual(sample(f, 400), { ewma: 550, enqueued: 400, est: 550, flagged: true });
  // without UTIL_EST_FASTUP an increase also moves a quarter of the way
  f.k.features.UTIL_EST_FASTUP = false;
  assert.equal(sample(f, 950).ewma, (550 * 4 + 400) >> 2);
  f.k.features.UTIL_EST_FASTUP = true;
  assert.equal(sample(f, 950).ewma, 950);
});

test("v4.17-v5.12 (5.6): enqueued carries UTIL_AVG_UNCHANGED in bit 0, _task_util_est ORs it in, a sample within 1% is dropped", () => {
  const f = fixture("5.6");
  assert.deepEqual(sample(f, 600), { ewma: 601, enqueued: 601, est: 601, flagged: true });
  // 597 | 1 = 597, 4 below the EWMA: dropped, nothing stored
  assert.deepEqual(sample(f, 597), { ewma: 601, enqueued: 601, est: 601, flagged: false });
  // 400 | 1 = 401: ewma = (4 * 601 - 200) >> 2 = 551; the estimate max(551, 401) | 1
  assert.deepEqual(sample(f, 400), { ewma: 551, enqueued: 401, est: 551, flagged: true });
  assert.equal(sample(f, 100).est, ((551 * 4 + (101 - 551)) >> 2) | 1);
});

test("task_util_est is max(util_avg, util_est); eras before 4.17 and UTIL_EST off keep no estimate", () => {
  const f = fixture("6.19");
  sample(f, 700);
  f.p.se.avg.utilAvg = 100; // decayed while asleep
  assert.equal(taskUtilEst(f.p), 700);
  f.p.se.avg.utilAvg = 800;
  assert.equal(taskUtilEst(f.p), 800);
  const old = fixture("4.8");
  assert.equal(sample(old, 700).est, 0);
  const off = fixture("6.19");
  off.k.features.UTIL_EST = false;
  assert.equal(sample(off, 700).est, 0);
});

/**
 * Two pairs of tasks that run and sleep in turns on two CPUs, for `era`: each cfs_rq's util_est
 * must stay the sum of its runnable tasks' estimates (checkInvariants) through sleeps, wakeups,
 * migrations and, on 6.19, delayed dequeues.
 */
for (const era of ["5.6", "5.19", "6.6", "6.19"] as Era[]) {
  test(`${era}: each cfs_rq's util_est is its runnable tasks' estimates through a run`, () => {
    const k = boot(preset("core2-2x2"), era);
    for (let i = 0; i < 6; i++)
      k.spawn({
        comm: `w${i}`,
        cpu: i % 2,
        program: function* () {
          for (;;) {
            yield run(((i % 3) + 1) * 1.5 * MS);
            yield sleep((i + 1) * 0.7 * MS);
          }
        },
      });
    let checks = 0;
    let sawEstimate = false;
    for (let t = 5 * MS; t <= 400 * MS; t += 5 * MS) {
      k.runUntil(t);
      k.checkInvariants();
      checks++;
      if (k.rqs.some((rq) => rq.cfs.avg.utilEst > 0)) sawEstimate = true;
    }
    assert.equal(checks, 80);
    assert.ok(sawEstimate, `${era}: some cfs_rq carried an estimate`);
    for (const p of k.tasks.filter((x) => x.comm.startsWith("w")))
      assert.ok(p.se.avg.utilEst > 0, `${era}: ${p.comm} learned an estimate`);
  });
}
