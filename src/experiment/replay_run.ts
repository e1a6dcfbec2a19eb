// A recording (the directory `schedlab trace record` writes: trace.txt or trace.txt.gz,
// machine.json, meta.json) replayed on the model of its machine and compared with the real
// trace; used by `schedlab trace replay`, the validation page and the replay notebook.
import * as fs from "node:fs";
import * as path from "node:path";
import { importTraceFile, type ImportedTrace } from "../analysis/trace_import";
import { compareTrace, pidPairs, type TraceComparison } from "../analysis/trace_compare";
import { replayPlan, type ReplayPlan } from "../analysis/trace_replay";
import { readTraceMeta, type TraceMeta } from "../analysis/trace_meta";
import { ERAS, type Era } from "../kernel/features";
import type { TraceRecord } from "../kernel/trace";
import { dataDir, machineByName, machineFromFile } from "../machine/presets";
import type { Machine } from "../machine/types";
import type { Patch } from "../patch/patch";
import { replay, type ReplayMode } from "../workload/replay";
import { cdfFromValues } from "../plot/latency";
import type { Figure } from "../plot/types";
import { topology } from "./experiment";

/** What a recording directory holds (meta.json is optional; a plain trace file works too). */
export interface Recording {
  traceFile: string;
  machineFile: string | null;
  /** meta.json as `trace record` writes it (null when there is none). */
  meta: TraceMeta | null;
}

/** The files of a recording directory, or of a single trace file. */
export function recordingAt(where: string): Recording {
  if (!fs.existsSync(where))
    throw new Error(
      `trace replay: no such file or directory ${where} (give a directory that \`schedlab trace record\` wrote, or a trace file)`,
    );
  if (!fs.statSync(where).isDirectory()) return { traceFile: where, machineFile: null, meta: null };
  const traceFile = ["trace.txt", "trace.txt.gz"]
    .map((f) => path.join(where, f))
    .find((f) => fs.existsSync(f));
  if (!traceFile) throw new Error(`trace replay: ${where} has no trace.txt or trace.txt.gz`);
  const m = path.join(where, "machine.json");
  const metaFile = path.join(where, "meta.json");
  let meta: TraceMeta | null = null;
  if (fs.existsSync(metaFile)) {
    try {
      meta = readTraceMeta(metaFile);
    } catch (e) {
      throw new Error(`trace replay: ${(e as Error).message}`);
    }
  }
  return { traceFile, machineFile: fs.existsSync(m) ? m : null, meta };
}

const tracesDir = () => dataDir("traces", "recordings");

/** The recordings shipped in data/traces (recorded on the project's Linux 6.18 guest), by name. */
export function shippedRecordings(): string[] {
  const dir = tracesDir();
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, "meta.json")))
    .map((e) => e.name)
    .sort();
}

/** The directory of a shipped recording; an unknown name is refused with the ones there are. */
export function shippedRecording(name: string): string {
  const names = shippedRecordings();
  if (!names.includes(name))
    throw new Error(`shippedRecording: no recording "${name}" (recordings: ${names.join(", ")})`);
  return path.join(tracesDir(), name);
}

/** The modelled era closest to a kernel release ("6.18.44" -> 6.19; "5.15.0-91" -> 5.19). */
export function nearestEra(release: string): Era {
  const m = /^(\d+)\.(\d+)/.exec(release);
  if (!m) throw new Error(`nearest era: "${release}" is not a kernel release (MAJOR.MINOR...)`);
  const v = (e: string) => {
    const [a, b] = e.split(".").map(Number);
    return a * 100 + b;
  };
  const want = Number(m[1]) * 100 + Number(m[2]);
  return [...ERAS].sort((a, b) => Math.abs(v(a) - want) - Math.abs(v(b) - want) || v(b) - v(a))[0];
}

/** Options of replayRecording. */
export interface ReplayRunOptions {
  /** The modelled kernel; default the era nearest meta.json's kernel release. */
  era?: Era;
  mode?: ReplayMode;
  /** Patches applied to the modelled kernel. */
  patches?: Patch[];
  /** A preset name, a machine file or a Machine instead of machine.json. */
  machine?: string | Machine;
  kthreads?: boolean;
  seed?: number;
}

/** A recording and its replay. */
export interface ReplayRun {
  recording: Recording;
  /** The kernel release that recorded it (meta.json), if known. */
  kernel: string | null;
  era: Era;
  mode: ReplayMode;
  machine: Machine;
  trace: ImportedTrace;
  plan: ReplayPlan;
  /** The replay's metrics (workload.replay's) and its trace. */
  metrics: Record<string, number>;
  simulated: TraceRecord[];
  comparison: TraceComparison;
}

/** The trace of a recording, read once (an ImportedTrace can be given to skip the reading). */
export async function readRecording(
  where: string,
): Promise<{ recording: Recording; trace: ImportedTrace }> {
  const recording = recordingAt(where);
  return { recording, trace: await importTraceFile(recording.traceFile) };
}

