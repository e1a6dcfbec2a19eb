// The published patches, as data.
export { groupPower2009 } from "./group_power_2009";
export { numaImbalance2020 } from "./numa_imbalance_2020";
export { wakelistPatch1, wakelistPatch2 } from "./wakelist_2022";
