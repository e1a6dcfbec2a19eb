// The system-call interface task programs use. A program is a generator that yields these
// operations; the kernel model executes them on whatever CPU the task is running on.
import type { Channel } from "./channel";
import type { Policy } from "./prio";

export type Op =
  /** Burn CPU for `ns` of work (at capacity 1024 with a warm cache). Infinity = forever. */
  | { op: "run"; ns: number }
  /** Sleep for `ns` (hrtimer); the task is woken by a timer on its CPU. */
  | { op: "sleep"; ns: number }
  /** Write `bytes` to a channel; wakes a blocked reader (a sync wakeup if `sync`). */
  | { op: "send"; ch: Channel; bytes: number; sync: boolean }
  /** Read one message from a channel, blocking while it is empty. */
  | { op: "recv"; ch: Channel }
  /** Block until another task wakes this one with `wake` (futex-style wait). */
  | { op: "wait" }
  /** Wake a task blocked in `wait` (wake_up_process). */
  | { op: "wake"; pid: number; sync: boolean }
  | { op: "yield" }
  | { op: "nice"; nice: number }
  | { op: "policy"; policy: Policy; rtPriority: number }
  | { op: "affinity"; cpus: number[] }
  /** Run a kernel-side callback in this task's context (used by kernel threads). */
  | { op: "call"; fn: () => void }
  | { op: "exit" };

export const run = (ns: number): Op => ({ op: "run", ns });
export const sleep = (ns: number): Op => ({ op: "sleep", ns });
export const send = (ch: Channel, bytes: number, sync = true): Op => ({ op: "send", ch, bytes, sync });
export const recv = (ch: Channel): Op => ({ op: "recv", ch });
export const wait = (): Op => ({ op: "wait" });
export const wake = (pid: number, sync = false): Op => ({ op: "wake", pid, sync });
export const yieldCpu = (): Op => ({ op: "yield" });
export const setNice = (nice: number): Op => ({ op: "nice", nice });
export const setPolicy = (policy: Policy, rtPriority = 0): Op => ({ op: "policy", policy, rtPriority });
export const setAffinity = (cpus: number[]): Op => ({ op: "affinity", cpus });
export const exit = (): Op => ({ op: "exit" });

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

export type Program = (t: TaskApi) => Generator<Op, void, unknown>;
