// The fair class (kernel/sched/fair.c): CFS runqueue maintenance, vruntime accounting,
// slices and preemption. The pick policy is pluggable (CFS now; EEVDF later) through FairPolicy.
import {
  DEQUEUE_DELAYED,
  DEQUEUE_SLEEP,
  ENQUEUE_DELAYED,
  ENQUEUE_INITIAL,
  ENQUEUE_WAKEUP,
  TASK_DEAD,
} from "../sched";
import type { SchedCore } from "../core/api";
import { bump, recordWakeupLag } from "../counters";
import type { CfsRq, Rq, SchedClass, Task } from "../sched";
import "./wake/select";
import { chargeWakeMigration } from "./wake/lines";
import { NICE_0_LOAD } from "../sched";
import { ERA_TRAITS, eraAtLeast, tunableScale } from "../features";
import type { HookFn } from "../hooks";
import { peltScaleCpu, rqClockPeltOf } from "./pelt_clock";
import { updateMisfitStatus } from "./misfit";
import { LOAD_AVG_MAX } from "./pelt";
import { type PeltForm, peltFormOf } from "./pelt_form";
import { utilEstDequeueTask, utilEstEnqueueTask, utilEstUpdate } from "./util_est";

/** calc_delta_fair: delta scaled by NICE_0_LOAD / weight (integer, as __calc_delta truncates). */
export function calcDeltaFair(delta: number, weight: number): number {
  return weight === NICE_0_LOAD ? delta : Math.floor((delta * NICE_0_LOAD) / weight);
}

/** The decisions that differ between CFS and EEVDF (eevdf.ts). */
export interface FairPolicy {
  readonly name: string;
  /** EEVDF places every enqueue by lag (CFS: only wakeups and new tasks). */
  readonly placesEveryEnqueue?: boolean;
  /** dequeue_entity's lag bookkeeping, before the entity leaves the queue. */
  onDequeue?(k: SchedCore, cfs: CfsRq, p: Task, sleep: boolean): void;
  /** dequeue_entity(DEQUEUE_SLEEP): keep the sleeper queued instead (DELAY_DEQUEUE, v6.12)? */
  delayDequeue?(k: SchedCore, cfs: CfsRq, p: Task): boolean;
  /** update_entity_lag (requeue_delayed_entity's DELAY_ZERO test). */
  updateLag?(k: SchedCore, cfs: CfsRq, p: Task): void;
  /** reweight_entity of a dequeued entity whose weight went from oldWeight to se.weight. */
  reweight?(k: SchedCore, p: Task, oldWeight: number): void;
  /** update_curr's tail after vruntime moved (EEVDF: update_deadline). */
  afterUpdateCurr?(k: SchedCore, rq: Rq, curr: Task): void;
  /** set_next_entity's tail when p becomes curr (EEVDF: set_protect_slice). */
  onSetNext?(k: SchedCore, cfs: CfsRq, p: Task): void;
  /** yield_task_fair (EEVDF: the deadline moves a slice out). */
  yieldTask?(k: SchedCore, cfs: CfsRq, p: Task): void;
  /** place_entity: vruntime of an entity joining the queue. */
  placeEntity(k: SchedCore, cfs: CfsRq, p: Task, initial: boolean): void;
  /** The entity to run next among curr (if still queued) and the tree. */
  pickNext(k: SchedCore, cfs: CfsRq): Task | null;
  /** check_preempt_tick: should curr give up the CPU at this tick? */
  checkPreemptTick(k: SchedCore, cfs: CfsRq, curr: Task): boolean;
  /** check_preempt_wakeup: should the woken p preempt curr? (`wakeFlags`: WF_FORK for a new task) */
  wakeupPreempt(k: SchedCore, curr: Task, p: Task, wakeFlags?: number): boolean;
}

/** Scaled CFS timing (sysctl values times 1 + ilog2(ncpus), per era). */
export interface CfsTiming {
  latency: number;
  minGranularity: number;
  wakeupGranularity: number;
  nrLatency: number;
}

export function cfsTiming(k: SchedCore): CfsTiming {
  const t = k.tunables;
  const factor = tunableScale(k.onlineCount(), t.tunable_scaling_cpu_cap);
  // 2.6.29 capped the scaled latency and min_granularity at 200 ms.
  const cap = ERA_TRAITS[k.era].latencyCapNs;
  return {
    latency: Math.min(t.sched_latency_ns * factor, cap),
    minGranularity: Math.min(t.sched_min_granularity_ns * factor, cap),
    wakeupGranularity: t.sched_wakeup_granularity_ns * factor,
    nrLatency: t.sched_nr_latency,
  };
}

