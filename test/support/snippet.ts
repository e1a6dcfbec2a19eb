// Runs documentation snippets (the README example, @example blocks) in this process against
// the library source: `from "schedlab"` resolves to src/index.ts, and console.log is captured.
import * as fs from "node:fs";
import * as path from "node:path";
import { format } from "node:util";
import * as lib from "../../src/index";

export const SRC = path.join(__dirname, "..", "..", "src");

/** Runs a TypeScript snippet (top-level await allowed); returns one string per console.log. */
export async function runSnippet(code: string): Promise<string[]> {
  const ts = await import("typescript");
  // CommonJS output turns `import { a, type B } from "schedlab"` into a require() we answer.
  const js = ts.transpileModule(code, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS },
  }).outputText;
  const out: string[] = [];
  const fakeConsole = { ...console, log: (...args: unknown[]) => out.push(format(...args)) };
  const fakeRequire = (name: string) => {
    if (name === "schedlab") return lib;
    throw new Error(`snippet imports "${name}"; examples may import only from "schedlab"`);
  };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const body = new Function("require", "exports", "console", `return (async () => {\n${js}\n})();`);
  await body(fakeRequire, {}, fakeConsole);
  return out;
}

/** One @example of a doc comment: where it is, its code, and the output it says it prints. */
export interface DocExample {
  file: string;
  line: number;
  /** The symbol the comment documents (the first declaration line after it). */
  symbol: string;
  code: string;
  /** The `Prints:` block, or null when the example only has to run. */
  prints: string | null;
}

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) tsFiles(p, out);
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out.sort();
}

const FENCE = /^```(\w*)\n([\s\S]*?)^```$/m;

/** Every @example in the doc comments of src/**.ts, in file order. */
export function docExamples(root = SRC): DocExample[] {
  const found: DocExample[] = [];
  for (const file of tsFiles(root)) {
    const text = fs.readFileSync(file, "utf8");
    for (const m of text.matchAll(/\/\*\*([\s\S]*?)\*\/\s*\n([^\n]*)/g)) {
      const lines = m[1].split("\n").map((l) => l.replace(/^\s*\* ?/, ""));
      const doc = lines.join("\n");
      const startLine = text.slice(0, m.index).split("\n").length;
      // A section runs from @example to the next block tag at the start of a line.
      for (const sec of doc.split(/^(?=@\w)/m).filter((s) => s.startsWith("@example"))) {
        const code = FENCE.exec(sec);
        if (!code) throw new Error(`${file}:${startLine}: @example without a \`\`\`ts block`);
        const rest = sec.slice((code.index ?? 0) + code[0].length);
        const printsAt = rest.search(/^Prints:\s*$/m);
        const prints = printsAt >= 0 ? FENCE.exec(rest.slice(printsAt)) : null;
        if (printsAt >= 0 && !prints)
          throw new Error(`${file}:${startLine}: "Prints:" without a \`\`\`text block`);
        found.push({
          file: path.relative(path.join(root, ".."), file),
          line: startLine,
          symbol: m[2]
            .trim()
            .replace(/^((export|async|class|function|interface|const|type)\s+)+/, "")
            .replace(/\s*[{(=:<].*$/, ""),
          code: code[2],
          prints: prints ? prints[2] : null,
        });
      }
    }
  }
  return found;
}

/** Output text as compared: trailing whitespace dropped from every line and from the end. */
export function normalizeOutput(s: string): string {
  return s
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")
    .trimEnd();
}
