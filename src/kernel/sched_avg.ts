// struct sched_avg (include/linux/sched.h): the PELT sums and averages of an entity or a cfs_rq,
// with util_est, and cfs_rq->removed. sched.ts re-exports them.

/** struct sched_avg. Sums and averages are integers, as in the kernel. */
export interface SchedAvg {
  lastUpdateTime: number; // ns; 0 = not attached (new or just migrated)
  loadSum: number;
  runnableSum: number;
  utilSum: number;
  periodContrib: number; // 1024-ns units already accrued in the current period
  loadAvg: number;
  runnableAvg: number;
  utilAvg: number;
  /**
   * util_est (v4.17+, fair/util_est.ts). A task: _task_util_est(p), the estimate it adds to its
   * cfs_rq while queued. A cfs_rq: util_est(.enqueued), the sum over its queued tasks. 0 in the
   * eras without it.
   */
  utilEst: number;
  /** A task's util_est.enqueued (v4.17 ... v6.7): its util_avg at its last sleep. */
  utilEstEnqueued: number;
  /** A task's util_est.ewma (the whole util_est from v6.8). */
  utilEstEwma: number;
  /** UTIL_AVG_UNCHANGED: util_avg has not changed since util_est was last updated. */
  utilEstUnchanged: boolean;
}

export function createSchedAvg(): SchedAvg {
  return {
    lastUpdateTime: 0,
    loadSum: 0,
    runnableSum: 0,
    utilSum: 0,
    periodContrib: 0,
    loadAvg: 0,
    runnableAvg: 0,
    utilAvg: 0,
    utilEst: 0,
    utilEstEnqueued: 0,
    utilEstEwma: 0,
    utilEstUnchanged: false,
  };
}

/** cfs_rq->removed: contributions of tasks that left while blocked, folded in at the next update. */
export interface PeltRemoved {
  nr: number;
  loadAvg: number;
  utilAvg: number;
  runnableAvg: number;
}

export function createPeltRemoved(): PeltRemoved {
  return { nr: 0, loadAvg: 0, utilAvg: 0, runnableAvg: 0 };
}
