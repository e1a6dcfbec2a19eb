// The balancer's capacity in tasks of v3.16 ... v4.0 (kernel/sched/fair.c, read in v3.19):
// sg_capacity_factor, fix_small_capacity and find_busiest_queue's per-CPU factor. v4.1 replaced
// them with group_capacity / group_no_capacity computed from utilization ("sched: Replace
// capacity_factor by usage", Vincent Guittot). The model does not reduce capacity for RT and IRQ
// time (scale_rt_capacity), so a group's capacity_orig is its capacity.
import type { SchedGroup } from "../../topology/sched_domain";
import { SD_SHARE_CPUCAPACITY, type SchedDomain } from "../../topology/sched_domain";

const SCHED_CAPACITY_SCALE = 1024;

/** DIV_ROUND_CLOSEST(x, divisor) of unsigned values. */
const divRoundClosest = (x: number, divisor: number): number =>
  Math.floor((x + Math.floor(divisor / 2)) / divisor);

/**
 * fix_small_capacity: an SMT sibling group (sd has SD_SHARE_CPUCAPACITY) that kept ~90% of its
 * original capacity counts as one task, so ASYM_PACKING can pick it; 0 elsewhere.
 */
export function fixSmallCapacity(sd: SchedDomain, group: SchedGroup): number {
  if (!(sd.flags & SD_SHARE_CPUCAPACITY)) return 0;
  const capacityOrig = group.capacity;
  return group.capacity * 32 > capacityOrig * 29 ? 1 : 0;
}

/**
 * sg_capacity_factor: the group's cores (weight / ceil(weight x 1024 / capacity_orig), so that
 * SMT threads of 589 do not add up to phantom cores), at most its capacity rounded to units of
 * 1024, or fix_small_capacity when that is 0 (a single SMT thread).
 */
export function sgCapacityFactor(sd: SchedDomain, group: SchedGroup): number {
  const capacity = group.capacity;
  const capacityOrig = group.capacity;
  const cpus = group.weight;
  // smt := ceil(cpus / capacity), assumes: 1 < smt_capacity < 2
  const smt = Math.ceil((SCHED_CAPACITY_SCALE * cpus) / capacityOrig);
  let factor = Math.floor(cpus / smt); // cores
  factor = Math.min(factor, divRoundClosest(capacity, SCHED_CAPACITY_SCALE));
  return factor || fixSmallCapacity(sd, group);
}

/**
 * find_busiest_queue's capacity_factor of one CPU: capacity_of(cpu) rounded to units of 1024,
 * or fix_small_capacity of the busiest group when that is 0. A CPU with a factor and a single
 * task heavier than the imbalance is skipped.
 */
export function cpuCapacityFactor(sd: SchedDomain, group: SchedGroup, capacity: number): number {
  return divRoundClosest(capacity, SCHED_CAPACITY_SCALE) || fixSmallCapacity(sd, group);
}
