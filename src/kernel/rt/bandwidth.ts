// RT bandwidth of each CPU's root rt_rq (kernel/sched/rt.c; v2.6.29 kernel/sched_rt.c with the
// period timer in kernel/sched.c), without RT group scheduling: one def_rt_bandwidth of
// sched_rt_runtime_us (950 ms) per sched_rt_period_us (1 s) for every CPU. update_curr_rt adds
// the running RT task's time to rt_rq->rt_time; sched_rt_runtime_exceeded throttles the rt_rq
// once rt_time passes rt_runtime, so pick_next_task_rt finds nothing and the fair class runs;
// do_sched_rt_period_timer takes a period's runtime off rt_time at each expiry and unthrottles.
// With RT_RUNTIME_SHARE, balance_runtime first borrows unused runtime from the other CPUs of the
// root domain. What differs by era:
//   - throttled tasks leave nr_running (dequeue_top_rt_rq / enqueue_top_rt_rq and rt_queued,
//     kernel/sched/rt.c v3.19); in v2.6.29 sched_rt_rq_dequeue is empty without RT group
//     scheduling, so they stay counted and only pick_next_task_rt skips them. The release between
//     the two is unverified: gated at 3.19, the first modelled era that has it.
//   - the period timer's phase: up to v3.19 start_rt_bandwidth forwards the hrtimer from its last
//     expiry (start_bandwidth_timer), so periods stay on one grid from boot; by v4.8
//     start_rt_bandwidth kicks it to expire at once ("sched/rt: Kick RT bandwidth timer
//     immediately on start up"; the release between v3.19 and v4.8 is unverified), so each
//     activation starts a new grid.
//   - a zero sched_rt_runtime_us: v3.19+ resets rt_time instead of throttling (likely(rt_b->
//     rt_runtime) in sched_rt_runtime_exceeded); v2.6.29 throttles.
//   - v6.12 removed the root rt_rq's throttle (EraTraits.rtRootBandwidth).
// rt_nr_boosted does not apply: without RT group scheduling rt_rq_throttled() is rt_throttled
// alone. Not modelled: SCHED_DEADLINE time charged to rt_time, the timer's rq-lock round
// (uncharged), and its sched_rt_rq_enqueue of an rt_rq with no rt_time but queued tasks (a
// resched that changes nothing).
//
// The period timer is lazy, so runs without a throttle cost nothing and do not change. Its state
// (rt_period_active, the next expiry) is kept here; every expiry that would fire while it is
// active is applied, in order, before anything reads or changes what it works on (an RT enqueue,
// dequeue or update_curr_rt), exactly as the hrtimer would have applied it earlier. An event is
// posted only while some rt_rq is throttled, at the expiry that may unthrottle it.
import type { SchedCore } from "../core/api";
import { bump } from "../counters";
import { ERA_TRAITS, eraAtLeast } from "../features";
import type { Rq } from "../sched";

/** RUNTIME_INF: no limit (sched_rt_runtime_us = -1, or a CPU taken offline). */
export const RUNTIME_INF = Number.POSITIVE_INFINITY;

const NS_PER_US = 1000;

/** add_nr_running: rq->nr_running += n, keeping the root domain's overload count exact. */
function addNrRunning(k: SchedCore, rq: Rq, n: number): void {
  const prev = rq.nrRunning;
  rq.nrRunning = prev + n;
  if (prev < 2 && prev + n >= 2) k.nrOverloaded++;
}

/** sub_nr_running. */
function subNrRunning(k: SchedCore, rq: Rq, n: number): void {
  const prev = rq.nrRunning;
  rq.nrRunning = prev - n;
  if (prev >= 2 && prev - n < 2) k.nrOverloaded--;
}

/**
 * def_rt_bandwidth and the bandwidth fields of each CPU's root rt_rq (rt_time, rt_runtime,
 * rt_throttled), with the lazy period timer. The RT class calls it from update_curr_rt, enqueue,
 * dequeue, pick and hotplug.
 */
