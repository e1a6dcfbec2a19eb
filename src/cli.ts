// The `schedlab` command.
import { Command, CommanderError } from "commander";
import * as os from "node:os";
import * as path from "node:path";
import { machineByName, presetNames } from "./machine/presets";
import { machineImportCmd, type MachineImportFlags } from "./cli_machine";
import {
  traceImportCmd,
  type TraceImportFlags,
  traceRecordCmd,
  type TraceRecordFlags,
} from "./cli_trace";
import { addTraceReplayCommand } from "./cli_trace_replay";
import { addUnknownCommands } from "./cli_unknowns";
import { addSweepCommands } from "./cli_sweep";
import { costProfileNames } from "./machine/profiles";
import { newNotebook } from "./notebook/template";
import { ERAS, fairPolicyNote, isEra } from "./kernel/features";
import { eraModelNote } from "./kernel/era_model";
import { eraCmd, erasCmd, hooksCmd, listCmd, presetsCmd, type ListingFlags } from "./cli_listing";
import { checkRunSize } from "./cli_size";
import { variationWarning } from "./analysis/variation";
import { quietOnClosedPipe } from "./cli_pipe";
import { buildSchedDomains, describeDomains } from "./kernel/topology/topology";
import { defaultGroupCapacity } from "./kernel/topology/topology";
import {
  expandReproductionIds,
  reproduction,
  reproductionIds,
  type Reproduction,
} from "./reproduce/registry";
import { ReproductionPool } from "./reproduce/parallel";
import type { Results } from "./experiment/results";
import { formatLedger, ledgerEntry, newLedger, type LedgerExperiment } from "./reproduce/ledger";
import { writeReport } from "./reproduce/report";
import { replayLatencyCdf, shippedReplayTables } from "./experiment/replay_run";
import { todayRun, withToday } from "./reproduce/today";
import { RunProgress } from "./reproduce/progress";
import { prepareOutputDir, writeFileAtomic } from "./report/files";
import { VERSION } from "./version";
import "./index";

/** Worker threads for `reproduce` when --jobs is not given: one per core the process may use. */
function defaultJobs(): number {
  return typeof os.availableParallelism === "function"
    ? os.availableParallelism()
    : Math.max(1, os.cpus().length);
}

/** Throws unless v (a flag's text) is a positive number, or integer; undefined passes through. */
function positiveNumber(flag: string, v: string | undefined, integer: boolean): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new Error(`--${flag} must be a positive ${integer ? "integer" : "number"} (got ${v})`);
  }
  return n;
}

interface ReproduceFlags {
  json?: boolean;
  quick?: boolean;
  iterations?: string;
  duration?: string;
  seed?: string;
  /** A directory, or false for --no-report. */
  report?: string | false;
  save?: string;
  jobs?: string;
  maxEvents?: string;
  maxMemory?: string;
  yes?: boolean;
}

