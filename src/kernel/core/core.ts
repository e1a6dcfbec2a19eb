// kernel/sched/core.c: runqueues, activate/deactivate, schedule(), the context switch, the tick
// and resched IPIs. Classes are reached only through their sched_class ops (sched.ts); wakeups
// are in ttwu.ts, task programs in exec.ts, the event loop in events.ts.
import {
  type CfsTiming,
  DEQUEUE_SLEEP,
  EV_RESCHED_IPI,
  EV_WAKE_ARRIVE,
  Rq,
  type SchedClass,
  type Task,
  TASK_DEAD,
  TASK_ON_RQ_MIGRATING,
  TASK_ON_RQ_QUEUED,
  TASK_RUNNING,
} from "../sched";
import type { Machine } from "../../machine/types";
import { shareMatrix } from "../../machine/share";
import { EventQueue } from "../../sim/event_queue";
import { RandomSource } from "../../sim/random";
import { CacheModel } from "../cache";
import { bump, newCounters, type SchedCounters } from "../counters";
import { CFS_POLICY, cfsTiming, FairClass } from "../fair/fair";
import { EEVDF_POLICY } from "../fair/eevdf";
import { type Era, ERA_TRAITS, eraAtLeast, type Features, type Tunables } from "../features";
import type { HookFn, Hooks } from "../hooks";
import { IPI_AVOIDED, exitDoneAt, recordIdle, selectIdleState, wakesWithoutIpi } from "./idle";
import { RtClass } from "../rt/rt";
import type { DomainTree } from "../topology/sched_domain";
import { buildSchedDomains } from "../topology/topology";
import "../topology/hooks";
import { type MigrationReason, TraceBuffer } from "../trace";
import { continueTask, setCurr, smtSiblingsOf, startSegment, stopSegment } from "./exec";
import { lockRq, unlockRq } from "./rq_lock";
import { type RqLocks, rqLocksFor } from "./spinlock";
import { smpCallFunctionSingle } from "./smp";
import { newidleIdleStamp, scheduleClock } from "./avg_idle";
import { closeIdle, flushAccounting, idleWork } from "./cputime";
import { spawnKernelThread, spawnTask } from "./fork";
import { checkInvariants } from "./invariants";
import { checkPreemptWakeup, countSwitch } from "./switch_stats";
import { RqView, TaskView } from "../fair/lb/views";
import { FairBalancer } from "../fair/balance";
import type { Program, SpawnSpec } from "../ops";
import type { SchedCore } from "./api";
import { armTimer, at, runUntil } from "./events";
import { IdleClass, StopClass } from "./stop_task";
import { schedulerTick, startTick, stopTick, tickOffset } from "./tick";
import { cpuidleIdleCall } from "./idle_call";
import { primeKernelLayout, primeRqLayout } from "../layout";

/** What a Kernel is built from: the machine, the era's tunables and features, the hooks in force. */
export interface KernelConfig {
  machine: Machine;
  era: Era;
  tunables: Tunables;
  features: Features;
  hooks: Hooks;
  seed: string;
  /** Boot-time online state (defaults to machine.online). */
  online?: boolean[];
  trace?: boolean;
  /** Trace records kept (the newest); default DEFAULT_TRACE_LIMIT. */
  traceLimit?: number;
}

export type { SpawnSpec } from "../ops";

/**
 * The scheduler of one simulated machine: per-CPU runqueues, the classes, sched domains and the
 * event loop, mirroring kernel/sched/core.c. Experiments build one per iteration.
 */
