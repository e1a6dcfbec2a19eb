// The RT class (kernel/sched/rt.c): per-priority FIFO lists, SCHED_RR time slices, preemption by
// priority, and the SMP bookkeeping the push/pull balancer reads: rt_nr_migratory, the overload
// state (rto_mask of the root domain), the pushable_tasks plist and cpupri, kept current on every
// enqueue/dequeue as inc_rt_prio/dec_rt_prio do. Wakeup placement and find_lowest_rq are in
// select.ts; push, pull and RT_PUSH_IPI in push.ts; RT throttling (rt_time, rt_runtime,
// rt_throttled, the period timer, RT_RUNTIME_SHARE) in bandwidth.ts; the v6.12+ fair server, which
// runs fair tasks above RT when RT starves them, in fair_server.ts.
import type { SchedCore } from "../core/api";
import type { ClassName, Rq, Task } from "../sched";
import { MAX_RT_PRIO } from "../sched";
import { RtBandwidth } from "./bandwidth";
import { FairServer } from "./fair_server";
import { RtRootDomain, type RtClassApi } from "./root_domain";
import {
  pullBeforePick,
  rtPostSchedule,
  rtPrioChanged,
  rtRqOffline,
  rtRqOnline,
  rtTaskWoken,
} from "./push";
import "./select";

export type { SelectTaskRqRtCtx } from "./select";
export { RtRootDomain } from "./root_domain";

export class RtClass implements RtClassApi {
  readonly name = "rt";
  readonly rd: RtRootDomain;
  /** def_rt_bandwidth and each root rt_rq's rt_time / rt_runtime / rt_throttled. */
  readonly bw: RtBandwidth;
  /** rq->fair_server of each CPU (v6.12+). */
  readonly fs: FairServer;
  /** Tasks counted in rt_nr_migratory, so an affinity change while queued cannot skew the count. */
  private readonly migratory = new Set<Task>();
  /** Set once the core calls balance() before its pick; until then a newidle hook pulls. */
  balanceWired = false;

  constructor(private readonly k: SchedCore) {
    this.rd = new RtRootDomain(k.rqs, k.era);
    this.bw = new RtBandwidth(k);
    this.fs = new FairServer(k);
    // Lockless readers and writers act at this context's clock (see RtRootDomain.clock).
    this.rd.clock = () => k.now + k.chargeNs;
    this.rd.ctx = {
      clock: () => k.now + k.chargeNs,
      cpu: () => k.thisCpu,
      charge: (ns) => {
        k.chargeNs += ns;
      },
      lineNs: (a, b) => k.cache.cacheLineNs(a, b),
    };
    // Interim: pull_rt_task when a CPU that ran RT goes idle, until schedule() calls balance().
    k.newIdleHooks.push((rq) => {
      if (!this.balanceWired && rq.curr) pullBeforePick(k, rq, rq.curr);
    });
  }

  updateCurr(rq: Rq): void {
    const curr = rq.curr;
    if (curr?.schedClass !== "rt") return;
    this.fs.rtRan(rq); // RT time uses none of the fair server's runtime
    const now = this.k.now;
    const delta = now - curr.se.execStart;
    if (delta <= 0) return;
    curr.se.execStart = now;
    curr.se.sumExecRuntime += delta;
    this.bw.account(rq, delta);
  }

  /** Tasks of rq's rt_rq a throttle took out of nr_running (v3.19+). */
  nrHidden(rq: Rq): number {
    return this.bw.nrHidden(rq);
  }

  /** Tasks counted in rq's nr_running that pick_next_task_rt skips (a throttled rt_rq, v2.6.29). */
  nrUnpickable(rq: Rq): number {
    return this.bw.nrUnpickable(rq);
  }