async function reproduceCmd(ids: string[], flags: ReproduceFlags): Promise<number> {
  const repros: Reproduction[] = (ids.length ? expandReproductionIds(ids) : reproductionIds()).map(
    (id) => reproduction(id),
  );
  const iterations = positiveNumber("iterations", flags.iterations, true);
  const duration = positiveNumber("duration", flags.duration, false);
  const jobs = positiveNumber("jobs", flags.jobs, true) ?? defaultJobs();
  const maxEvents = positiveNumber("max-events", flags.maxEvents, true);
  const maxHeapMb = positiveNumber("max-memory", flags.maxMemory, true);
  const seed = flags.seed ?? "1";
  const json = !!flags.json;
  let reportDir: string | null = null;
  if (typeof flags.report === "string") reportDir = flags.report;
  else if (flags.report === undefined && !json && ids.length === 0) reportDir = "report";
  // Output places are checked before any run: a bad path fails now, not after the work.
  if (reportDir !== null) prepareOutputDir(reportDir, "--report");
  const saveDir = flags.save === undefined ? null : prepareOutputDir(flags.save, "--save");

  // the size of what was asked, before anything is run or allocated per run
  checkRunSize(repros, flags.quick ? "quick" : "full", { iterations, duration }, !!flags.yes);

  const experiments: LedgerExperiment[] = [];
  const runs: Array<{ repro: Reproduction; res: Results }> = [];
  // one set of threads for every experiment: each thread's start-up is paid once
  const pool = new ReproductionPool(jobs);
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
    void pool.abort(new Error("interrupted"));
  };
  process.once("SIGINT", onSigint);
  try {
    for (const r of repros) {
      const base = flags.quick ? r.quick : r.full;
      const profile = {
        ...base,
        iterations: iterations ?? base.iterations,
        duration: duration ?? base.duration,
      };
      const total = r.experiment().jobs(profile).length;
      const bar = new RunProgress(r.id, total, jobs);
      let res: Results;
      try {
        res = await pool.run(r, profile, {
          seed,
          maxEvents,
          maxHeapMb,
          onProgress: (done, _total, last) => bar.update(done, last),
        });
      } finally {
        bar.stop();
      }
      const same = variationWarning(res.data, r.id);
      if (same) process.stderr.write(`warning: ${same}\n`);
      let entry = ledgerEntry(r, res, bar.elapsed());
      if (r.today) {
        // the today variant: the same machine and workload on today's kernel, no patch
        let today: Results | null = null;
        let wallS: number | undefined;
        if (!r.today.fromVariant) {
          const run = todayRun(r);
          const tbar = new RunProgress(run.id, run.experiment().jobs(profile).length, jobs);
          try {
            today = await pool.run(run, profile, {
              seed,
              maxEvents,
              maxHeapMb,
              onProgress: (done, _total, last) => tbar.update(done, last),
            });
          } finally {
            tbar.stop();
          }
          wallS = tbar.elapsed();
        }
        entry = withToday(entry, r, res, today, wallS);
      }
      experiments.push(entry);
      runs.push({ repro: r, res });
      if (saveDir !== null)
        writeFileAtomic(path.join(saveDir, `${r.id}.json`), JSON.stringify(res.data));
    }
  } catch (err) {
    if (!interrupted) throw err;
    const finished = experiments.map((e) => e.id);
    process.stderr.write(
      `schedlab: interrupted; finished: ${finished.length ? finished.join(", ") : "none"}` +
        (saveDir !== null && finished.length ? ` (saved in ${saveDir})` : "") +
        "; no ledger or report written\n",
    );
    return 130;
  } finally {
    process.removeListener("SIGINT", onSigint);
    await pool.close();
  }
  const ledger = newLedger(experiments);
  if (json) process.stdout.write(`${JSON.stringify(ledger)}\n`);
  else process.stdout.write(`${formatLedger(ledger)}\n`);
  if (reportDir) {
    // a plain `schedlab reproduce` (every experiment) also replays the shipped real traces
    const replays =
      ids.length === 0
        ? (await shippedReplayTables()).map((t) => ({ ...t, figures: [replayLatencyCdf(t)] }))
        : [];
    const file = writeReport(reportDir, ledger, runs, replays);
    process.stderr.write(`report written to ${file}\n`);
  }
  return 0;
}

function domainsCmd(name: string, flags: { era?: string; offline?: string }): number {
  const m = machineByName(name);
  const era = flags.era ?? "6.19";
  if (!isEra(era)) throw new Error(`--era must be one of ${ERAS.join(", ")} (got ${era})`);
  const online = [...m.online];
  if (flags.offline !== undefined) {
    for (const s of flags.offline.split(",")) {
      const c = Number(s);
      if (s.trim() === "" || !Number.isInteger(c) || c < 1 || c >= m.cpus.length)
        throw new Error(
          `--offline: cpu must be an integer from 1 to ${m.cpus.length - 1} (got ${s})`,
        );
      online[c] = false;
    }
  }
  process.stdout.write(`# ${eraModelNote(era)}\n`);
  const note = fairPolicyNote(era);
  if (note) process.stdout.write(`# ${note}\n`);
  process.stdout.write(
    `${describeDomains(buildSchedDomains(m, online, era, defaultGroupCapacity(era)), era)}\n`,
  );
  return 0;
}

const COMMANDS = [
  "reproduce",
  "list",
  "presets",
  "eras",
  "era",
  "domains",
  "machine",
  "hooks",
  "unknowns",
  "calibrate",
  "sweep",
  "worker",
  "new-notebook",
  "help",
];

