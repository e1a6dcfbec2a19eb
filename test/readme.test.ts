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

test("README's machine-level A/B runs as written: two machines in one variants() call", async () => {
  const readme = fs.readFileSync(path.join(__dirname, "..", "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  const code = blocks.find((b) => b.includes("variant({ machine"));
  assert.ok(code, "README has the machine-level A/B example");
  const out = await runSnippet(code);
  assert.equal(out.length, 1);
  assert.match(out[0], /cores\s+ht/);
  assert.match(out[0], /cv_loops/);
});