/** __sched_period */
export function schedPeriod(timing: CfsTiming, nrRunning: number): number {
  return nrRunning > timing.nrLatency ? nrRunning * timing.minGranularity : timing.latency;
}

/** sched_slice: the entity's share of the period by weight (counting it if not yet queued). */
export function schedSlice(k: SchedCore, cfs: CfsRq, p: Task): number {
  const onRq = p.se.onRq;
  const nr = cfs.nrRunning + (onRq ? 0 : 1);
  const load = cfs.loadWeight + (onRq ? 0 : p.se.weight);
  const slice = schedPeriod(k.cfsTiming, nr);
  return load > 0 ? Math.floor((slice * p.se.weight) / load) : slice;
}

/**
 * wakeup_gran: the wakeup granularity in virtual time. v2.6.29 (kernel/sched_fair.c, ASYM_GRAN
 * on) converts it with curr's weight, and only when curr is heavier than nice 0; later eras
 * convert it with the wakee's weight (wakeup_gran(se), kernel/sched/fair.c v4.8).
 */
export function wakeupGran(k: SchedCore, curr: Task, p: Task): number {
  const gran = k.cfsTiming.wakeupGranularity;
  if (!k.features.ASYM_GRAN) return calcDeltaFair(gran, p.se.weight);
  return curr.se.weight > NICE_0_LOAD ? calcDeltaFair(gran, curr.se.weight) : gran;
}

export const CFS_POLICY: FairPolicy = {
  name: "cfs",
  placeEntity(k, cfs, p, initial) {
    const se = p.se;
    let vruntime = cfs.minVruntime;
    if (initial && k.features.START_DEBIT) {
      // sched_vslice: new tasks start a slice behind so forking cannot starve others.
      vruntime += calcDeltaFair(schedSlice(k, cfs, p), se.weight);
    }
    if (!initial) {
      // Sleepers get credit for up to a latency period (v2.6.29 NEW_FAIR_SLEEPERS: the full
      // sysctl_sched_latency), at most half of one with GENTLE_FAIR_SLEEPERS (v2.6.32+).
      // NORMALIZED_SLEEPER (2.6.29, off in the trees we read) is not modelled.
      let thresh = k.cfsTiming.latency;
      if (k.features.GENTLE_FAIR_SLEEPERS) thresh = Math.floor(thresh / 2);
      vruntime -= thresh;
    }
    // Ensure we never gain time by being placed backwards: for wakeups in every era, for new
    // tasks too from v2.6.32 (2.6.29 set a new entity to min_vruntime + vslice outright).
    se.vruntime =
      !initial || ERA_TRAITS[k.era].forkFromParent ? Math.max(se.vruntime, vruntime) : vruntime;
  },
  pickNext(k, cfs) {
    const first = cfs.queue.length > 0 ? cfs.queue[0] : null;
    const curr = cfs.curr?.se.onRq ? cfs.curr : null;
    const left = !first || (curr && curr.se.vruntime <= first.se.vruntime) ? curr : first;
    if (!left) return null;
    // pick_next_entity: a buddy runs instead of the leftmost if that is not unfair,
    // wakeup_preempt_entity(buddy, left) < 1; next before last (2.6.29 sched_fair.c, 4.8 fair.c).
    const { next, last } = cfs;
    if (next && next !== left && !this.wakeupPreempt(k, next, left)) return next;
    if (last && last !== left && !this.wakeupPreempt(k, last, left)) return last;
    if (cfs.skip !== left) return left;
    // Avoid the skip buddy (the yielder) if the second entity is not too unfair (4.8 fair.c).
    let second = left === curr ? first : (cfs.queue[1] ?? null);
    if (left !== curr && curr && (!second || curr.se.vruntime < second.se.vruntime)) second = curr;
    return second && !this.wakeupPreempt(k, second, left) ? second : left;
  },
  checkPreemptTick(k, cfs, curr) {
    const ideal = schedSlice(k, cfs, curr);
    const deltaExec = curr.se.sumExecRuntime - curr.se.prevSumExecRuntime;
    if (deltaExec > ideal) {
      clearBuddies(cfs, curr); // it ran long enough: no buddy favour brings it back
      return true;
    }
    if (!ERA_TRAITS[k.era].tickPreemptsVsLeftmost) return false;
    // 3.x+: do not preempt before min_granularity; then if curr is ahead of the leftmost by
    // more than a slice.
    if (deltaExec < k.cfsTiming.minGranularity) return false;
    if (cfs.queue.length === 0) return false;
    const delta = curr.se.vruntime - cfs.queue[0].se.vruntime;
    return delta > ideal;
  },
  wakeupPreempt(k, curr, p) {
    // wakeup_preempt_entity(curr, p) == 1
    const vdiff = curr.se.vruntime - p.se.vruntime;
    if (vdiff <= 0) return false;
    return vdiff > wakeupGran(k, curr, p);
  },
};

