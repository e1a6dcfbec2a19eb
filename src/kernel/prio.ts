// Priorities and load weights (kernel/sched/core.c sched_prio_to_weight, include/linux/sched/prio.h).

import { DEFAULT_PRIO, MAX_RT_PRIO, type Policy, type Task, WEIGHT_IDLEPRIO } from "./sched";

export { DEFAULT_PRIO, MAX_RT_PRIO, NICE_0_LOAD, WEIGHT_IDLEPRIO, type Policy } from "./sched";

/** sched_prio_to_weight[]: nice -20 .. 19. Identical in 2.6.29 (prio_to_weight) and v6.19. */
export const SCHED_PRIO_TO_WEIGHT: readonly number[] = [
  /* -20 */ 88761, 71755, 56483, 46273, 36291, /* -15 */ 29154, 23254, 18705, 14949, 11916,
  /* -10 */ 9548, 7620, 6100, 4904, 3906, /*  -5 */ 3121, 2501, 1991, 1586, 1277, /*   0 */ 1024,
  820, 655, 526, 423, /*   5 */ 335, 272, 215, 172, 137, /*  10 */ 110, 87, 70, 56, 45,
  /*  15 */ 36, 29, 23, 18, 15,
];

/** The load weight of a nice value (sched_prio_to_weight[nice + 20]); throws outside -20..19. */
export function niceToWeight(nice: number): number {
  if (!Number.isInteger(nice) || nice < -20 || nice > 19) {
    throw new Error(`nice must be an integer from -20 to 19 (got ${nice})`);
  }
  return SCHED_PRIO_TO_WEIGHT[nice + 20];
}

export function niceToPrio(nice: number): number {
  return DEFAULT_PRIO + nice;
}

/** RT: prio = MAX_RT_PRIO - 1 - rt_priority (rt_priority 1..99, higher is more important). */
export function rtPriorityToPrio(rtPriority: number): number {
  if (!Number.isInteger(rtPriority) || rtPriority < 1 || rtPriority > 99) {
    throw new Error(`rtPriority must be an integer from 1 to 99 (got ${rtPriority})`);
  }
  return MAX_RT_PRIO - 1 - rtPriority;
}

export const POLICIES: readonly Policy[] = ["normal", "batch", "idle", "fifo", "rr"];

export function isRtPolicy(p: Policy): boolean {
  return p === "fifo" || p === "rr";
}

/** Sets policy/nice/prio, the class and the load weight the way __setscheduler/set_user_nice do. */
export function setSchedParams(p: Task, policy: Policy, nice: number, rtPriority: number): void {
  p.policy = policy;
  p.nice = nice;
  p.rtPriority = rtPriority;
  if (isRtPolicy(policy)) {
    p.prio = rtPriorityToPrio(rtPriority);
    p.schedClass = "rt";
  } else {
    p.prio = DEFAULT_PRIO + nice;
    p.schedClass = "fair";
  }
  p.se.weight = policy === "idle" ? WEIGHT_IDLEPRIO : niceToWeight(nice);
}
