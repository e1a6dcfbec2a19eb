// `npm run mutate -- [--module a,b] [--concurrency N] [--table] [--survivors NAME]`: mutation testing
// (StrykerJS) of the kernel's decision modules, one Stryker run per module of stryker.modules.json,
// each with only that module's unit tests (STRYKER_TESTS for scripts/mutate-tests.js). Writes
// reports/mutation/<module>.json (mutation-testing-report-schema) and prints the per-module table
// of every module with a report. --table prints the table without running; --survivors lists a
// module's surviving mutants (file:line mutator -> replacement).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

interface Module {
  name: string;
  mutate: string[];
  tests: string[];
}

interface Mutant {
  status: string;
  mutatorName: string;
  replacement?: string;
  location: { start: { line: number; column: number } };
}

interface Row {
  module: string;
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  errors: number;
  score: number;
  minutes?: number;
}

const ROOT = path.join(__dirname, "..");
const OUT = path.join(ROOT, "reports", "mutation");
const MODULES: Module[] = JSON.parse(
  fs.readFileSync(path.join(ROOT, "stryker.modules.json"), "utf8"),
).modules;

function parse(argv: string[]): {
  modules: Module[];
  concurrency?: number;
  table: boolean;
  survivors?: string;
} {
  let names: string[] | undefined;
  let concurrency: number | undefined;
  let table = false;
  let survivors: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--module") names = (argv[++i] ?? "").split(",").filter(Boolean);
    else if (a === "--concurrency") {
      concurrency = Number(argv[++i]);
      if (!Number.isInteger(concurrency) || concurrency < 1)
        throw new Error(`--concurrency must be a positive integer (got ${argv[i]})`);
    } else if (a === "--table") table = true;
    else if (a === "--survivors") survivors = argv[++i];
    else
      throw new Error(
        `unknown option ${a} (accepted: --module a,b, --concurrency N, --table, --survivors NAME)`,
      );
  }
  const known = MODULES.map((m) => m.name);
  for (const n of [...(names ?? []), ...(survivors ? [survivors] : [])])
    if (!known.includes(n)) throw new Error(`unknown module ${n} (accepted: ${known.join(", ")})`);
  const picked = names;
  const modules = picked ? MODULES.filter((m) => picked.includes(m.name)) : MODULES;
  return { modules, concurrency, table, survivors };
}

function reportOf(name: string): Record<string, { mutants: Mutant[] }> | undefined {
  const f = path.join(OUT, `${name}.json`);
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, "utf8")).files : undefined;
}

function rowOf(name: string): Row | undefined {
  const files = reportOf(name);
  if (!files) return undefined;
  const count: Record<string, number> = {};
  for (const f of Object.values(files))
    for (const m of f.mutants) count[m.status] = (count[m.status] ?? 0) + 1;
  const killed = count.Killed ?? 0;
  const timeout = count.Timeout ?? 0;
  const survived = count.Survived ?? 0;
  const noCoverage = count.NoCoverage ?? 0;
  const valid = killed + timeout + survived + noCoverage;
  const timing = path.join(OUT, `${name}.minutes`);
  return {
    module: name,
    mutants: valid,
    killed,
    timeout,
    survived,
    noCoverage,
    errors: (count.CompileError ?? 0) + (count.RuntimeError ?? 0),
    // Stryker's mutation score: detected / valid mutants.
    score: valid ? (100 * (killed + timeout)) / valid : 0,
    minutes: fs.existsSync(timing) ? Number(fs.readFileSync(timing, "utf8")) : undefined,
  };
}

function printTable(): void {
  const rows = MODULES.map((m) => rowOf(m.name)).filter((r): r is Row => r !== undefined);
  const head = ["module", "mutants", "killed", "timeout", "survived", "no cov", "score", "minutes"];
  const lines = rows.map((r) => [
    r.module,
    String(r.mutants),
    String(r.killed),
    String(r.timeout),
    String(r.survived),
    String(r.noCoverage),
    `${r.score.toFixed(1)}%`,
    r.minutes === undefined ? "" : r.minutes.toFixed(1),
  ]);
  const total = rows.reduce(
    (t, r) => ({
      mutants: t.mutants + r.mutants,
      detected: t.detected + r.killed + r.timeout,
      minutes: t.minutes + (r.minutes ?? 0),
    }),
    { mutants: 0, detected: 0, minutes: 0 },
  );
  if (rows.length > 1)
    lines.push([
      "all",
      String(total.mutants),
      "",
      "",
      "",
      "",
      `${((100 * total.detected) / total.mutants).toFixed(1)}%`,
      total.minutes.toFixed(1),
    ]);
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  for (const l of [head, ...lines])
    console.log(l.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join("  "));
  fs.writeFileSync(path.join(OUT, "summary.json"), `${JSON.stringify(rows, null, 2)}\n`);
}

function printSurvivors(name: string): void {
  for (const [file, f] of Object.entries(reportOf(name) ?? {}))
    for (const m of f.mutants)
      if (m.status === "Survived" || m.status === "NoCoverage")
        console.log(
          `${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} -> ${JSON.stringify(m.replacement ?? "")}`,
        );
}

function run(m: Module, concurrency?: number): void {
  const base = JSON.parse(fs.readFileSync(path.join(ROOT, "stryker.config.json"), "utf8"));
  const config = {
    ...base,
    mutate: m.mutate,
    reporters: ["json", "progress-append-only"],
    jsonReporter: { fileName: `reports/mutation/${m.name}.json` },
    ...(concurrency ? { concurrency } : {}),
  };
  delete config.$schema;
  delete config._comment;
  const file = path.join(OUT, `${m.name}.stryker.json`);
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  const start = Date.now();
  const r = spawnSync(path.join(ROOT, "node_modules", ".bin", "stryker"), ["run", file], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, STRYKER_TESTS: m.tests.join(",") },
  });
  if (r.status !== 0) throw new Error(`stryker failed on module ${m.name} (status ${r.status})`);
  fs.writeFileSync(path.join(OUT, `${m.name}.minutes`), String((Date.now() - start) / 60000));
}

function main(): void {
  const opts = parse(process.argv.slice(2));
  fs.mkdirSync(OUT, { recursive: true });
  if (opts.survivors) return printSurvivors(opts.survivors);
  if (!opts.table) for (const m of opts.modules) run(m, opts.concurrency);
  printTable();
}

try {
  main();
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}
