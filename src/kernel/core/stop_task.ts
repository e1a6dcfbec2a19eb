// kernel/sched/stop_task.c and the class half of kernel/sched/idle.c: the stop class runs the
// per-CPU stopper above everything; the idle class stands for the idle task, which the model
// represents as rq->curr === null, so it has nothing to queue or pick.
import type { Rq, SchedClass, Task } from "../sched";
import type { Machine } from "../../machine/types";
import { attachIdleScopes } from "./idle";
import type { RandomSource } from "../../sim/random";

/** Charges a class without vruntime or RT accounting for its runtime (update_curr_common). */
function updateCurrCommon(now: number, p: Task): void {
  p.se.sumExecRuntime += now - p.se.execStart;
  p.se.execStart = now;
}

/** The stop class: one stopper per CPU (rq->stop), queued or not. */
export class StopClass implements SchedClass {
  readonly name = "stop";
  constructor(
    private readonly clock: { readonly now: number },
    private readonly resched: (rq: Rq) => void,
  ) {}

  enqueueTask(rq: Rq): void {
    rq.stopQueued = true;
  }

  dequeueTask(rq: Rq): boolean {
    rq.stopQueued = false;
    return true;
  }

  /** check_preempt_curr_stop: nothing preempts the stopper; the stopper preempts everything. */
  checkPreemptCurr(rq: Rq): void {
    this.resched(rq);
  }

  pickNextTask(rq: Rq): Task | null {
    if (!rq.stopQueued || !rq.stop) return null;
    rq.stop.se.execStart = this.clock.now;
    return rq.stop;
  }

  putPrevTask(_rq: Rq, p: Task): void {
    updateCurrCommon(this.clock.now, p);
  }

  taskTick(): void {}

  updateCurr(rq: Rq): void {
    if (rq.curr) updateCurrCommon(this.clock.now, rq.curr);
  }
}

/** The idle class: picks nothing (schedule() then runs the idle task, rq->curr = null). */
export class IdleClass implements SchedClass {
  readonly name = "idle";
  constructor(
    private readonly clock: {
      readonly now: number;
      rqs: readonly Rq[];
      machine: Machine;
      random: RandomSource;
    },
  ) {
    // the CPUs whose idle states decide a package C-state, for the exit a wakeup pays (idle.ts)
    attachIdleScopes(clock.rqs, clock.machine, clock.random);
  }
  enqueueTask(): void {}
  dequeueTask(): boolean {
    return true;
  }
  checkPreemptCurr(): void {}
  pickNextTask(): Task | null {
    return null;
  }
  putPrevTask(_rq: Rq, p: Task): void {
    updateCurrCommon(this.clock.now, p);
  }
  taskTick(): void {}
  updateCurr(rq: Rq): void {
    if (rq.curr) updateCurrCommon(this.clock.now, rq.curr);
  }
}
