// A recorded trace turned into what each task did, so the model can do it again: each task's CPU
// bursts (its run time between blocking, summed over preemptions), where it blocked and who woke
// it (the task current on the waking CPU, unless the wakeup ran in an interrupt), the wakeups and
// forks it issued at which point of its own run time, and its exit. workload.replay runs these
// steps on a modelled kernel; nothing here depends on the kernel that recorded the trace beyond
// the meaning of the tracepoints (include/trace/events/sched.h).
import type { TraceRecord } from "../kernel/trace";
import { byTime } from "./trace";

/** One thing a replayed task does, in its own order. Times are trace times, ns. */
export type ReplayStep =
  /** Run `ns` of CPU (what the task ran between two of its other steps on the recorded box). */
  | { op: "run"; ns: number }
  /** Woke the task `pid` (a sched_waking issued from this task's context). */
  | { op: "wake"; pid: number; t: number }
  /** Forked the task `pid`. */
  | { op: "fork"; pid: number; t: number }
  /**
   * Blocked (switched out in S or D) at `t`; woken at `wokeAt` by the task `by`, or by an
   * interrupt, a timer or a task outside the trace when `by` is null; never woken in the trace
   * when `wokeAt` is null.
   */
  | { op: "block"; t: number; wokeAt: number | null; by: number | null }
  /** Its last switch after sched_process_exit (prev_state Z or X). */
  | { op: "exit"; t: number };

/** How a replayed task comes to exist. */
export type ReplayOrigin = "fork" | "running" | "blocked";

/** A task of the trace and its steps. */
export interface ReplayTask {
  pid: number;
  /** The last comm the trace gives it (exec changes it). */
  comm: string;
  /** The kernel prio of its first record (0-99 real-time, 100-139 fair: 120 + nice). */
  prio: number;
  /**
   * "fork": created in the trace by `parent`; "running": runnable or running when the trace
   * began; "blocked": asleep when the trace began (its first record is its wakeup).
   */
  origin: ReplayOrigin;
  parent: number | null;
  /** The CPU of its first record. */
  startCpu: number;
  /**
   * A per-CPU kernel thread's CPU, from its name (ksoftirqd/N, migration/N, cpuhp/N, kworker/N:M,
   * ...), which the kernel binds to that CPU; null for every other task.
   */
  boundCpu: number | null;
  /** A kernel thread by its name or its parent (kthreadd, pid 2), not a task of the command. */
  kthread: boolean;
  steps: ReplayStep[];
  /** CPU time it ran in the trace, ns. */
  cpuNs: number;
}

/** What a trace asks the model to do again. */
export interface ReplayPlan {
  /** Trace time of the first and last record, ns. */
  start: number;
  end: number;
  nrCpus: number;
  /** Tasks in order of first appearance (pid 0, the idle task, is never one). */
  tasks: ReplayTask[];
  /** Things the trace could not say, counted: a wakeup of a task that never blocked, ... */
  notes: Record<string, number>;
}

const PER_CPU_KTHREAD = /^(?:ksoftirqd|migration|cpuhp|watchdog|rcuc|idle_inject|kworker)\/(\d+)/;
const KTHREAD_NAME =
  /^(?:kworker|ksoftirqd|migration|cpuhp|idle_inject|watchdog|rcu_|rcuc|rcuo|kthreadd|kcompactd|khugepaged|kswapd|jbd2|kauditd|khungtaskd|oom_reaper|kblockd|writeback|kdevtmpfs|kdamond|kintegrityd|napi\/|pool_workqueue|irq\/)/;

/** The CPU a kernel thread's name binds it to (kworker/1:2 -> 1, ksoftirqd/0 -> 0), else null. */
export function boundCpuOf(comm: string): number | null {
  const m = PER_CPU_KTHREAD.exec(comm);
  return m ? Number(m[1]) : null;
}

/** Whether the prio of a trace record is a real-time one (MAX_RT_PRIO = 100). */
export const isRtPrio = (prio: number): boolean => prio >= 0 && prio < 100;

/**
 * The tasks of a trace and what each did. `records` may be unsorted (per-CPU buffers); a
 * sched_waking without wakerPid (a trace the model wrote) takes the task current on its CPU as
 * the waker.
 */
