#!/usr/bin/env node
// The CLI runs from the TypeScript source through tsx, so it is never stale against src/.
const path = require("path");
require("tsx/cjs");
require(path.join(__dirname, "..", "src", "cli.ts"))
  .main(process.argv.slice(2))
  .then((code) => { process.exitCode = code; })
  .catch((err) => { console.error(`schedlab: ${err && err.message ? err.message : err}`); process.exitCode = 2; });
