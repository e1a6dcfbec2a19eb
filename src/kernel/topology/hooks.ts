// The sched-domain build's patchable decision: how much capacity (cpu_power) a group is worth.
import { defineHook } from "../hooks";
import { defaultGroupCapacity, type GroupCapacityFn } from "./topology";

declare module "../hooks" {
  interface HookTypes {
    /** init_sched_groups_power / update_group_capacity: the capacity (__cpu_power) of a sched group. */
    "topology.group_capacity": GroupCapacityFn;
  }
}

defineHook(
  "topology.group_capacity",
  "init_sched_groups_power / update_group_capacity: the capacity (__cpu_power) of a sched group",
  (era) => defaultGroupCapacity(era),
);
