// Asymmetric CPU capacity detection of kernel/sched/topology.c: which domains get
// SD_ASYM_CPUCAPACITY (and SD_ASYM_CPUCAPACITY_FULL), from arch_scale_cpu_capacity() of each
// CPU (Machine cpus[].capacity, sysfs cpu_capacity on arm64).
//
//   v5.0 ... v5.13  asym_cpu_capacity_level(): one topology level, the lowest at which every CPU
//                   sees a CPU of the highest capacity above its own ("sched/topology: Add
//                   SD_ASYM_CPUCAPACITY flag detection"); sd_init of v5.0 ... v5.6 also sets
//                   SD_BALANCE_WAKE on that domain and every domain below it (removed in v5.7,
//                   LKML Message-ID 20200206191957.12325-3-valentin.schneider@arm.com).
//   v5.14+          asym_cpu_capacity_scan() / asym_cpu_capacity_classify(): every domain whose span
//                   holds two or more capacities gets SD_ASYM_CPUCAPACITY, and _FULL when it holds
//                   every capacity present in cpu_map ("sched/topology: Rework CPU capacity
//                   asymmetry detection").
// Both: sd_init clears SD_PREFER_SIBLING on the child of an asymmetric domain ("Don't attempt to
// spread across CPUs of different capacities"). Eras before v5.0 never set the flag.
import type { Machine } from "../../machine/types";
import { type Era, eraAtLeast } from "../features";
import {
  SD_ASYM_CPUCAPACITY,
  SD_ASYM_CPUCAPACITY_FULL,
  SD_BALANCE_WAKE,
  SD_PREFER_SIBLING,
  type SchedDomain,
} from "./sched_domain";
import type { TopologyLevel } from "./levels";

/** Whether the era detects capacity asymmetry at all (v5.0+). */
export const hasAsymDetection = (era: Era): boolean => eraAtLeast(era, "5.0");
/** Whether the era classifies each domain (v5.14+), rather than picking one level. */
export const hasAsymClassify = (era: Era): boolean => eraAtLeast(era, "5.14");

/**
 * asym_cpu_capacity_level (v5.0 ... v5.13): the index of the level to flag, or -1 when every
 * online CPU has the same capacity.
 */
export function asymCpuCapacityLevel(
  machine: Machine,
  levels: TopologyLevel[],
  online: boolean[],
): number {
  const cap = (c: number) => machine.cpus[c].capacity;
  const cpuMap = machine.cpus.filter((c) => online[c.id]).map((c) => c.id);
  if (cpuMap.every((c) => cap(c) === cap(cpuMap[0]))) return -1;
  let asymLevel = 0;
  let asymTl = -1;
  // From every CPU's point of view, the lowest level where a higher-capacity CPU is visible.
  for (const i of cpuMap) {
    let maxCapacity = cap(i);
    for (let tl = 0; tl < levels.length; tl++) {
      if (tl < asymLevel) continue;
      for (const j of levels[tl].mask(i)) {
        if (!online[j] || cap(j) <= maxCapacity) continue;
        maxCapacity = cap(j);
        asymLevel = tl;
        asymTl = tl;
      }
    }
  }
  return asymTl;
}

/**
 * asym_cpu_capacity_classify (v5.14+): SD_ASYM_CPUCAPACITY when `span` holds two or more of the
 * system's capacities, with _FULL when no capacity present in cpu_map is missing from it. The
 * capacity list comes from every possible CPU (asym_cpu_capacity_scan); a symmetric system has
 * no list at all.
 */
export function asymCpuCapacityClassify(
  machine: Machine,
  span: readonly number[],
  online: boolean[],
): number {
  // Symmetric: no capacity list. Tested without building the set, as every domain asks.
  const cpus = machine.cpus;
  if (cpus.every((c) => c.capacity === cpus[0].capacity)) return 0;
  const caps = new Set(cpus.map((c) => c.capacity));
  const inSpan = new Set(span.map((c) => machine.cpus[c].capacity));
  const inMap = new Set(machine.cpus.filter((c) => online[c.id]).map((c) => c.capacity));
  let count = 0;
  let miss = 0;
  for (const cap of caps) {
    if (inSpan.has(cap)) count++;
    else if (inMap.has(cap)) miss++;
  }
  if (count < 2) return 0;
  return miss ? SD_ASYM_CPUCAPACITY : SD_ASYM_CPUCAPACITY | SD_ASYM_CPUCAPACITY_FULL;
}

/**
 * sd_init's asymmetry step for a freshly built domain: its flags from the era's detection, and
 * what that does to the domains below (child loses SD_PREFER_SIBLING; v5.0 ... v5.6 add
 * SD_BALANCE_WAKE to the domain and every domain below).
 */
export function applyAsymFlags(sd: SchedDomain, era: Era, asymFlags: number): void {
  if (!(asymFlags & SD_ASYM_CPUCAPACITY)) return;
  sd.flags |= asymFlags;
  if (sd.child) sd.child.flags &= ~SD_PREFER_SIBLING;
  if (!eraAtLeast(era, "5.7")) {
    for (let t: SchedDomain | null = sd; t; t = t.child) t.flags |= SD_BALANCE_WAKE;
  }
}
