// kernel/sched/sched.h (with the parts of include/linux/sched.h it leans on): the structures every
// scheduler file shares (rq, cfs_rq, rt_rq, task_struct, sched_entity, sched_avg), the flag sets,
// the event kinds and struct sched_class. It imports nothing else from src/kernel at run time.
import { SCHED_CAPACITY_SCALE as MACHINE_CAPACITY_SCALE } from "../machine/builder";
import type { RandomStream } from "../sim/random";

/**
 * SCHED_CAPACITY_SCALE: the capacity of the biggest CPU at its highest frequency. The machine
 * description owns the unit (CPU capacities are given in it); this is a plain copy rather than a
 * re-export because compiled re-exports are getters, and PELT reads this constant on hot paths.
 */
export const SCHED_CAPACITY_SCALE: number = MACHINE_CAPACITY_SCALE;
// ---------------------------------------------------------------- priorities and weights

/** MAX_RT_PRIO: prio 0..99 is RT, 100..139 is normal (include/linux/sched/prio.h). */
export const MAX_RT_PRIO = 100;
/** DEFAULT_PRIO: nice 0. */
export const DEFAULT_PRIO = 120;
/** NICE_0_LOAD: the load weight of a nice-0 task (without the 64-bit extra resolution). */
export const NICE_0_LOAD = 1024;
/** WEIGHT_IDLEPRIO: the load weight of a SCHED_IDLE task. */
export const WEIGHT_IDLEPRIO = 3;
/** SCHED_CAPACITY_SHIFT: capacity and utilisation are fixed point with 10 bits. */
export const SCHED_CAPACITY_SHIFT = 10;

/** A scheduling policy (SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR). */
export type Policy = "normal" | "batch" | "idle" | "fifo" | "rr";

// ---------------------------------------------------------------- flags

/*
 * Wake flags (WF_*), passed to select_task_rq and try_to_wake_up. The SD_BALANCE_* flag a wakeup
 * looks for follows from them (WF_TTWU: SD_BALANCE_WAKE, WF_FORK: SD_BALANCE_FORK, WF_EXEC:
 * SD_BALANCE_EXEC). The values are those of v5.19-v6.x.
 */
/** WF_SYNC: the waker goes to sleep right after the wakeup (a sync wakeup). */
export const WF_SYNC = 0x01;
/** WF_FORK: the task is placed at fork (wake_up_new_task). */
export const WF_FORK = 0x02;
/** WF_MIGRATED: try_to_wake_up moved the task to another CPU. */
export const WF_MIGRATED = 0x04;
/** WF_ON_CPU: the wakee is still switching out on its CPU (the wakelist case, v5.8-v5.19). */
export const WF_ON_CPU = 0x08;
/** WF_TTWU: a wakeup of a sleeping task (try_to_wake_up). */
export const WF_TTWU = 0x10;
/** WF_EXEC: placement at exec. */
export const WF_EXEC = 0x20;

/*
 * {de,en}queue flags, passed to enqueue_task/dequeue_task. Each DEQUEUE_x pairs with the ENQUEUE_x
 * of the same value, as in sched.h:
 *
 * DEQUEUE_SLEEP / ENQUEUE_WAKEUP: the task goes to sleep / wakes up (place_entity gives sleeper
 *                                 credit on the way back).
 * DEQUEUE_MIGRATING / ENQUEUE_MIGRATED: the task moves between runqueues.
 * ENQUEUE_INITIAL: a new task (place_entity applies START_DEBIT).
 */
export const DEQUEUE_SLEEP = 0x01;
export const DEQUEUE_MIGRATING = 0x02;
/** DEQUEUE_DELAYED / ENQUEUE_DELAYED (v6.12, sched.h 0x200): the deferred dequeue of a delayed entity, its wakeup. */
export const DEQUEUE_DELAYED = 0x200;
export const ENQUEUE_DELAYED = 0x200;

export const ENQUEUE_WAKEUP = 0x01;
export const ENQUEUE_MIGRATED = 0x02;
export const ENQUEUE_INITIAL = 0x04;