export class Kernel implements SchedCore {
  now = 0;
  readonly eq = new EventQueue(4096);
  readonly machine: Machine;
  readonly era: Era;
  readonly tunables: Tunables;
  readonly features: Features;
  readonly hooks: Hooks;
  readonly rqs: Rq[];
  readonly tasks: Task[] = [];
  readonly counters: SchedCounters = newCounters();
  readonly random: RandomSource;
  /** The cache-warmth model (migration and wakeup costs). @internal */
  readonly cache: CacheModel;
  /** stop_sched_class. @internal */
  readonly stop: StopClass;
  /** rt_sched_class. @internal */
  readonly rt: RtClass;
  /** fair_sched_class. @internal */
  readonly fair: FairClass;
  /** idle_sched_class. @internal */
  readonly idle: IdleClass;
  /** The classes in priority order, as for_each_class walks them. @internal */
  readonly classes: readonly SchedClass[];
  domains: DomainTree;
  /** Scaled CFS timing (sched_init_granularity). @internal */
  cfsTiming: CfsTiming;
  readonly tickNs: number;
  /** Runqueues with two or more tasks (root_domain->overload). */
  nrOverloaded = 0;
  /** The CPU whose event is being handled ("smp_processor_id()"). */
  thisCpu = -1;
  /** Kernel work done in this context so far: its clock is now + chargeNs (see finish). */
  chargeNs = 0;
  /** The CPU that last took each rq's lock (-1: none, or a context with no CPU). @internal */
  readonly rqLockHolder: Int32Array;
  readonly rqLocks: RqLocks; // the era's spinlock kind, the queue behind each rq lock
  /** Per CPU: kernel time charged to no task (see cputime.ts). */
  readonly overheadNs: Float64Array;
  events = 0;
  readonly trace: TraceBuffer | null;
  /** Called at every tick of a busy CPU after task_tick (trigger_load_balance goes here). */
  readonly tickHooks: Array<(rq: Rq) => void> = [];
  /** Called when a CPU is about to go idle (newidle balance goes here); may enqueue work. */
  readonly newIdleHooks: Array<(rq: Rq) => void> = [];
  readonly tickStopHooks: Array<(rq: Rq) => void> = [];
  readonly tickRestartHooks: Array<(rq: Rq) => void> = [];
  readonly callbacks: Array<(() => void) | null> = [];
  private readonly rqViews: RqView[];
  private readonly taskViews = new Map<Task, TaskView>();
  /** fair's load balancer (rebalance_domains, newidle and active balance). @internal */
  readonly balancer: FairBalancer;
  private nextPid = 1;
  private readonly idleStates;
  private readonly smtSiblings: number[][]; // those whose speed a CPU changes (smtSiblingsOf)
  private readonly baseSpeed: Float64Array; // arch capacity / 1024 per CPU, resolved once
  private readonly callbacksLocked: boolean; // __schedule's era test, resolved once
  private readonly psi: boolean; // PSI kept: tunable psi in v4.20+
  /** The core.ttwu_queue_cond hook in force, looked up once (hooks are fixed per kernel). @internal */
  readonly ttwuQueueCond: HookFn<"core.ttwu_queue_cond">;

