// Misfit tasks on asymmetric-capacity machines (kernel/sched/fair.c, v4.20+: "sched/fair: Add
// 'group_misfit_task' load-balance type", Morten Rasmussen): update_misfit_status() marks a
// runqueue whose current task does not fit its CPU (rq->misfit_task_load = task_h_load(p), at
// least 1). It runs when pick_next_task_fair picks a task (or finds none) and from
// task_tick_fair. 6.10+ also clears it when the CPU already has the largest capacity the task's
// affinity allows ("sched/fair: Check if a task has a fitting CPU when updating misfit",
// p->max_allowed_capacity).
//
// The balancer reads rq->misfit_task_load through its rq view (lb/views.ts): group_misfit_task
// in update_sg_lb_stats / group_classify and migrate_misfit (lb/v5x.ts, lb/misfit.ts,
// lb/detach.ts), the misfit active balance, and the nohz kick below (check_misfit_status).
import type { SchedCore } from "../core/api";
import { eraAtLeastFn } from "../features";
import type { Rq, Task } from "../sched";
import { taskFitsCapacity } from "./wake/capacity";

const atLeast420 = eraAtLeastFn("4.20");
const atLeast610 = eraAtLeastFn("6.10");

/**
 * p->max_allowed_capacity (6.10+): the largest arch capacity among the CPUs p may run on
 * (set_task_max_allowed_capacity walks asym_cap_list, largest first).
 */
export function maxAllowedCapacity(k: SchedCore, p: Task): number {
  let max = 0;
  for (const cpu of k.domains.online)
    if (p.cpusAllowed[cpu]) max = Math.max(max, k.rqs[cpu].cpuCapacityOrig);
  return max;
}

/** update_misfit_status(p, rq): sets or clears rq.misfitTaskLoad (a no-op on symmetric systems). */
export function updateMisfitStatus(k: SchedCore, p: Task | null, rq: Rq): void {
  if (!k.domains.asymCpucapacity || !atLeast420(k.era)) return;
  if (
    !p ||
    p.nrCpusAllowed === 1 ||
    (atLeast610(k.era) && rq.cpuCapacityOrig === maxAllowedCapacity(k, p)) ||
    taskFitsCapacity(p, rq.cpuCapacity)
  ) {
    rq.misfitTaskLoad = 0;
    return;
  }
  // task_h_load(p) without task groups is p's load_avg; never 0 for a misfit rq.
  rq.misfitTaskLoad = Math.max(p.se.avg.loadAvg, 1);
}

/**
 * check_misfit_status(rq, sd): rq has a misfit task and a bigger CPU exists
 * (rd->max_cpu_capacity), or RT/IRQ pressure reduced its capacity (check_cpu_capacity).
 */
export function checkMisfitStatus(k: SchedCore, rq: Rq, imbalancePct: number): boolean {
  if (!rq.misfitTaskLoad) return false;
  let maxCap = 0;
  for (const cpu of k.domains.online) maxCap = Math.max(maxCap, k.rqs[cpu].cpuCapacityOrig);
  return rq.cpuCapacityOrig < maxCap || rq.cpuCapacity * imbalancePct < rq.cpuCapacityOrig * 100;
}

/**
 * nohz_balancer_kick's SD_ASYM_CPUCAPACITY step (4.20+, 5fbdfae5221a "sched/fair: Kick nohz
 * balance if rq->misfit_task_load"; the LLC logic is skipped there since b9a7b8831600, v5.1):
 * "kick" when rq's misfit task could run on a bigger CPU, "skip" (no kick from the LLC busy
 * count) on other CPUs of an asymmetric machine, null where there is no sd_asym_cpucapacity.
 * Reached by a CPU running fewer than two tasks.
 */
export function nohzMisfitKick(k: SchedCore, rq: Rq): "kick" | "skip" | null {
  const sd = k.domains.sdAsymCpucapacity[rq.cpu];
  if (!sd || !atLeast420(k.era)) return null;
  return checkMisfitStatus(k, rq, sd.imbalancePct) ? "kick" : "skip";
}
