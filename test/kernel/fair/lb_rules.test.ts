// The balancer's smaller rules: group classification, can_migrate_task, detach_tasks limits,
// intervals and failure accounting, cpu_load[] and source/target_load.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  LBF_ALL_PINNED,
  LBF_DST_PINNED,
  LBF_NEED_BREAK,
  LBF_SOME_PINNED,
  type LbRq,
} from "../../../src/kernel/fair/lb/types";
import {
  getSdBalanceInterval,
  lbAccountPass,
  lbNoteFailure,
  maxLoadBalanceInterval,
  msecsToJiffies,
  sdBalanceDue,
} from "../../../src/kernel/fair/lb/common";
import { canMigrateTask, detachSource, detachTasks } from "../../../src/kernel/fair/lb/detach";
import { updateSgLbStats56 } from "../../../src/kernel/fair/lb/v5x";
import { updateSgLbStats48 } from "../../../src/kernel/fair/lb/v48";
import {
  createCpuLoadState,
  cpuLoadUpdateActive,
  cpuLoadUpdateNohz,
  decayLoadMissed,
  sourceLoad,
  targetLoad,
  updateCpuLoad2629,
} from "../../../src/kernel/fair/cpu_load";
import { BASE_FLAGS, NOW, domain, env, group, hogs, rq, task } from "./lb_fixtures";
import { SD_SHARE_CPUCAPACITY } from "../../../src/kernel/topology/sched_domain";
import type { Era } from "../../../src/kernel/features";

const pair = (cpu: number) =>
  domain({
    level: "MC",
    cpu,
    groups: [group([cpu, cpu ^ 1]), group([cpu ^ 2, cpu ^ 3])],
    imbalancePct: 117,
  });

/** Two CPUs of one group carrying `a` and `b` hogs, utilisation `util` per busy CPU. */
function twoCpus(a: number, b: number, util = 1024, runnablePerTask = 1024): LbRq[] {
  const mk = (cpu: number, n: number) =>
    rq(cpu, hogs(n), { cfsUtilAvg: n ? util : 0, cfsRunnableAvg: n * runnablePerTask });
  return [mk(2, a), mk(3, b), rq(0, []), rq(1, [])];
}

test("5.6 group_classify: has_spare, fully_busy, overloaded", () => {
  const sd = pair(0);
  const g = group([2, 3]);
  const classify = (
    a: number,
    b: number,
    era: "5.6" | "5.19" = "5.6",
    util = 1024,
    runnable = 1024,
  ) =>
    updateSgLbStats56(
      env({ era, sd, dstCpu: 0, idle: "CPU_IDLE", rqs: twoCpus(a, b, util, runnable) }),
      g,
    ).groupType;
  assert.equal(classify(1, 0), "group_has_spare"); // 1 task < 2 CPUs
  assert.equal(classify(1, 1), "group_fully_busy"); // 2 tasks, util 2048 * 117 > 2048 * 100
  assert.equal(classify(2, 1), "group_overloaded"); // 3 tasks > 2 CPUs and util above capacity
  // 3 short tasks with low util: spare capacity in 5.6; 5.7+ sees the runnable pressure
  assert.equal(classify(2, 1, "5.6", 700, 1024), "group_has_spare");
  assert.equal(classify(2, 1, "5.19", 700, 1024), "group_overloaded");
  const over = updateSgLbStats56(
    env({ era: "5.6", sd, dstCpu: 0, idle: "CPU_IDLE", rqs: twoCpus(2, 1) }),
    g,
  );
  assert.equal(over.avgLoad, Math.floor((3 * 1024 * 1024) / 2048)); // only overloaded groups get avg_load
  // an affinity-imbalanced group (sgc->imbalance) outranks fully_busy
  const gi = { ...group([2, 3]), imbalance: true };
  assert.equal(
    updateSgLbStats56(env({ era: "5.6", sd, dstCpu: 0, idle: "CPU_IDLE", rqs: twoCpus(1, 1) }), gi)
      .groupType,
    "group_imbalanced",
  );
});

test("4.8 group_classify: other until overloaded", () => {
  const sd = pair(0);
  const g = group([2, 3]);
  const stats = (a: number, b: number) =>
    updateSgLbStats48(
      env({ era: "4.8", sd, dstCpu: 0, idle: "CPU_IDLE", rqs: twoCpus(a, b) }),
      g,
      0,
      false,
    );
  assert.equal(stats(1, 1).groupType, "group_other");
  assert.equal(stats(2, 1).groupType, "group_overloaded");
  assert.equal(stats(2, 1).loadPerTask, 1024);
  assert.equal(stats(0, 0).idleCpus, 2);
});