/** clear_buddies: p loses its LAST_BUDDY / NEXT_BUDDY favour. */
export function clearBuddies(cfs: CfsRq, p: Task): void {
  if (cfs.last === p) cfs.last = null;
  if (cfs.next === p) cfs.next = null;
  if (cfs.skip === p) cfs.skip = null;
}

/**
 * check_preempt_wakeup's buddies. 2.6.29 (sched_fair.c): on every check, last = curr
 * (LAST_BUDDY, curr still queued) and next = p, before the preemption tests. 3.x-5.x (checked in
 * 4.8 fair.c): next = p when NEXT_BUDDY and nr_running >= sched_nr_latency ("scale"); on a
 * preemption next = p anyway and, with scale, last = curr. EEVDF (v6.6+) dropped LAST_BUDDY and
 * the unconditional next buddy. SCHED_IDLE tasks never become buddies. Returns whether next was
 * marked.
 */
function markBuddies(
  k: SchedCore,
  cfs: CfsRq,
  curr: Task,
  p: Task,
  preempt: boolean,
  era: FairEra,
): boolean {
  // (a SCHED_IDLE task is never made a buddy: the `policy !== "idle"` tests)
  if (era.family26) {
    if (preempt) return true; // already set before the tests
    if (k.features.LAST_BUDDY && curr.se.onRq && curr.policy !== "idle") cfs.last = curr;
    if (p.policy !== "idle") cfs.next = p;
    return true;
  }
  const scale = cfs.nrRunning >= k.cfsTiming.nrLatency;
  if (!preempt) {
    if (k.features.NEXT_BUDDY && scale && p.policy !== "idle") cfs.next = p;
    return k.features.NEXT_BUDDY && scale;
  }
  if (era.eevdf) return true;
  if (p.policy !== "idle") cfs.next = p;
  if (k.features.LAST_BUDDY && scale && curr.se.onRq && curr.policy !== "idle") cfs.last = curr;
  return true;
}

/** Era facts the fair hot paths test, resolved once per kernel instead of per call. */
interface FairEra {
  /** 2.6.x (ERA_TRAITS family "2.6"). */
  family26: boolean;
  /** v6.6+ (EEVDF era). */
  eevdf: boolean;
}

// The queues are shifted in place with push/pop at the end: splice returns a new array of the
// removed elements on every call (a fifth of all allocation in the 104-CPU ping-pong profile),
// and shrinking through `length =` reallocates the backing store; push/pop keep it.
function insertByVruntime(queue: Task[], p: Task): void {
  const v = p.se.vruntime;
  let lo = 0;
  let hi = queue.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (queue[mid].se.vruntime <= v) lo = mid + 1;
    else hi = mid;
  }
  queue.push(p);
  for (let j = queue.length - 1; j > lo; j--) queue[j] = queue[j - 1];
  queue[lo] = p;
}

function removeFromQueue(queue: Task[], p: Task): void {
  const i = queue.indexOf(p);
  if (i < 0) return;
  const n = queue.length - 1;
  for (let j = i; j < n; j++) queue[j] = queue[j + 1];
  queue.pop();
}

/** update_min_vruntime: monotonic, follows min(curr, leftmost). */
export function updateMinVruntime(cfs: CfsRq): void {
  let v = cfs.minVruntime;
  const curr = cfs.curr?.se.onRq ? cfs.curr : null;
  const left = cfs.queue.length > 0 ? cfs.queue[0] : null;
  if (curr) v = curr.se.vruntime;
  if (left) v = curr ? Math.min(v, left.se.vruntime) : left.se.vruntime;
  if (curr || left) cfs.minVruntime = Math.max(cfs.minVruntime, v);
}