/** The command line, parsed by commander; each action leaves its exit status in `status`. */
function program(status: { code: number }): Command {
  const root = new Command("schedlab")
    .description("a laboratory for the Linux CPU scheduler")
    .version(VERSION, "--version")
    .exitOverride()
    // errors come back as exceptions and are printed once, by the caller
    .configureOutput({ outputError: () => {} })
    .addHelpText(
      "after",
      [
        "",
        "main job:  schedlab reproduce          every experiment, the ledger, report/index.html",
        "one:       schedlab reproduce 002 --json",
        `experiments: ${reproductionIds().join(", ")}`,
        `eras: ${ERAS.join(", ")}`,
      ].join("\n"),
    );
  const sub = (name: string) =>
    root
      .command(name)
      .exitOverride()
      .configureOutput({ outputError: () => {} });
  sub("reproduce")
    .description("run published experiments, print the ledger, write a report")
    .argument("[ids...]", `experiments to run (default: all; ${reproductionIds().join(", ")})`)
    .option("--json", "print the ledger as one JSON object (no report unless --report)")
    .option("--quick", "shorter runs (the test profile)")
    .option("--iterations <N>", "iterations per variant (default: each experiment's own)")
    .option("--duration <S>", "simulated seconds per iteration (default: each experiment's own)")
    .option("--seed <S>", "master seed", "1")
    .option(
      "--report <DIR>",
      "write DIR/index.html (default for a plain 'schedlab reproduce': report/)",
    )
    .option("--no-report", "do not write a report")
    .option("--save <DIR>", "also write each experiment's full results as DIR/<id>.json")
    .option(
      "--max-events <N>",
      "stop a run that processes more than N events, naming it (default: no limit)",
    )
    .option(
      "--max-memory <MiB>",
      "stop a run whose thread's JavaScript heap passes MiB, naming it (default: no limit)",
    )
    .option(
      "--yes",
      "run even when the run's estimated size is above the bound (see the message that names it)",
    )
    .option(
      "--jobs <N>",
      `run iterations on N threads (default: one per core, here ${defaultJobs()}; 1 runs them in this process; the results are identical either way)`,
    )
    .action(async (ids: string[], flags: ReproduceFlags) => {
      status.code = await reproduceCmd(ids, flags);
    });
  const JSON_HELP = "print one JSON value instead of text";
  sub("list")
    .description("the experiments that can be reproduced")
    .option("--json", JSON_HELP)
    .action((flags: ListingFlags) => {
      status.code = listCmd(flags);
    });
  sub("presets")
    .description("machine presets")
    .option("--json", JSON_HELP)
    .action((flags: ListingFlags) => {
      status.code = presetsCmd(flags);
    });
  sub("eras")
    .description("the modelled kernel eras: what each runs and how many later changes it holds")
    .option("--json", JSON_HELP)
    .action((flags: ListingFlags) => {
      status.code = erasCmd(flags);
    });
  sub("era")
    .description(
      "the merged changes an era contains that the model runs, each with its commit and the switch that turns it back",
    )
    .argument("<era>", `a kernel era (${ERAS.join(", ")})`)
    .option("--json", JSON_HELP)
    .action((era: string, flags: ListingFlags) => {
      status.code = eraCmd(era, flags);
    });
  sub("domains")
    .description("the sched domains the kernel of an era builds on a machine")
    .argument(
      "<machine>",
      `a machine preset (${presetNames().join(", ")}) or a machine file (FILE.json, docs/file-formats.md)`,
    )
    .option("--era <E>", `kernel era (${ERAS.join(", ")})`, "6.19")
    .option("--offline <CPU,CPU>", "CPUs to take offline")
    .action((name: string, flags: { era?: string; offline?: string }) => {
      status.code = domainsCmd(name, flags);
    });
  sub("new-notebook")
    .description("write notebooks/NAME.ipynb from a template, ready to run in `npm run lab`")
    .argument("<name>", "the notebook's file name (letters, digits, '.', '_', '-')")
    .option("--dir <DIR>", "where to write it", "notebooks")
    .action((name: string, flags: { dir: string }) => {
      const file = newNotebook(name, flags.dir);
      process.stdout.write(`wrote ${file}; open it with: npm run lab\n`);
    });
  const machine = sub("machine").description("machines without a preset: import one from Linux");
  machine
    .command("import")
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .description("a machine file from a sysfs tree or lscpu output (stdout, or -o FILE)")
    .argument(
      "[source]",
      "a sysfs directory (default /sys/devices/system), an lscpu -p / -e output file, or - (stdin)",
    )
    .option(
      "--profile <NAME>",
      `the cost profile or preset whose figures are borrowed (${costProfileNames().join(", ")}; default x86-104t)`,
    )
    .option("--name <NAME>", "the machine's name (default: imported)")
    .option("-o, --output <FILE>", "write the machine file here instead of stdout")
    .action((source: string | undefined, flags: MachineImportFlags) => {
      status.code = machineImportCmd(source, flags);
    });
  const trace = sub("trace").description(
    "a kernel's sched trace: record one, read it back, replay it",
  );
  trace
    .command("import")
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .description("what a sched trace holds (tracefs's trace file or trace-cmd report output)")
    .argument("<file>", "the trace text")
    .option("--json", "one JSON object instead of the summary")
    .action(async (file: string, flags: TraceImportFlags) => {
      status.code = await traceImportCmd(file, flags);
    });
  trace
    .command("record")
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .description(
      "run a command with the sched events on (root): DIR/trace.txt, machine.json, meta.json; tracefs settings restored",
    )
    .argument("<command...>", "the command to run, after --")
    .option("--out <DIR>", "the trace directory to write, new or empty (default trace-DATE)")
    .option(
      "--events <LIST>",
      "comma list of events/sched names (default the wakeup, switch, migrate, fork and exit events)",
    )
    .option("--buffer-kb <N>", "ring buffer size per CPU, kB (default: as it is)")
    .action(async (command: string[], flags: TraceRecordFlags) => {
      status.code = await traceRecordCmd(command, flags);
    });
  addTraceReplayCommand(trace, status);
  sub("hooks")
    .description("the decision points a patch can replace")
    .argument("[hook]", "one hook, described in full")
    .option(
      "--verbose",
      "per hook: kernel function and file per era, context fields, default, example",
    )
    .option("--json", JSON_HELP)
    .action((hook: string | undefined, flags: ListingFlags & { verbose?: boolean }) => {
      status.code = hooksCmd(hook, flags);
    });
  addUnknownCommands(sub, status);
  addSweepCommands(sub, status);
  return root;
}

