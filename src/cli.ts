// The `schedlab` command.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { presetNames, preset } from "./machine/presets";
import { ERAS, fairPolicyNote, isEra } from "./kernel/features";
import { hookDescription, hookNames } from "./kernel/hooks";
import { buildSchedDomains, describeDomains } from "./kernel/topology/topology";
import { defaultGroupCapacity } from "./kernel/topology/topology";
import { reproduction, reproductionIds, type Reproduction } from "./reproduce/registry";
import { ReproductionPool } from "./reproduce/parallel";
import type { Results } from "./experiment/results";
import { formatLedger, ledgerEntry, newLedger, type LedgerExperiment } from "./reproduce/ledger";
import { writeReport } from "./reproduce/report";
import { VERSION } from "./version";
import "./index";

/** Worker threads for `reproduce` when --jobs is not given: one per core the process may use. */
function defaultJobs(): number {
  return typeof os.availableParallelism === "function"
    ? os.availableParallelism()
    : Math.max(1, os.cpus().length);
}

const HELP = `schedlab ${VERSION} - a laboratory for the Linux CPU scheduler

usage:
  schedlab reproduce [ID ...] [options]   run published experiments, print the ledger, write a report
      --json              print the ledger as one JSON object (no report unless --report)
      --quick             shorter runs (the test profile)
      --iterations N      iterations per variant (default: each experiment's own)
      --duration S        simulated seconds per iteration (default: each experiment's own)
      --seed S            master seed (default 1)
      --report DIR        write DIR/index.html (default for a plain 'schedlab reproduce': report/)
      --no-report         do not write a report
      --save DIR          also write each experiment's full results as DIR/<id>.json
      --jobs N            run iterations on N worker threads (default: one per core, here ${defaultJobs()};
                          1 runs them in this process; the results are identical either way)
  schedlab list                           the experiments that can be reproduced
  schedlab presets                        machine presets
  schedlab domains PRESET [--era E] [--offline CPU,CPU]
                                          the sched domains the kernel of era E builds
  schedlab hooks                          the decision points a patch can replace
  schedlab --help | --version

experiments: ${reproductionIds().join(", ")}
eras: ${ERAS.join(", ")}`;

interface Parsed {
  positional: string[];
  flags: Map<string, string | true>;
}

function parseArgs(argv: string[], valued: string[], boolean: string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) {
      positional.push(a);
      continue;
    }
    const [name, inline] = a.slice(2).split("=", 2);
    if (valued.includes(name)) {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`--${name} needs a value`);
      flags.set(name, v);
    } else if (boolean.includes(name)) {
      flags.set(name, true);
    } else {
      const accepted = [...valued, ...boolean].map((f) => `--${f}`).join(", ");
      throw new Error(`unknown option --${name} (accepted: ${accepted})`);
    }
  }
  return { positional, flags };
}

function positiveNumber(
  flag: string,
  v: string | true | undefined,
  integer: boolean,
): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v === true || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new Error(
      `--${flag} must be a positive ${integer ? "integer" : "number"} (got ${v === true ? "nothing" : v})`,
    );
  }
  return n;
}

