// What core.c offers the rest of the scheduler: the state and functions the classes, the
// balancer and the core helpers (ttwu, exec, fork, hotplug, events) call, as sched.h declares
// the functions core.c defines. core/core.ts's Kernel implements it. Code below core takes a
// SchedCore, never the Kernel class, so no file imports core.ts and no import cycle forms. It is
// not in sched.ts because it names types (features, hooks, domains, counters) that sit above it.
import type { Machine } from "../../machine/types";
import type { EventQueue } from "../../sim/event_queue";
import type { RandomSource } from "../../sim/random";
import type { CacheModel } from "../cache";
import type { SchedCounters } from "../counters";
import type { Era, Features, Tunables } from "../features";
import type { LbRq, LbTask } from "../fair/lb/types";
import type { HookFn, Hooks } from "../hooks";
import type { Program, SpawnSpec } from "../ops";
import type { RtClassApi } from "../rt/root_domain";
import type { CfsTiming, Rq, SchedClass, Task } from "../sched";
import type { DomainTree } from "../topology/sched_domain";
import type { MigrationReason, TraceBuffer } from "../trace";
import type { RqLocks } from "./spinlock";

/**
 * What core.c offers the rest of the scheduler (the functions sched.h declares); a hook's `ctx.k`.
 * Kernel is its one implementation.
 */
export interface SchedCore {
  // ------------------------------------------------ state
  /** Simulated time, ns (rq_clock; one clock for all CPUs). */
  now: number;
  readonly eq: EventQueue;
  /** Events processed so far (core/events.ts counts them). */
  events: number;
  /** Callbacks registered with at(), indexed by their EV_CALLBACK event. */
  readonly callbacks: Array<(() => void) | null>;
  readonly machine: Machine;
  readonly era: Era;
  readonly tunables: Tunables;
  readonly features: Features;
  readonly hooks: Hooks;
  /** The core.ttwu_queue_cond hook in force, looked up once (hooks are fixed per kernel). @internal */
  readonly ttwuQueueCond: HookFn<"core.ttwu_queue_cond">;
  readonly rqs: Rq[];
  readonly tasks: Task[];
  readonly counters: SchedCounters;
  readonly random: RandomSource;
  /** The cache-warmth model. @internal */
  readonly cache: CacheModel;
  readonly trace: TraceBuffer | null;
  domains: DomainTree;
  /** Scaled CFS timing (sched_init_granularity). @internal */
  cfsTiming: CfsTiming;
  readonly tickNs: number;
  /** Runqueues with two or more tasks (root_domain->overload). */
  nrOverloaded: number;
  /** The CPU whose event is being handled ("smp_processor_id()"). */
  thisCpu: number;
  /** Cost accumulated by kernel work done in the current context, charged to the current task. */
  chargeNs: number;
  /** The CPU that last took each rq's lock (-1: none, or a context with no CPU). @internal */
  readonly rqLockHolder: Int32Array;
  /** The queue behind each rq lock and the era's spinlock kind (spinlock.ts). @internal */
  readonly rqLocks: RqLocks;
  /** Per CPU: kernel time with no task to charge it to (schedule() into idle, interrupts on an idle CPU). */
  readonly overheadNs: Float64Array;
  /** Called at every tick of a busy CPU after task_tick (trigger_load_balance goes here). */
  readonly tickHooks: Array<(rq: Rq) => void>;
  /** Called when a CPU is about to go idle (newidle balance goes here); may enqueue work. */
  readonly newIdleHooks: Array<(rq: Rq) => void>;
  /** Called when an idle CPU's tick stops (tick_nohz_stop_sched_tick; cpu_load_update_nohz_start). */
  readonly tickStopHooks: Array<(rq: Rq) => void>;
  /** Called when a CPU leaving idle restarts its tick (tick_nohz_restart_sched_tick). */
  readonly tickRestartHooks: Array<(rq: Rq) => void>;

