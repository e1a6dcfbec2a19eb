// The published patches, as data.
export { groupPower2009 } from "./group_power_2009";
export { numaImbalance2020 } from "./numa_imbalance_2020";
export { rtFeasibleTarget2015 } from "./rt_feasible_target_2015";
export { rtEqualPrio2015 } from "./rt_equal_prio_2015";
export { idleSlack2016 } from "./idle_slack_2016";
export { wakelistPatch1, wakelistPatch2 } from "./wakelist_2022";
