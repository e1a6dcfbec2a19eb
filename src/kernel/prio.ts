// Priorities and load weights (kernel/sched/core.c sched_prio_to_weight, include/linux/sched/prio.h).

export const MAX_RT_PRIO = 100;
export const DEFAULT_PRIO = 120; // nice 0
export const NICE_0_LOAD = 1024;

/** sched_prio_to_weight[]: nice -20 .. 19. Identical in 2.6.29 (prio_to_weight) and v6.19. */
export const SCHED_PRIO_TO_WEIGHT: readonly number[] = [
  /* -20 */ 88761, 71755, 56483, 46273, 36291, /* -15 */ 29154, 23254, 18705, 14949, 11916,
  /* -10 */ 9548, 7620, 6100, 4904, 3906, /*  -5 */ 3121, 2501, 1991, 1586, 1277, /*   0 */ 1024,
  820, 655, 526, 423, /*   5 */ 335, 272, 215, 172, 137, /*  10 */ 110, 87, 70, 56, 45,
  /*  15 */ 36, 29, 23, 18, 15,
];

/** SCHED_IDLE tasks get WEIGHT_IDLEPRIO. */
export const WEIGHT_IDLEPRIO = 3;

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

export type Policy = "normal" | "batch" | "idle" | "fifo" | "rr";
export const POLICIES: readonly Policy[] = ["normal", "batch", "idle", "fifo", "rr"];

export function isRtPolicy(p: Policy): boolean {
  return p === "fifo" || p === "rr";
}
