// Trace records the kernel emits when tracing is on; exported as ftrace text by src/report.

/** One trace event, named and shaped after its ftrace twin (sched_switch, sched_wakeup, ...). */
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
    }
  /** The wakee was activated on targetCpu (by the waker, or by the target from its wakelist). */
  | {
      type: "sched_wakeup";
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
  | "fork";