test("can_migrate_task: affinity, running, cache-hot until nr_balance_failed > cache_nice_tries", () => {
  const sd = pair(0); // local group {0,1}
  const mk = () =>
    env({
      era: "4.8",
      sd,
      dstCpu: 0,
      idle: "CPU_IDLE",
      rqs: [rq(0, []), rq(1, []), rq(2, hogs(2)), rq(3, [])],
    });
  // affinity: refused, and a CPU of our group it may use is remembered
  let e = mk();
  e.flags = LBF_ALL_PINNED;
  assert.equal(canMigrateTask({ env: e, task: task({ cpusAllowed: new Set([2]) }) }), false);
  assert.equal(e.flags & LBF_SOME_PINNED, LBF_SOME_PINNED);
  assert.equal(e.flags & LBF_DST_PINNED, 0);
  assert.equal(canMigrateTask({ env: e, task: task({ cpusAllowed: new Set([1, 2]) }) }), false);
  assert.equal(e.flags & LBF_DST_PINNED, LBF_DST_PINNED);
  assert.equal(e.newDstCpu, 1);
  assert.equal(e.flags & LBF_ALL_PINNED, LBF_ALL_PINNED); // nobody could run here yet
  // running: refused, but it clears LBF_ALL_PINNED
  e = mk();
  e.flags = LBF_ALL_PINNED;
  assert.equal(canMigrateTask({ env: e, task: task({ running: true }) }), false);
  assert.equal(e.flags & LBF_ALL_PINNED, 0);
  // cache-hot (ran 100 us ago, migration_cost 0.5 ms)
  const hot = task({ execStart: NOW - 100_000 });
  sd.nrBalanceFailed = 0;
  assert.equal(canMigrateTask({ env: mk(), task: hot }), false);
  sd.nrBalanceFailed = 1; // == cache_nice_tries
  assert.equal(canMigrateTask({ env: mk(), task: hot }), false);
  sd.nrBalanceFailed = 2; // > cache_nice_tries: hot tasks go
  assert.equal(canMigrateTask({ env: mk(), task: hot }), true);
  sd.nrBalanceFailed = 0;
  assert.equal(canMigrateTask({ env: mk(), task: task() }), true); // cold
  // buddies: hot in 4.8 only if the destination is busy; always in 2.6.29
  const buddy = task({ isBuddy: true });
  assert.equal(canMigrateTask({ env: mk(), task: buddy }), true);
  const busyDst = env({
    era: "4.8",
    sd,
    dstCpu: 0,
    idle: "CPU_NOT_IDLE",
    rqs: [rq(0, hogs(1)), rq(1, []), rq(2, hogs(2)), rq(3, [])],
  });
  assert.equal(canMigrateTask({ env: busyDst, task: buddy }), false);
  const old = env({
    era: "2.6.29",
    sd,
    dstCpu: 0,
    idle: "CPU_IDLE",
    rqs: [rq(0, []), rq(1, []), rq(2, hogs(2)), rq(3, [])],
  });
  assert.equal(canMigrateTask({ env: old, task: buddy }), false);
});

test("task_hot: a cache-hot task may cross an SMT domain from v5.10 (ec73240b1627), not before", () => {
  // CPUs 0 and 1 are SMT siblings; the hot task ran 100 us ago on CPU 1 (migration_cost 0.5 ms).
  const smt = domain({
    level: "SMT",
    cpu: 0,
    groups: [group([0]), group([1])],
    flags: BASE_FLAGS | SD_SHARE_CPUCAPACITY,
  });
  const hot = task({ execStart: NOW - 100_000 });
  for (const [era, movable] of [
    ["5.6", false],
    ["5.10", true],
    ["5.19", true],
    ["6.19", true],
  ] as [Era, boolean][]) {
    const mk = (sd: typeof smt) =>
      env({ era, sd, dstCpu: 0, idle: "CPU_IDLE", rqs: [rq(0, []), rq(1, hogs(2))] });
    assert.equal(canMigrateTask({ env: mk(smt), task: hot }), movable, era);
    // The same pair under an MC domain keeps the hotness test in every era.
    const mc = domain({ level: "MC", cpu: 0, groups: [group([0]), group([1])] });
    assert.equal(canMigrateTask({ env: mk(mc), task: hot }), false, era);
  }
});

