// The package's entry point is the one public surface: notebooks, README and docs import only
// from "schedlab", every name they import exists there, and what a hook author needs is exported.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const ROOT = path.join(__dirname, "..");

/** Every name src/index.ts exports, values and types, as the type checker sees them. */
function entryPointExports(): Set<string> {
  const entry = path.join(ROOT, "src", "index.ts");
  const program = ts.createProgram([entry], { strict: true, esModuleInterop: true });
  const checker = program.getTypeChecker();
  const sym = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return new Set(checker.getExportsOfModule(sym).map((s) => s.getName()));
}

/** The code a reader copies: notebook code cells, and fenced blocks of README and docs pages. */
function codeSources(): Array<{ file: string; code: string }> {
  const out: Array<{ file: string; code: string }> = [];
  for (const f of fs
    .readdirSync(path.join(ROOT, "notebooks"))
    .filter((f) => f.endsWith(".ipynb"))) {
    const nb = JSON.parse(fs.readFileSync(path.join(ROOT, "notebooks", f), "utf8"));
    for (const cell of nb.cells)
      if (cell.cell_type === "code")
        out.push({ file: `notebooks/${f}`, code: [].concat(cell.source).join("") });
  }
  const md: string[] = ["README.md", "CONTRIBUTING.md"];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory() && e.name !== "api") walk(rel);
      else if (e.name.endsWith(".md")) md.push(rel);
    }
  };
  walk("docs");
  for (const f of md) {
    const text = fs.readFileSync(path.join(ROOT, f), "utf8");
    for (const m of text.matchAll(/```(?:ts|typescript|js|javascript)\n([\s\S]*?)```/g))
      out.push({ file: f, code: m[1] });
  }
  return out;
}

const IMPORT =
  /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+["']([^"']+)["']|require\(\s*["']([^"']+)["']\s*\)|from\s+["']([^"']+)["']/g;

test('notebooks, README and docs import only from "schedlab", and every name they import is exported', () => {
  const exported = entryPointExports();
  const sources = codeSources();
  assert.ok(sources.length > 10, `found ${sources.length} code blocks`);
  const deep: string[] = [];
  const missing: string[] = [];
  for (const { file, code } of sources) {
    for (const m of code.matchAll(IMPORT)) {
      const spec = m[2] ?? m[3] ?? m[4];
      if (
        spec !== "schedlab" &&
        !spec.startsWith("node:") &&
        !["plotly.js-dist-min", "tslab"].includes(spec)
      )
        deep.push(`${file}: ${spec}`);
      if (m[1] && m[2] === "schedlab") {
        for (const raw of m[1].split(",")) {
          const name = raw
            .replace(/^\s*type\s+/, "")
            .split(/\s+as\s+/)[0]
            .trim();
          if (name && !exported.has(name)) missing.push(`${file}: ${name}`);
        }
      }
    }
  }
  assert.deepEqual(deep, [], "imports from deeper paths");
  assert.deepEqual(missing, [], "names not exported by the package");
});

test("what a hook or experiment author needs is exported from the entry point", () => {
  const exported = entryPointExports();
  const needed = [
    // domain flags, group and migration types, balancer helpers
    "SD_LOAD_BALANCE",
    "SD_BALANCE_NEWIDLE",
    "SD_BALANCE_FORK",
    "SD_BALANCE_WAKE",
    "SD_WAKE_AFFINE",
    "SD_SHARE_CPUCAPACITY",
    "SD_SHARE_PKG_RESOURCES",
    "SD_NUMA",
    "SD_PREFER_SIBLING",
    "SD_FLAG_NAMES",
    "GROUP_TYPES_48",
    "GROUP_TYPES_56",
    "MIGRATION_TYPES",
    "cpuUtil",
    "cpuAvgLoadPerTask",
    "NICE_0_LOAD",
    "SCHED_CAPACITY_SCALE",
    // ops, including fork with its spec
    "run",
    "sleep",
    "send",
    "recv",
    "fork",
    "exit",
    "setAffinity",
    "ForkSpec",
    "SpawnSpec",
    // hook contexts
    "SelectTaskRqCtx",
    "SelectIdleSiblingCtx",
    "FindBusiestGroupCtx",
    "CanMigrateTaskCtx",
    "NeedActiveBalanceCtx",
    "IdleImbalanceSlackCtx",
    "WakeupPushCondCtx",
    "TtwuQueueCondCtx",
    // probes and limits
    "Kernel",
    "RunOptions",
    "KernelSampler",
    "RunLimitError",
    "machineFromSpec",
    "MachineSpec",
  ];
  assert.deepEqual(
    needed.filter((n) => !exported.has(n)),
    [],
  );
});