// ---------------------------------------------------------------- task states

/** p->__state values. */
export const TASK_RUNNING = 0;
export const TASK_INTERRUPTIBLE = 1;
export const TASK_DEAD = 2;

/** p->on_rq values. */
export const TASK_ON_RQ_QUEUED = 1;
export const TASK_ON_RQ_MIGRATING = 2;

// ---------------------------------------------------------------- event kinds

/*
 * Kinds of simulation events (core/events.ts dispatches them). Each event carries two integers a
 * and b; their meaning per kind is given here.
 */
/** A run segment of rq a's current task completes; b = rq.runGen when armed. */
export const EV_RUN_DONE = 1;
/** The scheduler tick of CPU a. */
export const EV_TICK = 2;
/** CPU a processes its wakelist (sched_ttwu_pending); b = 1 if an IPI was received. */
export const EV_WAKE_ARRIVE = 3;
/** A reschedule IPI reaches CPU a; b = 1 if an interrupt was sent (not a polling idle). */
export const EV_RESCHED_IPI = 4;
/** The sleep timer of task pid a expires; b = p.timerGen when armed. */
export const EV_TIMER = 5;
/** The same timer, after the CPU left its idle state. */
export const EV_TIMER_FIRE = 6;
/** A callback registered with at(); a indexes the callback table. */
export const EV_CALLBACK = 7;
/** The tick of idle CPU a, after the CPU left its idle state (v4.17+: a tick kept in idle). */
export const EV_TICK_FIRE = 8;

// ---------------------------------------------------------------- struct sched_avg

import { createPeltRemoved, createSchedAvg, type PeltRemoved, type SchedAvg } from "./sched_avg";

export { createPeltRemoved, createSchedAvg, type PeltRemoved, type SchedAvg };

// ---------------------------------------------------------------- task programs

/** What the executor needs of an operation; ops.ts's Op is the one implementation. */
export interface TaskOp {
  readonly kind: number;
}

/** What a program sees of its own task. */
export interface TaskApi {
  readonly pid: number;
  readonly comm: string;
  /** Current simulated time, ns. */
  now(): number;
  /** The CPU the task runs on now. */
  cpu(): number;
  /** Uniform [0,1) from this task's own random stream. */
  random(): number;
  /** Add to a named per-task counter (reported in TaskStats.counters). */
  count(name: string, n?: number): void;
  /** Work done so far (ns of `run` at capacity 1024), for progress-based counters. */
  workDoneNs(): number;
}

/** A task program as the task stores it (ops.ts's Program yields Op, a TaskOp). */
export type TaskProgram = (t: TaskApi) => Generator<TaskOp, void, unknown>;

// ---------------------------------------------------------------- task_struct and sched_entity

/** The scheduling classes, highest first. */
export type ClassName = "stop" | "rt" | "fair" | "idle";

/** struct sched_entity, reduced to what the model reads. */
export class SchedEntity {
  /** load.weight in 1024 units. */
  weight = NICE_0_LOAD;
  vruntime = 0;
  /** rq clock when the entity last started/was accounted running. */
  execStart = 0;
  sumExecRuntime = 0;
  prevSumExecRuntime = 0;
  onRq = false;
  /** EEVDF (v6.6+): virtual deadline, lag saved at dequeue, request size, protected vruntime. */
  deadline = 0;
  vlag = 0;
  slice = 0;
  vprot = 0;
  /** The deadline is kept relative to vruntime across a non-sleep dequeue (PLACE_REL_DEADLINE). */
  relDeadline = false;
  /** se->sched_delayed (v6.12 DELAY_DEQUEUE): asleep but still queued until picked or woken. */
  schedDelayed = false;
  /** se->custom_slice (v6.12): slice set by sched_attr.sched_runtime, not the base slice. */
  customSlice = false;
  /** task_fork_fair's vruntime - min_vruntime, added at the first enqueue (NaN: none). */
  forkRelVruntime = Number.NaN;
  /** PELT averages (sched_avg). */
  avg: SchedAvg = createSchedAvg();
}

