// PELT in its v3.8 ... v4.2 form (fair.c v3.19): runnable_avg_sum / runnable_avg_period per
// entity, load_avg_contrib, cfs_rq->runnable_load_avg and blocked_load_avg with decay_counter.
// Expected values are worked out by hand from the v3.19 formulas (decay_load's y^n table,
// runnable_avg_yN_sum); 2^20 ns is one decay unit of the blocked load.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { PeltCfsRq, PeltEntity } from "../../../src/kernel/fair/pelt";
import {
  __updateEntityRunnableAvg,
  avg38,
  cfsLoad38,
  createSchedAvg38,
  dequeueEntityLoadAvg38,
  enqueueEntityLoadAvg38,
  initTaskRunnableAverage,
  migrateTaskRqFair38,
  type SchedAvg38,
  updateCfsRqBlockedLoad,
  updateEntityLoadAvg,
} from "../../../src/kernel/fair/pelt_v38";
import { peltFormOf } from "../../../src/kernel/fair/pelt_form";
import { createPeltRemoved, createSchedAvg } from "../../../src/kernel/sched";
import { machineBuilder } from "../../../src/machine/builder";
import { run, sleep } from "../../../src/kernel/ops";
import { boot } from "../boot";

const US = 1024; // one PELT unit, ns
const PERIOD = 1024 * US; // one period, and one decay unit of the blocked load (2^20 ns)

function entity(weight = 1024, onRq = true): PeltEntity {
  return { avg: createSchedAvg38(), weight, onRq };
}

function cfsRq(): PeltCfsRq {
  return {
    avg: createSchedAvg(),
    removed: createPeltRemoved(),
    loadWeight: 0,
    hNrRunning: 0,
    curr: null,
    runnableLoad: null,
  };
}

const sa = (se: PeltEntity): SchedAvg38 => avg38(se);

test("__update_entity_runnable_avg: both sums grow as 1 - y^n while runnable; the contrib is the runnable fraction of the weight", () => {
  const se = entity();
  // one period from a fresh entity: delta_w = 1024 completes it, both sums decay by y^1
  assert.equal(__updateEntityRunnableAvg(PERIOD, sa(se), true), true);
  assert.equal(sa(se).loadSum, 1002); // 1024 * 0xfa83b2da >> 32
  assert.equal(sa(se).runnableAvgPeriod, 1002);
  // 32 periods in one update: decay_load(1024, 32) = 511, plus runnable_avg_yN_sum[31] = 22859
  const se32 = entity();
  __updateEntityRunnableAvg(32 * PERIOD, sa(se32), true);
  assert.equal(sa(se32).loadSum, 511 + 22859);
  assert.equal(sa(se32).runnableAvgPeriod, 23370);
  // a long run saturates at LOAD_AVG_MAX (__compute_runnable_contrib(n >= 345))
  const long = entity();
  __updateEntityRunnableAvg(1000 * PERIOD, sa(long), true);
  assert.equal(sa(long).loadSum, 47742);
  // runnable all the time: load_avg_contrib = sum * w / (period + 1), one short of the weight
  updateEntityLoadAvg(33 * PERIOD, cfsRq(), se32, false);
  assert.equal(
    se32.avg.loadAvg,
    Math.floor((sa(se32).loadSum * 1024) / (sa(se32).runnableAvgPeriod + 1)),
  );
  assert.equal(se32.avg.loadAvg, 1023);
  // less than 1024 ns: nothing happens, the clock stays
  assert.equal(__updateEntityRunnableAvg(33 * PERIOD + 1000, sa(se32), true), false);
  assert.equal(sa(se32).lastUpdateTime, 33 * PERIOD);
});