export class FairClass implements SchedClass {
  readonly name = "fair";
  policy: FairPolicy = CFS_POLICY;
  /** The era's PELT code (pelt_form.ts); null before 3.8 (the 2.6.29 balancer reads cpu_load[]). */
  readonly pelt: PeltForm | null;
  /** 4.16+ moves a picked task to the head of cfs_tasks (detach_tasks then takes it last). */
  private readonly pickMovesToFront: boolean;
  private readonly eraFacts: FairEra;
  /** The fair.select_task_rq hook in force, looked up once (hooks are fixed per kernel). */
  private readonly selectTaskRqHook: HookFn<"fair.select_task_rq">;

  constructor(private readonly k: SchedCore) {
    this.pelt = peltFormOf(k.era);
    this.pickMovesToFront = ERA_TRAITS[k.era].pickMovesToFront;
    this.eraFacts = {
      family26: ERA_TRAITS[k.era].family === "2.6",
      eevdf: eraAtLeast(k.era, "6.6"),
    };
    this.selectTaskRqHook = k.hooks.get("fair.select_task_rq");
  }

  /** update_load_avg for an entity of this rq (no-op without PELT). */
  private updateLoad(rq: Rq, p: Task): void {
    if (this.pelt) this.entityPelt(this.pelt.update, rq, p);
  }

  /**
   * One of the era's entity PELT steps at this rq's PELT clock, running = cfs_rq->curr == se;
   * `flag` is ENQUEUE_WAKEUP / DEQUEUE_SLEEP for enqueue / dequeue.
   */
  private entityPelt(step: PeltForm["enqueue"], rq: Rq, p: Task, flag = false): void {
    const k = this.k; // CPU invariance on smaller CPUs: pelt_clock.ts
    step(rqClockPeltOf(k, rq), rq.cfs, p.se, rq.cfs.curr === p, peltScaleCpu(k, rq), flag);
  }

  /**
   * post_init_entity_util_avg (4.6+), in wake_up_new_task once the CPU is chosen: a new task
   * starts with half the CPU's spare capacity as util (scaled by its weight share when the
   * cfs_rq is busy), so fork placement sees it; 5.7+ starts runnable_avg there too.
   */
  postInitEntity(rq: Rq, p: Task): void {
    const form = this.pelt;
    if (!form) return;
    // v3.8 ... v4.2: init_task_runnable_average from sched_slice on the chosen cfs_rq instead
    if (form.initNew) return form.initNew(p.se, schedSlice(this.k, rq.cfs, p));
    const cfs = rq.cfs;
    const now = rqClockPeltOf(this.k, rq);
    const scaleCpu = peltScaleCpu(this.k, rq);
    // post_init_entity_util_avg reads cfs_rq->avg.util_avg as last stored, before any update (v4.8
    // to v6.19 fair.c); 4.8/5.x then attach, from v6.1 the enqueue does (d6531ab6e501); the
    // model's 5.x form attaches at that enqueue in both cases.
    const sa = p.se.avg;
    const cap = Math.floor((rq.cpuCapacityOrig - cfs.avg.utilAvg) / 2);
    if (cap > 0) {
      if (cfs.avg.utilAvg !== 0) {
        const weight = p.se.weight * 2 ** form.postInitWeightShift;
        sa.utilAvg = Math.min(Math.floor((cfs.avg.utilAvg * weight) / (cfs.avg.loadAvg + 1)), cap);
      } else {
        sa.utilAvg = cap;
      }
      if (form.attachNew) sa.utilSum = sa.utilAvg * LOAD_AVG_MAX;
    }
    if (ERA_TRAITS[this.k.era].runnableAvgAtFork) sa.runnableAvg = sa.utilAvg;
    form.attachNew?.(now, cfs, p.se, scaleCpu);
  }

  /** sched_fork's init_entity_runnable_average: a new task's PELT starting point. */
  taskFork(p: Task): void {
    this.pelt?.init(p.se);
    const k = this.k;
    // task_fork_fair (v2.6.32 … v6.5) runs on the parent's CPU, against the parent's cfs_rq. A
    // task spawned by the workload's setup has no parent CPU: it is placed on its target at enqueue.
    if (this.policy.placesEveryEnqueue || !ERA_TRAITS[k.era].forkFromParent || k.thisCpu < 0)
      return;
    const rq = k.rqs[k.thisCpu];
    const curr = rq.cfs.curr;
    p.se.vruntime = 0;
    if (curr) {
      this.updateCurr(rq);
      p.se.vruntime = curr.se.vruntime;
    }
    this.policy.placeEntity(k, rq.cfs, p, true);
    p.se.forkRelVruntime = p.se.vruntime - rq.cfs.minVruntime;
  }

