// The tracefs settings a sched recording changes, saved before and written back after: the
// ring buffer's on/off switch, its size per CPU, its clock, the current tracer and the enable
// file of each sched event it turns on. The tracefs root is a parameter (tests use a directory
// with the same files). File names and formats are those of kernel/trace/trace.c and
// kernel/trace/trace_events.c (tracing_on, buffer_size_kb, trace_clock with the selected clock
// in brackets, current_tracer, events/<system>/<event>/enable) and kernel/trace/trace.c
// tracing_stats_read() for per_cpu/cpuN/stats ("overrun:", "dropped events:").
import * as fs from "node:fs";
import * as path from "node:path";

/** Where tracefs is mounted on today's kernels (debugfs's tracing/ before v4.1). */
export const TRACEFS = "/sys/kernel/tracing";

/** The sched events a recording enables unless told otherwise. */
export const DEFAULT_SCHED_EVENTS: readonly string[] = [
  "sched_switch",
  "sched_waking",
  "sched_wakeup",
  "sched_wakeup_new",
  "sched_migrate_task",
  "sched_process_fork",
  "sched_process_exit",
  "sched_wake_idle_without_ipi",
];

/** The settings a recording touches, as read before it changed them. */
export interface TracefsSettings {
  tracingOn: string;
  /** buffer_size_kb per CPU: the number (a boot-time "7 (expanded: 1408)" keeps the 7). */
  bufferSizeKb: string;
  traceClock: string;
  currentTracer: string;
  /** events/sched/<event>/enable of each event touched. */
  enable: Record<string, string>;
}

const read = (root: string, rel: string): string =>
  fs.readFileSync(path.join(root, rel), "utf8").trim();
const write = (root: string, rel: string, v: string): void =>
  fs.writeFileSync(path.join(root, rel), v);

/** True when `root` holds a mounted tracefs (its tracing_on and trace files). */
export function tracefsMounted(root: string): boolean {
  return fs.existsSync(path.join(root, "tracing_on")) && fs.existsSync(path.join(root, "trace"));
}

/** The sched events this kernel has (directories of events/sched with an enable file). */
export function schedEvents(root: string): string[] {
  const dir = path.join(root, "events", "sched");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, "enable")))
    .map((e) => e.name)
    .sort();
}

/**
 * `--events a,b,c` checked against events/sched; a bad name is an error naming the accepted
 * ones. Without a list, the default events this kernel has (sched_waking is v4.3+, fbd705a0c618;
 * sched_wake_idle_without_ipi v3.16+, dfc68f29ae67).
 */
export function parseSchedEvents(list: string | undefined, root: string): string[] {
  const have = schedEvents(root);
  const want =
    list === undefined
      ? DEFAULT_SCHED_EVENTS.filter((e) => have.includes(e))
      : list
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "");
  if (want.length === 0)
    throw new Error(
      `trace record: ${list === undefined ? "none of the default sched events is" : "--events is empty"} (accepted: ${have.join(", ") || "none: is tracefs mounted?"})`,
    );
  const bad = want.filter((e) => !have.includes(e));
  if (bad.length)
    throw new Error(
      `trace record: --events ${bad.join(", ")}: no such event under ${path.join(root, "events", "sched")} (accepted: ${have.join(", ") || "none: is tracefs mounted?"})`,
    );
  return [...new Set(want)];
}

/** The clock trace_clock selects: the bracketed name of "[local] global counter ...". */
export function selectedClock(text: string): string {
  return /\[([^\]]+)\]/.exec(text)?.[1] ?? text.trim().split(/\s+/)[0] ?? "";
}

