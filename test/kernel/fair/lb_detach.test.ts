// Which tasks a pass may take (src/kernel/fair/lb/detach.ts), on hand-built runqueues, against
// fair.c's task_hot, can_migrate_task, detach_tasks, detach_one_task (4.x/5.x) and 2.6.29's
// balance_tasks: the refusals and their flags, the walk order and its limits, and the
// migration-type tests of 5.x detach_tasks.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Era } from "../../../src/kernel/features";
import {
  balanceTasks2629,
  canMigrateTask,
  detachOneTask,
  detachSource,
  detachTasks,
  taskHot,
} from "../../../src/kernel/fair/lb/detach";
import {
  LBF_ACTIVE_LB,
  LBF_ALL_PINNED,
  LBF_DST_PINNED,
  LBF_NEED_BREAK,
  LBF_SOME_PINNED,
  type LbEnv,
  type LbRq,
  type LbTask,
  type MigrationType,
} from "../../../src/kernel/fair/lb/types";
import { lbCpusClear } from "../../../src/kernel/fair/lb/common";
import { NOW, domain, env, group, rq, task } from "./lb_fixtures";

const sd = () => domain({ level: "MC", cpu: 0, groups: [group([0, 1]), group([2, 3])] });

/** cpu2 holding `tasks` (none running: the list as detach walks it). */
function src(tasks: LbTask[], o: Partial<LbRq> = {}): LbRq {
  return rq(2, [], {
    nrRunning: tasks.length,
    cfsHNrRunning: tasks.length,
    cfsTasks: tasks,
    idle: false,
    ...o,
  });
}

function mk(
  era: Era,
  source: LbRq,
  o: {
    idle?: "CPU_IDLE" | "CPU_NOT_IDLE" | "CPU_NEWLY_IDLE";
    imbalance?: number;
    type?: MigrationType;
    dstBusy?: boolean;
  } = {},
): LbEnv {
  const d = sd();
  const e = env({
    era,
    sd: d,
    dstCpu: 0,
    idle: o.idle ?? "CPU_NOT_IDLE",
    rqs: [rq(0, o.dstBusy ? [task()] : []), rq(1, []), source, rq(3, [])],
  });
  e.imbalance = o.imbalance ?? 1e9;
  e.migrationType = o.type ?? "migrate_load";
  e.loopMax = Math.min(e.tunables.sched_nr_migrate, source.nrRunning);
  e.srcCpu = source.cpu;
  return e;
}

const pids = (ts: LbTask[]) => ts.map((t) => t.pid);

test("task_hot: SCHED_IDLE never (3.x+), migration_cost -1 always, 0 never, else exec_start within it", () => {
  const s = src([task(), task()]);
  const e = mk("4.8", s);
  const hot = task({ execStart: NOW - 100_000 });
  assert.equal(taskHot({ env: e, task: hot }), true);
  assert.equal(taskHot({ env: e, task: { ...hot, idlePolicy: true } }), false);
  assert.equal(taskHot({ env: mk("2.6.29", s), task: { ...hot, idlePolicy: true } }), true);
  const cost = e.tunables.sched_migration_cost_ns;
  assert.equal(taskHot({ env: e, task: task({ execStart: NOW - cost }) }), false); // delta == cost
  assert.equal(taskHot({ env: e, task: task({ execStart: NOW - cost + 1 }) }), true);
  e.tunables.sched_migration_cost_ns = -1;
  assert.equal(taskHot({ env: e, task: task({ execStart: 0 }) }), true);
  e.tunables.sched_migration_cost_ns = 0;
  assert.equal(taskHot({ env: e, task: hot }), false);
  // CACHE_HOT_BUDDY off: a buddy is judged by its exec_start alone
  const b = mk("4.8", s, { dstBusy: true });
  const buddy = task({ isBuddy: true, execStart: 0 });
  assert.equal(taskHot({ env: b, task: buddy }), true);
  b.features.CACHE_HOT_BUDDY = false;
  assert.equal(taskHot({ env: b, task: buddy }), false);
});

test("can_migrate_task: no LBF_DST_PINNED search on newidle, once set, or for CPUs out of env->cpus; 2.6.29 flags nothing", () => {
  const p = task({ cpusAllowed: new Set([1, 2]) });
  const newidle = mk("5.6", src([task(), task()]), { idle: "CPU_NEWLY_IDLE" });
  assert.equal(canMigrateTask({ env: newidle, task: p }), false);
  assert.equal(newidle.flags, LBF_SOME_PINNED);
  const set = mk("5.6", src([task(), task()]));
  set.flags = LBF_DST_PINNED;
  set.newDstCpu = 7;
  assert.equal(canMigrateTask({ env: set, task: p }), false);
  assert.equal(set.newDstCpu, 7);
  const cleared = mk("5.6", src([task(), task()]));
  lbCpusClear(cleared, 1);
  assert.equal(canMigrateTask({ env: cleared, task: p }), false);
  assert.equal(cleared.flags & LBF_DST_PINNED, 0);
  const old = mk("2.6.29", src([task(), task()]));
  old.flags = LBF_ALL_PINNED;
  assert.equal(canMigrateTask({ env: old, task: p }), false);
  assert.equal(old.flags, LBF_ALL_PINNED);
  // an allowed task clears LBF_ALL_PINNED even when it is then refused as hot
  const hotEnv = mk("5.6", src([task(), task()]));
  hotEnv.flags = LBF_ALL_PINNED;
  assert.equal(canMigrateTask({ env: hotEnv, task: task({ execStart: NOW - 1000 }) }), false);
  assert.equal(hotEnv.flags, 0);
});

