// kernel/sched/sched.h, struct root_domain (its RT part) and kernel/sched/rt.c's rt_set_overload /
// rt_clear_overload. Kept apart from rt.ts so the push/pull code and core/api.ts can name it
// without importing the class.
import type { Era } from "../features";
import type { Rq, SchedClass, Task } from "../sched";
import { CpuPri, CPUPRI_INVALID, cpupriNumbering, rqCpupriPrio, type CpupriTask } from "./cpupri";

/**
 * The RT part of struct root_domain. One root domain spans all CPUs (no exclusive cpusets).
 */
export class RtRootDomain {
  readonly cpupri: CpuPri;
  /** rto_mask / rto_count: CPUs whose rt_rq is overloaded. */
  readonly rtoMask: Uint8Array;
  rtoCount = 0;
  /** RT_PUSH_IPI iterator state: rto_cpu, rto_loop, rto_loop_next. */
  rtoCpu = -1;
  rtoLoop = 0;
  rtoLoopNext = 0;
  /** Per-CPU cursor of cpumask_any_and_distribute (distribute_cpu_mask_prev, 5.10+). */
  readonly distributePrev: Int32Array;
  /** find_lowest_rq's local_cpu_mask; one is enough, the model runs one CPU at a time. */
  readonly lowestMask: Uint8Array;

  constructor(
    private readonly rqs: readonly Rq[],
    era: Era,
  ) {
    const n = rqs.length;
    this.cpupri = new CpuPri(cpupriNumbering(era), n);
    this.rtoMask = new Uint8Array(n);
    this.distributePrev = new Int32Array(n);
    this.lowestMask = new Uint8Array(n);
    for (const rq of rqs) this.updateCpupri(rq);
  }

  /** cpupri_set(cpu, highest_prio.curr), or INVALID for an offline CPU. */
  updateCpupri(rq: Rq): void {
    const prio = rq.online
      ? rqCpupriPrio(this.cpupri.numbering, rq.rt.highestPrio)
      : CPUPRI_INVALID;
    this.cpupri.set(rq.cpu, prio);
  }

  /** cpupri_find over the online CPUs. */
  find(p: CpupriTask, lowestMask: Uint8Array | null): boolean {
    return this.cpupri.find(p, lowestMask, (cpu) => this.rqs[cpu].online);
  }

  /** rt_set_overload (only for an online rq, as in the kernel). */
  setOverload(rq: Rq): void {
    if (!rq.online || this.rtoMask[rq.cpu]) return;
    this.rtoMask[rq.cpu] = 1;
    this.rtoCount++;
  }

  /** rt_clear_overload; keyed on the mask bit so a CPU that went offline unwired cannot leak one. */
  clearOverload(rq: Rq): void {
    if (!this.rtoMask[rq.cpu]) return;
    this.rtoMask[rq.cpu] = 0;
    this.rtoCount--;
  }
}

/** What the RT push/pull code needs of the RT class beyond struct sched_class. */
export interface RtClassApi extends SchedClass {
  readonly rd: RtRootDomain;
  /** ->balance: pull before the pick (schedule() calls it after put_prev). */
  balance(rq: Rq, prev: Task | null): void;
  /** highest_prio.next: the best pushable prio. */
  highestPrioNext(rq: Rq): number;
}