/** Reads the settings a recording of `events` will change. */
export function saveSettings(root: string, events: readonly string[]): TracefsSettings {
  const enable: Record<string, string> = {};
  // "1*" / "0*": the event is in soft mode (a trigger holds it); the bit itself is the digit
  for (const e of events) enable[e] = read(root, `events/sched/${e}/enable`).charAt(0);
  return {
    tracingOn: read(root, "tracing_on"),
    bufferSizeKb: /^\d+/.exec(read(root, "buffer_size_kb"))?.[0] ?? "",
    traceClock: selectedClock(read(root, "trace_clock")),
    currentTracer: read(root, "current_tracer"),
    enable,
  };
}

/** What a recording sets: the clock, the buffer size (unchanged if undefined), the events. */
export interface RecordSettings {
  clock: string;
  bufferKb?: number;
  events: readonly string[];
}

/**
 * Stops tracing, selects the nop tracer, the clock and the buffer size, clears the buffer and
 * enables the events; tracing stays off (`tracingOn` turns it on).
 */
export function applySettings(root: string, s: RecordSettings): void {
  write(root, "tracing_on", "0");
  if (read(root, "current_tracer") !== "nop") write(root, "current_tracer", "nop");
  write(root, "trace_clock", s.clock);
  if (s.bufferKb !== undefined) write(root, "buffer_size_kb", String(s.bufferKb));
  clearBuffer(root);
  for (const e of s.events) write(root, `events/sched/${e}/enable`, "1");
}

/** Empties the ring buffer (an O_TRUNC open of `trace`, as `echo > trace` does). */
export function clearBuffer(root: string): void {
  fs.writeFileSync(path.join(root, "trace"), "");
}

/** Turns the ring buffer on or off. */
export function tracingOn(root: string, on: boolean): void {
  write(root, "tracing_on", on ? "1" : "0");
}

/**
 * Writes back what `saveSettings` read: tracing off first, then each event, the clock, the
 * buffer size (a resize empties the buffer, so copy the trace first), the tracer, and last
 * tracing_on as it was. Every step is tried; the failures are returned, one message each.
 */
export function restoreSettings(root: string, s: TracefsSettings): string[] {
  const errors: string[] = [];
  const step = (rel: string, v: string) => {
    try {
      if (v !== "" && read(root, rel).charAt(0) !== v.charAt(0)) write(root, rel, v);
    } catch (e) {
      errors.push(`${rel} <- ${v}: ${(e as Error).message}`);
    }
  };
  step("tracing_on", "0");
  for (const [e, v] of Object.entries(s.enable)) step(`events/sched/${e}/enable`, v);
  try {
    if (selectedClock(read(root, "trace_clock")) !== s.traceClock)
      write(root, "trace_clock", s.traceClock);
  } catch (e) {
    errors.push(`trace_clock <- ${s.traceClock}: ${(e as Error).message}`);
  }
  try {
    if (/^\d+/.exec(read(root, "buffer_size_kb"))?.[0] !== s.bufferSizeKb && s.bufferSizeKb)
      write(root, "buffer_size_kb", s.bufferSizeKb);
  } catch (e) {
    errors.push(`buffer_size_kb <- ${s.bufferSizeKb}: ${(e as Error).message}`);
  }
  step("current_tracer", s.currentTracer);
  step("tracing_on", s.tracingOn);
  return errors;
}

/** Events each CPU's ring buffer lost: "overrun:" (overwritten) plus "dropped events:". */
export function perCpuLost(root: string): Record<string, number> {
  const dir = path.join(root, "per_cpu");
  const out: Record<string, number> = {};
  if (!fs.existsSync(dir)) return out;
  const cpus = fs
    .readdirSync(dir)
    .filter((d) => /^cpu\d+$/.test(d))
    .sort((a, b) => Number(a.slice(3)) - Number(b.slice(3)));
  for (const c of cpus) {
    const f = path.join(dir, c, "stats");
    if (!fs.existsSync(f)) continue;
    const text = fs.readFileSync(f, "utf8");
    const num = (key: string) => Number(new RegExp(`^${key}:\\s*(\\d+)`, "m").exec(text)?.[1] ?? 0);
    out[c.slice(3)] = num("overrun") + num("dropped events");
  }
  return out;
}
