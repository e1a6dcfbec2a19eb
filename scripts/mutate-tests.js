#!/usr/bin/env node
// The test command Stryker runs for each mutant: the test files named by STRYKER_TESTS (files or
// folders, comma-separated; default test/kernel), all in one node process (one tsx start-up instead
// of one per file) that stops at the first failure (scripts/mutate-bail.mjs).
// Exit status 0 = mutant survived.
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

function load(files) {
  for (const f of files) require(path.resolve(f));
}

function main() {
  const roots = (process.env.STRYKER_TESTS ?? "test/kernel").split(",");
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".test.ts")) files.push(p);
    }
  };
  for (const r of roots) fs.statSync(r).isDirectory() ? walk(r) : files.push(r);
  const r = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      `--test-reporter=${path.join(__dirname, "mutate-bail.mjs")}`,
      __filename,
      "--load",
      ...files,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  if (process.env.MUTATE_DEBUG)
    fs.writeFileSync(
      process.env.MUTATE_DEBUG,
      `${process.cwd()} ${r.status}\n${r.stdout}\n${r.stderr}`,
    );
  process.exit(r.status ?? 1);
}

if (process.argv[2] === "--load") load(process.argv.slice(3));
else main();
