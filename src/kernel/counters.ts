// Scheduler-wide counters: what moved, why, and what it cost. Filled by the kernel model and
// copied into IterationResult.sched.

/** Load-balance outcomes of one domain level and idle type (cf. the sd->lb_* schedstats). */
export interface BalanceLevelStats {
  passes: number;
  balanced: number;
  failed: number;
  tasksMoved: number;
  activeBalances: number;
}

/** Scheduler-wide counters: what moved, why, and what it cost (cf. /proc/schedstat). */
export interface SchedCounters {
  /** Every switch of a CPU's current task (rq->nr_switches), out of idle included. */
  contextSwitches: number;
  /**
   * Switches away from a task that blocked, slept or exited: the sum of its nvcsw
   * (__schedule's `!preempt && prev_state`, kernel/sched/core.c).
   */
  voluntarySwitches: number;
  /** Switches away from a task still runnable (preempted or yielding): the sum of nivcsw. */
  involuntarySwitches: number;
  /**
   * Wakeups whose check_preempt_curr set need_resched on the CPU's running task (a fair wakee
   * past check_preempt_wakeup, or a higher-class wakee); wakeups onto an idle CPU not counted.
   */
  wakeupPreemptions: number;
  /**
   * EEVDF (6.6+) eras: the lag each waking entity brings back (se->vlag from its last dequeue,
   * before place_entity scales it), virtual ns. All zero under CFS, which keeps no lag.
   */
  lagAtWakeup: LagStats;
  /** Migrations by reason (see MigrationReason). */
  migrations: Record<string, number>;
  /** Load-balance outcome per domain level name ("MC", "DIE", ...) and idle type. */
  balance: Record<string, BalanceLevelStats>;
  /** Wakeups by where they were placed ("prev", "waker", "idle_sibling", ...). */
  wakePlacement: Record<string, number>;
  /** Wakeups by path ("local", "remote_lock", "wakelist", "wakelist_on_cpu"...). */
  wakePath: Record<string, number>;
  ipis: Record<string, number>;
  /**
   * rq-lock acquisitions and time spent spinning on another CPU's hold, by path: the owner's
   * schedule, tick and ttwu_pending; ttwu_local, ttwu_remote; load_balance, active_balance;
   * rt_push, rt_pull, rt_push_local.
   */
  rqLock: Record<string, { acquisitions: number; waitNs: number }>;
  /** Everything else the kernel counts (rt pushes, stopper runs...). */
  other: Record<string, number>;
  /**
   * select_idle_cpu's scans (5.x eras, the LLC scan of select_idle_sibling); absent from results
   * saved before it existed.
   */
  selectIdleCpu: SelectIdleCpuStats;
}

/**
 * What select_idle_cpu did, as Mel Gorman's select_idle_sibling schedstats count it ("sched/fair:
 * Track efficiency of select_idle_sibling", posted with Message-ID
 * <20210426114112.GE4239@techsingularity.net>; a debugging patch mmtests reads, not in mainline:
 * sis_domain_search, sis_scanned, sis_failed), plus SIS_UTIL's scan depth.
 */
export interface SelectIdleCpuStats {
  /** Calls of select_idle_cpu (sis_domain_search: the fast path found no idle CPU). */
  calls: number;
  /**
   * CPUs whose idleness the scan read (sis_scanned within the LLC scan): each CPU visited, the
   * one that stops the scan at its depth included, and every CPU of a core examined whole.
   */
  scanned: number;
  /** Calls that found no idle CPU (sis_failed, for the LLC scan). */
  failed: number;
  /**
   * SIS_UTIL (6.0+): sd_llc_shared->nr_idle_scan as each call read it, summed, and the calls
   * that read it; nrIdleScanZero counts calls that scanned nothing because it was 0 (an
   * overloaded LLC).
   */
  nrIdleScanSum: number;
  nrIdleScanCalls: number;
  nrIdleScanZero: number;
}

