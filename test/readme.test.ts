import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runSnippet } from "./support/snippet";

test("README's ten-line example runs as written", async () => {
  const readme = fs.readFileSync(path.join(__dirname, "..", "README.md"), "utf8");
  const block = /## Ten lines[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, "README has a ```ts block under '## Ten lines'");
  const code = block[1];
  assert.ok(
    code.split("\n").filter((l) => l.trim() && !l.trim().startsWith("//")).length <= 12,
    "the example stays short",
  );
  const out = await runSnippet(code);
  assert.equal(out.length, 2);
  assert.match(out[0], /cv_loops/);
  assert.match(out[1], /migrations by reason/);
});