export class RtBandwidth {
  /** rt_rq->rt_time per CPU: RT run time charged and not yet given back by the timer, ns. */
  readonly rtTime: Float64Array;
  /** rt_rq->rt_runtime per CPU, ns; RUNTIME_INF while offline (__disable_runtime). */
  readonly rtRuntime: Float64Array;
  /** rt_rq->rt_throttled per CPU. */
  readonly throttled: Uint8Array;
  /** def_rt_bandwidth.rt_runtime (RUNTIME_INF with sched_rt_runtime_us = -1), ns. */
  readonly runtime: number;
  /** def_rt_bandwidth.rt_period, ns. */
  readonly period: number;
  /** rt_bandwidth_enabled() (sched_rt_runtime_us >= 0), in an era that throttles the root rt_rq. */
  readonly enabled: boolean;
  /** Throttled tasks leave nr_running (dequeue_top_rt_rq, v3.19+). */
  readonly hidesNr: boolean;
  /** start_rt_bandwidth expires the timer at once, starting a new period grid (by v4.8). */
  private readonly kick: boolean;
  /** sched_rt_runtime_exceeded resets rt_time rather than throttle with no runtime (v3.19+). */
  private readonly zeroRuntimeResets: boolean;
  /** sched_feat(RT_RUNTIME_SHARE). */
  private readonly share: boolean;
  /** rt_period_active (hrtimer_active before v4.x): the period timer is queued. */
  private active = false;
  /** The timer's expiry (hrtimer_get_expires): the next while active, the last when stopped. */
  private expiry = 0;
  /** The CPU whose timer base holds the period timer (HRTIMER_MODE_ABS_PINNED). */
  private timerCpu = 0;
  /** An event is posted for the next expiry. */
  private armed = false;
  /** rt_rqs throttled now. */
  private nrThrottled = 0;

  constructor(private readonly k: SchedCore) {
    const n = k.rqs.length;
    const t = k.tunables;
    this.period = t.sched_rt_period_us * NS_PER_US;
    this.runtime = t.sched_rt_runtime_us < 0 ? RUNTIME_INF : t.sched_rt_runtime_us * NS_PER_US;
    this.enabled = ERA_TRAITS[k.era].rtRootBandwidth && t.sched_rt_runtime_us >= 0;
    this.hidesNr = eraAtLeast(k.era, "3.19");
    this.kick = eraAtLeast(k.era, "4.8");
    this.zeroRuntimeResets = eraAtLeast(k.era, "3.19");
    this.share = k.features.RT_RUNTIME_SHARE;
    this.rtTime = new Float64Array(n);
    this.rtRuntime = new Float64Array(n).fill(this.runtime);
    this.throttled = new Uint8Array(n);
  }

  /** Tasks of rq's rt_rq that a throttle took out of nr_running (0 before v3.19). */
  nrHidden(rq: Rq): number {
    return this.hidesNr && this.throttled[rq.cpu] === 1 ? rq.rt.rtNrRunning : 0;
  }

  /** Tasks counted in rq's nr_running that no class will pick: a throttled rt_rq's, in v2.6.29. */
  nrUnpickable(rq: Rq): number {
    return !this.hidesNr && this.throttled[rq.cpu] === 1 ? rq.rt.rtNrRunning : 0;
  }

  /** The tail of update_curr_rt: charge delta ns of RT run time to rq's rt_rq; resched if exceeded. */
  account(rq: Rq, delta: number): void {
    if (!this.enabled) return;
    const cpu = rq.cpu;
    if (this.rtRuntime[cpu] === RUNTIME_INF) return; // sched_rt_runtime(rt_rq) == RUNTIME_INF
    this.advance(this.k.now);
    this.rtTime[cpu] += delta;
    if (this.runtimeExceeded(rq)) this.k.reschedCurr(rq);
  }

  /**
   * enqueue_task_rt's part before the task is counted: inc_rt_group's start_rt_bandwidth, and,
   * from v3.19, the enqueue_top_rt_rq that leaves a throttled rt_rq out of nr_running. The core
   * adds 1 to nr_running after every enqueue, so a task joining a throttled rt_rq is taken back
   * out first.
   */
  enqueue(rq: Rq): void {
    if (!this.enabled) return;
    this.advance(this.k.now);
    if (this.hidesNr && this.throttled[rq.cpu] === 1) subNrRunning(this.k, rq, 1);
    this.start(rq);
  }

