// A kernel's sched trace as text, read back into TraceRecords: the trace file of tracefs
// (`# tracer: nop`, the header schedlab's own export writes), `trace-cmd report` output (its
// `version = 6` / `cpus=N` header, `<...>` comms), `perf sched script` / `perf script` output
// (`COMM TID [CPU] SECONDS: sched:EVENT: ...`, no flags) and both sched_switch layouts
// (`prev_state=S ==>` since v4.x, and the older numeric `prev_state=1`). Lines are read one at a time, so a file
// is streamed; records are sorted by time at the end (per-CPU buffers interleave out of order).
// A line that is neither a comment, a header nor a sched event of ours is counted with its
// number and the reason, never dropped silently; `[LOST N EVENTS]` lines add up.
import * as fs from "node:fs";
import * as readline from "node:readline";
import * as zlib from "node:zlib";
import type { TraceRecord } from "../kernel/trace";
import { byTime } from "./trace";

/** A line the importer could not read, with its 1-based number. */
export interface BadTraceLine {
  line: number;
  text: string;
  why: string;
}

/** What importTrace read. */
export interface ImportedTrace {
  /** The sched events, sorted by time (ns from the trace clock's zero). */
  records: TraceRecord[];
  /** CPUs: the header's `#P:` or `cpus=`, else the highest CPU seen + 1. */
  nrCpus: number;
  /** Events the kernel reported lost (`[LOST N EVENTS]`, or CPU N buffer overruns). */
  lostEvents: number;
  /** Lines read, and those not understood (at most `maxBad` kept; `badCount` counts all). */
  lines: number;
  bad: BadTraceLine[];
  badCount: number;
  /** Events of other kinds (irq, timer, ...), counted by name and not kept. */
  otherEvents: Record<string, number>;
}

const EVENT_LINE =
  /^\s*(.*?)-(\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(\d+)\]\s+(?:([a-zA-Z.]{1}[\w.]{3,4})\s+)?(\d+)\.(\d+):\s+(\w+):\s?(.*)$/;
/** perf script's default fields: comm, tid, cpu, time, then the event as subsystem:name. */
const PERF_LINE = /^\s*(.*?)\s+(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+[a-z_]+:(\w+):\s?(.*)$/;
const LOST = /^\s*(?:CPU:?\s*\d+\s*)?\[LOST (\d+) EVENTS?\]\s*$/;

/** key=value pairs of a tracepoint's text; a value runs to the next ` key=` (comms may hold spaces). */
export function traceFields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const keys = [...text.matchAll(/(?:^|\s)([a-z_]+)=/g)];
  keys.forEach((m, i) => {
    const start = (m.index ?? 0) + m[0].length;
    const end = i + 1 < keys.length ? (keys[i + 1].index ?? text.length) : text.length;
    out[m[1]] = text
      .slice(start, end)
      .replace(/\s*==>\s*$/, "")
      .trim();
  });
  return out;
}

/** prev_state as the kernel prints it: a letter (S, D, R+, I, ...) or, before v4.x, a number. */
function prevState(v: string): "R" | "S" | "D" | "X" | null {
  if (/^\d+$/.test(v)) {
    const n = Number(v);
    if (n === 0) return "R";
    if (n & 2) return "D";
    if (n & (16 | 32)) return "X"; // EXIT_DEAD / EXIT_ZOMBIE
    return "S";
  }
  const c = v.charAt(0);
  if (c === "R") return "R";
  if (c === "D") return "D";
  if (c === "X" || c === "Z") return "X";
  if (c === "") return null;
  return "S"; // S, I (idle kthread), T, t, P, W, K: not runnable
}

const int = (v: string | undefined): number =>
  v !== undefined && /^-?\d+$/.test(v) ? Number(v) : NaN;

/** One event line's record, or the reason it is not one. */
function toRecord(
  event: string,
  t: number,
  cpu: number,
  f: Record<string, string>,
): TraceRecord | string | null {
  const need = (...keys: string[]) => keys.filter((k) => f[k] === undefined);
  switch (event) {
    case "sched_switch": {
      const miss = need(
        "prev_comm",
        "prev_pid",
        "prev_prio",
        "prev_state",
        "next_comm",
        "next_pid",
        "next_prio",
      );
      if (miss.length) return `sched_switch without ${miss.join(", ")}`;
      const st = prevState(f.prev_state);
      if (!st) return `sched_switch with prev_state "${f.prev_state}"`;
      return {
        type: "sched_switch",
        t,
        cpu,
        prevComm: f.prev_comm,
        prevPid: int(f.prev_pid),
        prevPrio: int(f.prev_prio),
        prevState: st,
        nextComm: f.next_comm,
        nextPid: int(f.next_pid),
        nextPrio: int(f.next_prio),
      };
    }
    case "sched_waking":
    case "sched_wakeup":
    case "sched_wakeup_new": {
      const miss = need("comm", "pid", "prio");
      if (miss.length) return `${event} without ${miss.join(", ")}`;
      // target_cpu since v2.6.32; older kernels print no CPU: the CPU that logged it
      const target = f.target_cpu !== undefined ? int(f.target_cpu) : cpu;
      return {
        type: event,
        t,
        cpu,
        comm: f.comm,
        pid: int(f.pid),
        prio: int(f.prio),
        targetCpu: target,
      };
    }
    case "sched_migrate_task": {
      const miss = need("comm", "pid", "prio", "orig_cpu", "dest_cpu");
      if (miss.length) return `sched_migrate_task without ${miss.join(", ")}`;
      return {
        type: "sched_migrate_task",
        t,
        cpu,
        comm: f.comm,
        pid: int(f.pid),
        prio: int(f.prio),
        origCpu: int(f.orig_cpu),
        destCpu: int(f.dest_cpu),
        reason: "unknown",
      };
    }
    case "sched_process_fork": {
      const miss = need("comm", "pid", "child_comm", "child_pid");
      if (miss.length) return `sched_process_fork without ${miss.join(", ")}`;
      return {
        type: "sched_process_fork",
        t,
        cpu,
        parentComm: f.comm,
        parentPid: int(f.pid),
        childComm: f.child_comm,
        childPid: int(f.child_pid),
      };
    }
    case "sched_process_exit": {
      const miss = need("comm", "pid", "prio");
      if (miss.length) return `sched_process_exit without ${miss.join(", ")}`;
      return {
        type: "sched_process_exit",
        t,
        cpu,
        comm: f.comm,
        pid: int(f.pid),
        prio: int(f.prio),
        ...(f.group_dead !== undefined
          ? { groupDead: f.group_dead === "true" || f.group_dead === "1" }
          : {}),
      };
    }
    default:
      return null;
  }
}

