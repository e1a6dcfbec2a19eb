// `schedlab trace replay DIR`: a recorded trace (DIR/trace.txt or trace.txt.gz, DIR/machine.json,
// DIR/meta.json as `trace record` writes them) replayed on the model of the same machine at an era,
// and compared figure by figure with the real one; with --patch, replayed again with the patch
// and the two replays set side by side ("what if").
import * as fs from "node:fs";
import * as path from "node:path";
import type { Command } from "commander";
import { importTraceFile } from "./analysis/trace_import";
import {
  compareTrace,
  formatComparison,
  pidPairs,
  type TraceComparison,
} from "./analysis/trace_compare";
import { replayPlan } from "./analysis/trace_replay";
import { topology } from "./experiment/experiment";
import { ERAS, eraDefaults, type Era } from "./kernel/features";
import { machineByName, machineFromFile } from "./machine/presets";
import { patch as makePatch, type Patch } from "./patch/patch";
import * as seeds from "./patch/seeds/index";
import { replay, type ReplayMode } from "./workload/replay";

/** Flags of `schedlab trace replay`. */
export interface TraceReplayFlags {
  era?: string;
  patch?: string[];
  mode?: string;
  seed?: string;
  machine?: string;
  kthreads?: boolean;
  json?: boolean;
}

/** What a recording directory holds (meta.json is optional; a plain trace file works too). */
export interface Recording {
  traceFile: string;
  machineFile: string | null;
  meta: Record<string, unknown>;
}

/** The files of a recording directory, or of a single trace file. */
export function recordingAt(where: string): Recording {
  if (!fs.existsSync(where))
    throw new Error(
      `trace replay: no such file or directory ${where} (give a directory that \`schedlab trace record\` wrote, or a trace file)`,
    );
  if (!fs.statSync(where).isDirectory()) return { traceFile: where, machineFile: null, meta: {} };
  const traceFile = ["trace.txt", "trace.txt.gz"]
    .map((f) => path.join(where, f))
    .find((f) => fs.existsSync(f));
  if (!traceFile) throw new Error(`trace replay: ${where} has no trace.txt or trace.txt.gz`);
  const m = path.join(where, "machine.json");
  const metaFile = path.join(where, "meta.json");
  let meta: Record<string, unknown> = {};
  if (fs.existsSync(metaFile)) {
    try {
      meta = JSON.parse(fs.readFileSync(metaFile, "utf8")) as Record<string, unknown>;
    } catch (e) {
      throw new Error(`trace replay: ${metaFile} is not JSON: ${(e as Error).message}`);
    }
  }
  return { traceFile, machineFile: fs.existsSync(m) ? m : null, meta };
}

/** The modelled era closest to a kernel release ("6.18.44" -> 6.19; "5.15.0-91" -> 5.10). */
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

const FEATURE_NAMES = Object.keys(eraDefaults("6.19").features);

const SEED_PATCHES: Record<string, Patch> = Object.fromEntries(
  Object.entries(seeds).flatMap(([key, p]) => [
    [key, p],
    [p.name, p],
  ]),
);

/**
 * A patch named on the command line: a seed patch (its export name or its name), FEATURE=on|off
 * (kernel/sched/features.h), or TUNABLE=NUMBER.
 */
export function patchFromArg(arg: string): Patch {
  const seed = SEED_PATCHES[arg];
  if (seed) return seed;
  const kv = /^([A-Za-z_][\w]*)=(.+)$/.exec(arg);
  if (kv && FEATURE_NAMES.includes(kv[1])) {
    if (kv[2] !== "on" && kv[2] !== "off")
      throw new Error(`--patch ${arg}: a feature takes on or off (got ${kv[2]})`);
    return makePatch(arg).feature(kv[1] as never, kv[2] === "on");
  }
  if (kv && Number.isFinite(Number(kv[2])))
    return makePatch(arg).tunable(kv[1] as never, Number(kv[2]));
  throw new Error(
    `--patch ${arg}: not a seed patch (${Object.keys(SEED_PATCHES).sort().join(", ")}), FEATURE=on|off (${FEATURE_NAMES.join(", ")}) or TUNABLE=NUMBER`,
  );
}