/** The deepest command `argv` names (`machine import` is import, not machine). */
function commandOf(root: Command, argv: string[]): Command | undefined {
  let cmd: Command | undefined;
  let scope = root;
  for (const a of argv) {
    const sub = scope.commands.find((c) => c.name() === a);
    if (!sub) break;
    cmd = sub;
    scope = sub;
  }
  return cmd;
}

/** Commander's own messages, rewritten to name the field and what it accepts. */
function usageError(err: CommanderError, root: Command, argv: string[]): Error {
  const quoted = /'([^']*)'/.exec(err.message)?.[1] ?? "";
  const cmd = commandOf(root, argv);
  switch (err.code) {
    case "commander.unknownCommand":
      return new Error(
        `unknown command "${quoted}" (accepted: ${COMMANDS.join(", ")}, --help, --version)`,
      );
    case "commander.unknownOption": {
      const own = (cmd ?? root).options.map((o) => o.long).filter(Boolean);
      // --help is commander's own and works everywhere; --version on the root
      const accepted = [...own, "--help"];
      const where = cmd ? `${cmd.name()}: ` : "";
      const after = cmd?.name() === "record" ? "; give the command to record after --" : "";
      return new Error(
        `${where}unknown option ${quoted} (accepted: ${accepted.join(", ")})${after}`,
      );
    }
    case "commander.missingArgument":
      if (cmd?.name() === "domains")
        return new Error(`domains: give one preset (accepted: ${presetNames().join(", ")})`);
      return new Error(err.message.replace(/^error: /, ""));
    case "commander.excessArguments":
      return new Error(`${argv[0]}: too many arguments (${err.message.replace(/^error: /, "")})`);
    default:
      return new Error(err.message.replace(/^error: /, ""));
  }
}

/** Runs the `schedlab` command with `argv` (without node and the script); resolves to the exit status. */
export async function main(argv: string[]): Promise<number> {
  quietOnClosedPipe();
  const status = { code: 0 };
  const root = program(status);
  if (argv.length === 0) {
    process.stdout.write(root.helpInformation());
    return 1;
  }
  try {
    await root.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (["commander.helpDisplayed", "commander.version", "commander.help"].includes(err.code))
      return 0;
    throw usageError(err, root, argv);
  }
  return status.code;
}

// Allow `node --import tsx src/cli.ts ...` as well as the bin wrapper.
if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (err: Error) => {
      process.stderr.write(`schedlab: ${err.message}\n`);
      process.exitCode = 2;
    },
  );
}