test("can_migrate_task v5.13+: LBF_ACTIVE_LB takes a cache-hot task, never the running one", () => {
  const e = mk("5.19", src([task(), task()]));
  e.flags = LBF_ACTIVE_LB;
  assert.equal(canMigrateTask({ env: e, task: task({ execStart: NOW - 1000 }) }), true);
  assert.equal(canMigrateTask({ env: e, task: task({ running: true }) }), false);
  e.flags = 0;
  assert.equal(canMigrateTask({ env: e, task: task({ execStart: NOW - 1000 }) }), false);
});

test("detach_tasks: nothing without an imbalance; 4.x walks from the head, 5.x from the tail", () => {
  const ts = [task(), task(), task()];
  const none = mk("5.6", src(ts), { imbalance: 0 });
  assert.deepEqual(detachTasks(none, detachSource(src(ts))), []);
  assert.equal(none.loop, 0);
  const e48 = mk("4.8", src(ts), { imbalance: 1024 });
  assert.deepEqual(pids(detachTasks(e48, detachSource(src(ts)))), [ts[0].pid]);
  assert.equal(e48.imbalance, 0);
  const e56 = mk("5.6", src(ts), { imbalance: 1024 });
  assert.deepEqual(pids(detachTasks(e56, detachSource(src(ts)))), [ts[2].pid]);
  // skipped tasks go to the other end: 5.x list_move to the head, so the walk goes on down
  const big = task({ loadAvg: 5000 });
  const order = [task({ loadAvg: 100 }), task({ loadAvg: 200 }), big];
  const s = detachSource(src(order));
  const e = mk("5.6", src(order), { imbalance: 240, type: "migrate_load" });
  assert.deepEqual(pids(detachTasks(e, s)), [order[1].pid]); // 200 taken; 40 left: 100/2 > 40
  assert.equal(e.imbalance, 40);
  assert.deepEqual(pids(s.list.tasks), [order[0].pid, big.pid]);
  assert.equal(e.loop, 4); // env->loop++ then loop > loop_max ends the walk
});

test("detach_tasks: loop_max bounds the walk, CONFIG_PREEMPTION newidle takes one task", () => {
  const ts = Array.from({ length: 6 }, () => task({ loadAvg: 10 }));
  const e = mk("5.6", src(ts), { imbalance: 1e9 });
  e.loopMax = 4;
  assert.equal(detachTasks(e, detachSource(src(ts))).length, 4);
  const pre = mk("5.6", src(ts), { idle: "CPU_NEWLY_IDLE", imbalance: 1e9 });
  pre.preemptible = true;
  assert.equal(detachTasks(pre, detachSource(src(ts))).length, 1);
  const notPre = mk("5.6", src(ts), { idle: "CPU_NEWLY_IDLE", imbalance: 1e9 });
  assert.equal(detachTasks(notPre, detachSource(src(ts))).length, 5); // leaves the last task
  const busy = mk("5.6", src(ts), { imbalance: 1e9 });
  busy.preemptible = true;
  assert.equal(detachTasks(busy, detachSource(src(ts))).length, 6); // only newidle stops early
  // the breather: loop_break moves on by sched_nr_migrate_break
  const many = Array.from({ length: 40 }, () => task({ loadAvg: 10 }));
  const b = mk("5.6", src(many), { imbalance: 1e9 });
  b.loopMax = 40;
  assert.equal(detachTasks(b, detachSource(src(many))).length, 32);
  assert.ok(b.flags & LBF_NEED_BREAK);
  assert.equal(b.loopBreak, 64);
});

