// `schedlab trace replay DIR`: a recorded trace (DIR/trace.txt or trace.txt.gz, DIR/machine.json,
// DIR/meta.json as `trace record` writes them) replayed on the model of the same machine at an era,
// and compared figure by figure with the real one; with --patch, replayed again with the patch
// and the two replays set side by side ("what if").
import type { Command } from "commander";
import { formatComparison } from "./analysis/trace_compare";
import { readRecording, replayRecording } from "./experiment/replay_run";
import { ERAS, eraDefaults, type Era } from "./kernel/features";
import { patch as makePatch, type Patch } from "./patch/patch";
import * as seeds from "./patch/seeds/index";
import type { ReplayMode } from "./workload/replay";

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
  const mode = (flags.mode ?? "closed") as ReplayMode;
  if (mode !== "closed" && mode !== "open")
    throw new Error(`trace replay: --mode must be closed or open (got ${flags.mode})`);
  const seed = flags.seed === undefined ? 1 : Number(flags.seed);
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`trace replay: --seed must be an integer >= 0 (got ${flags.seed})`);
  if (flags.era !== undefined && !(ERAS as readonly string[]).includes(flags.era))
    throw new Error(`trace replay: --era must be one of ${ERAS.join(", ")} (got ${flags.era})`);
  const patches = (flags.patch ?? []).map(patchFromArg);
  const rec = await readRecording(where);
  const opts = {
    era: flags.era as Era | undefined,
    mode,
    seed,
    kthreads: flags.kthreads ?? true,
    ...(flags.machine ? { machine: flags.machine } : {}),
  };
  const base = await replayRecording(rec, opts);
  const patched = patches.length ? await replayRecording(rec, { ...opts, patches }) : null;
  const summary = {
    trace: rec.recording.traceFile,
    kernel: base.kernel,
    era: base.era,
    mode,
    machine: base.machine.name,
    patches: patches.map((p) => p.name),
    lostEvents: rec.trace.lostEvents,
    badLines: rec.trace.badCount,
    notes: base.plan.notes,
  };
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({
        ...summary,
        baseline: { metrics: base.metrics, rows: base.comparison.rows },
        ...(patched
          ? { patched: { metrics: patched.metrics, rows: patched.comparison.rows } }
          : {}),
      })}\n`,
    );
    return 0;
  }
  const plan = base.plan;
  const out = [
    `${summary.trace}: ${plan.tasks.length} tasks over ${((plan.end - plan.start) / 1e6).toFixed(1)} ms` +
      `${base.kernel ? ` recorded on Linux ${base.kernel}` : ""}, replayed (${mode}) on ${summary.machine} at era ${base.era}`,
    `trace: ${summary.lostEvents} lost events, ${summary.badLines} lines not understood; ` +
      Object.entries(plan.notes)
        .map(([k, n]) => `${k}: ${n}`)
        .join(", "),
    "",
    "real against the model:",
    formatComparison(base.comparison),
  ];
  if (patched)
    out.push(
      "",
      `real against the model with ${summary.patches.join(" + ")}:`,
      formatComparison(patched.comparison),
    );
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