/** Some task in this process has had SCHED_IDLE (sched_idle_cpu can then be true somewhere). */
let schedIdlePolicySeen = false;

/**
 * False while no task of this process has ever had SCHED_IDLE: sched_idle_cpu() is then false
 * on every CPU, and a scan needs only the idle bytes (Rq.attachIdleFlags).
 */
export function schedIdlePolicyUsed(): boolean {
  return schedIdlePolicySeen;
}

/** struct task_struct, reduced to what the scheduler model reads, plus the program it runs. */
export class Task {
  readonly se = new SchedEntity();
  state = TASK_RUNNING;
  onRq = 0;
  onCpu = false;
  /**
   * When the last switch-out of this task completes (finish_task's on_cpu = 0, after switch_to):
   * until then a wakeup finds p->on_cpu set. Read by try_to_wakeup from v5.8 (ttwu.ts).
   */
  onCpuUntil = 0;
  /** task_cpu(p). */
  cpu = 0;
  /** SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO or SCHED_RR. */
  get policy(): Policy {
    return this.policyValue;
  }
  /** Set through setSchedParams; notes SCHED_IDLE (schedIdlePolicyUsed). */
  set policy(v: Policy) {
    this.policyValue = v;
    if (v === "idle") schedIdlePolicySeen = true;
  }
  private policyValue: Policy = "normal";
  nice = 0;
  rtPriority = 0;
  /** Kernel prio: 0..99 RT, 100..139 normal. */
  prio = DEFAULT_PRIO;
  schedClass: ClassName = "fair";
  /**
   * cpus_allowed as a byte per CPU; nrCpusAllowed = its popcount. Read-only: tasks without an
   * affinity share one all-CPUs mask (cpu_possible_mask in the kernel), and setAffinity
   * replaces the array rather than writing into it.
   */
  cpusAllowed: Uint8Array;
  nrCpusAllowed: number;
  // RT
  rtTimeSlice = 0;
  // wake_wide bookkeeping (record_wakee)
  lastWakee: Task | null = null;
  wakeeFlips = 0;
  wakeeFlipDecayTs = 0;
  lastWakeTs = 0;
  /** CPU the task ran on before its last migration (for cache modelling). */
  lastRanCpu = -1;
  lastRanAt = 0;
  workingSetBytes = 0;
  /**
   * > 0: back on its last CPU, the task re-reads from the LLC what ran there since displaced from
   * the private caches (at most caches.l2Bytes), at min(this, copyBytesPerNs.shared_llc) B/ns.
   */
  privateRefillBytesPerNs = 0;
  /** Pressure counter snapshot of the last CPU's caches when the task left it. */
  cachePressureAtLeave = 0;
  /** What it does to shared caches and memory (contention.ts); null: nothing. */
  footprint: Required<import("./contention").Footprint> | null = null;
  iter: Generator<TaskOp, void, unknown> | null = null;
  /** The op being executed (a blocking op is retried when the task runs again). */
  op: TaskOp | null = null;
  /** Value handed back to the program by the next `yield` (fork's child pid). */
  opResult: unknown = undefined;
  /** Remaining non-work time (syscall, copy, switch, cache refill) of the current segment. */
  segOverheadNs = 0;
  /** Remaining work of the current segment (ns at capacity 1024). */
  segWorkNs = 0;
  /** When the current segment last started running (valid while on a CPU). */
  segStartedAt = 0;
  /** Blocked in a futex-style `wait`; a `wake` that finds it not waiting sets wakePending. */
  waiting = false;
  wakePending = false;
  /** Generation guarding timers (sleep) against stale expiry. */
  timerGen = 0;

  // statistics
  stats = {
    runtimeNs: 0,
    waitNs: 0,
    sleepNs: 0,
    nvcsw: 0,
    nivcsw: 0,
    migrations: 0,
    wakeups: 0,
    workDoneNs: 0,
  };
  /** When the task last became runnable-but-waiting, or blocked (for wait/sleep accounting). */
  lastStateChange = 0;
  counters: Record<string, number> = {};
  api!: TaskApi;