  /** enqueue_task_rt: list, counts, inc_rt_prio (cpupri), update_rt_migration, pushable. */
  enqueueTask(rq: Rq, p: Task, _flags: number): void {
    const rt = rq.rt;
    this.bw.enqueue(rq);
    rt.queues[p.prio].push(p);
    p.se.onRq = true;
    rt.rtNrRunning++;
    if (p.nrCpusAllowed > 1) {
      rt.rtNrMigratory++;
      this.migratory.add(p);
    }
    if (p.prio < rt.highestPrio) {
      rt.highestPrio = p.prio;
      this.rd.updateCpupri(rq);
    }
    this.updateRtMigration(rq);
    if (rq.curr !== p && p.nrCpusAllowed > 1) this.enqueuePushable(rq, p);
  }

  /** dequeue_task_rt: the reverse, dec_rt_prio refiling cpupri when the best prio changes. */
  dequeueTask(rq: Rq, p: Task, _flags: number): boolean {
    const rt = rq.rt;
    if (rq.curr === p) this.updateCurr(rq);
    this.bw.dequeue(rq);
    const q = rt.queues[p.prio];
    const i = q.indexOf(p);
    if (i >= 0) q.splice(i, 1);
    p.se.onRq = false;
    rt.rtNrRunning--;
    if (this.migratory.delete(p)) rt.rtNrMigratory--;
    const prev = rt.highestPrio;
    this.recomputeHighest(rq);
    if (rt.highestPrio !== prev) this.rd.updateCpupri(rq);
    this.updateRtMigration(rq);
    this.dequeuePushable(rq, p);
    return true;
  }

  private recomputeHighest(rq: Rq): void {
    const rt = rq.rt;
    rt.highestPrio = MAX_RT_PRIO;
    if (rt.rtNrRunning === 0) return;
    for (let prio = 0; prio < MAX_RT_PRIO; prio++) {
      if (rt.queues[prio].length > 0) {
        rt.highestPrio = prio;
        return;
      }
    }
  }

  /** update_rt_migration: overloaded = more than one RT task and at least one may move. */
  private updateRtMigration(rq: Rq): void {
    const rt = rq.rt;
    const over = rt.rtNrMigratory > 0 && rt.rtNrRunning > 1;
    if (over && !rt.overloaded) {
      this.rd.setOverload(rq);
      rt.overloaded = true;
    } else if (!over && rt.overloaded) {
      this.rd.clearOverload(rq);
      rt.overloaded = false;
    }
  }

  /** enqueue_pushable_task: plist by prio, FIFO among equals. */
  enqueuePushable(rq: Rq, p: Task): void {
    const list = rq.rt.pushable;
    const i = list.indexOf(p);
    if (i >= 0) list.splice(i, 1);
    let at = list.length;
    while (at > 0 && list[at - 1].prio > p.prio) at--;
    list.splice(at, 0, p);
    this.rd.updateNext(rq, this.highestPrioNext(rq));
  }

  dequeuePushable(rq: Rq, p: Task): void {
    const list = rq.rt.pushable;
    const i = list.indexOf(p);
    if (i >= 0) list.splice(i, 1);
    this.rd.updateNext(rq, this.highestPrioNext(rq));
  }

  /** highest_prio.next: the best pushable prio (what a puller could take). */
  highestPrioNext(rq: Rq): number {
    const list = rq.rt.pushable;
    return list.length > 0 ? list[0].prio : MAX_RT_PRIO;
  }

  /**
   * pick_next_task_rt: the head of the highest non-empty list, unless the rt_rq is throttled
   * (v2.6.29 rt_rq_throttled, later !rt_queued) or the fair server runs (v6.12+); the running
   * task is never pushable.
   */
  pickNextTask(rq: Rq): Task | null {
    const rt = rq.rt;
    if (rt.rtNrRunning === 0 || this.bw.throttled[rq.cpu] === 1) return null;
    if (this.fs.serving(rq)) return null; // pick_task_dl: the fair server runs fair tasks first
    const p = rt.queues[rt.highestPrio][0];
    p.se.execStart = this.k.now;
    this.dequeuePushable(rq, p);
    this.fs.rtPicked(rq);
    return p;
  }

  /** put_prev_task_rt: a preempted task that may move becomes pushable again. */
  putPrevTask(rq: Rq, p: Task): void {
    if (rq.curr === p) this.updateCurr(rq);
    if (p.se.onRq && p.nrCpusAllowed > 1) this.enqueuePushable(rq, p);
  }

