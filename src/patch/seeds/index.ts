// The published patches, as data.
export { groupPower2009 } from "./group_power_2009";
