// The hook records (src/kernel/hook_docs.ts) against what they describe: one record per hook,
// every field of each hook's context type documented (read with the TypeScript compiler API),
// the model defaults they name are the ones registered per era, docs/hooks.md is what they
// generate, and every example type-checks against the package and runs in a short experiment
// where the kernel calls it.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import ts from "typescript";
import { hookNames, Hooks } from "../../src/kernel/hooks";
import { ERAS } from "../../src/kernel/features";
import { HOOK_DOCS, type HookDoc } from "../../src/kernel/hook_docs";
import { hooksMarkdown } from "../../src/kernel/hook_docs_text";
import { HOOKS_PAGE } from "../../scripts/hooks-doc";
import { runSnippet } from "../support/snippet";
import "../../src/index";

const ROOT = path.join(__dirname, "..", "..");
const docs = HOOK_DOCS as Record<string, HookDoc>;

test("docs/hooks.md is what the records generate (run scripts/hooks-doc.ts after changing them)", () => {
  assert.equal(fs.readFileSync(HOOKS_PAGE, "utf8"), hooksMarkdown());
});

test("every hook has a record and every record is a hook", () => {
  assert.deepEqual(Object.keys(docs).sort(), hookNames());
  assert.ok(hookNames().length >= 21);
});

test("each record covers every era once, in order, and names the default registered for it", () => {
  for (const name of hookNames()) {
    const doc = docs[name];
    assert.deepEqual(
      doc.eras.flatMap((r) => r.eras),
      [...ERAS],
      `${name}: eras`,
    );
    for (const row of doc.eras) {
      for (const era of row.eras) {
        const registered = new Hooks(era).get(name as never) as unknown as { name: string };
        const expected = doc.dispatcher ?? (row.model === "-" ? "" : row.model);
        assert.equal(registered.name, expected, `${name} ${era}: registered default`);
      }
      if (row.model === "-") continue;
      const src = fs.readFileSync(path.join(ROOT, row.modelFile), "utf8");
      assert.match(
        src,
        new RegExp(`(function|const) ${row.model}\\b`),
        `${name}: ${row.model} is in ${row.modelFile}`,
      );
    }
    assert.ok(doc.returns && doc.defaultDoes && doc.example.what, `${name}: text`);
    assert.match(doc.example.code, new RegExp(`\\.replace\\("${name.replace(".", "\\.")}"`));
  }
});

// One program for the checks below: the package entry point (HookTypes) and the examples.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "hook-docs-"));
const exampleFiles = hookNames().map((name) => {
  const file = path.join(tmp, `${name.replace(/\./g, "_")}.ts`);
  fs.writeFileSync(file, `${docs[name].example.code}\nexport { myPatch };\n`);
  return { name, file };
});
const hooksFile = path.join(ROOT, "src", "kernel", "hooks.ts");
const program = ts.createProgram(
  [path.join(ROOT, "src", "index.ts"), ...exampleFiles.map((e) => e.file)],
  {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    strict: true,
    esModuleInterop: true,
    resolveJsonModule: true,
    skipLibCheck: true,
    noEmit: true,
    baseUrl: ROOT,
    paths: { schedlab: ["src/index.ts"] },
  },
);
const checker = program.getTypeChecker();

/** The property names of the context parameter of each hook, from HookTypes. */
function contextFields(): Map<string, string[]> {
  const sf = program.getSourceFile(hooksFile)!;
  const mod = checker.getSymbolAtLocation(sf)!;
  const hookTypes = checker.getExportsOfModule(mod).find((s) => s.getName() === "HookTypes")!;
  const out = new Map<string, string[]>();
  for (const prop of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(hookTypes))) {
    const fnType = checker.getTypeOfSymbolAtLocation(prop, sf);
    const param = fnType.getCallSignatures()[0].getParameters()[0];
    const ctx = checker.getTypeOfSymbolAtLocation(param, sf);
    const parts = ctx.isUnion() ? ctx.types : [ctx];
    const names = new Set(
      parts.flatMap((t) => checker.getPropertiesOfType(t).map((p) => p.getName())),
    );
    out.set(prop.getName(), [...names].sort());
  }
  return out;
}

test("every field of every hook's context type is documented, and nothing else", () => {
  const fields = contextFields();
  assert.deepEqual([...fields.keys()].sort(), hookNames(), "HookTypes lists every hook");
  for (const name of hookNames())
    assert.deepEqual(
      Object.keys(docs[name].context).sort(),
      fields.get(name),
      `${name}: ctx fields`,
    );
});

test("every example type-checks against the package entry point", () => {
  const errors = exampleFiles.flatMap(({ name, file }) =>
    ts
      .getPreEmitDiagnostics(program, program.getSourceFile(file))
      .map((d) => `${name}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`),
  );
  assert.deepEqual(errors, []);
});

// A short experiment in which the kernel reaches each hook: era, machine and workload.
const MIXED = `workload.hogs({ n: 12, seconds: 0.2 }),
  workload.sleepers({ n: 6, runNs: 3e5, sleepNs: 1e6, seconds: 0.2 }),
  workload.pingpong({ pairs: 2, seconds: 0.2 }),
  workload.schedFair({ children: 4, loopNs: 1e6, intervals: 2 })`;
const LIGHT = `workload.sleepers({ n: 6, runNs: 2e6, sleepNs: 2e6, seconds: 0.2 }),
  workload.pingpong({ pairs: 1, seconds: 0.2 })`;
const RT_TASKS = `{
  name: "rt", params: {}, defaultDurationNs: 2e8, defaultWarmupNs: 0,
  setup(ctx) {
    for (let i = 0; i < 10; i++)
      ctx.spawn({ comm: "rt" + i, policy: "fifo", rtPriority: 10 + (i % 5) * 10,
        program: function* (t) { for (;;) { yield run(2e5 + 1e5 * (i % 3)); yield sleep(3e5); } } });
    return { metrics: () => ({}) };
  },
}`;
const SCENARIO: Record<string, { era?: string; machine?: string; load?: string }> = {
  "fair.numa_imbalance": { machine: "numa-2x12x2", load: LIGHT },
  "fair.find_idlest_group": { machine: "numa-2x12x2", load: MIXED },
  "fair.idle_imbalance_slack": { load: LIGHT }, // a CPU_IDLE pass needs idle CPUs
  "rt.select_task_rq": { load: RT_TASKS },
  "rt.wakeup_push_cond": { load: RT_TASKS },
  "rt.target_feasible": { load: RT_TASKS },
  "rt.find_lowest_rq": { load: RT_TASKS },
};

for (const name of hookNames()) {
  test(`the example of ${name} runs in a short experiment, and the kernel calls it`, async () => {
    const s = SCENARIO[name] ?? {};
    const runner = `
import { topology as __topology, workload, patch as __patch, run, sleep } from "schedlab";
const __entry = myPatch.replacements[0];
let __calls = 0;
const __counted = __patch("counted").replace(__entry.hook, (ctx, base) => {
  __calls++;
  return __entry.fn(ctx, base);
});
const __res = await __topology("${s.machine ?? "xeon-x5472"}").era("${s.era ?? "6.19"}")
  .workload(${s.load ?? MIXED})
  .variants({ patched: [__counted] })
  .run({ iterations: 1, seed: 1, duration: 0.2 });
console.log(__calls, __res.variants.length);`;
    const out = await runSnippet(`${docs[name].example.code}\n${runner}`);
    const calls = Number(out[0].split(" ")[0]);
    assert.ok(calls > 0, `${name}: the example was called ${calls} times`);
  });
}