  /** update_curr: charge the running entity for the time since exec_start. */
  updateCurr(rq: Rq): void {
    const curr = rq.cfs.curr;
    if (!curr) return;
    const now = this.k.now;
    const delta = now - curr.se.execStart;
    if (delta <= 0) return;
    curr.se.execStart = now;
    curr.se.sumExecRuntime += delta;
    curr.se.vruntime += calcDeltaFair(delta, curr.se.weight);
    updateMinVruntime(rq.cfs);
    this.policy.afterUpdateCurr?.(this.k, rq, curr);
  }

  enqueueTask(rq: Rq, p: Task, flags: number): void {
    const cfs = rq.cfs;
    utilEstEnqueueTask(this.k, rq, p, flags);
    if (flags & ENQUEUE_DELAYED) {
      this.requeueDelayed(rq, p);
      return;
    }
    if (this.lastPut === p) this.lastPut = null;
    if (cfs.curr === p) this.updateCurr(rq);
    if (this.pelt) this.entityPelt(this.pelt.enqueue, rq, p, (flags & ENQUEUE_WAKEUP) !== 0);
    cfs.tasks.unshift(p);
    // EEVDF: the lag the wakee brings back (se->vlag of its dequeue), before place_entity
    if (this.policy.placesEveryEnqueue && flags & ENQUEUE_WAKEUP)
      recordWakeupLag(this.k.counters, p.se.vlag);
    if (this.policy.placesEveryEnqueue)
      this.policy.placeEntity(this.k, cfs, p, (flags & ENQUEUE_INITIAL) !== 0);
    else if (flags & ENQUEUE_INITIAL) {
      if (Number.isNaN(p.se.forkRelVruntime)) this.policy.placeEntity(this.k, cfs, p, true);
      else {
        // placed at fork on the parent's cfs_rq: the same offset from this one's min_vruntime
        p.se.vruntime = cfs.minVruntime + p.se.forkRelVruntime;
        p.se.forkRelVruntime = Number.NaN;
      }
    } else if (flags & ENQUEUE_WAKEUP) this.policy.placeEntity(this.k, cfs, p, false);
    p.se.onRq = true;
    cfs.nrRunning++;
    cfs.hNrRunning++;
    cfs.loadWeight += p.se.weight;
    if (cfs.curr !== p) insertByVruntime(cfs.queue, p);
    if (p.se.schedDelayed) cfs.hNrDelayed++; // a delayed entity moved or requeued stays delayed
    updateMinVruntime(cfs);
    if (cfs.hNrRunning === 1) this.k.rt.fs.fairEnqueued(rq); // dl_server_start (v6.12+)
  }

  /**
   * requeue_delayed_entity (v6.12, ENQUEUE_DELAYED): a wakeup finds p still queued. With
   * DELAY_ZERO an entity that has earned positive lag is placed again at V with none.
   */
  private requeueDelayed(rq: Rq, p: Task): void {
    const cfs = rq.cfs;
    const se = p.se;
    if (this.k.features.DELAY_ZERO && this.policy.updateLag) {
      this.policy.updateLag(this.k, cfs, p);
      if (se.vlag > 0) {
        cfs.nrRunning--;
        if (cfs.curr !== p) removeFromQueue(cfs.queue, p);
        se.vlag = 0;
        this.policy.placeEntity(this.k, cfs, p, false);
        if (cfs.curr !== p) insertByVruntime(cfs.queue, p);
        cfs.nrRunning++;
      }
    }
    this.updateLoad(rq, p);
    se.schedDelayed = false;
    cfs.hNrDelayed--;
    updateMinVruntime(cfs);
  }

