// npm run notebooks: execute every notebooks/*.ipynb headless with Debian's Jupyter and the
// project's tslab kernel, writing the executed .ipynb and its HTML into a report folder.
//
//   node --import tsx scripts/notebooks.ts [--out DIR] [--no-build] [--setup-only]
//                                          [--timeout SEC] [--check-render] [notebook.ipynb ...]
//
// Steps: build src/ to dist/ (tslab cannot compile our .ts itself: it roots at notebooks/ and runs
// its own TS 5.0), link notebooks/node_modules/schedlab -> ../.. so notebooks import "schedlab", write the
// kernelspec with absolute paths under jupyter/ and point JUPYTER_PATH at it, then per notebook:
//   1. nbconvert --to notebook --execute --allow-errors: always writes the executed notebook;
//      a config hook records each cell's execute_reply status in its metadata, because tslab
//      reports a failing cell only as stderr text, which nbconvert's own message lacks;
//   2. nbconvert --to html of that executed notebook (no second execution);
//   3. a cell with status "error" (not tagged raises-exception) or "aborted" fails the command,
//      printing the cell's source and error text.
// --setup-only does the build, link and kernelspec and prints the JUPYTER_PATH to export, for
// working on notebooks interactively. --check-render loads each HTML in headless Chromium and
// requires every schedlab figure to have drawn.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";

const ROOT = path.resolve(__dirname, "..");
const JUPYTER = process.env.JUPYTER ?? "/usr/bin/jupyter";
const APT_HINT = "apt-get install -y --no-install-recommends jupyter-nbconvert";

interface Options {
  out: string;
  build: boolean;
  setupOnly: boolean;
  timeoutSec: number;
  checkRender: boolean;
  notebooks: string[];
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    out: path.join(ROOT, "report", "notebooks"),
    build: true,
    setupOnly: false,
    timeoutSec: 600,
    checkRender: false,
    notebooks: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--out") o.out = path.resolve(argv[++i]);
    else if (a === "--no-build") o.build = false;
    else if (a === "--setup-only") o.setupOnly = true;
    else if (a === "--timeout") o.timeoutSec = Number(argv[++i]);
    else if (a === "--check-render") o.checkRender = true;
    else if (a === "-h" || a === "--help") {
      console.log(
        fs
          .readFileSync(__filename, "utf8")
          .split("\n")
          .slice(0, 20)
          .filter((l) => l.startsWith("//"))
          .map((l) => l.slice(3))
          .join("\n"),
      );
      process.exit(0);
    } else if (a.startsWith("-")) throw new Error(`unknown option ${a}`);
    else o.notebooks.push(path.resolve(a));
  }
  return o;
}

class Failure extends Error {}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(cmd, args, { cwd: ROOT, env, encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });
}

/** Jupyter must exist; never skipped, so CI cannot pass without running the notebooks. */
function checkJupyter(): void {
  if (!fs.existsSync(JUPYTER)) {
    throw new Failure(
      `${JUPYTER} not found: the notebooks need Debian's Jupyter. Install it with:\n  ${APT_HINT}`,
    );
  }
  const r = run(JUPYTER, ["nbconvert", "--version"]);
  if (r.status !== 0)
    throw new Failure(
      `${JUPYTER} nbconvert does not run (${(r.stderr || "").trim().split("\n").pop()}). Install it with:\n  ${APT_HINT}`,
    );
}

/** Compile src/ to dist/ from scratch, so no stale module from a deleted source survives. */
export function build(): void {
  fs.rmSync(path.join(ROOT, "dist"), { recursive: true, force: true });
  const tsc = require.resolve("typescript/bin/tsc", { paths: [ROOT] });
  const r = run(process.execPath, [tsc, "-p", path.join(ROOT, "tsconfig.build.json")]);
  const out = (r.stdout + r.stderr).trim();
  // tsc exits 2 when it reports type errors but still emitted every file: the type check is
  // npm run typecheck's job, so only warn; the notebooks then show whether the code runs.
  if (r.status === 2 && fs.existsSync(path.join(ROOT, "dist"))) {
    const lines = out.split("\n");
    console.warn(
      `warning: tsc -p tsconfig.build.json reported type errors (dist/ emitted anyway):\n  ${lines.slice(0, 10).join("\n  ")}${lines.length > 10 ? `\n  ... ${lines.length - 10} more` : ""}`,
    );
  } else if (r.status !== 0)
    throw new Failure(`build of src/ to dist/ failed (tsc -p tsconfig.build.json):\n${out}`);
}

/**
 * notebooks/node_modules/schedlab -> ../.. (relative, so the link survives moving the checkout).
 * Beside the notebooks rather than in the root node_modules: a worktree whose node_modules is a
 * symlink to another checkout's would otherwise resolve "schedlab" to that checkout.
 */