  constructor(cfg: KernelConfig) {
    this.machine = cfg.machine;
    this.era = cfg.era;
    this.tunables = cfg.tunables;
    this.features = cfg.features;
    this.hooks = cfg.hooks;
    this.callbacksLocked = eraAtLeast(cfg.era, "5.19");
    this.psi = cfg.tunables.psi === 1 && eraAtLeast(cfg.era, "4.20");
    this.ttwuQueueCond = cfg.hooks.get("core.ttwu_queue_cond");
    this.random = new RandomSource(cfg.seed);
    this.trace = cfg.trace ? new TraceBuffer(cfg.traceLimit) : null;
    primeKernelLayout(this);
    const n = cfg.machine.cpus.length;
    const online = cfg.online ?? cfg.machine.online;
    this.rqs = Array.from({ length: n }, (_, i) => primeRqLayout(new Rq(i, this)));
    this.rqLockHolder = new Int32Array(n).fill(-1);
    this.rqLocks = rqLocksFor(cfg.machine.arch, cfg.era, n);
    this.overheadNs = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const rq = this.rqs[i];
      rq.online = online[i];
      rq.idleCpuChecksQueued = ERA_TRAITS[cfg.era].idleCpuChecksQueued;
      rq.cpuCapacity = rq.cpuCapacityOrig = cfg.machine.cpus[i].capacity;
    }
    this.cache = new CacheModel(cfg.machine, shareMatrix(cfg.machine));
    this.stop = new StopClass(this, (rq) => this.reschedCurr(rq));
    this.fair = new FairClass(this);
    this.fair.policy = eraAtLeast(cfg.era, "6.6") ? EEVDF_POLICY : CFS_POLICY;
    this.rt = new RtClass(this);
    this.idle = new IdleClass(this);
    this.classes = [this.stop, this.rt, this.fair, this.idle];
    this.idleStates = cfg.machine.idleStates;
    this.smtSiblings = smtSiblingsOf(cfg.machine);
    this.baseSpeed = Float64Array.from(cfg.machine.cpus, (c) => c.capacity / 1024);
    for (const rq of this.rqs) rq.speed = this.baseSpeed[rq.cpu]; // every CPU idle
    this.domains = this.buildDomains();
    this.cfsTiming = cfsTiming(this);
    this.tickNs = Math.round(1e9 / this.tunables.hz);
    for (const rq of this.rqs) {
      rq.idleSince = 0;
      rq.idleStateIdx = selectIdleState(this.idleStates, rq);
      rq.avgIdle = 2 * this.tunables.sched_migration_cost_ns; // sched_init
      rq.wakeAvgIdle = rq.avgIdle;
    }
    this.rqViews = this.rqs.map((rq) => new RqView(rq, this));
    this.balancer = new FairBalancer(this);
  }

  /** build_sched_domains over the online CPUs, with the hooks' group capacities. */
  buildDomains(): DomainTree {
    const online = this.rqs.map((rq) => rq.online);
    const tree = buildSchedDomains(
      this.machine,
      online,
      this.era,
      this.hooks.get("topology.group_capacity"),
      { schedCluster: this.tunables.sched_cluster !== 0 },
    );
    // update_cpu_capacity (smt_gain / weight for SMT threads in the eras that have it)
    for (const rq of this.rqs) rq.cpuCapacity = rq.cpuCapacityOrig = tree.cpuCapacity[rq.cpu];
    return tree;
  }

  /** num_online_cpus(). */
  onlineCount(): number {
    return this.rqs.filter((rq) => rq.online).length;
  }

  // ---------------------------------------------------------------- tasks

  /** fork + wake_up_new_task of a user task (kernel/fork.c). */
  spawn(spec: SpawnSpec): Task {
    return spawnTask(this, spec);
  }

  /** A stop-class kernel thread pinned to `cpu`, created asleep (see fork.ts). */
  spawnKernelThread(comm: string, cpu: number, program: Program): Task {
    return spawnKernelThread(this, comm, cpu, program);
  }

  /** alloc_pid(): the next free pid. */
  allocPid(): number {
    return this.nextPid++;
  }

  /** The balancer's view of a runqueue (one object per rq, reading live state). @internal */
  lbRq(cpu: number): RqView {
    return this.rqViews[cpu];
  }

  /** The balancer's view of a task. @internal */
  lbTask(p: Task): TaskView {
    let v = this.taskViews.get(p);
    if (!v) {
      v = new TaskView(p, this);
      this.taskViews.set(p, v);
    }
    return v;
  }

  /** find_task_by_pid_ns(): the task with this pid, if any. */
  taskByPid(pid: number): Task | undefined {
    return this.tasks[pid - 1];
  }

  /** Work done including the part of the running segment so far. */
  workDone(p: Task): number {
    let w = p.stats.workDoneNs;
    if (p.onCpu && this.rqs[p.cpu].curr === p) {
      const elapsed = this.now - p.segStartedAt;
      const run = Math.max(0, elapsed - p.segOverheadNs);
      w += Math.min(run * this.speed(p.cpu), p.segWorkNs);
    }
    return w;
  }

  /** Work per ns relative to a lone thread of capacity 1024 (rq.speed, kept by setCurr). */
  speed(cpu: number): number {
    return this.rqs[cpu].speed;
  }

  // ---------------------------------------------------------------- class dispatch

  /** p->sched_class. @internal */
  classFor(p: Task): SchedClass {
    switch (p.schedClass) {
      case "fair":
        return this.fair;
      case "rt":
        return this.rt;
      case "stop":
        return this.stop;
      default:
        return this.idle;
    }
  }

  /** enqueue_task */
  enqueueTask(rq: Rq, p: Task, flags: number): void {
    // psi_enqueue: psi_group_change writes task_cpu(p)'s psi_group_cpu (features.ts tunable psi)
    if (this.psi && this.thisCpu >= 0 && this.thisCpu !== rq.cpu)
      this.chargeNs += this.cache.cacheLineNs(this.thisCpu, rq.cpu);
    this.classFor(p).enqueueTask(rq, p, flags);
    if (++rq.nrRunning === 2) this.nrOverloaded++;
  }

  /** dequeue_task; false when fair keeps p queued (DELAY_DEQUEUE, v6.12: nr_running unchanged) */
  dequeueTask(rq: Rq, p: Task, flags: number): boolean {
    if (!this.classFor(p).dequeueTask(rq, p, flags)) return false;
    if (rq.nrRunning-- === 2) this.nrOverloaded--;
    return true;
  }

  /** activate_task */
  activateTask(rq: Rq, p: Task, flags: number): void {
    this.enqueueTask(rq, p, flags);
    p.onRq = TASK_ON_RQ_QUEUED;
    p.lastStateChange = this.now;
  }

  /** deactivate_task (block_task: p->on_rq stays set while its dequeue is delayed) */
  deactivateTask(rq: Rq, p: Task, flags: number): void {
    if (this.dequeueTask(rq, p, flags)) p.onRq = 0;
  }

  /** check_preempt_curr of a wakeup: the wakee's class decides; counts wakeup preemptions. */
  checkPreemptCurr(rq: Rq, p: Task, wakeFlags = 0): void {
    checkPreemptWakeup(this, rq, p, wakeFlags);
  }

  /** set_task_cpu: migrate_task_rq (vruntime), task_cpu(p) = cpu, count; p dequeued or waking. */
  setTaskCpu(p: Task, cpu: number, reason: MigrationReason): void {
    const from = p.cpu;
    if (from === cpu) return;
    this.classFor(p).migrateTaskRq?.(
      p,
      this.rqs[from],
      this.rqs[cpu],
      p.onRq === TASK_ON_RQ_MIGRATING,
    );
    p.cpu = cpu;
    p.stats.migrations++;
    bump(this.counters.migrations, reason);
    if (this.trace) {
      this.trace.push({
        type: "sched_migrate_task",
        t: this.now,
        cpu: this.thisCpu < 0 ? from : this.thisCpu,
        comm: p.comm,
        pid: p.pid,
        prio: p.prio,
        origCpu: from,
        destCpu: cpu,
        reason,
      });
    }
  }

  /** Moves a queued, not running task between runqueues (detach_task + attach_task). */
  moveQueuedTask(p: Task, dstCpu: number, reason: MigrationReason): void {
    const src = this.rqs[p.cpu];
    const dst = this.rqs[dstCpu];
    if (p.onCpu) throw new Error(`moveQueuedTask: ${p.comm}/${p.pid} is running`);
    this.deactivateTask(src, p, 0);
    p.onRq = TASK_ON_RQ_MIGRATING;
    this.setTaskCpu(p, dstCpu, reason);
    this.activateTask(dst, p, 0);
    this.classFor(p).checkPreemptCurr(dst, p); // attach_task: not a wakeup
  }

  // ---------------------------------------------------------------- resched and IPIs

  /** resched_curr: set need_resched; a remote CPU needs an IPI unless its idle loop polls. */
  reschedCurr(rq: Rq): void {
    if (rq.needResched) return;
    rq.needResched = true;
    if (rq.cpu === this.thisCpu) return;
    this.kickCpu(rq, "resched");
  }

  /** Notifies another CPU; a polling idle CPU needs no IPI (idle.ts wakesWithoutIpi). */
  kickCpu(rq: Rq, kind: "resched" | "call_function_single"): void {
    // The flag write or the IPI leaves at the sender's clock: after the work this context has
    // done so far (its lock holds, the enqueue), not at the start of the event.
    const sent = this.now + this.chargeNs;
    if (wakesWithoutIpi(this.era, this.idleStates, rq, kind)) {
      bump(this.counters.ipis, IPI_AVOIDED[kind]);
      this.eq.push(
        exitDoneAt(this.idleStates, rq, sent),
        kind === "resched" ? EV_RESCHED_IPI : EV_WAKE_ARRIVE,
        rq.cpu,
        0,
      );
      return;
    }
    if (kind === "resched" && rq.reschedIpiPending) return;
    bump(this.counters.ipis, kind);
    this.chargeNs += this.machine.costs.ipiSendNs;
    const t = exitDoneAt(this.idleStates, rq, sent + this.machine.costs.ipiDeliveryNs);
    if (kind === "resched") {
      rq.reschedIpiPending = true;
      this.eq.push(t, EV_RESCHED_IPI, rq.cpu, 1);
    } else {
      this.eq.push(t, EV_WAKE_ARRIVE, rq.cpu, 1);
    }
  }

  // ---------------------------------------------------------------- schedule()

  /** pick_next_task: the first class, highest first, that has a task (for_each_class). */
  private pickNextTask(rq: Rq): Task | null {
    // __pick_next_task's fast path: when every runnable task is fair, no higher class has work
    // and the idle class picks nothing, so fair's pick is the answer. nr_running counts every
    // class, cfs.h_nr_running the fair ones.
    if (rq.nrRunning === rq.cfs.hNrRunning) return this.fair.pickNextTask(rq);
    const classes = this.classes;
    for (let i = 0; i < classes.length; i++) {
      const p = classes[i].pickNextTask(rq);
      if (p) return p;
    }
    return null;
  }

  /** put_prev_task of prev's class. */
  putPrevTask(rq: Rq, prev: Task): void {
    this.classFor(prev).putPrevTask(rq, prev);
  }

  /** __schedule(): deactivate a blocking prev, pick the next task, switch to it. */
  schedule(rq: Rq): void {
    const prevCpu = this.thisCpu;
    this.thisCpu = rq.cpu;
    const prev = rq.curr;
    lockRq(this, rq, rq.cpu, "schedule"); // rq_lock
    scheduleClock(this, rq); // update_rq_clock (avg_idle.ts)
    let blocked = false;
    if (prev) {
      stopSegment(this, rq, prev);
      if (prev.state !== TASK_RUNNING && prev.onRq) {
        this.deactivateTask(rq, prev, DEQUEUE_SLEEP);
        blocked = true;
      }
      this.putPrevTask(rq, prev);
    }
    rq.needResched = false;
    // RT pull before picking something of lower priority (pick_next_task_rt / balance_rt).
    this.rt.balance(rq, prev);
    // Newly idle: the balancer may pull work before the CPU goes idle (idle_balance).
    if (prev && rq.nrRunning === 0) for (const h of this.newIdleHooks) h(rq);
    const next = this.pickNextTask(rq);
    if (next !== prev) this.contextSwitch(rq, prev, next, blocked);
    // finish_lock_switch drops the lock after switch_to. The RT push balance_callback runs after
    // it up to 5.6 (post_schedule retakes the lock), before it from 5.11 (__balance_callbacks).
    const callbacksLocked = this.callbacksLocked;
    if (!callbacksLocked) unlockRq(this, rq);
    this.rt.postSchedule(rq);
    if (callbacksLocked) unlockRq(this, rq);
    // This context's kernel time (the interrupt or syscall, then __schedule's pull, newidle
    // balance, switch and push) delays next and is its CPU time, as sum_exec_runtime counts it
    // (exec_start = the rq clock of the top of __schedule); with no task, overhead, not idle.
    if (next) {
      next.segOverheadNs += this.chargeNs;
      this.chargeNs = 0;
      if (next === prev) startSegment(this, rq, next);
      else this.runCurr(rq);
    } else idleWork(this, rq);
    this.thisCpu = prevCpu;
  }

  private contextSwitch(rq: Rq, prev: Task | null, next: Task | null, blocked: boolean): void {
    const now = this.now;
    this.counters.contextSwitches++;
    rq.contextSwitches++;
    if (prev) {
      prev.onCpu = false;
      rq.switchDoneAt = prev.onCpuUntil = now + this.chargeNs + this.machine.costs.contextSwitchNs;
      prev.lastRanCpu = rq.cpu;
      prev.lastRanAt = now;
      prev.cachePressureAtLeave = rq.cachePressure;
      countSwitch(this.counters, prev, blocked || prev.state !== TASK_RUNNING);
      prev.lastStateChange = now;
    } else {
      // leaving idle (sampled unless out of its state); pending idle kernel work delays next
      if (rq.idleStateIdx >= 0)
        recordIdle(rq, Math.max(0, now - rq.idleSince), this.callbacksLocked ? this : null);
      this.chargeNs += closeIdle(this, rq);
      rq.idleStateIdx = -1;
    }
    setCurr(this, rq, next, this.smtSiblings, this.baseSpeed); // re-times the SMT siblings
    if (this.trace) {
      this.trace.push({
        type: "sched_switch",
        t: now,
        cpu: rq.cpu,
        prevComm: prev ? prev.comm : `swapper/${rq.cpu}`,
        prevPid: prev ? prev.pid : 0,
        prevPrio: prev ? prev.prio : 120,
        prevState: !prev
          ? "R"
          : prev.state === TASK_DEAD
            ? "X"
            : prev.state === TASK_RUNNING
              ? "R"
              : "S",
        nextComm: next ? next.comm : `swapper/${rq.cpu}`,
        nextPid: next ? next.pid : 0,
        nextPrio: next ? next.prio : 120,
      });
    }
    if (next) {
      next.onCpu = true;
      next.stats.waitNs += now - next.lastStateChange;
      // switch_to and the mm switch, under the rq lock, before next makes progress.
      this.chargeNs += this.machine.costs.contextSwitchNs;
      this.chargeCacheRefill(rq, next);
      if (!prev) startTick(this, rq);
    } else {
      rq.lockFreeAt = Math.max(rq.lockFreeAt, rq.switchDoneAt); // switch_to idle, under the lock
      rq.idleSince = now;
      rq.idleStamp = newidleIdleStamp(this, rq); // newidle_balance's stamp (avg_idle.ts)
      cpuidleIdleCall(this, rq); // select a state, stop the tick or keep it (idle_call.ts)
    }
  }

  /** A task resuming away from its warm caches pays a refill. */
  private chargeCacheRefill(rq: Rq, p: Task): void {
    if (p.workingSetBytes <= 0) return;
    p.segOverheadNs += this.cache.resumeRefillNs(p, rq.cpu, this.rqs);
    rq.cachePressure += p.workingSetBytes;
  }

  /** Start (or continue) executing the current task's program. */
  runCurr(rq: Rq): void {
    const p = rq.curr!;
    if (p.segOverheadNs > 0 || p.segWorkNs > 0) startSegment(this, rq, p);
    else continueTask(this, rq, p);
  }

  // ---------------------------------------------------------------- tick (tick.ts)

  /** tick_setup_sched_timer's per-CPU offset with skew_tick (0 when ticks are aligned). */
  tickOffset(cpu: number): number {
    return tickOffset(this, cpu);
  }

  /** scheduler_tick on this CPU. */
  schedulerTick(rq: Rq): void {
    schedulerTick(this, rq);
  }

  // ---------------------------------------------------------------- events (events.ts)

  /** Runs fn at simulated time t (workload samplers, hotplug, ...). */
  at(t: number, fn: () => void): void {
    at(this, t, fn);
  }

  /** An IPI to `rq` whose handler runs fn on that CPU (smp_call_function_single, smp.ts). */
  sendIpi(rq: Rq, fn: () => void): void {
    smpCallFunctionSingle(this, rq, fn);
  }

  /** Arms a sleep timer for p. */
  armTimer(p: Task, expires: number): void {
    armTimer(this, p, expires);
  }

  /** Processes events up to and including time `until`, then stops the clock there. */
  runUntil(until: number): void {
    runUntil(this, until);
  }

  /** After an event on a CPU: charge its kernel work to the task (idle: overhead), resched. */
  finish(rq: Rq): void {
    const p = rq.curr;
    if (rq.needResched || (p === null && rq.nrRunning > this.rt.nrUnpickable(rq))) {
      this.schedule(rq);
    } else if (this.chargeNs > 0 && p) {
      stopSegment(this, rq, p);
      p.segOverheadNs += this.chargeNs;
      this.chargeNs = 0;
      startSegment(this, rq, p);
    } else idleWork(this, rq);
    this.chargeNs = 0;
    this.thisCpu = -1;
  }

  /** Switches the running task out for idle without dequeuing it (the CPU is going down). */
  preemptToIdle(rq: Rq): void {
    const prev = rq.curr;
    if (!prev) return;
    stopSegment(this, rq, prev);
    this.putPrevTask(rq, prev);
    rq.needResched = false;
    this.contextSwitch(rq, prev, null, false);
  }

  /** Closes the idle accounting of a CPU that goes offline now. */
  markOffline(rq: Rq): void {
    closeIdle(this, rq);
    rq.offlineSince = this.now;
    stopTick(this, rq);
  }

  /** Reopens the accounting of a CPU that comes online now. */
  markOnline(rq: Rq): void {
    rq.offlineNs += this.now - rq.offlineSince;
    rq.idleSince = this.now;
    rq.idleStamp = this.now;
  }

  /** Accounts open idle periods and running time up to now (end of a run). */
  flushAccounting(): void {
    flushAccounting(this);
  }

  /** Throws if a task is on two CPUs, lost, or the runqueue counts disagree (invariants.ts). */
  checkInvariants(): void {
    checkInvariants(this);
  }
}
