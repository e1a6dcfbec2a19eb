// The system-call interface task programs use. A program is a generator that yields these
// operations; the kernel model executes them on whatever CPU the task is running on.
import type { Channel } from "./channel";
import type { Footprint } from "./contention";
import type { Policy, TaskApi, TaskOp } from "./sched";
import { primeDoubles } from "../sim/double_fields";

/** The name of an operation (the system call it stands for). */
export type OpName =
  | "run"
  | "sleep"
  | "send"
  | "recv"
  | "wait"
  | "wake"
  | "yield"
  | "nice"
  | "policy"
  | "affinity"
  | "call"
  | "fork"
  | "exit"
  | "slice";

export const OP_RUN = 0;
export const OP_SLEEP = 1;
export const OP_SEND = 2;
export const OP_RECV = 3;
export const OP_WAIT = 4;
export const OP_WAKE = 5;
export const OP_YIELD = 6;
export const OP_NICE = 7;
export const OP_POLICY = 8;
export const OP_AFFINITY = 9;
export const OP_CALL = 10;
export const OP_EXIT = 11;
export const OP_FORK = 12;
export const OP_SLICE = 13;

const KIND: Record<OpName, number> = {
  run: OP_RUN,
  sleep: OP_SLEEP,
  send: OP_SEND,
  recv: OP_RECV,
  wait: OP_WAIT,
  wake: OP_WAKE,
  yield: OP_YIELD,
  nice: OP_NICE,
  policy: OP_POLICY,
  affinity: OP_AFFINITY,
  call: OP_CALL,
  fork: OP_FORK,
  exit: OP_EXIT,
  slice: OP_SLICE,
};

/**
 * One operation. Every op has the same shape (one class, all fields) so the executor's property
 * reads stay monomorphic; build them with the factories below.
 */
export class Op implements TaskOp {
  readonly kind: number;
  /** run: work in ns at capacity 1024 with a warm cache (Infinity = forever); sleep: duration. */
  ns = 0;
  ch: Channel | null = null;
  bytes = 0;
  /** send/wake: a sync wakeup (the waker is about to sleep). */
  sync = false;
  /** wake: pays a system call's entry (false: a wake_up inside a call already charged). */
  entry = true;
  pid = 0;
  nice = 0;
  policy: Policy = "normal";
  rtPriority = 0;
  cpus: number[] | null = null;
  /** call: the kernel-side callback to run in the task's context. */
  fn: (() => void) | null = null;
  /** fork: the child to create; the op's result (yield's value) is the child's pid. */
  child: ForkSpec | null = null;
  /** `kind` defaults to op's OP_* number; the factories pass it and skip the name lookup. */
  constructor(
    readonly op: OpName,
    kind: number = KIND[op],
  ) {
    this.kind = kind;
    primeDoubles(this, ["ns"]); // a run's work is often a fraction (sim/double_fields.ts)
  }
}

/** Burn CPU for `ns` of work (at capacity 1024 with a warm cache). Infinity = forever. */
export const run = (ns: number): Op => {
  const o = new Op("run", OP_RUN);
  o.ns = ns;
  return o;
};
/** Sleep for `ns` (hrtimer); the task is woken by a timer on its CPU. */
export const sleep = (ns: number): Op => {
  const o = new Op("sleep", OP_SLEEP);
  o.ns = ns;
  return o;
};
/** Write `bytes` to a channel; wakes a blocked reader (a sync wakeup if `sync`). */
export const send = (ch: Channel, bytes: number, sync = true): Op => {
  const o = new Op("send", OP_SEND);
  o.ch = ch;
  o.bytes = bytes;
  o.sync = sync;
  return o;
};
/** Read one message from a channel, blocking while it is empty. */
export const recv = (ch: Channel): Op => {
  const o = new Op("recv", OP_RECV);
  o.ch = ch;
  return o;
};
/** Block until another task wakes this one with `wake` (futex-style wait). */
export const wait = (): Op => new Op("wait", OP_WAIT);
/**
 * Wake a task blocked in `wait` (wake_up_process). `entry` false: the wakeup is part of a system
 * call whose cost the program has already charged (a socket's or pipe's wake_up of its waiters),
 * so only the wakeup itself costs.
 */
