// The idle loop and a menu-like cpuidle governor: when a CPU goes idle it picks the deepest
// state whose target residency fits the predicted idle time; a wakeup then pays that state's
// exit latency, unless the state polls (need_resched is noticed without an IPI).
import type { IdleState } from "../../machine/types";
import type { Rq } from "../sched";

/** Weight of the newest sample in the running prediction (update_avg-style 1/8). */
const PREDICT_SHIFT = 3;

export function selectIdleState(states: readonly IdleState[], rq: Rq): number {
  if (states.length === 0) return -1;
  const predicted = rq.avgIdleNs;
  let best = 0;
  for (let i = 1; i < states.length; i++) {
    if (states[i].targetResidencyNs <= predicted) best = i;
  }
  return best;
}

/** Records an observed idle period into the governor's prediction. */
export function recordIdle(rq: Rq, observedNs: number): void {
  rq.avgIdleNs += (observedNs - rq.avgIdleNs) / (1 << PREDICT_SHIFT);
}

export function exitLatencyNs(states: readonly IdleState[], rq: Rq): number {
  if (rq.curr !== null || rq.idleStateIdx < 0) return 0;
  return states[rq.idleStateIdx].exitLatencyNs;
}

export function isPolling(states: readonly IdleState[], rq: Rq): boolean {
  return rq.curr === null && rq.idleStateIdx >= 0 && states[rq.idleStateIdx].polling;
}
