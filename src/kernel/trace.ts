// Trace records the kernel emits when tracing is on; exported as ftrace text by src/report.
// Each record is a tracepoint of include/trace/events/sched.h with its fields (comm, pid, prio,
// target_cpu, ...) under camelCase names, plus `t` (simulated ns) and `cpu` (where it fired).

/** One trace event, named and shaped after its ftrace twin (sched_switch, sched_wakeup, ...). Times in ns. */
export type TraceRecord =
  | {
      type: "sched_switch";
      t: number;
      cpu: number;
      prevComm: string;
      prevPid: number;
      prevPrio: number;
      prevState: "R" | "S" | "D" | "X";
      nextComm: string;
      nextPid: number;
      nextPrio: number;
    }
  /** try_to_wake_up was called (on the waker's CPU), before the CPU is chosen. */
  | {
      type: "sched_waking";
      t: number;
      cpu: number;
      comm: string;
      pid: number;
      prio: number;
      targetCpu: number;
      /** Imported traces only: the pid current on `cpu` when it fired (the waker, or the task an interrupt cut into). */
      wakerPid?: number;
      /** Imported traces only: where the wakeup ran, from the flags column (h/H/z: irq, s: softirq). */
      context?: "task" | "softirq" | "irq";
    }
  /**
   * The wakee was activated on targetCpu (by the waker, or by the target from its wakelist);
   * sched_wakeup_new: a new task's first activation, by wake_up_new_task on the parent's CPU.
   */
  | {
      type: "sched_wakeup" | "sched_wakeup_new";
      t: number;
      cpu: number;
      comm: string;
      pid: number;
      prio: number;
      targetCpu: number;
    }
  | {
      type: "sched_migrate_task";
      t: number;
      cpu: number;
      comm: string;
      pid: number;
      prio: number;
      origCpu: number;
      destCpu: number;
      reason: MigrationReason;
    }
  /** kernel_clone: a new task, before wake_up_new_task places it (on the parent's CPU). */
  | {
      type: "sched_process_fork";
      t: number;
      cpu: number;
      parentComm: string;
      parentPid: number;
      childComm: string;
      childPid: number;
    }
  /**
   * do_exit, on the exiting task's CPU; groupDead only where the era's tracepoint has the field
   * (Andrii Nakryiko, "exit: move and extend sched_process_exit() tracepoint", Message-ID
   * <20250402180925.90914-1-andrii@kernel.org>: in v6.17's sched.h, not in v6.14's). Every
   * modelled task is its own thread group, so it is always true.
   */
  | {
      type: "sched_process_exit";
      t: number;
      cpu: number;
      comm: string;
      pid: number;
      prio: number;
      groupDead?: boolean;
    };

/** Why a task changed CPU (the reason field of sched_migrate_task in our traces). */
export type MigrationReason =
  | "wakeup"
  | "load_balance"
  | "active_balance"
  | "newidle_balance"
  | "idle_balance"
  | "rt_push"
  | "rt_pull"
  | "hotplug"
  | "affinity"
  | "fork"
  /** Read from a kernel's trace, whose sched_migrate_task carries no reason. */
  | "unknown";

/** Trace records a run keeps by default: the newest million (a few hundred MB at most). */
export const DEFAULT_TRACE_LIMIT = 1_000_000;

/**
 * The trace of one run, bounded like ftrace's ring buffer: past `limit` records the oldest are
 * overwritten, so a long traced run needs bounded memory and keeps its most recent window.
 */
export class TraceBuffer {
  #ring: TraceRecord[] = [];
  #head = 0;
  /** Records overwritten because the buffer was full. */
  dropped = 0;

  constructor(readonly limit: number = DEFAULT_TRACE_LIMIT) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new Error(`traceLimit must be a positive integer (got ${limit})`);
  }

  /** Appends a record, overwriting the oldest when full. */
  push(r: TraceRecord): void {
    if (this.#ring.length < this.limit) {
      this.#ring.push(r);
      return;
    }
    this.#ring[this.#head] = r;
    this.#head = (this.#head + 1) % this.limit;
    this.dropped++;
  }

  /** The records kept, oldest first. */
  records(): TraceRecord[] {
    return this.#head === 0
      ? this.#ring.slice()
      : [...this.#ring.slice(this.#head), ...this.#ring.slice(0, this.#head)];
  }
}