/** Lag at wakeup, summed: count, sum (virtual ns), sum of |lag|, negatives, extremes. */
export interface LagStats {
  count: number;
  sumNs: number;
  sumAbsNs: number;
  /** Wakees that come back with negative lag (they had run ahead of V). */
  negative: number;
  minNs: number;
  maxNs: number;
}

export function newCounters(): SchedCounters {
  return {
    contextSwitches: 0,
    voluntarySwitches: 0,
    involuntarySwitches: 0,
    wakeupPreemptions: 0,
    lagAtWakeup: { count: 0, sumNs: 0, sumAbsNs: 0, negative: 0, minNs: 0, maxNs: 0 },
    migrations: {},
    balance: {},
    wakePlacement: {},
    wakePath: {},
    ipis: {},
    rqLock: {},
    other: {},
    selectIdleCpu: {
      calls: 0,
      scanned: 0,
      failed: 0,
      nrIdleScanSum: 0,
      nrIdleScanCalls: 0,
      nrIdleScanZero: 0,
    },
  };
}

export function bump(rec: Record<string, number>, key: string, n = 1): void {
  rec[key] = (rec[key] ?? 0) + n;
}

export function balanceStats(c: SchedCounters, key: string): BalanceLevelStats {
  let s = c.balance[key];
  if (!s) {
    s = { passes: 0, balanced: 0, failed: 0, tasksMoved: 0, activeBalances: 0 };
    c.balance[key] = s;
  }
  return s;
}

/** The rq-lock paths lockRq counts (the keys of counters.rqLock): a mistyped path does not compile. */
export type RqLockPath =
  | "schedule"
  | "tick"
  | "ttwu_pending"
  | "ttwu_local"
  | "ttwu_remote"
  | "ttwu_runnable"
  | "load_balance"
  | "active_balance"
  | "rt_push"
  | "rt_pull"
  | "rt_push_local";

/** The counters of rq-lock `path` (created on first use). */
export function rqLockStat(
  c: SchedCounters,
  path: RqLockPath,
): { acquisitions: number; waitNs: number } {
  let s = c.rqLock[path];
  if (!s) {
    s = { acquisitions: 0, waitNs: 0 };
    c.rqLock[path] = s;
  }
  return s;
}

/** Records the lag a waking entity brings back (EEVDF: se->vlag before place_entity). */
export function recordWakeupLag(c: SchedCounters, vlag: number): void {
  const l = c.lagAtWakeup;
  if (l.count === 0 || vlag < l.minNs) l.minNs = vlag;
  if (l.count === 0 || vlag > l.maxNs) l.maxNs = vlag;
  l.count++;
  l.sumNs += vlag;
  l.sumAbsNs += Math.abs(vlag);
  if (vlag < 0) l.negative++;
}

/** A deep copy with keys sorted, so results serialise identically run to run. */
export function snapshotCounters(c: SchedCounters): SchedCounters {
  const sortRec = <T>(r: Record<string, T>): Record<string, T> => {
    const out: Record<string, T> = {};
    for (const k of Object.keys(r).sort()) {
      const v = r[k];
      out[k] = typeof v === "object" && v !== null ? ({ ...v } as T) : v;
    }
    return out;
  };
  return {
    contextSwitches: c.contextSwitches,
    voluntarySwitches: c.voluntarySwitches,
    involuntarySwitches: c.involuntarySwitches,
    wakeupPreemptions: c.wakeupPreemptions,
    lagAtWakeup: { ...c.lagAtWakeup },
    migrations: sortRec(c.migrations),
    balance: sortRec(c.balance),
    wakePlacement: sortRec(c.wakePlacement),
    wakePath: sortRec(c.wakePath),
    ipis: sortRec(c.ipis),
    rqLock: sortRec(c.rqLock),
    other: sortRec(c.other),
    selectIdleCpu: { ...c.selectIdleCpu },
  };
}
