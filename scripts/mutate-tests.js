#!/usr/bin/env node
// The test command Stryker runs for each mutant: the test files named by STRYKER_TESTS (files or
// folders, comma-separated; default test/kernel), all in one node process that stops inside the
// first failing test (scripts/mutate-bail-sync.js). Exit status 0 = mutant survived.
//
// The files are bundled once with esbuild (tsx's own compiler) into one CommonJS file under
// .mutate-cache/ in the current directory (Stryker's sandbox, whose instrumented sources hold
// every mutant at once and are switched by __STRYKER_ACTIVE_MUTANT__), and each run requires that
// bundle in this process: no tsx loader hook, no per-module resolution and transform, no second
// node start. The bundle is rebuilt when one of its inputs is newer than it. MUTATE_TSX=1 runs
// the files through tsx in a child process as before (the reference the bundle is measured
// against); MUTATE_SPAWN=1 runs the bundle in a child process with the bail reporter
// (scripts/mutate-bail.mjs). MUTATE_TIMES=<file> logs each run's time (docs/mutation.md).
const { spawnSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const BAIL = path.join(__dirname, "mutate-bail.mjs");

function load(files) {
  require("./mutate-bail-sync.js");
  for (const f of files) require(path.resolve(f));
}

function testFiles() {
  const roots = (process.env.STRYKER_TESTS ?? "test/kernel").split(",");
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".test.ts")) files.push(p);
    }
  };
  for (const r of roots) fs.statSync(r).isDirectory() ? walk(r) : files.push(r);
  return files;
}

/** True if the bundle exists and none of its inputs (listed beside it) is newer. */
function fresh(bundle, inputsFile) {
  let built;
  try {
    built = fs.statSync(bundle).mtimeMs;
  } catch {
    return false;
  }
  let inputs;
  try {
    inputs = JSON.parse(fs.readFileSync(inputsFile, "utf8"));
  } catch {
    return false;
  }
  for (const f of inputs) {
    try {
      if (fs.statSync(f).mtimeMs > built) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Bundles `files` (TypeScript tests and the sources they import; packages stay external) into
 *  one CommonJS file, each file keeping its own __dirname / __filename. Resolves to its path. */
async function bundleOf(files) {
  const dir = path.resolve(".mutate-cache");
  const entry = [path.join(__dirname, "mutate-bail-sync.js"), ...files.map((f) => path.resolve(f))]
    .map((f) => `require(${JSON.stringify(f)});`)
    .join("\n");
  const key = crypto.createHash("sha1").update(entry).digest("hex").slice(0, 12);
  const bundle = path.join(dir, `${key}.cjs`);
  const inputsFile = path.join(dir, `${key}.inputs.json`);
  if (fresh(bundle, inputsFile)) return bundle;
  fs.mkdirSync(dir, { recursive: true });
  const esbuild = require(require.resolve("esbuild", { paths: [require.resolve("tsx")] }));
  // Per-file __dirname and __filename: in one bundle they would all be the bundle's own, and
  // presets.ts (data/machines) and a test reading docs/hooks.md resolve paths from them.
  const dirnames = {
    name: "dirnames",
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        let text = fs.readFileSync(args.path, "utf8");
        if (/__dirname|__filename/.test(text))
          text = text
            .replace(/\b__dirname\b/g, JSON.stringify(path.dirname(args.path)))
            .replace(/\b__filename\b/g, JSON.stringify(args.path));
        return { contents: text, loader: "ts" };
      });
    },
  };
  // Written under a name of this process, then renamed: two Stryker workers share the sandbox.
  const tmp = `${bundle}.${process.pid}.tmp`;
  const r = await esbuild.build({
    stdin: { contents: entry, resolveDir: process.cwd(), loader: "js", sourcefile: "entry.js" },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: `node${process.versions.node.split(".")[0]}`,
    packages: "external",
    outfile: tmp,
    metafile: true,
    logLevel: "error",
    plugins: [dirnames],
  });
  const inputs = Object.keys(r.metafile.inputs)
    .filter((f) => f !== "entry.js")
    .map((f) => path.resolve(f));
  fs.writeFileSync(`${inputsFile}.${process.pid}.tmp`, JSON.stringify(inputs));
  fs.renameSync(`${inputsFile}.${process.pid}.tmp`, inputsFile);
  fs.renameSync(tmp, bundle);
  return bundle;
}

async function main() {
  const files = testFiles();
  if (process.env.MUTATE_TSX)
    return spawnTests(["--import", "tsx", __filename, "--load", ...files]);
  const bundle = await bundleOf(files);
  if (process.env.MUTATE_SPAWN) return spawnTests([bundle]);
  // In this process: no second node start. mutate-bail-sync.js (first in the bundle) exits 1 at
  // the first failing test; node:test sets exit code 1 for any other failure; 0 = survived.
  const t0 = Date.now();
  if (process.env.MUTATE_TIMES)
    process.on("exit", (code) => {
      const cpu = process.cpuUsage();
      fs.appendFileSync(
        process.env.MUTATE_TIMES,
        `${process.env.__STRYKER_ACTIVE_MUTANT__ ?? "dry"} ${code} ${Date.now() - t0} ${Math.round((cpu.user + cpu.system) / 1000)}\n`,
      );
    });
  require(bundle);
}

function childCpuMs() {
  try {
    const f = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    // fields 16 and 17 of proc(5) (cutime, cstime), 14 and 15 after "pid (comm) "
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return -1;
  }
}

function spawnTests(args) {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [`--test-reporter=${BAIL}`, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (process.env.MUTATE_DEBUG)
    fs.writeFileSync(
      process.env.MUTATE_DEBUG,
      `${process.cwd()} ${r.status}\n${r.stdout}\n${r.stderr}`,
    );
  // MUTATE_TIMES=<file>: one line per run (mutant id or "dry", exit status, wall and CPU
  // milliseconds of the test process), the data the timeouts in stryker.config.json were chosen
  // from (docs/mutation.md). CPU time: the reaped children's utime + stime of /proc/self/stat
  // (Linux; -1 elsewhere), which the machine's load does not inflate as it does wall time.
  if (process.env.MUTATE_TIMES)
    fs.appendFileSync(
      process.env.MUTATE_TIMES,
      `${process.env.__STRYKER_ACTIVE_MUTANT__ ?? "dry"} ${r.status} ${Date.now() - t0} ${childCpuMs()}\n`,
    );
  process.exit(r.status ?? 1);
}

if (process.argv[2] === "--load") load(process.argv.slice(3));
else
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
