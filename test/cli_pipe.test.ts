// Every command's output can be piped into head, less or grep -m1: once the reader is gone the
// command exits quietly (src/cli_pipe.ts), with no EPIPE stack trace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as path from "node:path";

const BIN = path.join(__dirname, "..", "bin", "schedlab.js");

/** Runs the CLI with its stdout closed by the reader before the first write, as `| head -0` does. */
function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy(); // the reader is gone: every write fails with EPIPE
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

for (const args of [["--help"], ["hooks", "--verbose"], ["era", "6.19"], ["presets", "--json"]]) {
  test(`schedlab ${args.join(" ")} into a closed pipe exits quietly`, async () => {
    const r = await withClosedStdout(args);
    assert.doesNotMatch(r.stderr, /EPIPE|Error|at /, r.stderr);
    assert.equal(r.stderr, "");
    assert.equal(r.code, 0);
  });
}