/** One progress line, rewritten in place on a terminal; in a log, about every tenth run. */
function progress(done: number, total: number, text: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${text}`);
  else if (done === total || done % Math.max(1, Math.ceil(total / 10)) === 0)
    process.stderr.write(`${text}\n`);
}

async function reproduceCmd(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const { positional, flags } = parseArgs(
    argv,
    ["iterations", "duration", "seed", "report", "save", "jobs"],
    ["json", "quick", "no-report"],
  );
  const ids = positional.length ? positional : reproductionIds();
  const repros: Reproduction[] = ids.map((id) => reproduction(id));
  const iterations = positiveNumber("iterations", flags.get("iterations"), true);
  const duration = positiveNumber("duration", flags.get("duration"), false);
  const jobs = positiveNumber("jobs", flags.get("jobs"), true) ?? defaultJobs();
  const seedFlag = flags.get("seed");
  const seed = seedFlag === undefined ? "1" : String(seedFlag);
  const json = flags.has("json");
  let reportDir: string | null = null;
  if (typeof flags.get("report") === "string") reportDir = flags.get("report") as string;
  else if (!json && positional.length === 0 && !flags.has("no-report")) reportDir = "report";
  if (flags.has("no-report")) reportDir = null;

  const experiments: LedgerExperiment[] = [];
  const runs: Array<{ repro: Reproduction; res: Results }> = [];
  // one set of threads for every experiment: each thread's start-up is paid once
  const pool = new ReproductionPool(jobs);
  try {
    for (const r of repros) {
      const base = flags.has("quick") ? r.quick : r.full;
      const profile = {
        ...base,
        iterations: iterations ?? base.iterations,
        duration: duration ?? base.duration,
      };
      const t0 = process.hrtime.bigint();
      const elapsed = () => Number(process.hrtime.bigint() - t0) / 1e9;
      const res = await pool.run(r, profile, {
        seed,
        onProgress: (done, total, last) =>
          progress(
            done,
            total,
            // with workers, runs finish out of order: name the one just finished
            `[${r.id}] ${done}/${total} runs (last: variant ${last.variant}, iteration ${last.iteration}), ${elapsed().toFixed(1)} s` +
              (Math.min(jobs, total) > 1 ? ` on ${Math.min(jobs, total)} threads` : ""),
          ),
      });
      const wallS = elapsed();
      if (process.stderr.isTTY) process.stderr.write("\n");
      experiments.push(ledgerEntry(r, res, wallS));
      runs.push({ repro: r, res });
      const saveDir = flags.get("save");
      if (typeof saveDir === "string") {
        fs.mkdirSync(saveDir, { recursive: true });
        fs.writeFileSync(path.join(saveDir, `${r.id}.json`), JSON.stringify(res.data));
      }
    }
  } finally {
    await pool.close();
  }
  const ledger = newLedger(experiments);
  if (json) process.stdout.write(`${JSON.stringify(ledger)}\n`);
  else process.stdout.write(`${formatLedger(ledger)}\n`);
  if (reportDir) {
    const file = writeReport(reportDir, ledger, runs);
    process.stderr.write(`report written to ${file}\n`);
  }
  return 0;
}

function domainsCmd(argv: string[]): number {
  const { positional, flags } = parseArgs(argv, ["era", "offline"], []);
  if (positional.length !== 1)
    throw new Error(`domains: give one preset (accepted: ${presetNames().join(", ")})`);
  const m = preset(positional[0]);
  const era = (flags.get("era") as string | undefined) ?? "6.19";
  if (!isEra(era)) throw new Error(`--era must be one of ${ERAS.join(", ")} (got ${era})`);
  const online = [...m.online];
  const off = flags.get("offline");
  if (typeof off === "string") {
    for (const s of off.split(",")) {
      const c = Number(s);
      if (!Number.isInteger(c) || c < 1 || c >= m.cpus.length)
        throw new Error(
          `--offline: cpu must be an integer from 1 to ${m.cpus.length - 1} (got ${s})`,
        );
      online[c] = false;
    }
  }
  const note = fairPolicyNote(era);
  if (note) process.stdout.write(`# ${note}\n`);
  process.stdout.write(
    `${describeDomains(buildSchedDomains(m, online, era, defaultGroupCapacity(era)))}\n`,
  );
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case undefined:
    case "--help":
    case "-h":
    case "help":
      process.stdout.write(`${HELP}\n`);
      return cmd === undefined ? 1 : 0;
    case "--version":
      process.stdout.write(`${VERSION}\n`);
      return 0;
    case "reproduce":
      return reproduceCmd(rest);
    case "list":
      for (const id of reproductionIds()) {
        const r = reproduction(id);
        process.stdout.write(`${id.padEnd(8)} ${r.machine.padEnd(14)} ${r.title}\n`);
      }
      return 0;
    case "presets":
      for (const name of presetNames())
        process.stdout.write(`${name.padEnd(14)} ${preset(name).description}\n`);
      return 0;
    case "domains":
      return domainsCmd(rest);
    case "hooks":
      for (const h of hookNames()) process.stdout.write(`${h.padEnd(32)} ${hookDescription(h)}\n`);
      return 0;
    default:
      throw new Error(
        `unknown command "${cmd}" (accepted: reproduce, list, presets, domains, hooks, --help, --version)`,
      );
  }
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
