// Every @example in src/ runs as written, and prints what its `Prints:` block says, so the
// hover docs cannot go stale.
import { test } from "node:test";
import assert from "node:assert/strict";
import { docExamples, normalizeOutput, runSnippet } from "./support/snippet";

const examples = docExamples();

test("the public API carries @example blocks", () => {
  assert.ok(examples.length >= 20, `found ${examples.length} examples`);
});

for (const ex of examples) {
  test(`@example of ${ex.symbol} (${ex.file}:${ex.line}) prints what it says`, async () => {
    const out = await runSnippet(ex.code);
    if (ex.prints !== null)
      assert.equal(normalizeOutput(out.join("\n")), normalizeOutput(ex.prints));
  });
}