export function linkPackage(): void {
  const link = path.join(ROOT, "notebooks", "node_modules", "schedlab");
  let st: fs.Stats | null = null;
  try {
    st = fs.lstatSync(link);
  } catch {
    st = null;
  }
  if (st && !st.isSymbolicLink())
    throw new Failure(
      `${link} exists and is not a symlink; remove it so notebooks import this checkout`,
    );
  if (st && fs.readlinkSync(link) === "../..") return;
  if (st) fs.unlinkSync(link);
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync("../..", link, "dir");
}

/** jupyter/kernels/tslab/kernel.json with absolute paths; returns the JUPYTER_PATH entry. */
export function writeKernelspec(): string {
  const dir = path.join(ROOT, "jupyter");
  const tslab = path.join(ROOT, "node_modules", "tslab", "bin", "tslab");
  if (!fs.existsSync(tslab))
    throw new Failure(`${tslab} not found: run npm ci (tslab is a devDependency)`);
  fs.mkdirSync(path.join(dir, "kernels", "tslab"), { recursive: true });
  // Generated per machine (absolute paths): keep it out of git without touching .gitignore.
  fs.writeFileSync(path.join(dir, ".gitignore"), "*\n");
  const spec = {
    argv: [process.execPath, tslab, "kernel", "--config-path", "{connection_file}"],
    display_name: "TypeScript (tslab)",
    language: "typescript",
  };
  fs.writeFileSync(
    path.join(dir, "kernels", "tslab", "kernel.json"),
    `${JSON.stringify(spec, null, 2)}\n`,
  );
  return dir;
}

/** nbclient hook recording each cell's execute_reply status (tslab gives no error output). */
function writeHookConfig(dir: string): string {
  const file = path.join(dir, "schedlab_nbconvert_config.py");
  fs.writeFileSync(
    file,
    [
      "def _schedlab_record(cell=None, cell_index=None, execute_reply=None, **kwargs):",
      "    content = (execute_reply or {}).get('content', {})",
      "    cell.metadata['schedlab'] = {'status': content.get('status', 'unknown')}",
      "",
      "c.ExecutePreprocessor.on_cell_executed = _schedlab_record",
      "",
    ].join("\n"),
  );
  return file;
}

export interface NbCell {
  cell_type: string;
  source: string | string[];
  metadata?: { tags?: string[]; schedlab?: { status?: string } };
  outputs?: Array<{
    output_type: string;
    name?: string;
    text?: string | string[];
    ename?: string;
    evalue?: string;
    traceback?: string[];
  }>;
}

const joinText = (t: string | string[] | undefined) => (Array.isArray(t) ? t.join("") : (t ?? ""));
const stripAnsi = (s: string) =>
  s.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "");

/** The failures recorded in an executed notebook, as printable text. */
export function cellFailures(nb: { cells: NbCell[] }): string[] {
  const out: string[] = [];
  let codeIndex = 0;
  for (const [i, cell] of nb.cells.entries()) {
    if (cell.cell_type !== "code") continue;
    codeIndex++;
    const status = cell.metadata?.schedlab?.status;
    const allowed = (cell.metadata?.tags ?? []).includes("raises-exception");
    if (status === "ok" || (status === "error" && allowed)) continue;
    const src = joinText(cell.source).trimEnd();
    if (status === undefined || status === "unknown") {
      out.push(
        `cell ${i} (code cell ${codeIndex}) has no execution record: the run stopped before it`,
      );
      break;
    }
    if (status === "abort" || status === "aborted") {
      out.push(
        `cell ${i} (code cell ${codeIndex}) was aborted by the kernel after an earlier error`,
      );
      continue;
    }
    const errText = (cell.outputs ?? [])
      .map((o) =>
        o.output_type === "error"
          ? `${o.ename}: ${o.evalue}\n${(o.traceback ?? []).join("\n")}`
          : o.output_type === "stream" && o.name === "stderr"
            ? joinText(o.text)
            : "",
      )
      .filter(Boolean)
      .join("");
    out.push(
      `cell ${i} (code cell ${codeIndex}) failed (status ${status}):\n` +
        src
          .split("\n")
          .map((l) => `    | ${l}`)
          .join("\n") +
        `\n  error:\n` +
        (stripAnsi(errText).trimEnd() || "(the kernel printed no error text)")
          .split("\n")
          .map((l) => `    ${l}`)
          .join("\n"),
    );
  }
  return out;
}

function listNotebooks(): string[] {
  const dir = path.join(ROOT, "notebooks");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".ipynb"))
    .sort()
    .map((f) => path.join(dir, f));
}

/** How long a tslab kernel may take to answer its first request (nbclient: 60 s by default). */
const KERNEL_STARTUP_TIMEOUT_SEC = 180;