  constructor(
    readonly pid: number,
    readonly comm: string,
    readonly role: string,
    readonly program: TaskProgram,
    nrCpus: number,
  ) {
    this.cpusAllowed = allCpusMask(nrCpus);
    this.nrCpusAllowed = nrCpus;
  }

  /** set_cpus_allowed_ptr: the CPUs p may run on. */
  setAffinity(cpus: number[]): void {
    const n = this.cpusAllowed.length;
    const mask = new Uint8Array(n);
    for (const c of cpus) {
      if (!Number.isInteger(c) || c < 0 || c >= n) {
        throw new Error(`affinity: cpu ${c} does not exist (accepted 0..${n - 1})`);
      }
      mask[c] = 1;
    }
    if (cpus.length === 0) throw new Error("affinity: the CPU list is empty");
    this.cpusAllowed = mask;
    this.nrCpusAllowed = mask.reduce((s, v) => s + v, 0);
  }
}

/**
 * One shared all-ones mask per machine size: a per-task copy costs a cache line per 64 CPUs on
 * every affinity test of every wakeup, which on a 1024-CPU machine is most of the wakeup's misses.
 */
const allCpusMasks = new Map<number, Uint8Array>();
function allCpusMask(nrCpus: number): Uint8Array {
  let m = allCpusMasks.get(nrCpus);
  if (!m) {
    m = new Uint8Array(nrCpus).fill(1);
    allCpusMasks.set(nrCpus, m);
  }
  return m;
}

// ---------------------------------------------------------------- struct rq

/** struct cfs_rq, as far as the model needs it. */
export class CfsRq {
  /** Queued entities other than curr, ascending (vruntime, pid): the rbtree in order. */
  readonly queue: Task[] = [];
  /** The running entity; like the kernel, it is kept out of the tree while it runs. */
  curr: Task | null = null;
  nrRunning = 0;
  hNrRunning = 0;
  /** Queued entities that are sched_delayed (v6.12+): h_nr_queued - h_nr_runnable (v6.14 names). */
  hNrDelayed = 0;
  /** load.weight: sum of weights of queued entities including curr. */
  loadWeight = 0;
  minVruntime = 0;
  /** LAST_BUDDY / NEXT_BUDDY hints. */
  last: Task | null = null;
  next: Task | null = null;
  /** The skip buddy: the task that yielded (3.x-5.x yield_task_fair). */
  skip: Task | null = null;
  /** rq->cfs_tasks: every queued fair task, list head first (enqueue adds at the head). */
  readonly tasks: Task[] = [];
  /** PELT aggregate of the cfs_rq, and contributions of tasks that left while blocked. */
  avg: SchedAvg = createSchedAvg();
  removed: PeltRemoved = createPeltRemoved();
  /**
   * 4.x cfs_rq->runnable_load_sum / runnable_load_avg (4.3-4.12 fair.c): a PELT sum of the
   * queued weight, entities added at enqueue and taken out at dequeue; what weighted_cpuload
   * reads in the 4.x eras. null in other eras (set by the fair class of a 4.x kernel).
   */
  runnableLoad: RunnableLoad48 | null = null;
}

/** cfs_rq->runnable_load_sum and runnable_load_avg of the 4.x eras. */
export interface RunnableLoad48 {
  sum: number;
  avg: number;
}

/** struct rt_rq, as far as the model needs it. */
export class RtRq {
  /** One FIFO list per priority (the rt_prio_array). */
  readonly queues: Task[][] = Array.from({ length: MAX_RT_PRIO }, () => []);
  rtNrRunning = 0;
  /** Number of queued tasks that may run elsewhere (rt_nr_migratory). */
  rtNrMigratory = 0;
  /** highest_prio.curr / .next: best and second-best queued prio (MAX_RT_PRIO = none). */
  highestPrio = MAX_RT_PRIO;
  overloaded = false;
  /** pushable_tasks, kept sorted by prio. */
  readonly pushable: Task[] = [];
}

