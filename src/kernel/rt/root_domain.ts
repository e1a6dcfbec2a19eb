// kernel/sched/sched.h, struct root_domain (its RT part) and kernel/sched/rt.c's rt_set_overload /
// rt_clear_overload. Kept apart from rt.ts so the push/pull code and core/api.ts can name it
// without importing the class.
import type { Era } from "../features";
import type { Rq, SchedClass, Task } from "../sched";
import { MAX_RT_PRIO } from "../sched";
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
  /**
   * pull_rt_task's unlocked reads (3.19 rt.c): rt_overloaded() reads rto_count, for_each_cpu
   * walks rto_mask, and each source's rt.highest_prio.next decides whether its lock is taken.
   * A write is visible to other CPUs from the writer's clock, as for cpupri; the lines come from
   * their last writer. So CPUs that pull at about the same time all see the same waiting task
   * and all take its rq's lock, though only the first finds it there.
   */
  private readonly next: SeenWord;
  /** Per CPU: the CPU that last wrote its highest_prio.next, and a version per write. */
  private readonly nextWriter: Int32Array;
  private readonly nextVer: Uint32Array;
  /** [reader * n + cpu]: the version of cpu's highest_prio.next line the reader holds. */
  private readonly nextSeen: Uint32Array;
  /** Per CPU: its rto_mask bit as other CPUs see it. */
  private readonly rtoBit: SeenWord;
  /** rto_count and rto_mask lines: their last writer and which CPUs hold a copy. */
  private rtoOwner = -1;
  private readonly rtoHeld: Uint8Array;

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
    this.next = new SeenWord(n, MAX_RT_PRIO);
    this.nextWriter = new Int32Array(n).fill(-1);
    this.nextVer = new Uint32Array(n);
    this.nextSeen = new Uint32Array(n * n);
    this.rtoBit = new SeenWord(n, 0);
    this.rtoHeld = new Uint8Array(n);
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
    this.writeRto(rq.cpu, 1);
    this.rtoMask[rq.cpu] = 1;
    this.rtoCount++;
  }

  /** rt_clear_overload; keyed on the mask bit so a CPU that went offline unwired cannot leak one. */
  clearOverload(rq: Rq): void {
    if (!this.rtoMask[rq.cpu]) return;
    this.writeRto(rq.cpu, 0);
    this.rtoMask[rq.cpu] = 0;
    this.rtoCount--;
  }

  /** cpumask_set/clear_cpu on rto_mask and atomic_inc/dec of rto_count: both lines exclusive. */
  private writeRto(cpu: number, bit: number): void {
    this.rtoBit.write(cpu, bit, this.clock());
    const ctx = this.ctx;
    const me = ctx ? ctx.cpu() : -1;
    if (!ctx || me < 0) return;
    if (this.rtoOwner >= 0 && this.rtoOwner !== me) ctx.charge(2 * ctx.lineNs(this.rtoOwner, me));
    this.rtoOwner = me;
    this.rtoHeld.fill(0);
    this.rtoHeld[me] = 1;
  }

  /** cpu's rto_mask bit as another CPU reads it without a lock, now. */
  rtoVisible(cpu: number): boolean {
    return this.rtoBit.seen(cpu, this.clock()) === 1;
  }

  /**
   * rt_overloaded(): atomic_read(&rd->rto_count) as this CPU sees it now; pays for the count's
   * line, and the mask's (which the caller walks next) when the count is not zero.
   */
  rtOverloaded(): boolean {
    const t = this.clock();
    let over: boolean;
    if (t >= this.rtoBit.latest) over = this.rtoCount > 0;
    else {
      over = false;
      for (let cpu = 0; cpu < this.rtoMask.length && !over; cpu++)
        over = this.rtoBit.seen(cpu, t) === 1;
    }
    const ctx = this.ctx;
    const me = ctx ? ctx.cpu() : -1;
    if (ctx && me >= 0 && this.rtoOwner >= 0 && !this.rtoHeld[me]) {
      this.rtoHeld[me] = 1;
      const line = ctx.lineNs(this.rtoOwner, me);
      ctx.charge(over ? 2 * line : line);
    }
    return over;
  }

  /**
   * enqueue/dequeue_pushable_task set rq->rt.highest_prio.next (the best pushable prio), under
   * rq's lock, at the writing context's clock.
   */
  updateNext(rq: Rq, next: number): void {
    const cpu = rq.cpu;
    if (next === this.next.now(cpu)) return;
    this.next.write(cpu, next, this.clock());
    const me = this.ctx ? this.ctx.cpu() : -1;
    this.nextWriter[cpu] = me >= 0 ? me : cpu;
    this.nextVer[cpu]++;
  }

  /**
   * pull_rt_task's unlocked read of src's highest_prio.next: the value visible now (when the
   * read is issued), and the line from its last writer if this CPU has no current copy.
   */
  readNext(src: Rq): number {
    const cpu = src.cpu;
    const value = this.next.seen(cpu, this.clock());
    const ctx = this.ctx;
    const me = ctx ? ctx.cpu() : -1;
    if (ctx && me >= 0) {
      const i = me * this.rtoMask.length + cpu;
      if (this.nextSeen[i] !== this.nextVer[cpu]) {
        this.nextSeen[i] = this.nextVer[cpu];
        const w = this.nextWriter[cpu];
        if (w >= 0 && w !== me) ctx.charge(ctx.lineNs(w, me));
      }
    }
    return value;
  }
}

