// The PELT code of an era, as the fair class calls it: enqueue_entity_load_avg,
// dequeue_entity_load_avg, update_load_avg, update_cfs_rq_load_avg, migrate_task_rq_fair's part,
// init_entity_runnable_average and post_init_entity_util_avg's attach. v3.8 ... v4.2 run the
// first form (pelt_v38.ts: runnable_avg_sum / runnable_avg_period, load_avg_contrib, blocked
// load), v4.3 ... v4.10 the __update_load_avg form (pelt_v48.ts); later PELT eras run the
// accumulate_sum form (pelt.ts), with runnable_load_avg kept beside it until v5.7 (5.6).
import { ERA_TRAITS, type Era } from "../features";
import {
  DO_ATTACH,
  dequeueRunnableLoad48,
  enqueueRunnableLoad48,
  initEntityRunnableAverage,
  migrateTaskRqFairPelt,
  type PeltCfsRq,
  type PeltEntity,
  updateCfsRqLoadAvg,
  updateLoadAvg,
} from "./pelt";
import {
  attachEntityLoadAvg48,
  dequeueEntityLoadAvg48,
  enqueueEntityLoadAvg48,
  initEntityRunnableAverage48,
  migrateTaskRqFair48,
  updateCfsRqLoadAvg48,
  updateLoadAvg48,
} from "./pelt_v48";
import {
  createSchedAvg38,
  dequeueEntityLoadAvg38,
  enqueueEntityLoadAvg38,
  initTaskRunnableAverage,
  migrateTaskRqFair38,
  updateCfsRqBlockedLoad,
  updateEntityLoadAvg,
} from "./pelt_v38";
import { createSchedAvg } from "../sched";

/** One era's PELT entry points (times are rq_clock_pelt ns; scaleCpu as accumulate_sum's). */
export interface PeltForm {
  /** update_load_avg(cfs_rq, se, 0) while the entity stays where it is. */
  update(now: number, cfs: PeltCfsRq, se: PeltEntity, running: boolean, scaleCpu: number): void;
  /**
   * The PELT part of enqueue_entity (attach a migrated entity, runnable load in 4.x); `wakeup`
   * is flags & ENQUEUE_WAKEUP (v3.8 form only).
   */
  enqueue(
    now: number,
    cfs: PeltCfsRq,
    se: PeltEntity,
    running: boolean,
    scaleCpu: number,
    wakeup: boolean,
  ): void;
  /** The PELT part of dequeue_entity; `sleep` is flags & DEQUEUE_SLEEP (v3.8 form only). */
  dequeue(
    now: number,
    cfs: PeltCfsRq,
    se: PeltEntity,
    running: boolean,
    scaleCpu: number,
    sleep: boolean,
  ): void;
  /** entity_tick's update, when it is more than update (v3.8: the blocked load, forced). */
  tick?(now: number, cfs: PeltCfsRq, se: PeltEntity, running: boolean, scaleCpu: number): void;
  /** set_next_entity updates the load of the entity it makes current (v4.3+; not v3.8). */
  readonly updatesAtSetNext: boolean;
  /** update_cfs_rq_load_avg (update_blocked_averages, the balancer's reads). */
  updateCfsRq(now: number, cfs: PeltCfsRq, scaleCpu: number): boolean;
  /** migrate_task_rq_fair: the entity leaves `oldCfs`; last_update_time = 0 afterwards. */
  migrate(now: number, oldCfs: PeltCfsRq, se: PeltEntity, queued: boolean, scaleCpu: number): void;
  /** init_entity_runnable_average at fork. */
  init(se: PeltEntity): void;
  /**
   * v3.8 ... v4.2: init_task_runnable_average in wake_up_new_task, after the placement, from
   * sched_slice on the chosen cfs_rq (`sliceNs`); post_init_entity_util_avg does not exist then.
   */
  initNew?(se: PeltEntity, sliceNs: number): void;
  /**
   * post_init_entity_util_avg's last step, if the era attaches the new task there (v4.8:
   * update_cfs_rq_load_avg + attach_entity_load_avg) rather than at its first enqueue.
   */
  attachNew?(now: number, cfs: PeltCfsRq, se: PeltEntity, scaleCpu: number): void;
  /**
   * Whether post_init_entity_util_avg scales the cfs_rq's util by se->load.weight in the 20-bit
   * fixed point of 64-bit kernels (v4.7's 2159197d6677 until scale_load_down was applied), which
   * caps every new task's util at half the spare capacity.
   */
  readonly postInitWeightShift: number;
}

