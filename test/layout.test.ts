// The shape of src/ that keeps the kernel model readable: sched.ts at the bottom like sched.h,
// the kernel below every other layer, core.ts reached only through SchedCore, small files.
// (Import cycles themselves are caught by `npm run lint`, Biome's noImportCycles.)
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

const SRC = path.join(__dirname, "..", "src");

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** Every relative import of a file (value and type imports, re-exports), resolved under src/. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const specs = [
    ...text.matchAll(/(?:import|export)[^"';]*?from\s+"(\.[^"]+)"|import\s+"(\.[^"]+)"/g),
  ]
    .map((m) => m[1] ?? m[2])
    .filter((s): s is string => s !== undefined);
  return specs.map((s) => path.relative(SRC, path.resolve(path.dirname(file), s)));
}

const rel = (f: string) => path.relative(SRC, f);
const kernelFiles = walk(path.join(SRC, "kernel"));

test("kernel/sched.ts, like sched.h, imports nothing else from src/kernel but struct sched_avg, which imports nothing", () => {
  const bad = importsOf(path.join(SRC, "kernel", "sched.ts")).filter(
    (i) => i.startsWith("kernel") && i !== "kernel/sched_avg",
  );
  assert.deepEqual(bad, []);
  const avg = importsOf(path.join(SRC, "kernel", "sched_avg.ts")).filter((i) =>
    i.startsWith("kernel"),
  );
  assert.deepEqual(avg, []);
});

test("src/kernel imports only from the layers below it (machine, sim)", () => {
  const allowed = /^(kernel|machine|sim)\//;
  const bad = kernelFiles.flatMap((f) =>
    importsOf(f)
      .filter((i) => !allowed.test(i))
      .map((i) => `${rel(f)} -> ${i}`),
  );
  assert.deepEqual(bad, []);
});

test("no kernel file imports core/core.ts: lower code goes through SchedCore", () => {
  const bad = kernelFiles
    .filter((f) => importsOf(f).includes(path.join("kernel", "core", "core")))
    .map(rel);
  assert.deepEqual(bad, []);
});

test("no file in src/ is over 600 lines", () => {
  const long = walk(SRC)
    .map((f) => ({ f: rel(f), n: fs.readFileSync(f, "utf8").split("\n").length }))
    .filter((x) => x.n > 600)
    .map((x) => `${x.f}: ${x.n} lines`);
  assert.deepEqual(long, []);
});