  /** dequeue_task_rt's part before the task leaves: the core takes 1 off nr_running after it. */
  dequeue(rq: Rq): void {
    if (!this.enabled) return;
    this.advance(this.k.now);
    if (this.hidesNr && this.throttled[rq.cpu] === 1) addNrRunning(this.k, rq, 1);
  }

  /**
   * sched_rt_runtime_exceeded: throttle once rt_time passes the runtime (after borrowing some
   * with RT_RUNTIME_SHARE); a runtime of a whole period or more never throttles.
   */
  private runtimeExceeded(rq: Rq): boolean {
    const cpu = rq.cpu;
    if (this.throttled[cpu] === 1) return true;
    if (this.rtRuntime[cpu] >= this.period) return false;
    this.balanceRuntime(cpu);
    const runtime = this.rtRuntime[cpu];
    if (runtime === RUNTIME_INF || this.rtTime[cpu] <= runtime) return false;
    if (this.runtime === 0 && this.zeroRuntimeResets) {
      this.rtTime[cpu] = 0; // "replenishment is a joke, since it will replenish us with exactly 0 ns"
      return false;
    }
    this.throttled[cpu] = 1;
    this.nrThrottled++;
    bump(this.k.counters.other, "rt_throttled");
    if (this.hidesNr) subNrRunning(this.k, rq, rq.rt.rtNrRunning); // sched_rt_rq_dequeue
    this.arm();
    return true;
  }

  /**
   * balance_runtime / do_balance_runtime: from each other CPU of the root domain with runtime to
   * spare, take 1/n of it (n = CPUs in the domain), up to a whole period.
   */
  private balanceRuntime(cpu: number): void {
    if (!this.share || !(this.rtTime[cpu] > this.rtRuntime[cpu])) return;
    const rqs = this.k.rqs;
    let weight = 0;
    for (const rq of rqs) if (rq.online) weight++;
    for (const rq of rqs) {
      const i = rq.cpu;
      if (i === cpu || !rq.online || this.rtRuntime[i] === RUNTIME_INF) continue;
      let diff = this.rtRuntime[i] - this.rtTime[i];
      if (diff <= 0) continue;
      diff = Math.floor(diff / weight);
      if (this.rtRuntime[cpu] + diff > this.period) diff = this.period - this.rtRuntime[cpu];
      this.rtRuntime[i] -= diff;
      this.rtRuntime[cpu] += diff;
      if (this.rtRuntime[cpu] === this.period) break;
    }
  }

  /** start_rt_bandwidth, from inc_rt_group: queue the period timer if it is not. */
  private start(rq: Rq): void {
    if (this.active || this.runtime === RUNTIME_INF) return;
    const now = this.k.now;
    this.active = true;
    this.timerCpu = this.k.thisCpu >= 0 ? this.k.thisCpu : rq.cpu;
    // Kicked (by v4.8), the timer expires at once; that expiry finds every rt_time at 0 (the timer
    // only stops once all are) and leaves the next one period on. Before, hrtimer_forward keeps
    // the grid of the last expiry: the first expiry after now on it.
    this.expiry = this.kick
      ? now + this.period
      : this.expiry + (Math.floor((now - this.expiry) / this.period) + 1) * this.period;
  }

  /**
   * Applies every expiry of the period timer due by t (sched_rt_period_timer, one period each),
   * stopping the timer at an expiry that finds nothing to do. Returns whether an rt_rq was
   * unthrottled.
   */
  private advance(t: number): boolean {
    let unthrottled = false;
    while (this.active && this.expiry <= t) {
      this.expiry += this.period;
      if (this.periodTimer()) unthrottled = true;
    }
    return unthrottled;
  }

