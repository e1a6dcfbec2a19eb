// The fair server of v6.12+ (kernel/sched/deadline.c dl_server_*, fair.c fair_server_init): per
// CPU, a deferred SCHED_DEADLINE entity of dl_runtime 50 ms per dl_period 1000 ms that runs fair
// tasks when RT tasks starve them. It replaced the root rt_rq throttle (5f6bd380c7bd, v6.12). The
// model has no deadline class, so the server sits before pick_next_task_rt: while it runs, the RT
// class picks nothing and fair picks. What is modelled, from deadline.c of v6.19 (the state
// diagram above dl_server_start; a110a81c52a9 "sched/deadline: Deferrable dl server", v6.12):
//   - dl_server_update: time fair tasks run, and (defer, e636ffb9e31b "sched/deadline: Fix
//     dl_server time accounting", v6.19) idle time, uses the server's runtime; RT time does not.
//   - deferred (B): the server is throttled with its timer at the zero-laxity time, deadline -
//     runtime. Fair tasks that use up the runtime in the background start a new period from then
//     (replenish_dl_new_period), so the timer only fires after about 950 ms of RT time in one.
//   - the timer (dl_server_timer) queues the server unless fair tasks used runtime meanwhile (it
//     is then forwarded, by at least dl_server_min_res, 1 ms); replenish_dl_entity finds the
//     CBS rule overflowed and gives a new period from now. The server then runs fair tasks above
//     RT (D) until its runtime is used (noticed at the tick, as update_curr does), is throttled
//     until the next period (E), and then runs again at its start: it is not deferred again
//     while fair tasks stay starved. Fair time while throttled (E) defers it again.
//   - dl_server_start when a fair task is queued on a CPU with none; since v6.17 (cccb45d7c429
//     "sched/deadline: Less agressive dl_server handling", a3a70caf7906 "sched/deadline: Fix
//     dl_server behaviour") a dequeue does not stop it: it stops when it is picked and finds no
//     fair task (pick_task_dl), and a later start keeps its deadline and runtime unless the CBS
//     wakeup rule (update_dl_entity) gives a new period.
// Not modelled: dl_server_start's resched_curr (the deferred server is not queued, so the pick it
// causes finds what it would have), the idle-wait state that stops a server left idle for a whole
// period (dl_defer_idle, release not verified), stop-class time (charged to the server as fair
// time), the deadline class's bandwidth admission, and frequency scaling (runtime is scaled by the
// CPU's capacity only, as dl_scaled_delta_exec does at the highest frequency).
//
// Lazy, like the RT period timer: the state is caught up at each RT update_curr, RT pick, the
// enqueue of a first fair task and the tick of a served one. A use of the runtime that crosses
// zero while deferred is placed at the crossing (the kernel notices it at the next update_curr,
// up to a tick later). An event is posted only while an RT task runs over queued fair tasks and
// the timer is due before the next tick, so runs in which RT never starves CFS are unchanged.
import type { SchedCore } from "../core/api";
import { bump } from "../counters";
import { ERA_TRAITS } from "../features";
import type { Rq } from "../sched";
import type { FairServerHooks } from "./root_domain";

/** dl_server_min_res: the timer is not forwarded by less than this. */
const MIN_RES_NS = 1_000_000;

/** A: stopped (!dl_server_active). */
const STOPPED = 0;
/** B: deferred, throttled with dl_defer_armed: the timer waits for the zero-laxity time. */
const DEFERRED = 1;
/** D: queued with dl_defer_running: it runs fair tasks above RT. */
const RUNNING = 2;
/** E: throttled after using its runtime, dl_defer_running: the timer waits for the next period. */
const REPLENISH = 3;

/** rq->fair_server of every CPU: its state, deadline and runtime, and its lazy timer. */
export class FairServer implements FairServerHooks {
  /** The era has the fair server (v6.12+) and fair_server_runtime_ns is not 0. */
  readonly enabled: boolean;
  /** dl_runtime, ns. */
  readonly dlRuntime: number;
  /** dl_period = dl_deadline, ns. */
  readonly dlPeriod: number;
  /** Per CPU: STOPPED, DEFERRED, RUNNING or REPLENISH. */
  readonly state: Uint8Array;
  /** Per CPU: dl_se->deadline, ns. */
  readonly deadline: Float64Array;
  /** Per CPU: dl_se->runtime, ns (scaled by capacity). */
  readonly runtime: Float64Array;
  /** Per CPU: the time up to which the runtime used is charged. */
  private readonly stamp: Float64Array;
  /** Per CPU: an event is posted for the timer. */
  private readonly armed: Uint8Array;
  /** Per CPU: arch_scale_cpu_capacity / 1024. */
  private readonly scale: Float64Array;