/** Runs `trace replay`; resolves with the exit status. */
export async function traceReplayCmd(where: string, flags: TraceReplayFlags): Promise<number> {
  const rec = recordingAt(where);
  const mode = (flags.mode ?? "closed") as ReplayMode;
  if (mode !== "closed" && mode !== "open")
    throw new Error(`trace replay: --mode must be closed or open (got ${flags.mode})`);
  const seed = flags.seed === undefined ? 1 : Number(flags.seed);
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`trace replay: --seed must be an integer >= 0 (got ${flags.seed})`);
  const release = typeof rec.meta.kernel === "string" ? rec.meta.kernel : undefined;
  let era: Era;
  if (flags.era !== undefined) {
    if (!(ERAS as readonly string[]).includes(flags.era))
      throw new Error(`trace replay: --era must be one of ${ERAS.join(", ")} (got ${flags.era})`);
    era = flags.era as Era;
  } else if (release) era = nearestEra(release);
  else
    throw new Error(
      `trace replay: --era is needed (no meta.json with the kernel release) (${ERAS.join(", ")})`,
    );
  const machine = flags.machine
    ? machineByName(flags.machine)
    : rec.machineFile
      ? machineFromFile(rec.machineFile)
      : null;
  if (!machine)
    throw new Error(`trace replay: --machine is needed (no machine.json beside ${rec.traceFile})`);
  const patches = (flags.patch ?? []).map(patchFromArg);

  const trace = await importTraceFile(rec.traceFile);
  const plan = replayPlan(trace.records, trace.nrCpus);
  const w = replay(plan, { mode, kthreads: flags.kthreads ?? true });
  const once = (ps: Patch[]) => {
    const res = topology(machine)
      .era(era)
      .patch(...ps)
      .workload(w)
      .runSync({ trace: true, seed, iterations: 1, traceLimit: 50_000_000 });
    const it = res.iteration(res.variants[0], 0);
    const cmp = compareTrace(
      trace.records,
      it.trace ?? [],
      pidPairs(it.series?.replay_pids ?? []),
      trace.nrCpus,
    );
    return { metrics: it.metrics, cmp };
  };
  const base = once([]);
  const patched = patches.length ? once(patches) : null;
  const summary = {
    trace: rec.traceFile,
    kernel: release ?? null,
    era,
    mode,
    machine: machine.name,
    patches: patches.map((p) => p.name),
    lostEvents: trace.lostEvents,
    badLines: trace.badCount,
    notes: plan.notes,
  };
  if (flags.json) {
    const rows = (c: TraceComparison) => c.rows;
    process.stdout.write(
      `${JSON.stringify({
        ...summary,
        baseline: { metrics: base.metrics, rows: rows(base.cmp) },
        ...(patched ? { patched: { metrics: patched.metrics, rows: rows(patched.cmp) } } : {}),
      })}\n`,
    );
    return 0;
  }
  const out = [
    `${rec.traceFile}: ${plan.tasks.length} tasks over ${((plan.end - plan.start) / 1e6).toFixed(1)} ms` +
      `${release ? ` recorded on Linux ${release}` : ""}, replayed (${mode}) on ${machine.name} at era ${era}`,
    `trace: ${trace.lostEvents} lost events, ${trace.badCount} lines not understood; ` +
      Object.entries(plan.notes)
        .map(([k, n]) => `${k}: ${n}`)
        .join(", "),
    "",
    "real against the model:",
    formatComparison(base.cmp),
  ];
  if (patched) {
    out.push(
      "",
      `real against the model with ${summary.patches.join(" + ")}:`,
      formatComparison(patched.cmp),
    );
  }
  process.stdout.write(`${out.join("\n")}\n`);
  return 0;
}

/** Adds `trace replay` under the `trace` command. */
export function addTraceReplayCommand(trace: Command, status: { code: number }): void {
  trace
    .command("replay")
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .description(
      "replay a recorded trace on the model of its machine and compare it with the real one, figure by figure",
    )
    .argument(
      "<dir>",
      "a directory `trace record` wrote (trace.txt[.gz], machine.json, meta.json), or a trace file",
    )
    .option(
      "--era <ERA>",
      `the modelled kernel (${ERAS.join(", ")}; default the era nearest meta.json's kernel)`,
    )
    .option(
      "--patch <P>",
      "replay again with this patch: a seed patch, FEATURE=on|off or TUNABLE=NUMBER (repeatable)",
      (v: string, acc: string[] = []) => [...acc, v],
    )
    .option(
      "--mode <MODE>",
      "closed (wakeups between tasks issued in the model) or open (recorded times)",
      "closed",
    )
    .option("--machine <NAME|FILE>", "a preset or machine file instead of machine.json")
    .option("--no-kthreads", "leave the trace's kernel threads out")
    .option("--seed <N>", "the run's seed", "1")
    .option("--json", "one JSON object instead of the tables")
    .action(async (dir: string, flags: TraceReplayFlags) => {
      status.code = await traceReplayCmd(dir, flags);
    });
}