/** The running context's clock as idle_cpu() reads it: the event instant plus the work charged. */
export type RqClock = { readonly now: number; readonly chargeNs: number };

/** A package C-state's wake shared by the CPUs of its scope: when the package is up again. */
export interface PackageWake {
  readyAt: number;
}

/** struct rq: one per CPU. */
export class Rq {
  readonly cfs = new CfsRq();
  readonly rt = new RtRq();
  /** Tasks of every class on this rq, counted once each. */
  get nrRunning(): number {
    return this.nrRunningValue;
  }
  /** Keeps the idle byte (attachIdleFlags) in step. */
  set nrRunning(v: number) {
    this.nrRunningValue = v;
    if (this.idleFlags !== null) this.syncIdle();
  }
  private nrRunningValue = 0;
  /** The running task; null = the idle task runs. */
  get curr(): Task | null {
    return this.currValue;
  }
  /** Keeps the idle byte (attachIdleFlags) in step. */
  set curr(p: Task | null) {
    this.currValue = p;
    if (this.idleFlags !== null) this.syncIdle();
  }
  private currValue: Task | null = null;
  /** The per-CPU stopper (stop class) task, created on demand. */
  stop: Task | null = null;
  stopQueued = false;
  online = true;
  /** TIF_NEED_RESCHED of the running task. */
  needResched = false;
  /** Guards the pending run-segment completion event. */
  runGen = 0;
  /** Time of the pending tick event (-1: none). */
  tickEventAt = -1;
  tickRunning = false;
  /** A resched IPI is in flight. */
  reschedIpiPending = false;
  /** ttwu_pending: wakelist entries not yet activated. */
  get ttwuPending(): number {
    return this.ttwuPendingValue;
  }
  /** Keeps the idle byte (attachIdleFlags) in step. */
  set ttwuPending(v: number) {
    this.ttwuPendingValue = v;
    if (this.idleFlags !== null) this.syncIdle();
  }
  private ttwuPendingValue = 0;
  /**
   * A byte per CPU, shared by the rqs of one kernel once attachIdleFlags ran: 1 while this CPU
   * is idle in the 3.2+ idle_cpu() sense (idle task current, nothing queued, no wakelist entry).
   * The kernel's scans read cpumasks rather than each rq; the wakeup scans here read these
   * bytes rather than the rq objects. Kept exact by the setters of the three fields.
   */
  private idleFlags: Uint8Array | null = null;
  /** Tasks queued on this CPU's wakelist (llist), in arrival order. */
  readonly wakeList: Task[] = [];
  // idle state
  idleSince = 0;
  idleStateIdx = -1;
  /** The rqs of this CPU's package, and of the whole machine (idle.ts attachIdleScopes). */
  idlePackage: readonly Rq[] = [];
  idleSystem: readonly Rq[] = [];
  /** When the package (or the machine) leaves a package C-state a wakeup started (idle.ts). */
  idlePackageWake: PackageWake = { readyAt: -1 };
  idleSystemWake: PackageWake = { readyAt: -1 };
  /** When this CPU's drawn idle exit (a state with exitDraw) ends; -1 before one starts. */
  idleExitEndsAt = -1;
  /** This CPU's stream of exit-time draws (idle.ts; null on machines without exitDraw). */
  idleExitRng: RandomStream | null = null;
  /** Running average of idle periods: the model's stand-in for menu's next-timer term. */
  avgIdleNs = 1_000_000;
  /** menu's data->intervals[] (us; seeded with avgIdleNs's 1 ms) and interval_ptr (menu_typical.ts). */
  readonly idleIntervalsUs = new Uint32Array(8).fill(1000);
  idleIntervalPtr = 0;
  /** rq->avg_idle, used by the newly-idle balance gate. */
  avgIdle = 0;
  /** rq->idle_stamp: rq_clock at the top of the __schedule that went idle (core/avg_idle.ts). */
  idleStamp = 0;
  /** rq_clock as the last __schedule's update_rq_clock took it (core/avg_idle.ts). */
  clockAtSchedule = 0;
  /** rq->max_idle_balance_cost (v3.13+) where above its floor, the sysctl (0: at the floor). */
  maxIdleBalanceCost = 0;
  /** End of the last switch (finish_task_switch): prev's p->on_cpu until then (ttwu, v5.8+). */
  switchDoneAt = 0;
  /** rq->wake_stamp (jiffies) and rq->wake_avg_idle (v5.13-v6.5, SIS_PROP's scan budget). */
  wakeStamp = 0;
  wakeAvgIdle = 0;
  // balance state (used by the load balancer)
  nextBalance = 0;
  activeBalance = false;
  pushCpu = -1;
  /** cpu_load[] (2.6/4.x eras) and its bookkeeping (CpuLoadState). */
  readonly cpuLoad: number[] = [0, 0, 0, 0, 0];
  lastLoadUpdateTick = 0;
  nrLoadUpdates = 0;
  cpuCapacity = 1024;
  cpuCapacityOrig = 1024;
  /** Work per ns of a segment running here (exec.ts cpuSpeed; setCurr keeps it on SMT changes). */
  speed = 1;
  /** rq->misfit_task_load (4.20+, asymmetric capacities): see fair/misfit.ts. */
  misfitTaskLoad = 0;
  // cache pressure: bytes of working sets dispatched on this CPU (drives eviction of others)
  cachePressure = 0;
  // accounting
  /** Time spent offline (boot-offline CPUs: the whole run). */
  offlineNs = 0;
  offlineSince = 0;
  idleNs = 0;
  contextSwitches = 0;
  ipisReceived = 0;
  /** Rq lock modelled as the time it becomes free. */
  lockFreeAt = 0;
  /** When rq->curr became the idle task in the kernel: after __schedule's pick (core/idle_cpu.ts). */
  currIdleAt = 0;
  /** When other CPUs see this CPU leave idle (enqueue or ttwu_pending store done; idle_cpu.ts). */
  busyVisibleAt = 0;
  /** Start of that window: 0, or before v6.2 sched_ttwu_pending's early clear of ttwu_pending. */
  busyHiddenFrom = 0;
  /** The CPU whose write opened the window (-1: no CPU context): it sees its own write. */
  busyWriter = -1;
  /**
   * What a reader inside that window still sees (written when it opens): rq->idle_stamp and the
   * cfs_rq's load, util, runnable and util_est averages from before the wakee's attach and enqueue.
   */
  seenIdleStamp = 0;
  seenLoadAvg = 0;
  seenUtilAvg = 0;
  seenRunnableAvg = 0;
  seenUtilEst = 0;
  /** `clock`: the kernel whose running context's time (now + chargeNs) idle_cpu() reads. */
  constructor(
    readonly cpu: number,
    private readonly clock: RqClock | null = null,
  ) {}