  constructor(private readonly k: SchedCore) {
    const n = k.rqs.length;
    this.dlRuntime = k.tunables.fair_server_runtime_ns;
    this.dlPeriod = k.tunables.fair_server_period_ns;
    this.enabled = ERA_TRAITS[k.era].fairServer && this.dlRuntime > 0;
    this.state = new Uint8Array(n);
    this.deadline = new Float64Array(n).fill(this.dlPeriod); // setup_new_dl_entity at boot
    this.runtime = new Float64Array(n).fill(this.dlRuntime);
    this.stamp = new Float64Array(n);
    this.armed = new Uint8Array(n);
    this.scale = Float64Array.from(k.machine.cpus, (c) => c.capacity / 1024);
    if (this.enabled) k.tickHooks.push((rq) => this.tick(rq));
  }

  /** Fair tasks that pick_task_fair would return: queued and not delayed. */
  private hasFair(rq: Rq): boolean {
    return rq.cfs.hNrRunning - rq.cfs.hNrDelayed > 0;
  }

  /** enqueue_task_fair of a first fair task: dl_server_start unless the server is active. */
  fairEnqueued(rq: Rq): void {
    if (!this.enabled) return;
    this.advance(rq, false);
    const cpu = rq.cpu;
    if (this.state[cpu] === STOPPED) {
      // enqueue_dl_entity(ENQUEUE_WAKEUP) -> update_dl_entity: the CBS wakeup rule, then deferred
      const now = this.k.now;
      if (this.deadline[cpu] < now || this.overflow(cpu, now)) this.newPeriod(cpu, now);
      this.state[cpu] = DEFERRED;
    }
    this.arm(rq, rq.curr !== null && rq.curr.schedClass === "rt");
  }

  /** The last fair task left rq: a running server finds none at the pick that follows and stops. */
  fairDequeued(rq: Rq): void {
    if (!this.enabled || this.state[rq.cpu] !== RUNNING) return;
    this.advance(rq, true);
    if (this.state[rq.cpu] === RUNNING) this.state[rq.cpu] = STOPPED;
  }

  /** update_curr_rt: catch up to now (RT time uses no runtime) and arm the timer if it is due. */
  rtRan(rq: Rq): void {
    if (!this.enabled || this.state[rq.cpu] === STOPPED) return;
    if (this.advance(rq, this.hasFair(rq))) this.k.reschedCurr(rq);
    this.arm(rq, true);
  }

  /**
   * pick_task_dl, before pick_next_task_rt: true while the server runs fair tasks (RT then picks
   * nothing); a queued server with no fair task stops (server_pick_task returned NULL).
   */
  serving(rq: Rq): boolean {
    const cpu = rq.cpu;
    if (!this.enabled || this.state[cpu] === STOPPED) return false;
    const fair = this.hasFair(rq);
    this.advance(rq, fair);
    if (this.state[cpu] !== RUNNING) return false;
    if (fair) return true;
    this.state[cpu] = STOPPED;
    return false;
  }

  /** pick_next_task_rt picked a task: arm the timer if it is due before the next tick. */
  rtPicked(rq: Rq): void {
    if (this.enabled && this.state[rq.cpu] !== STOPPED) this.arm(rq, true);
  }

  /** task_tick_fair's update_curr of a served task: throttle the server once its runtime is used. */
  private tick(rq: Rq): void {
    const curr = rq.curr;
    if (this.state[rq.cpu] !== RUNNING || curr === null || curr.schedClass !== "fair") return;
    this.advance(rq, true);
    if (this.state[rq.cpu] === REPLENISH) this.k.reschedCurr(rq);
  }

  /**
   * Charges the time since the last catch-up: the running RT task's part of it (since its
   * exec_start) uses no runtime, the rest does. Then applies a timer expiry that is due, unless an
   * event is posted for it. Returns whether that queued the server over fair tasks.
   */
  private advance(rq: Rq, hadFair: boolean): boolean {
    const cpu = rq.cpu;
    const t = this.k.now;
    const from = this.stamp[cpu];
    if (this.state[cpu] === STOPPED) {
      this.stamp[cpu] = t;
      return false;
    }
    if (t > from) {
      this.stamp[cpu] = t;
      const curr = rq.curr;
      const rtFrom =
        curr !== null && curr.schedClass === "rt"
          ? Math.max(from, Math.min(t, curr.se.execStart))
          : t;
      if (rtFrom > from) this.consume(cpu, from, rtFrom);
    }
    return this.armed[cpu] === 0 && this.expire(cpu, t, hadFair);
  }

