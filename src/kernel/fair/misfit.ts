// Misfit tasks on asymmetric-capacity machines (kernel/sched/fair.c, v4.20+: "sched/fair: Add
// 'group_misfit_task' load-balance type", Morten Rasmussen): update_misfit_status() marks a
// runqueue whose current task does not fit its CPU (rq->misfit_task_load = task_h_load(p), at
// least 1). It runs when pick_next_task_fair picks a task (or finds none) and from
// task_tick_fair. 6.10+ also clears it when the CPU already has the largest capacity the task's
// affinity allows ("sched/fair: Check if a task has a fitting CPU when updating misfit",
// p->max_allowed_capacity).
//
// What the balancer does with rq->misfit_task_load (group_misfit_task in update_sg_lb_stats and
// group_classify, migrate_misfit in calculate_imbalance / detach_tasks / find_busiest_queue,
// the misfit active balance and nohz kick) is not wired into lb/ yet: this module gives the
// classification the balancer would read.
import type { SchedCore } from "../core/api";
import { eraAtLeast } from "../features";
import type { Rq, Task } from "../sched";
import { taskFitsCapacity } from "./wake/capacity";

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
  if (!k.domains.asymCpucapacity || !eraAtLeast(k.era, "4.20")) return;
  if (
    !p ||
    p.nrCpusAllowed === 1 ||
    (eraAtLeast(k.era, "6.10") && rq.cpuCapacityOrig === maxAllowedCapacity(k, p)) ||
    taskFitsCapacity(p, rq.cpuCapacity)
  ) {
    rq.misfitTaskLoad = 0;
    return;
  }
  // task_h_load(p) without task groups is p's load_avg; never 0 for a misfit rq.
  rq.misfitTaskLoad = Math.max(p.se.avg.loadAvg, 1);
}