  /** Shares `flags` (one byte per CPU) with this rq and writes its current idle state there. */
  attachIdleFlags(flags: Uint8Array): void {
    this.idleFlags = flags;
    this.syncIdle();
  }

  private syncIdle(): void {
    this.idleFlags![this.cpu] =
      this.currValue === null && this.nrRunningValue === 0 && this.ttwuPendingValue === 0 ? 1 : 0;
  }

  /** idle_cpu() also checks nr_running and the wakelist (v3.2+); the kernel sets it per era. */
  idleCpuChecksQueued = true;

  /** idle_cpu(): the idle task runs (from currIdleAt) and (v3.2+) nothing is queued or pending
   * on the wakelist (wake_list until v5.8, then ttwu_pending); v2.6.29 tests cpu_curr only. */
  isIdle(): boolean {
    if (this.curr !== null) return false;
    if (this.clock !== null && this.clock.now + this.clock.chargeNs < this.currIdleAt) return false;
    return !this.idleCpuChecksQueued || (this.nrRunning === 0 && this.ttwuPending === 0);
  }
}

// ---------------------------------------------------------------- CFS timing

/** Scaled CFS timing (sysctl values times 1 + ilog2(ncpus), per era): sched_init_granularity. */
export interface CfsTiming {
  latency: number;
  minGranularity: number;
  wakeupGranularity: number;
  nrLatency: number;
}