/**
 * The context of an event from the flags column's third character (the hardirq/softirq column
 * of both the 4- and 5-character forms): h or H hard interrupt, z NMI, s softirq, else a task.
 */
function wakeContext(flags: string | undefined): "task" | "softirq" | "irq" {
  const c = flags?.charAt(2) ?? ".";
  if (c === "h" || c === "H" || c === "z") return "irq";
  if (c === "s") return "softirq";
  return "task";
}

/** Reads trace lines one at a time; `result()` sorts and returns what was read. */
export class TraceReader {
  #records: TraceRecord[] = [];
  #bad: BadTraceLine[] = [];
  #badCount = 0;
  #lines = 0;
  #lost = 0;
  #cpus = 0;
  #maxCpu = -1;
  #other: Record<string, number> = {};

  constructor(private readonly maxBad = 100) {}

  #badLine(text: string, why: string): void {
    this.#badCount++;
    if (this.#bad.length < this.maxBad) this.#bad.push({ line: this.#lines, text, why });
  }

  /** One line of the trace text (without its newline). */
  line(text: string): void {
    this.#lines++;
    const s = text.replace(/\r$/, "");
    if (s.trim() === "" || s.trimStart().startsWith("#")) {
      const p = /#P:(\d+)/.exec(s);
      if (p) this.#cpus = Number(p[1]);
      return;
    }
    const cpusHeader = /^\s*cpus=(\d+)\s*$/.exec(s);
    if (cpusHeader) {
      this.#cpus = Number(cpusHeader[1]);
      return;
    }
    if (/^\s*version = \d+\s*$/.test(s) || /^CPU \d+ is empty$/.test(s.trim())) return;
    const lost = LOST.exec(s);
    if (lost) {
      this.#lost += Number(lost[1]);
      return;
    }
    let m = EVENT_LINE.exec(s);
    const perf = m ? null : PERF_LINE.exec(s);
    // perf's line as ftrace's groups: no flags column (a waking's context is then "task")
    if (perf) m = [...perf.slice(0, 4), undefined, ...perf.slice(4)] as unknown as RegExpExecArray;
    if (!m) {
      this.#badLine(
        s,
        "not an event line (TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: FIELDS, or perf script's COMM TID [CPU] TIMESTAMP: sched:EVENT: FIELDS)",
      );
      return;
    }
    const cpu = Number(m[3]);
    const t = Number(m[5]) * 1e9 + Number(m[6].padEnd(9, "0").slice(0, 9));
    const event = m[7];
    const r = toRecord(event, t, cpu, traceFields(m[8]));
    if (r === null) {
      this.#other[event] = (this.#other[event] ?? 0) + 1;
      return;
    }
    if (typeof r === "string") {
      this.#badLine(s, r);
      return;
    }
    if (r.type === "sched_waking") {
      r.wakerPid = Number(m[2]);
      r.context = wakeContext(m[4]);
    }
    this.#maxCpu = Math.max(this.#maxCpu, cpu);
    this.#records.push(r);
  }

  /** The records read so far, sorted by time, with what was lost, not understood or skipped. */
  result(): ImportedTrace {
    return {
      records: byTime(this.#records),
      nrCpus: this.#cpus || this.#maxCpu + 1,
      lostEvents: this.#lost,
      lines: this.#lines,
      bad: this.#bad,
      badCount: this.#badCount,
      otherEvents: { ...this.#other },
    };
  }
}

/** A trace given as text. */
export function importTraceText(text: string): ImportedTrace {
  const r = new TraceReader();
  const lines = text.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  for (const l of lines) r.line(l);
  return r.result();
}

/**
 * A trace file, read line by line (a large trace needs memory for its records, not its text);
 * a gzip file (`.gz`, or gzip's magic bytes 1f 8b) is decompressed as it streams.
 */
export async function importTraceFile(file: string): Promise<ImportedTrace> {
  if (!fs.existsSync(file)) throw new Error(`importTraceFile: no file ${file}`);
  const head = new Uint8Array(2);
  const fd = fs.openSync(file, "r");
  const got = fs.readSync(fd, head, 0, 2, 0);
  fs.closeSync(fd);
  const gzip = file.endsWith(".gz") || (got === 2 && head[0] === 0x1f && head[1] === 0x8b);
  const raw = fs.createReadStream(file);
  const input = gzip ? raw.pipe(zlib.createGunzip()) : raw;
  if (gzip) raw.on("error", (e) => input.destroy(e));
  input.setEncoding("utf8");
  const r = new TraceReader();
  const rl = readline.createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const l of rl) r.line(l);
  return r.result();
}