  // ------------------------------------------------ classes
  /** The classes in priority order (for_each_class). @internal */
  readonly classes: readonly SchedClass[];
  /** p->sched_class. @internal */
  classFor(p: Task): SchedClass;
  /** The RT class, for the RT balancer's root domain and pull. @internal */
  readonly rt: RtClassApi;

  // ------------------------------------------------ core.c functions
  /** num_online_cpus(). */
  onlineCount(): number;
  /** build_sched_domains over the online CPUs, with the hooks' group capacities. */
  buildDomains(): DomainTree;
  /** alloc_pid(): the next free pid. */
  allocPid(): number;
  /** find_task_by_pid_ns(): the task with this pid, if any. */
  taskByPid(pid: number): Task | undefined;
  /** fork + wake_up_new_task of a user task (kernel/fork.c). */
  spawn(spec: SpawnSpec): Task;
  /** A stop-class kernel thread pinned to `cpu`, created asleep (kthread_create_on_cpu). */
  spawnKernelThread(comm: string, cpu: number, program: Program): Task;
  /** Work done by p, including the part of the running segment so far. */
  workDone(p: Task): number;
  /** Work per ns on this CPU relative to a 1024-capacity CPU (arch_scale_cpu_capacity / 1024). */
  speed(cpu: number): number;
  /** The balancer's view of a runqueue. */
  lbRq(cpu: number): LbRq;
  /** The balancer's view of a task. */
  lbTask(p: Task): LbTask;
  /** enqueue_task. */
  enqueueTask(rq: Rq, p: Task, flags: number): void;
  /** dequeue_task; false when the class keeps p queued (DELAY_DEQUEUE). */
  dequeueTask(rq: Rq, p: Task, flags: number): boolean;
  /** activate_task. */
  activateTask(rq: Rq, p: Task, flags: number): void;
  /** deactivate_task. */
  deactivateTask(rq: Rq, p: Task, flags: number): void;
  /**
   * check_preempt_curr (wakeup_preempt in 6.x) of a wakeup or new task; counts wakeup
   * preemptions. `wakeFlags` as the kernel passes them (WF_FORK from wake_up_new_task).
   */
  checkPreemptCurr(rq: Rq, p: Task, wakeFlags?: number): void;
  /** set_task_cpu: change task_cpu(p), counting the migration. */
  setTaskCpu(p: Task, cpu: number, reason: MigrationReason): void;
  /** Moves a queued, not running task between runqueues (detach_task + attach_task). */
  moveQueuedTask(p: Task, dstCpu: number, reason: MigrationReason): void;
  /** put_prev_task of prev's class. */
  putPrevTask(rq: Rq, prev: Task): void;
  /** resched_curr. */
  reschedCurr(rq: Rq): void;
  /** Delivers a reschedule/call-function notification to another CPU (smp_send_reschedule). */
  kickCpu(rq: Rq, kind: "resched" | "call_function_single"): void;
  /** An IPI whose handler runs fn on rq's CPU (smp_call_function_single). */
  sendIpi(rq: Rq, fn: () => void): void;
  /** __schedule(). */
  schedule(rq: Rq): void;
  /** scheduler_tick. */
  schedulerTick(rq: Rq): void;
  /** Starts (or continues) executing the current task's program. */
  runCurr(rq: Rq): void;
  /** After an event on a CPU: charge kernel work to its task, reschedule if asked. */
  finish(rq: Rq): void;
  /** Switches the running task out for idle without dequeuing it (the CPU is going down). */
  preemptToIdle(rq: Rq): void;
  /** Closes the idle accounting of a CPU that goes offline now. */
  markOffline(rq: Rq): void;
  /** Reopens the accounting of a CPU that comes online now. */
  markOnline(rq: Rq): void;
  /** Runs fn at simulated time t. */
  at(t: number, fn: () => void): void;
  /** Arms a sleep timer for p (hrtimer_start). */
  armTimer(p: Task, expires: number): void;
}