  taskTick(rq: Rq, curr: Task): void {
    this.updateCurr(rq);
    if (curr.policy !== "rr") return;
    curr.rtTimeSlice -= 1_000_000_000 / this.k.tunables.hz;
    if (curr.rtTimeSlice > 0) return;
    curr.rtTimeSlice = this.k.tunables.rr_timeslice_ns;
    // Requeue to the tail when others share its priority (task_tick_rt).
    const q = rq.rt.queues[curr.prio];
    if (q.length > 1) {
      q.splice(q.indexOf(curr), 1);
      q.push(curr);
      this.k.reschedCurr(rq);
    }
  }

  /** check_preempt_curr_rt: strictly higher priority preempts; equal prio may make room. */
  checkPreemptCurr(rq: Rq, p: Task): void {
    const curr = rq.curr;
    if (!curr || curr.schedClass === "fair" || curr.schedClass === "idle") {
      this.k.reschedCurr(rq);
      return;
    }
    if (curr.schedClass !== "rt") return;
    if (p.prio < curr.prio) {
      this.k.reschedCurr(rq);
      return;
    }
    if (p.prio === curr.prio && !rq.needResched) this.checkPreemptEqualPrio(rq, p);
  }

  /**
   * check_preempt_equal_prio: p cannot go anywhere but curr could: run p now and let the
   * post-schedule push move curr away.
   */
  private checkPreemptEqualPrio(rq: Rq, p: Task): void {
    const curr = rq.curr!;
    if (curr.nrCpusAllowed === 1 || !this.rd.find(curr, null)) return;
    if (p.nrCpusAllowed !== 1 && this.rd.find(p, null)) return;
    const q = rq.rt.queues[p.prio];
    const i = q.indexOf(p);
    if (i > 0) {
      q.splice(i, 1);
      q.unshift(p); // requeue_task_rt(rq, p, 1)
    }
    this.k.reschedCurr(rq);
  }

  yieldTask(rq: Rq, p: Task): void {
    const q = rq.rt.queues[p.prio];
    const i = q.indexOf(p);
    if (i >= 0 && q.length > 1) {
      q.splice(i, 1);
      q.push(p);
    }
  }

  // ------------------------------------------------ sched_class SMP callbacks (core wiring)

  /** select_task_rq_rt, through the rt.select_task_rq hook (select.ts). */
  selectTaskRq(p: Task, prevCpu: number, wakeFlags: number, wakerCpu: number): number {
    const k = this.k;
    return k.hooks.get("rt.select_task_rq")({ k, p, prevCpu, wakerCpu, wakeFlags });
  }

  /** ->task_woken (task_woken_rt): call after check_preempt_curr in ttwu and wake_up_new_task. */
  taskWoken(rq: Rq, p: Task): void {
    rtTaskWoken(this.k, rq, p);
  }

  /** ->balance / pick-time pull (pull_rt_task): call in schedule() after put_prev, before the pick. */
  balance(rq: Rq, prev: Task | null): void {
    this.balanceWired = true;
    if (prev) pullBeforePick(this.k, rq, prev);
  }

  /** post_schedule_rt / the push balance_callback: call in schedule() after the switch. */
  postSchedule(rq: Rq): void {
    rtPostSchedule(this.k, rq);
  }

  /** switched_from_rt / switched_to_rt / prio_changed_rt: after __sched_setscheduler requeues p. */
  prioChanged(rq: Rq, p: Task, oldClass: ClassName, oldPrio: number): void {
    rtPrioChanged(this.k, rq, p, oldClass, oldPrio);
  }

  /** rq_online_rt / rq_offline_rt: hotplug (__enable_runtime / __disable_runtime in between). */
  rqOnline(rq: Rq): void {
    this.bw.enable(rq);
    rtRqOnline(this.k, rq);
  }

  rqOffline(rq: Rq): void {
    this.bw.disable(rq);
    rtRqOffline(this.k, rq);
  }
}
