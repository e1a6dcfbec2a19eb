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
import type { Hooks } from "../hooks";
import type { Program, SpawnSpec } from "../ops";
import type { RtClassApi } from "../rt/root_domain";
import type { CfsTiming, Rq, SchedClass, Task } from "../sched";
import type { DomainTree } from "../topology/sched_domain";
import type { MigrationReason, TraceRecord } from "../trace";

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
  readonly rqs: Rq[];
  readonly tasks: Task[];
  readonly counters: SchedCounters;
  readonly random: RandomSource;
  readonly cache: CacheModel;
  readonly trace: TraceRecord[] | null;
  domains: DomainTree;
  cfsTiming: CfsTiming;
  readonly tickNs: number;
  /** Runqueues with two or more tasks (root_domain->overload). */
  nrOverloaded: number;
  /** The CPU whose event is being handled ("smp_processor_id()"). */
  thisCpu: number;
  /** Cost accumulated by kernel work done in the current context, charged to the current task. */
  chargeNs: number;
  /** Called at every tick of a busy CPU after task_tick (trigger_load_balance goes here). */
  readonly tickHooks: Array<(rq: Rq) => void>;
  /** Called when a CPU is about to go idle (newidle balance goes here); may enqueue work. */
  readonly newIdleHooks: Array<(rq: Rq) => void>;

  // ------------------------------------------------ classes
  /** The classes in priority order (for_each_class). */
  readonly classes: readonly SchedClass[];
  /** p->sched_class. */
  classFor(p: Task): SchedClass;
  /** The RT class, for the RT balancer's root domain and pull. */
  readonly rt: RtClassApi;

  // ------------------------------------------------ core.c functions
  onlineCount(): number;
  buildDomains(): DomainTree;
  allocPid(): number;
  taskByPid(pid: number): Task | undefined;
  spawn(spec: SpawnSpec): Task;
  spawnKernelThread(comm: string, cpu: number, program: Program): Task;
  workDone(p: Task): number;
  speed(cpu: number): number;
  /** The balancer's view of a runqueue / a task. */
  lbRq(cpu: number): LbRq;
  lbTask(p: Task): LbTask;
  enqueueTask(rq: Rq, p: Task, flags: number): void;
  dequeueTask(rq: Rq, p: Task, flags: number): void;
  activateTask(rq: Rq, p: Task, flags: number): void;
  deactivateTask(rq: Rq, p: Task, flags: number): void;
  checkPreemptCurr(rq: Rq, p: Task): void;
  setTaskCpu(p: Task, cpu: number, reason: MigrationReason): void;
  moveQueuedTask(p: Task, dstCpu: number, reason: MigrationReason): void;
  putPrevTask(rq: Rq, prev: Task): void;
  reschedCurr(rq: Rq): void;
  kickCpu(rq: Rq, kind: "resched" | "call_function_single"): void;
  sendIpi(rq: Rq, fn: () => void): void;
  schedule(rq: Rq): void;
  schedulerTick(rq: Rq): void;
  runCurr(rq: Rq): void;
  finish(rq: Rq): void;
  preemptToIdle(rq: Rq): void;
  markOffline(rq: Rq): void;
  markOnline(rq: Rq): void;
  at(t: number, fn: () => void): void;
  armTimer(p: Task, expires: number): void;
}
