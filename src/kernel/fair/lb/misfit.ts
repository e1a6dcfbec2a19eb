// The balancer's misfit rules on SD_ASYM_CPUCAPACITY domains (kernel/sched/fair.c), used by the
// 5.x balancer (v5x.ts). The misfit task load balance type came with v4.20 (Morten Rasmussen,
// "sched/fair: Add 'group_misfit_task' load-balance type"); the model's 4.x eras (3.19, 4.8)
// predate it. Per era:
//   update_sg_lb_stats   a non-local, non-idle CPU's rq->misfit_task_load raises the group's
//                        group_misfit_task_load (all 5.x eras; sets SG_OVERLOAD, not modelled:
//                        the newidle gate reads the model's own overload count)
//   update_sd_pick_busiest  a misfit group is only picked if local has spare capacity and the
//                        destination is bigger: 5.6/5.10 group_smaller_max_cpu_capacity(sg,
//                        local) (fits_capacity of the groups' max capacities), 5.14+
//                        capacity_greater(capacity_of(dst_cpu), sg->sgc->max_capacity)
//                        (4aed8aa41524 "sched/fair: Introduce a CPU capacity comparison
//                        helper"); and a has_spare/fully_busy group of bigger CPUs is not
//                        picked (5.6 group_smaller_min_cpu_capacity(local, sg), 5.14+
//                        capacity_greater(sg->sgc->min_capacity, capacity_of(dst_cpu)))
//   find_busiest_queue   skip a CPU with one task that is bigger than dst (5.6: capacity_of(dst)
//                        < capacity, 5.14+: !capacity_greater(capacity_of(dst), capacity))
// calculate_imbalance (migrate_misfit, imbalance 1), detach_tasks (the task that does not fit
// its source CPU), find_busiest_queue's migrate_misfit case (the biggest misfit load) and the
// misfit active balance live with the rest of the 5.x code (v5x.ts, detach.ts).
import type { SchedGroup } from "../../topology/sched_domain";
import { SD_ASYM_CPUCAPACITY } from "../../topology/sched_domain";
import { fitsCapacity } from "../wake/capacity";
import type { LbEnv } from "./types";

/** capacity_greater(cap1, cap2) (5.14+): cap1 is noticeably (~5%) greater than cap2. */
export function capacityGreater(cap1: number, cap2: number): boolean {
  return cap1 * 1024 > cap2 * 1078;
}

/** sgc->min_capacity and sgc->max_capacity: the smallest and largest capacity_of in the group. */
export function groupCapacityRange(env: LbEnv, sg: SchedGroup): { min: number; max: number } {
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (const i of sg.cpus) {
    const c = env.rq(i).cpuCapacity;
    min = Math.min(min, c);
    max = Math.max(max, c);
  }
  return { min, max };
}

/** Whether the domain balances misfit tasks at all: SD_ASYM_CPUCAPACITY. */
export function asymDomain(env: LbEnv): boolean {
  return (env.sd.flags & SD_ASYM_CPUCAPACITY) !== 0;
}

/**
 * update_sd_pick_busiest: "Don't try to pull misfit tasks we can't help" — true when `sg`'s
 * misfit task could not gain capacity on the destination.
 */
export function misfitCannotHelp(env: LbEnv, sg: SchedGroup, local: SchedGroup | null): boolean {
  const sgMax = groupCapacityRange(env, sg).max;
  if (env.features.LB_CAPACITY_GREATER)
    return !capacityGreater(env.rq(env.dstCpu).cpuCapacity, sgMax);
  // group_smaller_max_cpu_capacity(sg, local)
  if (!local) return true;
  return !fitsCapacity(sgMax, groupCapacityRange(env, local).max);
}

/**
 * update_sd_pick_busiest's last test: on SD_ASYM_CPUCAPACITY, do not pull from a group of bigger
 * CPUs that runs no more than one task per CPU (has_spare / fully_busy).
 */
export function biggerGroupNotBusy(env: LbEnv, sg: SchedGroup, local: SchedGroup | null): boolean {
  if (!asymDomain(env)) return false;
  const sgMin = groupCapacityRange(env, sg).min;
  if (env.features.LB_CAPACITY_GREATER)
    return capacityGreater(sgMin, env.rq(env.dstCpu).cpuCapacity);
  // group_smaller_min_cpu_capacity(local, sg)
  if (!local) return false;
  return fitsCapacity(groupCapacityRange(env, local).min, sgMin);
}

/**
 * find_busiest_queue: on SD_ASYM_CPUCAPACITY, skip a CPU running one task whose capacity is not
 * (noticeably) below dst's, which could end in an active balance from big to little.
 */
export function skipBiggerSingleTaskRq(env: LbEnv, capacity: number, nrRunning: number): boolean {
  if (!asymDomain(env) || nrRunning !== 1) return false;
  const dst = env.rq(env.dstCpu).cpuCapacity;
  return env.features.LB_CAPACITY_GREATER ? !capacityGreater(dst, capacity) : dst < capacity;
}