test("__update_entity_runnable_avg: the period position is runnable_avg_period % 1024; a blocked entity's contrib falls with its sum", () => {
  const se = entity(1024, false);
  const a = sa(se);
  a.loadSum = 23370;
  a.runnableAvgPeriod = 23370;
  a.lastUpdateTime = 32 * PERIOD;
  // 32 periods asleep: delta_w = 23370 % 1024 = 842, so 182 units complete the "period";
  // 31 more periods and 842 units remain: sum = decay(23370, 32) = 11684,
  // period = decay(23370 + 182, 32) + yN_sum[31] + 842 = 11775 + 22859 + 842
  updateEntityLoadAvg(64 * PERIOD, cfsRq(), se, false);
  assert.equal(a.loadSum, 11684);
  assert.equal(a.runnableAvgPeriod, 35476);
  assert.equal(se.avg.loadAvg, 337); // 11684 * 1024 / 35477
  // a nice 5 task (weight 335) at the same sums
  const light = entity(335, false);
  Object.assign(sa(light), {
    loadSum: 11684,
    runnableAvgPeriod: 35476,
    lastUpdateTime: 64 * PERIOD,
  });
  updateEntityLoadAvg(65 * PERIOD, cfsRq(), light, false);
  assert.ok(light.avg.loadAvg < 337 && light.avg.loadAvg > 100, `${light.avg.loadAvg}`);
});

test("update_cfs_rq_blocked_load: blocked_load_avg decays once per 2^20 ns, counted in decay_counter; removed_load comes off first", () => {
  const cfs = cfsRq();
  const c = cfsLoad38(cfs);
  assert.equal(c.decayCounter, 1); // init_cfs_rq
  updateCfsRqBlockedLoad(10 * PERIOD, cfs, false);
  assert.deepEqual([c.decayCounter, c.lastDecay], [11, 10]);
  c.blockedLoadAvg = 1023;
  // within the same unit: nothing unless forced
  assert.equal(updateCfsRqBlockedLoad(10 * PERIOD + 5000, cfs, false), false);
  assert.equal(c.blockedLoadAvg, 1023);
  // 32 units later: decay_load(1023, 32) = 511 * 0xffffffff >> 32 = 510
  assert.equal(updateCfsRqBlockedLoad(42 * PERIOD, cfs, false), true);
  assert.equal(c.blockedLoadAvg, 510);
  assert.equal(c.decayCounter, 43);
  // a forced update without a decay still folds in removed_load
  c.removedLoad = 500;
  updateCfsRqBlockedLoad(42 * PERIOD + 10, cfs, true);
  assert.deepEqual([c.blockedLoadAvg, c.removedLoad, c.decayCounter], [10, 0, 43]);
  // subtract_blocked_load_contrib: not less than the blocked load leaves 0
  c.removedLoad = 10;
  updateCfsRqBlockedLoad(42 * PERIOD + 20, cfs, true);
  assert.equal(c.blockedLoadAvg, 0);
});

test("enqueue / dequeue: runnable_load_avg is the sum of the queued contribs; a sleeper's goes to blocked_load_avg", () => {
  const cfs = cfsRq();
  const c = cfsLoad38(cfs);
  const a = entity(1024, false);
  const b = entity(335, false);
  // init_task_runnable_average: sched_slice 6 ms >> 10 = 5859 in both sums
  initTaskRunnableAverage(a, 6_000_000);
  initTaskRunnableAverage(b, 6_000_000);
  assert.equal(a.avg.loadAvg, 1023); // 5859 * 1024 / 5860
  assert.equal(b.avg.loadAvg, 334); // 5859 * 335 / 5860
  // new tasks (decay_count 0) are enqueued as migrated: their clocks start now
  enqueueEntityLoadAvg38(100 * PERIOD, cfs, a, false);
  a.onRq = true;
  enqueueEntityLoadAvg38(100 * PERIOD, cfs, b, false);
  b.onRq = true;
  assert.equal(sa(a).lastUpdateTime, 100 * PERIOD);
  assert.equal(c.avg, 1023 + 334);
  // a's sleep: aged as runnable up to the dequeue, its contrib moves to the blocked load
  dequeueEntityLoadAvg38(105 * PERIOD, cfs, a, true);
  a.onRq = false;
  assert.equal(sa(a).decayCount, c.decayCounter);
  assert.equal(c.blockedLoadAvg, a.avg.loadAvg);
  assert.equal(c.avg, b.avg.loadAvg);
  // b leaves without sleeping (a balancer move): no blocked load, decay_count stays 0
  dequeueEntityLoadAvg38(106 * PERIOD, cfs, b, false);
  b.onRq = false;
  assert.equal(c.avg, 0);
  assert.equal(sa(b).decayCount, 0);
});