test("detach_tasks 5.x: migrate_load (5.6 load/2 until cache_nice_tries failures, 5.10+ load >> failures)", () => {
  // the tail task weighs 1000; only it is examined (loop_max 1)
  const two = (era: Era, failed: number, imbalance: number) => {
    const tail = [task({ loadAvg: 1 }), task({ loadAvg: 1000 })];
    const e = mk(era, src(tail), { imbalance, type: "migrate_load" });
    e.loopMax = 1;
    e.sd.nrBalanceFailed = failed;
    e.sd.cacheNiceTries = 1;
    return detachTasks(e, detachSource(src(tail))).length;
  };
  assert.equal(two("5.6", 0, 500), 1); // 1000 / 2 == 500: taken
  assert.equal(two("5.6", 0, 499), 0);
  assert.equal(two("5.6", 2, 10), 1); // failures > cache_nice_tries: any load goes
  assert.equal(two("5.6", 1, 10), 0);
  assert.equal(two("5.10", 0, 999), 0); // load >> 0 = 1000 > 999
  assert.equal(two("5.10", 0, 1000), 1);
  assert.equal(two("5.10", 2, 250), 1); // 1000 >> 2 = 250
  assert.equal(two("5.10", 2, 249), 0);
  assert.equal(two("5.10", 80, 0.5), 1); // shr_bound caps the shift at 63
});

test("detach_tasks 5.x: migrate_util by task util, migrate_task by count, migrate_misfit the task that does not fit", () => {
  const ts = [task({ utilAvg: 300 }), task({ utilAvg: 100 }), task({ utilAvg: 600 })];
  const u = mk("5.6", src(ts), { imbalance: 400, type: "migrate_util" });
  // from the tail: 600 > 400 skipped, 100 taken, 300 == the 300 left taken
  assert.deepEqual(pids(detachTasks(u, detachSource(src(ts)))), [ts[1].pid, ts[0].pid]);
  assert.equal(u.imbalance, 0);
  const n = mk("5.6", src(ts), { imbalance: 2, type: "migrate_task" });
  assert.equal(detachTasks(n, detachSource(src(ts))).length, 2);
  assert.equal(n.imbalance, 0);
  // misfit on a 446-capacity CPU: util 300 fits (300 * 1280 < 446 * 1024), 400 does not
  const m = [task({ utilAvg: 400 }), task({ utilAvg: 300 })];
  const mis = mk("5.6", src(m, { cpuCapacity: 446 }), { imbalance: 1, type: "migrate_misfit" });
  assert.deepEqual(pids(detachTasks(mis, detachSource(src(m, { cpuCapacity: 446 })))), [m[0].pid]);
  assert.equal(mis.imbalance, 0);
  const fits = [task({ utilAvg: 100 }), task({ utilAvg: 356 })]; // 356 * 1280 = 455680 < 456704: fits, not taken
  const f = mk("5.6", src(fits, { cpuCapacity: 446 }), {
    imbalance: 1,
    type: "migrate_misfit",
  });
  assert.equal(detachTasks(f, detachSource(src(fits, { cpuCapacity: 446 }))).length, 0);
});

test("detach_one_task: the first task can_migrate_task accepts, from the head (4.x) or the tail (5.x)", () => {
  const ts = [task(), task({ cpusAllowed: new Set([2]) }), task()];
  assert.equal(detachOneTask(mk("4.8", src(ts)), src(ts))?.pid, ts[0].pid);
  assert.equal(detachOneTask(mk("5.6", src(ts)), src(ts))?.pid, ts[2].pid);
  const pinned = [task({ cpusAllowed: new Set([2]) })];
  assert.equal(detachOneTask(mk("5.6", src(pinned)), src(pinned)), null);
});

test("2.6.29 balance_tasks: sched_nr_migrate + 1 tasks at most, weight/2 > rem skipped (still pinned), stop when used up", () => {
  const e0 = mk("2.6.29", src([task()]), { imbalance: 0 });
  e0.flags = LBF_ALL_PINNED;
  assert.deepEqual(balanceTasks2629(e0, src([task()])), []);
  assert.equal(e0.flags & LBF_ALL_PINNED, 0); // max_load_move 0: nothing examined
  const heavy = [task({ weight: 3000 }), task({ weight: 3000 })];
  const e1 = mk("2.6.29", src(heavy), { imbalance: 1024 });
  assert.deepEqual(balanceTasks2629(e1, src(heavy)), []);
  assert.ok(e1.flags & LBF_ALL_PINNED); // skipped by weight, never asked can_migrate_task
  const ts = [task({ weight: 1024 }), task({ weight: 1024 }), task({ weight: 1024 })];
  const e2 = mk("2.6.29", src(ts), { imbalance: 1500 });
  assert.deepEqual(pids(balanceTasks2629(e2, src(ts))), [ts[0].pid]); // 476 left < 512
  assert.equal(e2.imbalance, 476);
  assert.equal(e2.flags & LBF_ALL_PINNED, 0);
  const e3 = mk("2.6.29", src(ts), { imbalance: 2048 });
  assert.equal(balanceTasks2629(e3, src(ts)).length, 2); // rem reaches 0
  const many = Array.from({ length: 10 }, () => task({ weight: 10 }));
  const e4 = mk("2.6.29", src(many), { imbalance: 1e9 });
  e4.tunables.sched_nr_migrate = 3;
  assert.equal(balanceTasks2629(e4, src(many)).length, 4); // loops 0..3: sched_nr_migrate + 1
});
