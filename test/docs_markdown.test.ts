// `npm run docs` writes the API reference as Markdown too (typedoc-plugin-markdown, pinned at
// 4.14.1 for TypeDoc 0.28): the script runs TypeDoc a second time with typedoc.markdown.json,
// which takes every option of typedoc.json and writes docs/api-md (not committed).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";

const root = path.join(__dirname, "..");
const read = (f: string) => JSON.parse(fs.readFileSync(path.join(root, f), "utf8"));

test("npm run docs writes the HTML reference and a Markdown one from the same options", () => {
  const docs: string = read("package.json").scripts.docs;
  const runs = docs.split("&&").map((s) => s.trim());
  assert.equal(runs.length, 2, docs);
  assert.match(runs[0], /^typedoc( |$)/);
  assert.match(runs[1], /^typedoc --options typedoc\.markdown\.json/);
  const md = read("typedoc.markdown.json");
  assert.deepEqual(
    md.extends,
    ["./typedoc.json"],
    "the HTML reference's options, entry points and checks",
  );
  assert.deepEqual(md.plugin, ["typedoc-plugin-markdown"]);
  assert.equal(md.out, "docs/api-md");
  assert.notEqual(
    read("typedoc.json").out,
    md.out,
    "the two references do not overwrite each other",
  );
  assert.match(fs.readFileSync(path.join(root, ".gitignore"), "utf8"), /^docs\/api-md\/$/m);
});