  /**
   * do_sched_rt_period_timer(rt_b, 1) over the online CPUs: give a period's runtime back
   * (borrowing first for a throttled rt_rq), unthrottle an rt_rq back under its runtime, and stop
   * the timer (rt_period_active = 0; the expiry stays) when no rt_rq has time or tasks left.
   */
  private periodTimer(): boolean {
    let idle = true;
    let unthrottled = false;
    for (const rq of this.k.rqs) {
      if (!rq.online) continue;
      const cpu = rq.cpu;
      if (this.rtTime[cpu] > 0) {
        if (this.throttled[cpu] === 1) this.balanceRuntime(cpu);
        const runtime = this.rtRuntime[cpu];
        this.rtTime[cpu] -= Math.min(this.rtTime[cpu], runtime);
        if (this.throttled[cpu] === 1 && this.rtTime[cpu] < runtime) {
          this.unthrottle(rq, true);
          unthrottled = true;
        }
        if (this.rtTime[cpu] > 0 || rq.rt.rtNrRunning > 0) idle = false;
      } else if (rq.rt.rtNrRunning > 0) idle = false;
    }
    if (idle) this.active = false;
    return unthrottled;
  }

  /**
   * rt_throttled = 0 and sched_rt_rq_enqueue: the tasks count in nr_running again (v3.19+,
   * enqueue_top_rt_rq) and, if there are any, the CPU reschedules (v2.6.29 resched_task(curr),
   * later resched_curr).
   */
  private unthrottle(rq: Rq, resched: boolean): void {
    this.throttled[rq.cpu] = 0;
    this.nrThrottled--;
    if (rq.rt.rtNrRunning === 0) return;
    if (this.hidesNr) addNrRunning(this.k, rq, rq.rt.rtNrRunning);
    if (resched) this.k.reschedCurr(rq);
  }

  /** Posts the event of the next expiry while an rt_rq is throttled (one pending at a time). */
  private arm(): void {
    if (this.armed || this.nrThrottled === 0) return;
    this.armed = true;
    this.k.at(this.expiry, () => this.fire());
  }

  /**
   * The period timer's interrupt on its CPU (the first online one if that CPU went down, as
   * hrtimers migrate): apply the expiry, then, if it unthrottled anything, return from the
   * interrupt through the scheduler (a local resched, IPIs to the other CPUs, charged here).
   */
  private fire(): void {
    this.armed = false;
    const k = this.k;
    bump(k.counters.other, "rt_period_timer");
    let rq = k.rqs[this.timerCpu];
    if (!rq.online) rq = k.rqs.find((r) => r.online) ?? rq;
    k.thisCpu = rq.cpu;
    const unthrottled = this.advance(k.now);
    this.arm();
    if (unthrottled) k.finish(rq);
    else k.thisCpu = -1;
  }

  /**
   * __disable_runtime (rq_offline_rt): take back what this CPU lent, or give back what it
   * borrowed, then leave it with RUNTIME_INF, unthrottled. Its tasks are about to move away, so
   * sched_rt_rq_enqueue's resched is not sent.
   */
  disable(rq: Rq): void {
    if (!this.enabled) return;
    this.catchUp(rq, true);
    const cpu = rq.cpu;
    const own = this.rtRuntime[cpu];
    if (own !== RUNTIME_INF && own !== this.runtime) {
      let want = this.runtime - own; // < 0: borrowed, given to the first CPU found
      for (const it of this.k.rqs) {
        const i = it.cpu;
        if (i === cpu || !it.online || this.rtRuntime[i] === RUNTIME_INF) continue;
        const diff = want > 0 ? Math.min(this.rtRuntime[i], want) : want;
        this.rtRuntime[i] -= diff;
        want -= diff;
        if (want === 0) break;
      }
    }
    this.rtRuntime[cpu] = RUNTIME_INF;
    if (this.throttled[cpu] === 1) this.unthrottle(rq, false);
  }

  /**
   * The expiries due before a hotplug step, applied with rq in the online state it had until now
   * (the core flips rq->online before it calls rq_offline / rq_online).
   */
  private catchUp(rq: Rq, wasOnline: boolean): void {
    const online = rq.online;
    rq.online = wasOnline;
    this.advance(this.k.now);
    rq.online = online;
  }

  /** __enable_runtime (rq_online_rt): the default runtime, no time charged, not throttled. */
  enable(rq: Rq): void {
    if (!this.enabled) return;
    this.catchUp(rq, false);
    const cpu = rq.cpu;
    this.rtRuntime[cpu] = this.runtime;
    this.rtTime[cpu] = 0;
    if (this.throttled[cpu] === 1) this.unthrottle(rq, false);
  }
}