/** Replays a recording (a directory or a trace file) on the model and compares it with the real one. */
export async function replayRecording(
  where: string | { recording: Recording; trace: ImportedTrace },
  opts: ReplayRunOptions = {},
): Promise<ReplayRun> {
  const { recording, trace } = typeof where === "string" ? await readRecording(where) : where;
  const kernel = recording.meta?.kernelRelease ?? null;
  let era: Era;
  if (opts.era !== undefined) {
    if (!(ERAS as readonly string[]).includes(opts.era))
      throw new Error(`trace replay: era must be one of ${ERAS.join(", ")} (got ${opts.era})`);
    era = opts.era;
  } else if (kernel) era = nearestEra(kernel);
  else
    throw new Error(
      `trace replay: --era is needed (no meta.json with the kernel release) (${ERAS.join(", ")})`,
    );
  const machine =
    typeof opts.machine === "object"
      ? opts.machine
      : opts.machine
        ? machineByName(opts.machine)
        : recording.machineFile
          ? machineFromFile(recording.machineFile)
          : null;
  if (!machine)
    throw new Error(
      `trace replay: --machine is needed (no machine.json beside ${recording.traceFile})`,
    );
  const mode = opts.mode ?? "closed";
  const plan = replayPlan(trace.records, trace.nrCpus);
  const res = topology(machine)
    .era(era)
    .patch(...(opts.patches ?? []))
    .workload(replay(plan, { mode, kthreads: opts.kthreads ?? true }))
    .runSync({ trace: true, seed: opts.seed ?? 1, iterations: 1, traceLimit: 50_000_000 });
  const it = res.iteration(res.variants[0], 0);
  const simulated = it.trace ?? [];
  const comparison = compareTrace(
    trace.records,
    simulated,
    pidPairs(it.series?.replay_pids ?? []),
    trace.nrCpus,
  );
  return {
    recording,
    kernel,
    era,
    mode,
    machine,
    trace,
    plan,
    metrics: it.metrics,
    simulated,
    comparison,
  };
}

/** A recording beside its closed and open replays, figure by figure (the report's and validation page's table). */
export interface ReplayTable {
  name: string;
  command: string;
  kernel: string | null;
  era: Era;
  events: number;
  tasks: number;
  kthreads: number;
  lostEvents: number;
  /** Replay span / recorded span, and tasks left waiting, per mode. */
  stretch: { closed: number; open: number };
  unfinished: { closed: number; open: number };
  rows: Array<{ figure: string; unit: string; real: number; closed: number; open: number }>;
  /** Wakeup latencies of the matched tasks, us (sched_waking to switch-in), for CDFs. */
  latencyUs: { real: number[]; closed: number[]; open: number[] };
}

/** Replays a recording closed and open and sets the figures side by side. */
export async function replayTable(
  where: string,
  name = path.basename(where),
): Promise<ReplayTable> {
  const rec = await readRecording(where);
  const closed = await replayRecording(rec, { mode: "closed" });
  const open = await replayRecording(rec, { mode: "open" });
  const openRows = new Map(open.comparison.rows.map((r) => [r.figure, r]));
  return {
    name,
    command: rec.recording.meta ? rec.recording.meta.command.join(" ") : "",
    kernel: closed.kernel,
    era: closed.era,
    events: rec.trace.records.length,
    tasks: closed.plan.tasks.length,
    kthreads: closed.plan.tasks.filter((t) => t.kthread).length,
    lostEvents: rec.trace.lostEvents,
    stretch: { closed: closed.metrics.replay_stretch, open: open.metrics.replay_stretch },
    unfinished: { closed: closed.metrics.replay_unfinished, open: open.metrics.replay_unfinished },
    rows: closed.comparison.rows
      .filter((r) => r.figure !== "tasks matched")
      .map((r) => ({
        figure: r.figure,
        unit: r.unit,
        real: r.real,
        closed: r.simulated,
        open: openRows.get(r.figure)?.simulated ?? Number.NaN,
      })),
    latencyUs: {
      real: closed.comparison.latencyUs.real,
      closed: closed.comparison.latencyUs.simulated,
      open: open.comparison.latencyUs.simulated,
    },
  };
}

/** A table's wakeup latency tails (1 - CDF), real beside the closed and open replays. */
export function replayLatencyCdf(t: ReplayTable): Figure {
  return cdfFromValues(
    [
      { variant: "real", values: t.latencyUs.real },
      { variant: "closed replay", values: t.latencyUs.closed },
      { variant: "open replay", values: t.latencyUs.open },
    ],
    { title: `wakeup latency, ${t.name}`, unit: "us", tail: true },
  );
}

/** replayTable of every shipped recording. */
export async function shippedReplayTables(): Promise<ReplayTable[]> {
  const out: ReplayTable[] = [];
  for (const n of shippedRecordings()) out.push(await replayTable(shippedRecording(n), n));
  return out;
}