/**
 * A per-CPU word written under that CPU's rq lock and read by others without it. The model runs
 * a CPU's kernel path as one step, so two writes of one step (an overload set at the enqueue and
 * cleared by the push after the switch) carry their own times; a reader at time t sees the
 * latest write at or before t. The last two writes are kept, enough for one step's set and clear.
 */
class SeenWord {
  private readonly v0: Int32Array;
  private readonly v1: Int32Array;
  private readonly v2: Int32Array;
  private readonly t1: Float64Array;
  private readonly t2: Float64Array;
  /** The latest write time of any CPU: a reader at or after it sees every current value. */
  latest = Number.NEGATIVE_INFINITY;

  constructor(n: number, initial: number) {
    this.v0 = new Int32Array(n).fill(initial);
    this.v1 = new Int32Array(n).fill(initial);
    this.v2 = new Int32Array(n).fill(initial);
    this.t1 = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
    this.t2 = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
  }

  /** The value as of the latest write. */
  now(cpu: number): number {
    return this.v2[cpu];
  }

  write(cpu: number, v: number, t: number): void {
    this.v0[cpu] = this.v1[cpu];
    this.v1[cpu] = this.v2[cpu];
    this.t1[cpu] = this.t2[cpu];
    this.v2[cpu] = v;
    this.t2[cpu] = t;
    if (t > this.latest) this.latest = t;
  }

  /** What a reader at time t sees. */
  seen(cpu: number, t: number): number {
    if (t >= this.t2[cpu]) return this.v2[cpu];
    return t >= this.t1[cpu] ? this.v1[cpu] : this.v0[cpu];
  }
}

/** What the RT push/pull code needs of the RT class beyond struct sched_class. */
export interface RtClassApi extends SchedClass {
  readonly rd: RtRootDomain;
  /** ->balance: pull before the pick (schedule() calls it after put_prev). */
  balance(rq: Rq, prev: Task | null): void;
  /** highest_prio.next: the best pushable prio. */
  highestPrioNext(rq: Rq): number;
  /** Tasks of rq's rt_rq that a throttle took out of nr_running (v3.19+; rt/bandwidth.ts). */
  nrHidden(rq: Rq): number;
  /** rq->fair_server of each CPU (v6.12+; rt/fair_server.ts). */
  readonly fs: FairServerHooks;
}

/** What enqueue_task_fair / dequeue_task_fair call of the fair server (rt/fair_server.ts). */
export interface FairServerHooks {
  /** A first fair task was queued on rq (dl_server_start). */
  fairEnqueued(rq: Rq): void;
  /** The last fair task left rq. */
  fairDequeued(rq: Rq): void;
}
