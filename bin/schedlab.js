#!/usr/bin/env node
// Runs the compiled CLI when dist/ is up to date with src/ (faster: plain CommonJS), otherwise
// the TypeScript source through tsx, so the command is never stale.
const path = require("node:path");
const fs = require("node:fs");

const root = path.join(__dirname, "..");
const built = path.join(root, "dist", "cli.js");

function newestMtime(dir) {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

function distIsFresh() {
  try {
    return fs.statSync(built).mtimeMs >= newestMtime(path.join(root, "src"));
  } catch {
    return false;
  }
}

let cli;
if (distIsFresh()) {
  cli = require(built);
} else {
  require("tsx/cjs");
  cli = require(path.join(root, "src", "cli.ts"));
}
cli.main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`schedlab: ${err?.message ? err.message : err}`);
    process.exitCode = 2;
  },
);
