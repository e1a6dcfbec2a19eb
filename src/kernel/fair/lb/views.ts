// The balancer's views (LbRq, LbTask) over the core's runqueues and tasks. They read live
// state through getters, so one view object per rq/task serves every balance pass.
import type { SchedCore } from "../../core/api";
import type { Rq } from "../../sched";
import type { Task } from "../../sched";
import type { LbRq, LbTask } from "./types";
import { rqLoadWeight2629 } from "../cpu_load";
import { taskUtilEst } from "../util_est";
import { ERA_TRAITS, eraAtLeastFn } from "../../features";

const atLeast66 = eraAtLeastFn("6.6");

export class TaskView implements LbTask {
  constructor(
    readonly p: Task,
    private readonly k: SchedCore,
  ) {
    this.pelt = ERA_TRAITS[k.era].pelt;
  }
  /** PELT is tracked (3.8+); before, the balancer reads the load weight. */
  private readonly pelt: boolean;
  get pid(): number {
    return this.p.pid;
  }
  get weight(): number {
    return this.p.se.weight;
  }
  get loadAvg(): number {
    return this.pelt ? this.p.se.avg.loadAvg : this.p.se.weight;
  }
  /** task_util_est(p) (detach_tasks' migrate_util and migrate_misfit). */
  get utilAvg(): number {
    return taskUtilEst(this.p);
  }
  get running(): boolean {
    return this.p.onCpu;
  }
  get cpusAllowed(): ReadonlySet<number> | null {
    const p = this.p;
    if (p.nrCpusAllowed === p.cpusAllowed.length) return null;
    const s = new Set<number>();
    p.cpusAllowed.forEach((v, i) => {
      if (v) s.add(i);
    });
    return s;
  }
  get execStart(): number {
    return this.p.se.execStart;
  }
  get isBuddy(): boolean {
    // task_hot's CACHE_HOT_BUDDY test: the next buddy in 2.6.29 (sched.c) and EEVDF (6.6+),
    // next or last in between (4.8 fair.c).
    const cfs = this.k.rqs[this.p.cpu].cfs;
    if (cfs.next === this.p) return true;
    const era = this.k.era;
    return cfs.last === this.p && ERA_TRAITS[era].family !== "2.6" && !atLeast66(era);
  }
  get idlePolicy(): boolean {
    return this.p.policy === "idle";
  }
}

export class RqView implements LbRq {
  constructor(
    readonly rq: Rq,
    private readonly k: SchedCore,
  ) {}
  get cpu(): number {
    return this.rq.cpu;
  }
  get nrRunning(): number {
    return this.rq.nrRunning;
  }
  get cfsHNrRunning(): number {
    return this.rq.cfs.hNrRunning;
  }
  /** rq->load.weight: with RT tasks in 2.6.29 (see rqLoadWeight2629), the fair load after. */
  get loadWeight(): number {
    return ERA_TRAITS[this.k.era].family === "2.6"
      ? rqLoadWeight2629(this.rq)
      : this.rq.cfs.loadWeight;
  }
  /** 4.x cfs_rq->runnable_load_avg as last updated (weighted_cpuload reads it unrefreshed). */
  get runnableLoadAvg(): number {
    const rl = this.rq.cfs.runnableLoad;
    if (rl) return rl.avg;
    let s = 0;
    for (const p of this.rq.cfs.tasks) s += p.se.avg.loadAvg;
    return s;
  }
  get cpuLoad(): readonly number[] {
    return this.rq.cpuLoad;
  }
  // cfs_rq->avg as last updated (cpu_load, cpu_util, cpu_runnable), as the kernel reads another
  // CPU's; idle CPUs' blocked load decays through update_blocked_averages (balance.ts,
  // nohz_blocked.ts). 2.6.29 has no PELT and reads none of these.
  get cfsLoadAvg(): number {
    return this.rq.cfs.avg.loadAvg;
  }
  get cfsUtilAvg(): number {
    return this.rq.cfs.avg.utilAvg;
  }
  /** cfs_rq->avg.util_est: the queued tasks' estimates (0 without UTIL_EST). */
  get cfsUtilEst(): number {
    return this.rq.cfs.avg.utilEst;
  }
  get cfsRunnableAvg(): number {
    return this.rq.cfs.avg.runnableAvg;
  }
  get cpuCapacity(): number {
    return this.rq.cpuCapacity;
  }
  get cpuCapacityOrig(): number {
    return this.rq.cpuCapacityOrig;
  }
  get idle(): boolean {
    return this.rq.isIdle();
  }
  /** rq->misfit_task_load (update_misfit_status; 0 on symmetric machines). */
  get misfitTaskLoad(): number {
    return this.rq.misfitTaskLoad;
  }
  get activeBalance(): boolean {
    return this.rq.activeBalance;
  }
  get curr(): LbTask | null {
    const c = this.rq.curr;
    return c && c.schedClass !== "stop" ? this.k.lbTask(c) : null;
  }
  get cfsTasks(): readonly LbTask[] {
    return this.rq.cfs.tasks.map((p) => this.k.lbTask(p));
  }
}
