#!/usr/bin/env node
// The test command Stryker runs for each mutant: the test files of the folders being mutated
// (STRYKER_TESTS, default: test/kernel), through node's test runner. Exit status 0 = mutant survived.
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

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
  ["--test", "--test-reporter=dot", "--import", "tsx", ...files],
  {
    stdio: ["ignore", "pipe", "pipe"],
  },
);
if (process.env.MUTATE_DEBUG)
  fs.writeFileSync(
    process.env.MUTATE_DEBUG,
    `${process.cwd()} ${r.status}\n${r.stdout}\n${r.stderr}`,
  );
process.exit(r.status ?? 1);