function executeNotebook(
  nb: string,
  o: Options,
  env: NodeJS.ProcessEnv,
  config: string,
): { failures: string[]; html: string } {
  const name = path.basename(nb, ".ipynb");
  const base = ["nbconvert", "--log-level=WARN", "--output-dir", o.out, "--output", name];
  const args = [
    ...base,
    "--to",
    "notebook",
    "--execute",
    "--allow-errors",
    `--config=${config}`,
    "--ExecutePreprocessor.kernel_name=tslab",
    `--ExecutePreprocessor.timeout=${o.timeoutSec}`,
    `--ExecutePreprocessor.startup_timeout=${KERNEL_STARTUP_TIMEOUT_SEC}`,
    nb,
  ];
  let exec = run(JUPYTER, args, env);
  // A tslab kernel that never answered its first request (seen once in CI, on a loaded 2-core
  // box, at nbclient's 60 s default) ran no cell: start it once more before calling it a failure.
  if (exec.status !== 0 && /Kernel didn't respond in \d+ seconds/.test(exec.stderr || "")) {
    console.log(`     ${name}: the kernel did not start; retrying once`);
    exec = run(JUPYTER, args, env);
  }
  const executed = path.join(o.out, `${name}.ipynb`);
  if (exec.status !== 0 || !fs.existsSync(executed)) {
    const tail = (exec.stderr || exec.stdout || "").trim().split("\n").slice(-25).join("\n");
    return { failures: [`nbconvert --execute exited ${exec.status}:\n${tail}`], html: "" };
  }
  const failures = cellFailures(JSON.parse(fs.readFileSync(executed, "utf8")));
  // The HTML is written even for a failing notebook: it shows where it broke.
  const html = run(JUPYTER, [...base, "--to", "html", executed], env);
  if (html.status !== 0)
    failures.push(
      `nbconvert --to html exited ${html.status}:\n${(html.stderr || "").trim().split("\n").slice(-15).join("\n")}`,
    );
  return { failures, html: path.join(o.out, `${name}.html`) };
}

function checkRender(htmlFile: string): string[] {
  // The same headless check the report test uses.
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { chromiumUnavailable, renderHtml, figuresInDom } =
    require("../test/report/chromium") as typeof import("../test/report/chromium");
  const skip = chromiumUnavailable();
  if (skip) return [`--check-render: ${skip}`];
  const r = renderHtml(fs.readFileSync(htmlFile, "utf8"));
  const problems = (r.pageErrors ?? ["error capture did not run"]).map((e) => `page error: ${e}`);
  for (const f of figuresInDom(r.dom))
    if (!(f.drawn && f.drawn > 0 && f.hasPlot)) problems.push(`figure ${f.id} did not draw`);
  return problems;
}

export function main(argv: string[]): number {
  const o = parseArgs(argv);
  try {
    if (!o.setupOnly) checkJupyter();
    if (o.build) build();
    linkPackage();
    const jupyterPath = writeKernelspec();
    if (o.setupOnly) {
      console.log(`kernelspec written; for interactive use:\n  export JUPYTER_PATH=${jupyterPath}`);
      return 0;
    }
    const notebooks = o.notebooks.length ? o.notebooks : listNotebooks();
    if (notebooks.length === 0) throw new Failure("no notebooks found in notebooks/");
    fs.mkdirSync(o.out, { recursive: true });
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-nb-"));
    const config = writeHookConfig(tmp);
    const env = {
      ...process.env,
      JUPYTER_PATH: [jupyterPath, process.env.JUPYTER_PATH].filter(Boolean).join(path.delimiter),
      // Connection files in a private folder: parallel runs and read-only homes do not clash.
      JUPYTER_RUNTIME_DIR: path.join(tmp, "runtime"),
    };
    let failed = 0;
    for (const nb of notebooks) {
      const t0 = Date.now();
      const rel = path.relative(ROOT, nb);
      const { failures, html } = executeNotebook(nb, o, env, config);
      if (!failures.length && o.checkRender && html) failures.push(...checkRender(html));
      const secs = ((Date.now() - t0) / 1000).toFixed(1);
      if (failures.length) {
        failed++;
        console.error(
          `FAIL ${rel} (${secs}s)\n${failures.map((f) => `  ${f.replace(/\n/g, "\n  ")}`).join("\n")}`,
        );
      } else console.log(`ok   ${rel} (${secs}s) -> ${path.relative(ROOT, html)}`);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    console.log(`output in ${o.out}`);
    // The plain closing line CI reads: "N passed, N failed" alone on its line.
    console.log(`notebooks: ${notebooks.length - failed} passed, ${failed} failed`);
    return failed ? 1 : 0;
  } catch (e) {
    if (e instanceof Failure) {
      console.error(`notebooks: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