  dequeueTask(rq: Rq, p: Task, flags: number): boolean {
    const cfs = rq.cfs;
    const sleep = (flags & DEQUEUE_SLEEP) !== 0;
    const estimateAfter = utilEstDequeueTask(this.k, rq, p, flags);
    if (cfs.curr === p) this.updateCurr(rq);
    // dequeue_entity (v6.12): a sleeper that is not eligible stays queued, sched_delayed; a
    // dying task is a special state that never is (DEQUEUE_SPECIAL)
    if (
      (flags & (DEQUEUE_SLEEP | DEQUEUE_DELAYED)) === DEQUEUE_SLEEP &&
      p.state !== TASK_DEAD &&
      this.policy.delayDequeue?.(this.k, cfs, p)
    ) {
      clearBuddies(cfs, p);
      this.updateLoad(rq, p);
      p.se.schedDelayed = true;
      cfs.hNrDelayed++;
      return false;
    }
    this.policy.onDequeue?.(this.k, cfs, p, sleep);
    if (cfs.curr !== p) removeFromQueue(cfs.queue, p);
    if (this.pelt) this.entityPelt(this.pelt.dequeue, rq, p, sleep);
    removeFromQueue(cfs.tasks, p);
    clearBuddies(cfs, p);
    p.se.onRq = false;
    cfs.nrRunning--;
    cfs.hNrRunning--;
    cfs.loadWeight -= p.se.weight;
    if (p.se.schedDelayed) {
      cfs.hNrDelayed--;
      if (flags & DEQUEUE_DELAYED) {
        // finish_delayed_dequeue_entity: DELAY_ZERO keeps no positive lag for the next wakeup
        p.se.schedDelayed = false;
        if (this.k.features.DELAY_ZERO && p.se.vlag > 0) p.se.vlag = 0;
      }
    }
    updateMinVruntime(cfs);
    if (cfs.hNrRunning === 0) this.k.rt.fs.fairDequeued(rq);
    if (estimateAfter) utilEstUpdate(this.k, rq, p, sleep); // before v6.12: after the PELT update
    return true;
  }

  /** reweight_task (set_user_nice, sched_setscheduler): the policy rescales what it keeps. */
  reweightTask(_rq: Rq, p: Task, oldWeight: number): void {
    this.policy.reweight?.(this.k, p, oldWeight);
  }

  /** put_prev_task_fair: the running entity goes back into the tree if still queued. */
  putPrevTask(rq: Rq, p: Task): void {
    const cfs = rq.cfs;
    if (cfs.curr !== p) return;
    this.updateCurr(rq);
    if (p.se.onRq) {
      this.updateLoad(rq, p);
      insertByVruntime(cfs.queue, p);
    }
    cfs.curr = null;
    this.lastPut = p;
  }

  /**
   * The entity put back by the last put_prev_task, until a requeue (sched_change's
   * dequeue/enqueue, which ends in set_next_task) or the next pick: a pick of it that finds it
   * still rq->curr is put_prev_set_next_task's prev == next, with no set_next_entity.
   */
  private lastPut: Task | null = null;

  /** pick_next_task_fair + set_next_entity. */
  pickNextTask(rq: Rq): Task | null {
    const cfs = rq.cfs;
    if (cfs.nrRunning === 0) {
      updateMisfitStatus(this.k, null, rq);
      return null;
    }
    let p = this.policy.pickNext(this.k, cfs);
    while (p?.se.schedDelayed) p = this.dequeueDelayedAndRepick(rq, p);
    const samePrev = p !== null && p === rq.curr && p === this.lastPut;
    this.lastPut = null;
    if (!p) {
      updateMisfitStatus(this.k, null, rq);
      return null;
    }
    updateMisfitStatus(this.k, p, rq);
    clearBuddies(cfs, p); // a buddy has to earn the favour again
    if (cfs.curr !== p) {
      removeFromQueue(cfs.queue, p);
      if (this.pelt?.updatesAtSetNext) this.updateLoad(rq, p);
      cfs.curr = p;
      // put_prev_set_next_task: no set_next_entity when prev (rq->curr here) is picked again
      if (!samePrev) this.policy.onSetNext?.(this.k, cfs, p);
      if (this.pickMovesToFront && cfs.tasks[0] !== p) {
        removeFromQueue(cfs.tasks, p);
        cfs.tasks.unshift(p);
      }
    }
    p.se.execStart = this.k.now;
    p.se.prevSumExecRuntime = p.se.sumExecRuntime;
    return p;
  }