test("a local wakeup decays the contrib by the cfs_rq's decays since the sleep, takes it out of the blocked load, and ages the entity over the sleep", () => {
  const cfs = cfsRq();
  const c = cfsLoad38(cfs);
  const se = entity(1024, true);
  // a queued entity with a saturated history, updated at 100 periods
  Object.assign(sa(se), { loadSum: 47000, runnableAvgPeriod: 47000, lastUpdateTime: 100 * PERIOD });
  se.avg.loadAvg = 1023;
  c.avg = 1023;
  updateCfsRqBlockedLoad(100 * PERIOD, cfs, true);
  dequeueEntityLoadAvg38(100 * PERIOD, cfs, se, true);
  assert.equal(c.avg, 0);
  se.onRq = false;
  assert.equal(c.blockedLoadAvg, 1023);
  // the cfs_rq decays 10 units while se sleeps
  updateCfsRqBlockedLoad(110 * PERIOD, cfs, false);
  assert.equal(c.blockedLoadAvg, 823); // decay_load(1023, 10)
  // the wakeup: __synchronize_entity_decay gives 823, which leaves the blocked load (0 left);
  // then update_entity_load_avg(se, 0) ages the sums over the 10 periods asleep
  const sum0 = sa(se).loadSum;
  enqueueEntityLoadAvg38(110 * PERIOD, cfs, se, true);
  se.onRq = true;
  assert.equal(c.blockedLoadAvg, 0);
  assert.equal(sa(se).decayCount, 0);
  // delta_w = 47000 % 1024 = 920: 104 units complete it, 9 periods and 920 units follow;
  // sum = decay(47000, 10), period = decay(47104, 10) + yN_sum[9] + 920 = 37930 + 8279 + 920
  assert.equal(sum0, 47000);
  assert.equal(sa(se).loadSum, 37846);
  assert.equal(sa(se).runnableAvgPeriod, 47129);
  // 10 periods of sleep out of a saturated history: ~ y^10 = 0.806 of the weight
  assert.equal(se.avg.loadAvg, 822); // 37846 * 1024 / 47130
  assert.equal(c.avg, se.avg.loadAvg);
});

test("a wakeup within the decay unit of the sleep keeps decay_count: migrate_task_rq_fair then takes it as a sleeper", () => {
  const cfs = cfsRq();
  const se = entity(1024, true);
  initTaskRunnableAverage(se, 6_000_000);
  enqueueEntityLoadAvg38(50 * PERIOD, cfs, se, false);
  dequeueEntityLoadAvg38(50 * PERIOD + 100 * US, cfs, se, true);
  se.onRq = false;
  const count = sa(se).decayCount;
  assert.ok(count > 0);
  // woken in the same unit: no decays, __synchronize_entity_decay leaves decay_count alone
  enqueueEntityLoadAvg38(50 * PERIOD + 300 * US, cfs, se, true);
  se.onRq = true;
  assert.equal(sa(se).decayCount, count);
  // moved by the balancer before any decay: dequeue(0), then set_task_cpu
  dequeueEntityLoadAvg38(50 * PERIOD + 500 * US, cfs, se, false);
  se.onRq = false;
  migrateTaskRqFair38(cfs, se);
  assert.equal(sa(se).decayCount, 0);
  assert.equal(cfsLoad38(cfs).removedLoad, se.avg.loadAvg);
});

