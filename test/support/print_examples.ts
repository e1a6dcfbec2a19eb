// Prints what every @example in src/ prints now, to write or refresh a `Prints:` block:
//   node --import tsx test/support/print_examples.ts [symbol substring]
// With --fill, a Prints block that holds only "?" is replaced by the output in the source.
import * as fs from "node:fs";
import * as path from "node:path";
import { docExamples, runSnippet, SRC } from "./snippet";

async function main(): Promise<void> {
  const fill = process.argv.includes("--fill");
  const filter = process.argv.slice(2).find((a) => !a.startsWith("--")) ?? "";
  const outputs = new Map<string, string[][]>(); // file -> outputs of its "?" blocks, in order
  for (const ex of docExamples().filter((e) => e.symbol.includes(filter))) {
    const t0 = Date.now();
    const out = await runSnippet(ex.code);
    console.log(`==== ${ex.symbol} (${ex.file}:${ex.line}) ${Date.now() - t0} ms`);
    console.log(out.join("\n"));
    if (ex.prints?.trim() === "?") outputs.set(ex.file, [...(outputs.get(ex.file) ?? []), out]);
  }
  if (!fill) return;
  for (const [file, outs] of outputs) {
    const abs = path.join(SRC, "..", file);
    let i = 0;
    const text = fs.readFileSync(abs, "utf8").replace(/^(\s*)\* \?$/gm, (_m, ind: string) =>
      outs[i++]
        .join("\n")
        .split("\n")
        .map((l) => `${ind}*${l ? ` ${l}` : ""}`.trimEnd())
        .join("\n"),
    );
    fs.writeFileSync(abs, text);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
