// Trace export as ftrace text (the trace file of /sys/kernel/tracing with the nop tracer), which
// Perfetto's systrace importer and trace-cmd-style tools read. Line layout, as the kernel prints:
//
//            <comm>-<pid>   [003] d..2   12.345678: sched_switch: prev_comm=a prev_pid=1 ...
//
// The TASK-PID column is the task current on that CPU when the event fired (the waker for a
// wakeup), tracked from the switches. Flags are the 4-character irqs-off/need-resched/
// hardirq/preempt-depth field: Perfetto's line regex accepts at most 4.
import type { TraceRecord } from "../kernel/trace";
import { byTime } from "../analysis/trace";

export interface FtraceOptions {
  /** Number of CPUs for the header's #P:; default highest CPU seen + 1. */
  nrCpus?: number;
  /**
   * Also write a sched_waking line before each sched_wakeup (as kernels since 4.3 do).
   * Perfetto's text importer draws wakeup arrows from sched_waking only. Default true.
   */
  waking?: boolean;
  /** Truncate comms to 15 characters like the kernel's TASK_COMM_LEN; default true. */
  truncateComm?: boolean;
}

/** ns -> "sssss.uuuuuu" (seconds, 6 decimals, truncated like the kernel's ns2usecs). */
export function ftraceTimestamp(ns: number): string {
  const us = Math.floor(ns / 1000);
  const sec = Math.floor(us / 1e6);
  const frac = us - sec * 1e6;
  return `${String(sec).padStart(5)}.${String(frac).padStart(6, "0")}`;
}

const pad3 = (cpu: number) => String(cpu).padStart(3, "0");

/** Serialize trace records (any order; sorted stably by time) as ftrace text. */
export function toFtrace(records: readonly TraceRecord[], opts: FtraceOptions = {}): string {
  const recs = byTime(records);
  // Runs that recorded try_to_wake_up (sched_waking) need nothing synthesised; older records
  // only have sched_wakeup, and Perfetto draws wakeup arrows from sched_waking lines only.
  const recorded = recs.some((r) => r.type === "sched_waking");
  const waking = opts.waking !== false && !recorded;
  const trunc = opts.truncateComm !== false;
  // Fields are split on spaces and "=" by parsers: keep comms to one token.
  const comm = (c: string) => {
    const s = (c || "<...>").replace(/[\s=]+/g, "_");
    return trunc ? s.slice(0, 15) : s;
  };
  const nrCpus =
    opts.nrCpus ??
    recs.reduce(
      (m, r) =>
        Math.max(
          m,
          r.cpu + 1,
          "targetCpu" in r ? r.targetCpu + 1 : 0,
          "destCpu" in r ? r.destCpu + 1 : 0,
        ),
      0,
    );
  const current = new Map<number, { comm: string; pid: number }>();
  const lines: string[] = [];
  const line = (cpu: number, flags: string, t: number, event: string, args: string) => {
    const cur = current.get(cpu) ?? { comm: "<idle>", pid: 0 };
    const task = `${cur.pid === 0 ? "<idle>" : comm(cur.comm)}-${cur.pid}`;
    lines.push(
      `${task.padStart(22)} [${pad3(cpu)}] ${flags} ${ftraceTimestamp(t)}: ${event}: ${args}`,
    );
  };
  for (const r of recs) {
    switch (r.type) {
      case "sched_switch":
        // Until a CPU's first switch, the prev task is the best knowledge of who was current.
        if (!current.has(r.cpu)) current.set(r.cpu, { comm: r.prevComm, pid: r.prevPid });
        line(
          r.cpu,
          "d..2",
          r.t,
          "sched_switch",
          `prev_comm=${comm(r.prevComm)} prev_pid=${r.prevPid} prev_prio=${r.prevPrio} prev_state=${r.prevState} ==> ` +
            `next_comm=${comm(r.nextComm)} next_pid=${r.nextPid} next_prio=${r.nextPrio}`,
        );
        current.set(r.cpu, { comm: r.nextComm, pid: r.nextPid });
        break;
      case "sched_wakeup": {
        const args = `comm=${comm(r.comm)} pid=${r.pid} prio=${r.prio} target_cpu=${pad3(r.targetCpu)}`;
        if (waking) line(r.cpu, "d..3", r.t, "sched_waking", args);
        line(r.cpu, "d..3", r.t, "sched_wakeup", args);
        break;
      }
      case "sched_wakeup_new":
        // wake_up_new_task: no sched_waking before it (try_to_wake_up is not called)
        line(
          r.cpu,
          "d..3",
          r.t,
          "sched_wakeup_new",
          `comm=${comm(r.comm)} pid=${r.pid} prio=${r.prio} target_cpu=${pad3(r.targetCpu)}`,
        );
        break;
      case "sched_process_fork":
        line(
          r.cpu,
          "....",
          r.t,
          "sched_process_fork",
          `comm=${comm(r.parentComm)} pid=${r.parentPid} child_comm=${comm(r.childComm)} child_pid=${r.childPid}`,
        );
        break;
      case "sched_process_exit":
        line(
          r.cpu,
          "....",
          r.t,
          "sched_process_exit",
          `comm=${comm(r.comm)} pid=${r.pid} prio=${r.prio}` +
            (r.groupDead === undefined ? "" : ` group_dead=${r.groupDead}`),
        );
        break;
      case "sched_waking":
        line(
          r.cpu,
          "d..3",
          r.t,
          "sched_waking",
          `comm=${comm(r.comm)} pid=${r.pid} prio=${r.prio} target_cpu=${pad3(r.targetCpu)}`,
        );
        break;
      case "sched_migrate_task":
        line(
          r.cpu,
          "d..2",
          r.t,
          "sched_migrate_task",
          `comm=${comm(r.comm)} pid=${r.pid} prio=${r.prio} orig_cpu=${r.origCpu} dest_cpu=${r.destCpu}`,
        );
        break;
    }
  }
  const header = [
    "# tracer: nop",
    "#",
    `# entries-in-buffer/entries-written: ${lines.length}/${lines.length}   #P:${nrCpus}`,
    "#",
    "#                              _-----=> irqs-off",
    "#                             / _----=> need-resched",
    "#                            | / _---=> hardirq/softirq",
    "#                            || / _--=> preempt-depth",
    "#                            ||| /     delay",
    "#           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION",
    "#              | |       |   ||||       |         |",
  ];
  return `${header.concat(lines).join("\n")}\n`;
}