export const wake = (pid: number, sync = false, entry = true): Op => {
  const o = new Op("wake", OP_WAKE);
  o.pid = pid;
  o.sync = sync;
  o.entry = entry;
  return o;
};
/** Give up the CPU (sched_yield). */
export const yieldCpu = (): Op => new Op("yield", OP_YIELD);
/** Change this task's nice value (set_user_nice). */
export const setNice = (nice: number): Op => {
  const o = new Op("nice", OP_NICE);
  o.nice = nice;
  return o;
};
/** Change this task's policy and RT priority (sched_setscheduler). */
export const setPolicy = (policy: Policy, rtPriority = 0): Op => {
  const o = new Op("policy", OP_POLICY);
  o.policy = policy;
  o.rtPriority = rtPriority;
  return o;
};
/**
 * Set this task's slice (sched_setattr with sched_attr.sched_runtime = `ns`, v6.12+): a fair
 * task's request size, clamped to 0.1-100 ms; 0 returns to the base slice. Eras before 6.12
 * ignore sched_runtime for fair tasks, so there it only costs the system call.
 */
export const setSlice = (ns: number): Op => {
  const o = new Op("slice", OP_SLICE);
  o.ns = ns;
  return o;
};
/** Change the CPUs this task may run on (sched_setaffinity). */
export const setAffinity = (cpus: number[]): Op => {
  const o = new Op("affinity", OP_AFFINITY);
  o.cpus = [...cpus];
  return o;
};
/** Run a kernel-side callback in this task's context (used by kernel threads). */
export const call = (fn: () => void): Op => {
  const o = new Op("call", OP_CALL);
  o.fn = fn;
  return o;
};
/** fork(): create a task from this one (placed by the fork balancing of the parent's CPU). `yield fork(...)` returns its pid. */
export const fork = (child: ForkSpec): Op => {
  const o = new Op("fork", OP_FORK);
  o.child = child;
  return o;
};
/** End this task (do_exit). */
export const exit = (): Op => new Op("exit", OP_EXIT);

/** A task to create with Kernel.spawn or WorkloadContext.spawn (fork + wake_up_new_task). */
export interface SpawnSpec {
  comm: string;
  role?: string;
  program: Program;
  policy?: Policy;
  nice?: number;
  rtPriority?: number;
  cpus?: number[];
  /** Start on this CPU instead of fork placement. */
  cpu?: number;
  workingSetBytes?: number;
  /**
   * Bytes per ns (GB/s) at which the task's code re-reads working-set lines it lost from a CPU's
   * private caches (L1/L2) while other tasks ran there: one line per load-to-use latency for
   * dependent loads (pointer chasing), up to the LLC's streaming rate. 0 (default): not modelled.
   * See Task.privateRefillBytesPerNs.
   */
  privateRefillBytesPerNs?: number;
  /**
   * What the task does to shared caches and memory bandwidth (contention.ts). Absent: nothing,
   * and the task is never slowed by others. Its working set is also `workingSetBytes` if that
   * is not given.
   */
  footprint?: Footprint;
  /** sched_attr.sched_runtime in ns (v6.12+: the task's slice, clamped to 0.1-100 ms; see setSlice). */
  slice?: number;
}

/**
 * What a forked child is. `cpus` and `cpu` give what clone followed by sched_setaffinity would:
 * the child's affinity, and the CPU it starts on instead of fork placement (an online CPU within
 * `cpus`), for forcing a bad initial placement when testing a balancer.
 */
export interface ForkSpec {
  comm: string;
  role?: string;
  program: Program;
  nice?: number;
  policy?: Policy;
  rtPriority?: number;
  cpus?: number[];
  /** Start on this CPU instead of fork placement (select_task_rq with SD_BALANCE_FORK). */
  cpu?: number;
  workingSetBytes?: number;
  /** As SpawnSpec.privateRefillBytesPerNs. */
  privateRefillBytesPerNs?: number;
  /** As SpawnSpec.footprint. */
  footprint?: Footprint;
  /** sched_attr.sched_runtime in ns (v6.12+: the child's slice; see setSlice). */
  slice?: number;
}

export type { TaskApi } from "./sched";

/** A task program: a generator over its TaskApi that yields the operations to run. */
export type Program = (t: TaskApi) => Generator<Op, void, unknown>;