/**
 * pelt.ts: accumulate_sum, the 5.x divider. Until v5.7 the cfs_rq also keeps runnable_load_avg:
 * its sum accrues the queued weight over the cfs_rq's own periods, and enqueue / dequeue add and
 * remove the entity's load (enqueue_runnable_load_avg, v4.15 ... v5.6).
 */
function accumulateSumForm(runnableLoad: boolean): PeltForm {
  return {
    update: (now, cfs, se, running, scaleCpu) => {
      updateLoadAvg(now, cfs, se, running, 0, scaleCpu);
    },
    enqueue: (now, cfs, se, running, scaleCpu) => {
      updateLoadAvg(now, cfs, se, running, DO_ATTACH, scaleCpu);
      if (runnableLoad) {
        cfs.runnableLoad ??= { sum: 0, avg: 0 };
        enqueueRunnableLoad48(cfs, se);
      }
    },
    dequeue: (now, cfs, se, running, scaleCpu) => {
      updateLoadAvg(now, cfs, se, running, 0, scaleCpu);
      if (runnableLoad) dequeueRunnableLoad48(cfs, se);
    },
    updateCfsRq: updateCfsRqLoadAvg,
    migrate: migrateTaskRqFairPelt,
    init: initEntityRunnableAverage,
    updatesAtSetNext: true,
    postInitWeightShift: 0,
  };
}

/**
 * pelt_v38.ts: update_entity_load_avg(se, 1) where the kernel calls it (put_prev_entity,
 * entity_tick); the tick also runs update_cfs_rq_blocked_load(cfs_rq, 1).
 */
const runnableAvgForm: PeltForm = {
  update: (now, cfs, se) => updateEntityLoadAvg(now, cfs, se, true),
  tick: (now, cfs, se) => {
    updateEntityLoadAvg(now, cfs, se, true);
    updateCfsRqBlockedLoad(now, cfs, true);
  },
  enqueue: (now, cfs, se, _running, _scaleCpu, wakeup) =>
    enqueueEntityLoadAvg38(now, cfs, se, wakeup),
  dequeue: (now, cfs, se, _running, _scaleCpu, sleep) =>
    dequeueEntityLoadAvg38(now, cfs, se, sleep),
  updateCfsRq: (now, cfs) => updateCfsRqBlockedLoad(now, cfs, true),
  migrate: (_now, oldCfs, se) => migrateTaskRqFair38(oldCfs, se),
  init: (se) => {
    se.avg = createSchedAvg38();
  },
  initNew: initTaskRunnableAverage,
  updatesAtSetNext: false,
  postInitWeightShift: 0,
};

/** pelt_v48.ts: __update_load_avg and its v4.8 callers. */
const updateLoadAvgForm: PeltForm = {
  update: (now, cfs, se, running, scaleCpu) => {
    updateLoadAvg48(now, cfs, se, running, scaleCpu);
  },
  enqueue: enqueueEntityLoadAvg48,
  dequeue: dequeueEntityLoadAvg48,
  updateCfsRq: updateCfsRqLoadAvg48,
  migrate: (_now, oldCfs, se, _queued, scaleCpu) => migrateTaskRqFair48(oldCfs, se, scaleCpu),
  init: (se) => {
    se.avg = createSchedAvg();
    initEntityRunnableAverage48(se);
  },
  attachNew: (now, cfs, se, scaleCpu) => {
    updateCfsRqLoadAvg48(now, cfs, scaleCpu);
    attachEntityLoadAvg48(cfs, se, scaleCpu);
  },
  updatesAtSetNext: true,
  postInitWeightShift: 10,
};

const accumulateSum = accumulateSumForm(false);
const accumulateSumRunnableLoad = accumulateSumForm(true);

/** The PELT form of an era (null before PELT, v3.8). */
export function peltFormOf(era: Era): PeltForm | null {
  const t = ERA_TRAITS[era];
  if (!t.pelt) return null;
  if (t.pelt38) return runnableAvgForm;
  if (t.pelt43) return updateLoadAvgForm;
  return t.runnableLoadAvg ? accumulateSumRunnableLoad : accumulateSum;
}

/** update_cfs_rq_load_avg of the era (the accumulate_sum form where the era has no PELT). */
export function updateCfsRqLoadAvgOf(era: Era): PeltForm["updateCfsRq"] {
  return peltFormOf(era)?.updateCfsRq ?? updateCfsRqLoadAvg;
}