export function replayPlan(records: readonly TraceRecord[], nrCpus?: number): ReplayPlan {
  const recs = byTime(records);
  const start = recs.length ? recs[0].t : 0;
  const end = recs.length ? recs[recs.length - 1].t : 0;
  const tasks = new Map<number, ReplayTask>();
  const curr = new Map<number, number>(); // cpu -> pid running there
  const mark = new Map<number, number>(); // pid -> time its current run was last flushed
  const exited = new Set<number>();
  // A wakeup that found its task still running (it had set TASK_INTERRUPTIBLE and not yet
  // switched out, or the CPUs' clocks put the waking first): it ends the task's next block if
  // that block comes before the task runs on, else ttwu_runnable absorbed it and the waker's
  // wake step is dropped.
  const pending = new Map<number, { t: number; by: number | null; step: ReplayStep | null }>();
  const dropped = new Set<ReplayStep>();
  const notes: Record<string, number> = {};
  const note = (k: string) => {
    notes[k] = (notes[k] ?? 0) + 1;
  };
  let maxCpu = -1;

  const ensure = (
    pid: number,
    comm: string,
    prio: number,
    cpu: number,
    origin: ReplayOrigin,
  ): ReplayTask => {
    let task = tasks.get(pid);
    if (!task) {
      task = {
        pid,
        comm,
        prio,
        origin,
        parent: null,
        startCpu: cpu,
        boundCpu: boundCpuOf(comm),
        kthread: KTHREAD_NAME.test(comm),
        steps: origin === "blocked" ? [{ op: "block", t: start, wokeAt: null, by: null }] : [],
        cpuNs: 0,
      };
      tasks.set(pid, task);
    } else if (comm && comm !== "<...>") task.comm = comm;
    return task;
  };
  // The run since the task's mark becomes a run step (consecutive runs merge).
  const flush = (task: ReplayTask, t: number) => {
    const from = mark.get(task.pid);
    if (from === undefined) return;
    mark.set(task.pid, t);
    const ns = t - from;
    if (ns <= 0) return;
    task.cpuNs += ns;
    const last = task.steps[task.steps.length - 1];
    if (last?.op === "run") last.ns += ns;
    else task.steps.push({ op: "run", ns });
  };
  // A task found running on `cpu` without a switch-in in the trace ran from the trace's start.
  const runningSinceStart = (pid: number, comm: string, prio: number, cpu: number) => {
    const task = ensure(pid, comm, prio, cpu, "running");
    if (!curr.has(cpu) && !mark.has(pid) && !exited.has(pid)) {
      curr.set(cpu, pid);
      mark.set(pid, start);
    }
    return task;
  };

  for (const r of recs) {
    maxCpu = Math.max(maxCpu, r.cpu);
    switch (r.type) {
      case "sched_switch": {
        if (r.prevPid !== 0) {
          const prev = runningSinceStart(r.prevPid, r.prevComm, r.prevPrio, r.cpu);
          if (!exited.has(prev.pid)) {
            flush(prev, r.t);
            const early = pending.get(prev.pid);
            pending.delete(prev.pid);
            if (r.prevState === "S" || r.prevState === "D")
              prev.steps.push({
                op: "block",
                t: r.t,
                wokeAt: early ? early.t : null,
                by: early ? early.by : null,
              });
            else if (early?.step) dropped.add(early.step);
            if (r.prevState === "X") {
              // the last switch of a task that exited (EXIT_ZOMBIE / EXIT_DEAD)
              prev.steps.push({ op: "exit", t: r.t });
              exited.add(prev.pid);
            }
          }
          mark.delete(prev.pid);
        }
        curr.set(r.cpu, r.nextPid);
        if (r.nextPid !== 0) {
          const next = ensure(r.nextPid, r.nextComm, r.nextPrio, r.cpu, "running");
          if (!exited.has(next.pid)) mark.set(next.pid, r.t);
        }
        break;
      }
      case "sched_waking": {
        const wakee = ensure(r.pid, r.comm, r.prio, r.targetCpu, "blocked");
        const open = wakee.steps[wakee.steps.length - 1];
        const running = mark.has(r.pid);
        if (!running && (open?.op !== "block" || open.wokeAt !== null)) {
          note("wakeup of a task that had not blocked");
          break;
        }
        const context = r.context ?? "task";
        const wakerPid = r.wakerPid ?? curr.get(r.cpu) ?? 0;
        let by: number | null = null;
        let step: ReplayStep | null = null;
        if (context !== "task" || wakerPid === 0 || wakerPid === r.pid) {
          note(context !== "task" ? `wakeup from ${context}` : "wakeup from idle");
        } else {
          const waker = tasks.get(wakerPid) ?? runningSinceStart(wakerPid, "", r.prio, r.cpu);
          if (mark.has(wakerPid)) {
            flush(waker, r.t);
            step = { op: "wake", pid: r.pid, t: r.t };
            waker.steps.push(step);
            by = wakerPid;
          } else note("waker not running by the switch records");
        }
        if (running) {
          pending.set(r.pid, { t: r.t, by, step });
          note("wakeup before the switch-out of its block");
        } else if (open?.op === "block") {
          open.wokeAt = r.t;
          open.by = by;
        }
        break;
      }
      case "sched_process_fork": {
        const parent = runningSinceStart(r.parentPid, r.parentComm, 120, r.cpu);
        flush(parent, r.t);
        parent.steps.push({ op: "fork", pid: r.childPid, t: r.t });
        const child = ensure(r.childPid, r.childComm, parent.prio, r.cpu, "fork");
        child.parent = parent.pid;
        child.kthread = child.kthread || parent.kthread || parent.pid === 2;
        break;
      }
      case "sched_wakeup_new": {
        const child = tasks.get(r.pid);
        if (child?.origin === "fork" && child.steps.length === 0) child.prio = r.prio;
        break;
      }
      case "sched_process_exit": {
        // do_exit goes on after the tracepoint (exit_notify wakes the parent in wait4); the
        // task's last switch, in state X or Z, is where it ends
        const task = runningSinceStart(r.pid, r.comm, r.prio, r.cpu);
        if (!exited.has(task.pid)) flush(task, r.t);
        break;
      }
      default:
        break;
    }
  }
  for (const [cpu, pid] of curr) {
    const task = tasks.get(pid);
    if (task && mark.get(pid) !== undefined) flush(task, end);
    curr.delete(cpu);
  }
  for (const p of pending.values()) if (p.step) dropped.add(p.step);
  for (const task of tasks.values())
    if (dropped.size) task.steps = withoutSteps(task.steps, dropped);
  return { start, end, nrCpus: nrCpus ?? maxCpu + 1, tasks: [...tasks.values()], notes };
}

/** `steps` without the dropped ones, runs that become neighbours merged. */
function withoutSteps(steps: ReplayStep[], dropped: ReadonlySet<ReplayStep>): ReplayStep[] {
  const out: ReplayStep[] = [];
  for (const s of steps) {
    if (dropped.has(s)) continue;
    const last = out[out.length - 1];
    if (s.op === "run" && last?.op === "run") last.ns += s.ns;
    else out.push(s);
  }
  return out;
}
