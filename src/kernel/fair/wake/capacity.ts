// Wakeup placement on asymmetric-capacity machines (kernel/sched/fair.c), active only while
// sched_asym_cpucapacity is set (DomainTree.asymCpucapacity: some domain has
// SD_ASYM_CPUCAPACITY, v5.0+ detection):
//   5.6    wake_cap(): no affine wakeup when p does not fit the smaller of this_cpu and prev_cpu
//          (and those differ from the biggest CPU by 1/8 or more); the wakeup then takes the slow
//          path over the SD_BALANCE_WAKE domains that sd_init set below the asymmetric level.
//   5.7+   select_idle_sibling checks that target / prev / recent_used_cpu fit p
//          (asym_fits_capacity, 6.x asym_fits_cpu) and scans sd_asym_cpucapacity with
//          select_idle_capacity (the first idle CPU p fits, else the idle CPU of the largest
//          capacity) instead of the LLC ("sched/fair: Add asymmetric CPU capacity wakeup scan",
//          v5.7).
// task_util_est() is max(util_avg, util_est) (fair/util_est.ts). uclamp is not modelled, so 6.x
// util_fits_cpu() reduces to fits_capacity(util, capacity_of(cpu)).
import type { SchedCore } from "../../core/api";
import type { Task } from "../../sched";
import { syncEntityLoadAvg } from "../pelt";
import type { SchedDomain } from "../../topology/sched_domain";
import { idleOrSchedIdle } from "./common";
import { taskUtilEst } from "../util_est";

/** fits_capacity(cap, max): cap is below ~80% of max (cap * 1280 < max * 1024). */
export function fitsCapacity(cap: number, max: number): boolean {
  return cap * 1280 < max * 1024;
}

/** task_fits_capacity(p, capacity) (4.20 ... 6.1; task_fits_cpu later, same without uclamp). */
export function taskFitsCapacity(p: Task, capacity: number): boolean {
  return fitsCapacity(taskUtilEst(p), capacity);
}

/** sync_entity_load_avg(&p->se) against the cfs_rq p last ran on. */
export function syncTaskUtil(k: SchedCore, p: Task): void {
  syncEntityLoadAvg(k.rqs[p.cpu].cfs, p.se);
}

/** asym_fits_capacity / asym_fits_cpu: true on symmetric machines. */
export function asymFitsCpu(k: SchedCore, util: number, cpu: number): boolean {
  return !k.domains.asymCpucapacity || fitsCapacity(util, k.rqs[cpu].cpuCapacity);
}

/** wake_cap() of 5.6: whether the affine fast path is skipped because p fits neither CPU. */
export function wakeCap(k: SchedCore, p: Task, cpu: number, prevCpu: number): boolean {
  if (!k.domains.asymCpucapacity) return false;
  const minCap = Math.min(k.rqs[prevCpu].cpuCapacityOrig, k.rqs[cpu].cpuCapacityOrig);
  // rd->max_cpu_capacity: the largest cpu_capacity_orig of the root domain
  let maxCap = 0;
  for (const c of k.domains.online) maxCap = Math.max(maxCap, k.rqs[c].cpuCapacityOrig);
  // Minimum capacity is close to max, no need to abort wake_affine.
  if (maxCap - minCap < maxCap >> 3) return false;
  syncTaskUtil(k, p);
  return !taskFitsCapacity(p, minCap);
}

/**
 * select_idle_capacity (5.7+): over sd_asym_cpucapacity from target, the first idle CPU whose
 * capacity_of fits p, else the idle CPU with the largest capacity_of, else -1.
 */
export function selectIdleCapacity(k: SchedCore, p: Task, sd: SchedDomain, target: number): number {
  const util = taskUtilEst(p);
  const span = sd.span;
  const n = span.length;
  let start = span.indexOf(target);
  if (start < 0) start = 0;
  let bestCap = 0;
  let bestCpu = -1;
  for (let j = 0; j < n; j++) {
    const cpu = span[(start + j) % n];
    if (!p.cpusAllowed[cpu] || !idleOrSchedIdle(k, cpu)) continue;
    const cap = k.rqs[cpu].cpuCapacity;
    if (fitsCapacity(util, cap)) return cpu;
    if (cap > bestCap) {
      bestCap = cap;
      bestCpu = cpu;
    }
  }
  return bestCpu;
}