test("a waking migration leaves its contrib in the old cfs_rq's removed_load and is aged on the new CPU by the carried decays", () => {
  const oldCfs = cfsRq();
  const newCfs = cfsRq();
  const se = entity(1024, true);
  Object.assign(sa(se), { loadSum: 47000, runnableAvgPeriod: 47000, lastUpdateTime: 200 * PERIOD });
  se.avg.loadAvg = 1023;
  cfsLoad38(oldCfs).avg = 1023;
  updateCfsRqBlockedLoad(200 * PERIOD, oldCfs, true);
  dequeueEntityLoadAvg38(200 * PERIOD, oldCfs, se, true);
  se.onRq = false;
  updateCfsRqBlockedLoad(205 * PERIOD, oldCfs, false); // 5 units of decay on the old CPU
  // set_task_cpu -> migrate_task_rq_fair: decay_count = -5, contrib = decay_load(1023, 5)
  migrateTaskRqFair38(oldCfs, se);
  assert.equal(sa(se).decayCount, -5);
  assert.equal(se.avg.loadAvg, 917);
  assert.equal(cfsLoad38(oldCfs).removedLoad, 917);
  // the old cfs_rq subtracts it at its next update: blocked 917 - 917 leaves 0
  assert.equal(cfsLoad38(oldCfs).blockedLoadAvg, 917);
  updateCfsRqBlockedLoad(205 * PERIOD + 10, oldCfs, true);
  assert.equal(cfsLoad38(oldCfs).blockedLoadAvg, 0);
  // on the new CPU: last_runnable_update = now - 5 << 20, aged 5 periods as not runnable
  enqueueEntityLoadAvg38(300 * PERIOD, newCfs, se, true);
  se.onRq = true;
  assert.equal(sa(se).decayCount, 0);
  assert.equal(sa(se).lastUpdateTime, 300 * PERIOD);
  // sum = decay(47000, 5) = 42175, period = decay(47104, 5) + yN_sum[4] + 920 = 47068
  assert.equal(sa(se).loadSum, 42175);
  assert.equal(se.avg.loadAvg, 917); // 42175 * 1024 / 47069, ~ y^5
  assert.equal(cfsLoad38(newCfs).avg, se.avg.loadAvg);
  assert.equal(
    cfsLoad38(newCfs).blockedLoadAvg,
    0,
    "a migrated task was never in the new blocked load",
  );
});

test("3.19 runs the v3.8 form: no set_next_entity update, init from sched_slice, no util; 4.8 and later do not", () => {
  const f = peltFormOf("3.19");
  assert.ok(f?.initNew && f.tick && !f.updatesAtSetNext);
  for (const era of ["4.8", "5.6", "6.19"] as const) {
    const g = peltFormOf(era);
    assert.ok(g && !g.initNew && g.updatesAtSetNext, era);
  }
});

test("3.19 kernel: runnable_load_avg stays the sum of the queued tasks' load_avg_contrib through sleeps, wakeups and balancing; util stays 0", () => {
  const m = machineBuilder().cores(4).build();
  const k = boot(m, "3.19");
  const MS = 1_000_000;
  const tasks = Array.from({ length: 6 }, (_, i) =>
    k.spawn({
      comm: `t${i}`,
      nice: i % 3 === 0 ? 5 : 0,
      program: function* () {
        for (;;) {
          yield run((1 + i) * MS);
          yield sleep((7 - i) * MS);
        }
      },
    }),
  );
  for (let t = 20; t <= 600; t += 7) {
    k.runUntil(t * MS);
    for (const rq of k.rqs) {
      const sum = rq.cfs.tasks.reduce((s, p) => s + p.se.avg.loadAvg, 0);
      const c = cfsLoad38(rq.cfs);
      assert.equal(c.avg, sum, `cpu${rq.cpu} at ${t} ms`);
      assert.ok(c.blockedLoadAvg >= 0 && c.removedLoad >= 0);
      assert.equal(rq.cfs.avg.loadAvg + rq.cfs.avg.utilAvg, 0, "no cfs_rq sums in 3.19");
    }
  }
  for (const p of tasks) {
    assert.equal(p.se.avg.utilAvg, 0);
    assert.ok(p.se.avg.loadAvg > 0 && p.se.avg.loadAvg <= p.se.weight, `${p.comm}`);
  }
  assert.ok(
    tasks.some((p) => p.stats.migrations > 0),
    "the run migrated tasks",
  );
});