test("detach_tasks: idle dst leaves the last task, load/2 > imbalance skips, breaks every 32", () => {
  const sd = pair(0);
  const srcWith = (tasks: ReturnType<typeof task>[]) =>
    rq(2, [], {
      nrRunning: tasks.length,
      cfsHNrRunning: tasks.length,
      cfsTasks: tasks,
      idle: false,
    });
  const mk = (src: LbRq, idle: "CPU_IDLE" | "CPU_NOT_IDLE", imbalance: number) => {
    const e = env({ era: "4.8", sd, dstCpu: 0, idle, rqs: [rq(0, []), rq(1, []), src, rq(3, [])] });
    e.imbalance = imbalance;
    e.loopMax = Math.min(e.tunables.sched_nr_migrate, src.nrRunning);
    e.srcCpu = src.cpu;
    return e;
  };
  // two queued (not running) tasks, huge imbalance: an idle puller takes one, a busy one both
  const two = srcWith([task(), task()]);
  assert.equal(detachTasks(mk(two, "CPU_IDLE", 1e9), detachSource(two)).length, 1);
  assert.equal(detachTasks(mk(two, "CPU_NOT_IDLE", 1e9), detachSource(two)).length, 2);
  // load/2 > imbalance: a 1024 task is skipped for an imbalance of 400, a 700 one is taken
  const mixed = srcWith([task({ loadAvg: 1024 }), task({ loadAvg: 700 }), task()]);
  const e = mk(mixed, "CPU_NOT_IDLE", 400);
  const got = detachTasks(e, detachSource(mixed));
  assert.deepEqual(
    got.map((t) => t.loadAvg),
    [700],
  );
  assert.equal(e.imbalance, -300);
  // 40 light tasks: 32, then LBF_NEED_BREAK, then the rest up to loop_max (the 33rd loop is spent on the break)
  const many = srcWith(Array.from({ length: 40 }, () => task({ loadAvg: 10 })));
  const eb = mk(many, "CPU_NOT_IDLE", 1e9);
  eb.loopMax = 40;
  const src = detachSource(many);
  assert.equal(detachTasks(eb, src).length, 32);
  assert.equal(eb.flags & LBF_NEED_BREAK, LBF_NEED_BREAK);
  eb.flags &= ~LBF_NEED_BREAK;
  assert.equal(detachTasks(eb, src).length, 7);
  // 5.6 migrate_task moves a number of tasks, taken from the tail (least recently run)
  const tail = srcWith([task(), task(), task()]);
  const e56 = env({
    era: "5.6",
    sd,
    dstCpu: 0,
    idle: "CPU_IDLE",
    rqs: [rq(0, []), rq(1, []), tail, rq(3, [])],
  });
  e56.migrationType = "migrate_task";
  e56.imbalance = 1;
  e56.loopMax = 3;
  const one = detachTasks(e56, detachSource(tail));
  assert.deepEqual(
    one.map((t) => t.pid),
    [tail.cfsTasks[2].pid],
  );
});

test("balance intervals: busy factor, jiffies, clamp, 5.10+ minus one jiffy", () => {
  const sd = domain({
    level: "DIE",
    cpu: 0,
    groups: [group([0, 1]), group([2, 3]), group([4, 5]), group([6, 7])],
  });
  assert.equal(sd.balanceInterval, 8);
  const max = maxLoadBalanceInterval("4.8", 1000, 8);
  assert.equal(max, 800);
  assert.equal(
    getSdBalanceInterval({ sd, cpuBusy: false, era: "4.8", hz: 1000, maxInterval: max }),
    8,
  );
  assert.equal(
    getSdBalanceInterval({ sd, cpuBusy: true, era: "4.8", hz: 1000, maxInterval: max }),
    256,
  );
  assert.equal(
    getSdBalanceInterval({ sd, cpuBusy: true, era: "6.19", hz: 1000, maxInterval: max }),
    255,
  );
  assert.equal(
    getSdBalanceInterval({ sd, cpuBusy: true, era: "4.8", hz: 250, maxInterval: 25 }),
    25,
  ); // HZ/10 on 1 CPU
  assert.equal(
    getSdBalanceInterval({ sd, cpuBusy: false, era: "4.8", hz: 250, maxInterval: 25 }),
    2,
  );
  sd.balanceInterval = 1;
  assert.equal(
    getSdBalanceInterval({ sd, cpuBusy: false, era: "2.6.29", hz: 250, maxInterval: 200 }),
    1,
  ); // at least a jiffy
  assert.equal(msecsToJiffies(3, 250), 1);
  assert.equal(msecsToJiffies(5, 250), 2);
  sd.lastBalance = 0;
  assert.equal(sdBalanceDue(sd, 7_999_999, 8, 1000), false);
  assert.equal(sdBalanceDue(sd, 8_000_000, 8, 1000), true);
});

