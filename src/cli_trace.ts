// `schedlab trace import FILE`: a kernel's sched trace text (tracefs's trace file, trace-cmd
// report output) read back into trace records, and what was in it: events by kind, CPUs, lost
// events, other events, and every line not understood with its number. Status 1 when a line was
// not understood (the summary is still printed), 2 when the file cannot be read.
// `schedlab trace record -- COMMAND`: a trace directory of COMMAND's run (analysis/trace_record.ts);
// the status is the command's.
import * as fs from "node:fs";
import { importTraceFile } from "./analysis/trace_import";
import { recordTrace } from "./analysis/trace_record";

/** Flags of `schedlab trace import`. */
export interface TraceImportFlags {
  json?: boolean;
}

/** Runs `trace import`; resolves with the exit status. */
export async function traceImportCmd(file: string, flags: TraceImportFlags): Promise<number> {
  if (!fs.existsSync(file) || fs.statSync(file).isDirectory())
    throw new Error(
      `trace import: ${file} is not a file (give a trace text file: tracefs's trace, or trace-cmd report output)`,
    );
  const r = await importTraceFile(file);
  const counts: Record<string, number> = {};
  for (const x of r.records) counts[x.type] = (counts[x.type] ?? 0) + 1;
  const span = r.records.length ? (r.records[r.records.length - 1].t - r.records[0].t) / 1e9 : 0;
  if (flags.json) {
    const { records: _records, ...rest } = r;
    process.stdout.write(`${JSON.stringify({ file, events: counts, spanS: span, ...rest })}\n`);
    return r.badCount > 0 ? 1 : 0;
  }
  const out = [
    `${file}: ${r.records.length} sched events of ${r.lines} lines, ${r.nrCpus} CPUs, ${span.toFixed(6)} s`,
    ...Object.entries(counts).map(([k, n]) => `  ${k.padEnd(20)} ${n}`),
    `lost events: ${r.lostEvents}${r.lostEvents ? " (raise /sys/kernel/tracing/buffer_size_kb and record again)" : ""}`,
  ];
  const other = Object.entries(r.otherEvents);
  if (other.length)
    out.push(`other events (not kept): ${other.map(([k, n]) => `${k} ${n}`).join(", ")}`);
  if (r.badCount) {
    out.push(
      `lines not understood: ${r.badCount}${r.badCount > r.bad.length ? ` (the first ${r.bad.length}:)` : ":"}`,
    );
    for (const b of r.bad) out.push(`  line ${b.line}: ${b.why}: ${b.text.slice(0, 120)}`);
  }
  process.stdout.write(`${out.join("\n")}\n`);
  return r.badCount > 0 ? 1 : 0;
}

/** Flags of `schedlab trace record`. */
export interface TraceRecordFlags {
  out?: string;
  events?: string;
  bufferKb?: string;
}

/** Runs `trace record -- COMMAND...`; resolves with the command's exit status. */
export async function traceRecordCmd(command: string[], flags: TraceRecordFlags): Promise<number> {
  let bufferKb: number | undefined;
  if (flags.bufferKb !== undefined) {
    bufferKb = Number(flags.bufferKb);
    if (!/^\d+$/.test(flags.bufferKb) || bufferKb <= 0)
      throw new Error(
        `trace record: --buffer-kb ${flags.bufferKb} (accepted: a positive integer, kB per CPU)`,
      );
  }
  const out = flags.out ?? `trace-${new Date().toISOString().replace(/[-:]/g, "").slice(0, 15)}`;
  const r = await recordTrace({ command, out, events: flags.events, bufferKb });
  const m = r.meta;
  process.stderr.write(
    `trace record: wrote ${r.dir} (trace.txt, machine.json, meta.json): ${m.durationS.toFixed(3)} s on ${m.nrCpus} CPUs, clock ${m.traceClock}, ${m.bufferSizeKb} kB per CPU, lost events ${m.lostEvents}; ${command.join(" ")} exited with status ${r.status}${m.signal ? ` (${m.signal})` : ""}\n`,
  );
  return r.status;
}