  /** update_curr_dl_se from dl_server_update / dl_server_update_idle over [s, e]. */
  private consume(cpu: number, s: number, e: number): void {
    const used = (e - s) * this.scale[cpu];
    const r = this.runtime[cpu];
    switch (this.state[cpu]) {
      case DEFERRED: {
        if (used < r) {
          this.runtime[cpu] = r - used;
          return;
        }
        // dl_runtime_exceeded while throttled: a new period from then, deferred again; as many
        // times as the runtime was used up in [s, e]
        const rem = (used - r) % this.dlRuntime;
        this.newPeriod(cpu, e - rem / this.scale[cpu]);
        this.runtime[cpu] = this.dlRuntime - rem;
        return;
      }
      case RUNNING:
        this.runtime[cpu] = r - used;
        if (r - used <= 0) this.state[cpu] = REPLENISH; // throttled until dl_next_period
        return;
      case REPLENISH:
        // fair tasks ran outside the server: no longer starved, back to deferred from now
        this.newPeriod(cpu, e);
        this.state[cpu] = DEFERRED;
        return;
    }
  }

  /** The timer's expiry if it is due by t: the zero-laxity time (B) or the next period (E). */
  private expire(cpu: number, t: number, hadFair: boolean): boolean {
    const st = this.state[cpu];
    if (st !== DEFERRED && st !== REPLENISH) return false;
    const at = st === DEFERRED ? this.deadline[cpu] - this.runtime[cpu] : this.deadline[cpu];
    if (at > t) return false;
    this.replenish(cpu, at, st === DEFERRED);
    if (hadFair) return true;
    this.state[cpu] = STOPPED; // queued, picked, no fair task: dl_server_stop
    return false;
  }

  /** dl_server_timer -> enqueue_dl_entity(ENQUEUE_REPLENISH) -> replenish_dl_entity at t. */
  private replenish(cpu: number, t: number, deferArmed: boolean): void {
    if (deferArmed && this.overflow(cpu, t)) this.newPeriod(cpu, t);
    while (this.runtime[cpu] <= 0) {
      this.deadline[cpu] += this.dlPeriod;
      this.runtime[cpu] += this.dlRuntime;
    }
    if (this.deadline[cpu] < t) this.newPeriod(cpu, t); // "DL replenish lagged too much"
    this.state[cpu] = RUNNING;
  }

  /** dl_entity_overflow: runtime / (deadline - t) > dl_runtime / dl_deadline. */
  private overflow(cpu: number, t: number): boolean {
    return (this.deadline[cpu] - t) * this.dlRuntime < this.dlPeriod * this.runtime[cpu];
  }

  /** replenish_dl_new_period. */
  private newPeriod(cpu: number, t: number): void {
    this.deadline[cpu] = t + this.dlPeriod;
    this.runtime[cpu] = this.dlRuntime;
  }

  /** Posts the timer's event while an RT task runs over fair tasks and it is due by the next tick. */
  private arm(rq: Rq, rtRunning: boolean): void {
    const cpu = rq.cpu;
    if (!rtRunning || this.armed[cpu] === 1 || !this.hasFair(rq)) return;
    const st = this.state[cpu];
    if (st !== DEFERRED && st !== REPLENISH) return;
    const at = st === DEFERRED ? this.deadline[cpu] - this.runtime[cpu] : this.deadline[cpu];
    const now = this.k.now;
    if (at > now + this.k.tickNs) return;
    this.armed[cpu] = 1;
    this.k.at(Math.max(at, now), () => this.fire(rq));
  }

  /**
   * dl_server_timer on rq's CPU: catch up, queue the server if its time has come (a deferred one
   * whose fair tasks used no more than dl_server_min_res since the timer was set, too), and
   * reschedule the RT task it preempts.
   */
  private fire(rq: Rq): void {
    const k = this.k;
    const cpu = rq.cpu;
    this.armed[cpu] = 0;
    if (!rq.online || this.state[cpu] === STOPPED) return;
    bump(k.counters.other, "fair_server_timer");
    k.thisCpu = cpu;
    const fair = this.hasFair(rq);
    let queued = this.advance(rq, fair);
    const st = this.state[cpu];
    if (st === DEFERRED && k.now >= this.deadline[cpu] - this.runtime[cpu] - MIN_RES_NS) {
      this.replenish(cpu, k.now, true);
      if (fair) queued = true;
      else this.state[cpu] = STOPPED;
    }
    if (queued) {
      bump(k.counters.other, "fair_server_run");
      k.reschedCurr(rq); // !dl_task(rq->curr)
    }
    this.arm(rq, rq.curr !== null && rq.curr.schedClass === "rt");
    if (queued) k.finish(rq);
    else k.thisCpu = -1;
  }
}
