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
  contextSwitches: number;
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
}

export function newCounters(): SchedCounters {
  return {
    contextSwitches: 0,
    migrations: {},
    balance: {},
    wakePlacement: {},
    wakePath: {},
    ipis: {},
    rqLock: {},
    other: {},
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

export function rqLockStat(
  c: SchedCounters,
  path: string,
): { acquisitions: number; waitNs: number } {
  let s = c.rqLock[path];
  if (!s) {
    s = { acquisitions: 0, waitNs: 0 };
    c.rqLock[path] = s;
  }
  return s;
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
    migrations: sortRec(c.migrations),
    balance: sortRec(c.balance),
    wakePlacement: sortRec(c.wakePlacement),
    wakePath: sortRec(c.wakePath),
    ipis: sortRec(c.ipis),
    rqLock: sortRec(c.rqLock),
    other: sortRec(c.other),
  };
}