// ---------------------------------------------------------------- struct sched_class

/**
 * struct sched_class: what core reaches a class through. core/core.ts holds the classes in
 * priority order (stop, rt, fair, idle) and walks them for pick_next_task as for_each_class does;
 * every other call goes to the class of the task concerned (classFor(p)). Ops marked optional
 * are absent from classes that have nothing to do (the kernel's "Optional!" / NULL ops).
 */
export interface SchedClass {
  readonly name: ClassName;
  /** enqueue_task: put p on rq. Callers: activate_task, sched_setscheduler (core). */
  enqueueTask(rq: Rq, p: Task, flags: number): void;
  /**
   * dequeue_task: take p off rq. Callers: deactivate_task, sched_setscheduler (core). Returns
   * false when the class keeps p queued (fair's DELAY_DEQUEUE, v6.12+).
   */
  dequeueTask(rq: Rq, p: Task, flags: number): boolean;
  /** reweight_task: p's weight changed from oldWeight while it was dequeued. Optional. */
  reweightTask?(rq: Rq, p: Task, oldWeight: number): void;
  /** yield_task: sched_yield(). Caller: the yield op (core/exec.ts). Optional. */
  yieldTask?(rq: Rq, p: Task): void;
  /**
   * check_preempt_curr (wakeup_preempt since v6.6): should the newly runnable p preempt rq->curr?
   * Callers: ttwu_do_activate, wake_up_new_task, move_queued_task, sched_setscheduler.
   * `wakeFlags`: WF_FORK from wake_up_new_task, else 0 here.
   */
  checkPreemptCurr(rq: Rq, p: Task, wakeFlags?: number): void;
  /** pick_next_task: this class's next task, or null. Caller: __schedule via for_each_class. */
  pickNextTask(rq: Rq): Task | null;
  /** put_prev_task: the running p stops running. Callers: __schedule, sched_setscheduler, hotplug. */
  putPrevTask(rq: Rq, p: Task): void;
  /** task_tick: from scheduler_tick for rq->curr. */
  taskTick(rq: Rq, p: Task): void;
  /** update_curr: charge rq->curr for its runtime so far. Caller: end-of-run accounting. */
  updateCurr(rq: Rq): void;
  /**
   * select_task_rq: a CPU for p at wakeup (WF_TTWU) or fork (WF_FORK). Caller: select_task_rq
   * (core/ttwu.ts), which corrects the answer to an allowed online CPU. Optional: without it p
   * stays on prevCpu.
   */
  selectTaskRq?(p: Task, prevCpu: number, wakeFlags: number, wakerCpu: number): number;
  /** migrate_task_rq: p moves to another CPU. Caller: set_task_cpu. Optional. */
  migrateTaskRq?(p: Task, from: Rq, to: Rq, queued: boolean): void;
  /** task_woken: after a wakeup enqueued p (RT push). Callers: ttwu_do_activate, wake_up_new_task. Optional. */
  taskWoken?(rq: Rq, p: Task): void;
  /**
   * switched_from / switched_to / prio_changed in one: p's class or prio changed. Caller:
   * sched_setscheduler, once for the old class and once for the new one if they differ. Optional.
   */
  prioChanged?(rq: Rq, p: Task, oldClass: ClassName, oldPrio: number): void;
  /** rq_online / rq_offline: the CPU joins or leaves the root domain. Caller: hotplug. Optional. */
  rqOnline?(rq: Rq): void;
  rqOffline?(rq: Rq): void;
  /**
   * The class part of sched_fork (init_entity_runnable_average for fair; in the kernel core calls
   * the fair.c function directly). Caller: fork. Optional.
   */
  taskFork?(p: Task): void;
  /**
   * post_init_entity_util_avg in wake_up_new_task, once the CPU is chosen (fair only; the kernel
   * function returns early for other classes). Caller: wake_up_new_task. Optional.
   */
  postInitEntity?(rq: Rq, p: Task): void;
}
