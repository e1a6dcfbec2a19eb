// Where a CPU's time goes (cf. kernel/sched/cputime.c): task runtime (sum_exec_runtime, counted
// by the classes), idle periods, and kernel work with no task to charge it to (overheadNs:
// schedule() into idle, an interrupt handled on an idle CPU). Per CPU, runtime + idle +
// overhead + offline = the run's duration.
import type { Rq } from "../sched";
import type { SchedCore } from "./api";

/** This context's kernel work (chargeNs) on a CPU without a task: idle (re)starts after it. */
export function idleWork(k: SchedCore, rq: Rq): void {
  const ns = k.chargeNs;
  k.chargeNs = 0;
  if (ns <= 0) return;
  splitIdle(k, rq);
  rq.idleSince += ns;
  k.overheadNs[rq.cpu] += ns;
}

/** Accounts the idle time of an idle CPU up to now (an interrupt begins; nothing is charged). */
export function splitIdle(k: SchedCore, rq: Rq): void {
  if (rq.idleSince < k.now) {
    rq.idleNs += k.now - rq.idleSince;
    rq.idleSince = k.now;
  }
}

/**
 * Closes the idle period at now. Returns the kernel work begun on the idle CPU that is still
 * pending past now (taken off overheadNs: the caller charges it elsewhere or drops it).
 */
export function closeIdle(k: SchedCore, rq: Rq): number {
  const idle = k.now - rq.idleSince;
  rq.idleSince = k.now;
  if (idle >= 0) {
    rq.idleNs += idle;
    return 0;
  }
  k.overheadNs[rq.cpu] += idle;
  return -idle;
}

/** Accounts open idle periods and running time up to now (end of a run). */
export function flushAccounting(k: SchedCore): void {
  for (const rq of k.rqs) {
    if (!rq.online) {
      rq.offlineNs += k.now - rq.offlineSince;
      rq.offlineSince = k.now;
    } else if (rq.curr) {
      k.classFor(rq.curr).updateCurr(rq);
    } else {
      closeIdle(k, rq);
    }
  }
}