test("balance_interval doubling/reset and nr_balance_failed accounting", () => {
  const sd = domain({
    level: "CPU",
    cpu: 0,
    groups: [group([0, 1]), group([2])],
    minInterval: 1,
    maxInterval: 4,
  });
  const seq: number[] = [];
  for (let i = 0; i < 4; i++) {
    lbAccountPass(sd, { kind: "balanced", allPinned: false }, "CPU_IDLE", "2.6.29");
    seq.push(sd.balanceInterval);
  }
  assert.deepEqual(seq, [2, 4, 4, 4]);
  // all pinned: back off up to MAX_PINNED_INTERVAL
  for (let i = 0; i < 12; i++)
    lbAccountPass(sd, { kind: "balanced", allPinned: true }, "CPU_IDLE", "4.8");
  assert.equal(sd.balanceInterval, 512);
  // an unbalanced pass that did not kick resets to min_interval
  sd.nrBalanceFailed = 0;
  lbNoteFailure(sd, "CPU_IDLE", "4.8");
  lbAccountPass(
    sd,
    { kind: "failed", needActive: false, activeKicked: false, voluntary: false },
    "CPU_IDLE",
    "4.8",
  );
  assert.equal(sd.balanceInterval, 1);
  assert.equal(sd.nrBalanceFailed, 1);
  // a kick doubles and sets the failures to cache_nice_tries + 1
  lbNoteFailure(sd, "CPU_IDLE", "4.8");
  lbAccountPass(
    sd,
    { kind: "failed", needActive: true, activeKicked: true, voluntary: false },
    "CPU_IDLE",
    "4.8",
  );
  assert.equal(sd.balanceInterval, 2);
  assert.equal(sd.nrBalanceFailed, sd.cacheNiceTries + 1);
  // newidle failures are not counted (4.x+), 2.6.29's load_balance counts them
  lbNoteFailure(sd, "CPU_NEWLY_IDLE", "5.6");
  assert.equal(sd.nrBalanceFailed, sd.cacheNiceTries + 1);
  // 5.x newidle passes do not grow the interval
  lbAccountPass(sd, { kind: "balanced", allPinned: false }, "CPU_NEWLY_IDLE", "5.6");
  assert.equal(sd.balanceInterval, 2);
  assert.equal(sd.nrBalanceFailed, 0);
  lbAccountPass(sd, { kind: "moved" }, "CPU_IDLE", "5.6");
  assert.equal(sd.balanceInterval, 1);
});

test("cpu_load[]: 2.6.29 round-up reaches a steady load; 4.8 decays missed tickless ticks", () => {
  const st = createCpuLoadState();
  for (let i = 0; i < 300; i++) updateCpuLoad2629(st, 1024);
  assert.deepEqual(st.cpuLoad, [1024, 1024, 1024, 1024, 1024]);
  updateCpuLoad2629(st, 0);
  assert.deepEqual(st.cpuLoad, [0, 512, 768, 896, 960]);
  assert.equal(decayLoadMissed(1024, 1, 1), 512);
  assert.equal(decayLoadMissed(1024, 2, 2), 576); // (3/4)^2 on the 128 scale
  assert.equal(decayLoadMissed(1024, 8, 1), 0);
  assert.equal(
    decayLoadMissed(1024, 3, 4),
    Math.floor((Math.floor((1024 * 120) / 128) * 112) / 128),
  );
  const s4 = createCpuLoadState();
  for (let j = 1; j <= 300; j++) cpuLoadUpdateActive(s4, 2048, j, false);
  assert.deepEqual(s4.cpuLoad, [2048, 2048, 2048, 2048, 2048]);
  // idle from jiffy 300 (cpu_load[0] was set to 0 at nohz entry), 10 ticks later
  s4.cpuLoad[0] = 0;
  cpuLoadUpdateNohz(s4, 310, 0);
  assert.equal(s4.cpuLoad[0], 0);
  assert.equal(s4.cpuLoad[1], 0); // idx 1 halves per tick: gone after 8
  assert.equal(s4.cpuLoad[2], (decayLoadMissed(2048, 9, 2) * 3) >> 2); // 9 missed, then one update with load 0
  // LB_BIAS: sources look lighter, targets heavier
  const v = { loadWeight: 1024, runnableLoadAvg: 1000, cpuLoad: [900, 1500, 1500, 1500, 1500] };
  assert.equal(sourceLoad(v, 2, "4.8", { LB_BIAS: true }), 1000);
  assert.equal(targetLoad(v, 2, "4.8", { LB_BIAS: true }), 1500);
  assert.equal(sourceLoad(v, 1, "2.6.29", { LB_BIAS: true }), 900);
  assert.equal(targetLoad(v, 0, "2.6.29", { LB_BIAS: true }), 1024);
  assert.equal(targetLoad(v, 2, "4.8", { LB_BIAS: false }), 1000);
});
