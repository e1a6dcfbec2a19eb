// kernel/sched/sched.h, struct root_domain (its RT part) and kernel/sched/rt.c's rt_set_overload /
// rt_clear_overload. Kept apart from rt.ts so the push/pull code and core/api.ts can name it
// without importing the class.
import type { Era } from "../features";
import type { Rq, SchedClass, Task } from "../sched";
import {
  CpuPri,
  CPUPRI_INVALID,
  convertPrio,
  cpupriNumbering,
  rqCpupriPrio,
  type CpupriTask,
} from "./cpupri";

/** What the root domain reads of the kernel to time and charge cpupri's shared lines. */
export interface RdContext {
  /** This context's clock: now + the kernel work charged so far. */
  clock(): number;
  /** The CPU doing the work. */
  cpu(): number;
  /** Add kernel time to this context. */
  charge(ns: number): void;
  /** costs.cacheLineNs between two CPUs. */
  lineNs(a: number, b: number): number;
}

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
  /**
   * The lockless readers' view. A CPU's kernel path runs as one step of the model but takes
   * time (k.chargeNs): an enqueue that refiles a CPU is done at now + chargeNs, after the
   * wakeup's bookkeeping and any spin on the rq lock. Until then another CPU reading cpupri or
   * highest_prio.curr without the lock (cpupri_find, select_task_rq_rt's feasibility test) still
   * sees the old value. `clock` is the reading or writing context's time; the RT class sets it.
   */
  clock: () => number = () => Number.NEGATIVE_INFINITY;
  /** Set by the RT class; null while the kernel is built (nothing is charged then). */
  ctx: RdContext | null = null;
  /**
   * cpupri's shared lines, per level: the CPU that last wrote its count and mask (cpupri_set
   * moves a CPU between two levels, writing both), and which CPUs hold that copy. A reader
   * without it pays a cache-line transfer from the writer for the count, and one more for the
   * mask if the count is not zero (cpupri_find).
   */
  private readonly lineOwner: Int32Array;
  private readonly lineHeld: Uint8Array[];
  /** Per CPU: when its latest highest_prio.curr / cpupri write becomes visible to other CPUs. */
  readonly visibleAt: Float64Array;
  /** Per CPU: the highest_prio.curr readers see before visibleAt. */
  readonly prevHighest: Int32Array;
  /** Per CPU: highest_prio.curr as of the latest write. */
  private readonly lastHighest: Int32Array;
  /** The latest visibleAt of any CPU: readers at or after it see every write (the fast path). */
  private maxVisibleAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly rqs: readonly Rq[],
    era: Era,
  ) {
    const n = rqs.length;
    this.cpupri = new CpuPri(cpupriNumbering(era), n);
    this.rtoMask = new Uint8Array(n);
    this.distributePrev = new Int32Array(n);
    this.lowestMask = new Uint8Array(n);
    this.visibleAt = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
    this.prevHighest = new Int32Array(n);
    this.lastHighest = new Int32Array(n);
    this.lineOwner = new Int32Array(this.cpupri.nrPriorities).fill(-1);
    this.lineHeld = Array.from({ length: this.cpupri.nrPriorities }, () => new Uint8Array(n));
    for (const rq of rqs) this.updateCpupri(rq);
  }

  /** cpupri_set(cpu, highest_prio.curr), or INVALID for an offline CPU. */
  updateCpupri(rq: Rq): void {
    const cpu = rq.cpu;
    const t = this.clock();
    // What other CPUs saw just before this write: the previous write if it is still in flight.
    const seen = t < this.visibleAt[cpu] ? this.prevHighest[cpu] : this.lastHighest[cpu];
    this.prevHighest[cpu] = seen;
    this.lastHighest[cpu] = rq.rt.highestPrio;
    this.visibleAt[cpu] = rq.online ? t : Number.NEGATIVE_INFINITY;
    if (t > this.maxVisibleAt) this.maxVisibleAt = t;
    const prio = rq.online
      ? rqCpupriPrio(this.cpupri.numbering, rq.rt.highestPrio)
      : CPUPRI_INVALID;
    const from = this.cpupri.level(cpu);
    this.cpupri.set(cpu, prio);
    const to = this.cpupri.level(cpu);
    if (this.ctx && from !== to) {
      this.writeLines(from);
      this.writeLines(to);
    }
  }

  /** cpupri_set's writes to one level's count and mask: take both lines exclusive. */
  private writeLines(level: number): void {
    if (level === CPUPRI_INVALID) return;
    const ctx = this.ctx!;
    const me = ctx.cpu();
    if (me < 0) return;
    const owner = this.lineOwner[level];
    if (owner >= 0 && owner !== me) ctx.charge(2 * ctx.lineNs(owner, me));
    this.lineOwner[level] = me;
    const held = this.lineHeld[level];
    held.fill(0);
    held[me] = 1;
  }

  /** cpupri_find's reads of levels 0..upTo: count lines, and the mask of a non-empty level. */
  private readLines(upTo: number): void {
    const ctx = this.ctx;
    if (!ctx) return;
    const me = ctx.cpu();
    if (me < 0) return;
    let ns = 0;
    for (let idx = 0; idx <= upTo && idx < this.lineOwner.length; idx++) {
      const owner = this.lineOwner[idx];
      const held = this.lineHeld[idx];
      if (owner < 0 || held[me]) continue;
      held[me] = 1;
      const line = ctx.lineNs(owner, me);
      ns += this.cpupri.vecCount[idx] > 0 ? 2 * line : line;
    }
    if (ns > 0) ctx.charge(ns);
  }

  /** rq->rt.highest_prio.curr as another CPU reads it without the lock, now. */
  visibleHighestPrio(rq: Rq): number {
    return this.clock() < this.visibleAt[rq.cpu] ? this.prevHighest[rq.cpu] : rq.rt.highestPrio;
  }

  /** cpupri_find over the online CPUs, as a lockless reader sees cpupri now. */
  find(p: CpupriTask, lowestMask: Uint8Array | null): boolean {
    const t = this.clock();
    if (t >= this.maxVisibleAt) {
      const found = this.cpupri.find(p, lowestMask, (cpu) => this.rqs[cpu].online);
      this.readLines(this.scanEnd(p, found, lowestMask));
      return found;
    }
    // Some write is still in flight: the lowest level below p's, CPU by CPU, old level for those.
    const n = this.rqs.length;
    const nb = this.cpupri.numbering;
    const taskPri = convertPrio(nb, p.prio);
    let best = taskPri;
    const levels = new Int32Array(n).fill(CPUPRI_INVALID);
    for (let cpu = 0; cpu < n; cpu++) {
      if (!this.rqs[cpu].online || p.cpusAllowed[cpu] !== 1) continue;
      const lvl =
        t < this.visibleAt[cpu]
          ? convertPrio(nb, rqCpupriPrio(nb, this.prevHighest[cpu]))
          : this.cpupri.level(cpu);
      levels[cpu] = lvl;
      if (lvl !== CPUPRI_INVALID && lvl < best) best = lvl;
    }
    if (best === taskPri) {
      lowestMask?.fill(0);
      this.readLines(taskPri - 1);
      return false;
    }
    if (lowestMask)
      for (let cpu = 0; cpu < n; cpu++) lowestMask[cpu] = levels[cpu] === best ? 1 : 0;
    this.readLines(best);
    return true;
  }

  /** The last level cpupri_find looked at: the one it found, or the one below p's. */
  private scanEnd(p: CpupriTask, found: boolean, mask: Uint8Array | null): number {
    const taskPri = convertPrio(this.cpupri.numbering, p.prio);
    if (!found || !mask) return taskPri - 1;
    for (let cpu = 0; cpu < mask.length; cpu++) if (mask[cpu]) return this.cpupri.level(cpu);
    return taskPri - 1;
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
