// `schedlab reproduce` estimates the size of a run before running it (src/cli_size.ts) and
// refuses one far above the experiments' own size, naming the estimate, unless --yes is given.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { RUN_SIZE_BOUND, runSize } from "../src/cli_size";
import { reproduction } from "../src/reproduce/registry";
import "../src/index";

const BIN = path.join(__dirname, "..", "bin", "schedlab.js");

test("reproduce 002 --iterations 1e9 is refused at once, naming the estimate and the bound", () => {
  const r = spawnSync(process.execPath, [BIN, "reproduce", "002", "--iterations", "1e9"], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(
    r.stderr,
    /reproduce: the run asked for is estimated at 3\.00e\+9 runs, 1\.80e\+11 simulated seconds: 1\.00e\+8 times the experiments' own full size \(1800\.3 simulated seconds\), above the bound of 1000 times; .*--yes/,
  );
  assert.equal(r.stdout, "");
});

test("the size counts variants, the today variant and iterations; the bound leaves room for long runs", () => {
  const r = reproduction("002");
  // pre and post, plus today on 6.19: 3 runs per iteration
  assert.deepEqual(runSize(r, { iterations: 10, duration: 60 }), {
    runs: 30,
    simulatedSeconds: 1800,
  });
  assert.ok(RUN_SIZE_BOUND >= 100, "a hundred times the published setup needs no --yes");
});
