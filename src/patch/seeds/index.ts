// The published patches, as data.
export { groupPower2009 } from "./group_power_2009";
export { numaImbalance2020 } from "./numa_imbalance_2020";
export { idleSlack2016 } from "./idle_slack_2016";
