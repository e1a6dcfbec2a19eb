#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's test runner through tsx.
// Node 20 does not expand globs itself, and without file arguments it finds no .ts tests.
// Usage: node scripts/test.js [substring ...]   (only files whose path contains a substring)
const fs = require("node:fs");
const path = require("node:path");
const { spawnSync } = require("node:child_process");

function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

const root = path.join(__dirname, "..");
const filters = process.argv.slice(2);
let files = walk(path.join(root, "test"), []).sort();
if (filters.length) files = files.filter((f) => filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error(`no test files matched ${filters.join(" ") || "test/**/*.test.ts"}`);
  process.exit(1);
}
const r = spawnSync(
  process.execPath,
  ["--test", "--test-concurrency=2", "--import", "tsx", ...files],
  {
    stdio: "inherit",
    cwd: root,
  },
);
process.exit(r.status === null ? 1 : r.status);