  /**
   * pick_next_entity (v6.12): a picked delayed entity is dequeued now (DEQUEUE_DELAYED, then
   * __block_task), not run; pick_task_fair picks again, after newidle balance if none is left.
   */
  private dequeueDelayedAndRepick(rq: Rq, p: Task): Task | null {
    const k = this.k;
    k.dequeueTask(rq, p, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
    p.onRq = 0;
    if (rq.nrRunning === 0) for (const h of k.newIdleHooks) h(rq);
    return rq.cfs.nrRunning === 0 ? null : this.policy.pickNext(k, rq.cfs);
  }

  taskTick(rq: Rq, curr: Task): void {
    this.updateCurr(rq);
    if (this.pelt) this.entityPelt(this.pelt.tick ?? this.pelt.update, rq, curr);
    if (rq.cfs.nrRunning > 1 && this.policy.checkPreemptTick(this.k, rq.cfs, curr)) {
      this.k.reschedCurr(rq);
    }
    updateMisfitStatus(this.k, curr, rq);
  }

  /** check_preempt_wakeup */
  checkPreemptCurr(rq: Rq, p: Task, wakeFlags = 0): void {
    const curr = rq.curr;
    if (!curr) {
      this.k.reschedCurr(rq);
      return;
    }
    if (curr.schedClass !== "fair") return; // a higher class runs
    if (curr !== p) markBuddies(this.k, rq.cfs, curr, p, false, this.eraFacts);
    if (rq.needResched) return; // test_tsk_need_resched(curr)
    if (!this.k.features.WAKEUP_PREEMPTION) return;
    // SCHED_IDLE curr is always preempted by a normal task; batch/idle wakees never preempt.
    if (curr.policy === "idle" && p.policy !== "idle") {
      this.k.reschedCurr(rq);
      return;
    }
    if (p.policy !== "normal") return;
    this.updateCurr(rq);
    if (this.policy.wakeupPreempt(this.k, curr, p, wakeFlags)) {
      markBuddies(this.k, rq.cfs, curr, p, true, this.eraFacts);
      this.k.reschedCurr(rq);
    }
  }

  /**
   * yield_task_fair. 2.6.29 (sysctl_sched_compat_yield 0): only update_curr, except SCHED_BATCH,
   * which goes behind the rightmost. 3.x-5.x (4.8): the skip buddy, which pick_next_entity
   * avoids if that is not unfair. 6.6+: the EEVDF policy pushes the deadline a slice out.
   */
  yieldTask(rq: Rq, p: Task): void {
    const cfs = rq.cfs;
    if (cfs.nrRunning <= 1) return;
    clearBuddies(cfs, p);
    this.updateCurr(rq);
    if (this.policy.yieldTask) {
      this.policy.yieldTask(this.k, cfs, p);
      return;
    }
    // CFS eras: 3.x-5.x set the skip buddy; 2.6.29 only updates curr, except SCHED_BATCH
    if (ERA_TRAITS[this.k.era].family !== "2.6") {
      cfs.skip = p;
      return;
    }
    if (p.policy !== "batch") return;
    // Move it behind the rightmost so the next pick prefers others.
    const right = cfs.queue.length > 0 ? cfs.queue[cfs.queue.length - 1] : null;
    if (right && p.se.vruntime <= right.se.vruntime) p.se.vruntime = right.se.vruntime + 1;
  }

  /** select_task_rq_fair, through the fair.select_task_rq hook (wake/select.ts, per era). */
  selectTaskRq(p: Task, prevCpu: number, wakeFlags: number, wakerCpu: number): number {
    const k = this.k;
    const c0 = k.chargeNs; // what the waker pays for its reads (wake/lines.ts): wake_select_ns
    const cpu = this.selectTaskRqHook({ k, p, prevCpu, wakerCpu, wakeFlags });
    if (k.chargeNs > c0) bump(k.counters.other, "wake_select_ns", k.chargeNs - c0);
    return cpu;
  }

  /** migrate_task_rq_fair + the vruntime renormalisation around a CPU change. */
  migrateTaskRq(p: Task, from: Rq, to: Rq, queued: boolean): void {
    chargeWakeMigration(this.k, from.cpu, queued); // the old cfs_rq's lines, on the waker
    // v6.6 dropped the min_vruntime renormalisation: place_entity restores the lag instead
    if (!this.policy.placesEveryEnqueue)
      p.se.vruntime = p.se.vruntime - from.cfs.minVruntime + to.cfs.minVruntime;
    this.pelt?.migrate(
      rqClockPeltOf(this.k, from),
      from.cfs,
      p.se,
      queued,
      peltScaleCpu(this.k, from),
    );
  }
}
