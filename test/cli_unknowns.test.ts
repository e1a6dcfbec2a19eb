// `schedlab unknowns`, `calibrate` and `sweep` from the command line: what they print, and what
// they refuse (status 2, naming the field).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";

const BIN = path.join(__dirname, "..", "bin", "schedlab.js");
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });

test("reproduce --json gives every row a role and a verdict, and every experiment its unknowns", () => {
  const r = cli("reproduce", "demo", "--json", "--quick");
  assert.equal(r.status, 0, r.stderr);
  const e = JSON.parse(r.stdout).experiments[0];
  assert.ok(Array.isArray(e.unknowns));
  assert.equal(typeof e.verdicts.predicted, "number");
  for (const row of e.rows) {
    assert.ok(["calibrated", "predicted", "reported"].includes(row.role), row.role);
    assert.ok(typeof row.verdict === "string" && row.verdict.length > 0);
  }
  assert.deepEqual(
    e.rows
      .filter((x: { variant: string }) => x.variant === "baseline")
      .map((x: { verdict: string }) => x.verdict),
    ["reproduced", "reproduced"],
  );
});

test("unknowns lists each experiment's declared unknowns, as text or JSON", () => {
  const r = cli("unknowns", "demo", "--json");
  assert.equal(r.status, 0, r.stderr);
  const demo = JSON.parse(r.stdout).demo;
  assert.deepEqual(
    demo.map((u: { name: string; value: number; calibrated: boolean }) => [
      u.name,
      u.value,
      u.calibrated,
    ]),
    [
      ["hz", 1000, false],
      ["context_switch_scale", 1, false],
    ],
  );
  const bad = cli("unknowns", "nope");
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown experiment "nope" \(accepted: demo, 000/);
});

test("calibrate and sweep refuse what they cannot do, naming it", () => {
  const noCal = cli("calibrate", "demo");
  assert.equal(noCal.status, 2);
  assert.match(noCal.stderr, /calibrate demo: data\/published\/demo\.json declares no calibration/);
  const noGrid = cli("sweep", "demo", "x=1,2");
  assert.equal(noGrid.status, 2);
  assert.match(
    noGrid.stderr,
    /sweep demo: "x" is not a declared unknown \(declared: hz, context_switch_scale\)/,
  );
  const badDesign = cli("sweep", "demo", "x=1", "--design", "random");
  assert.equal(badDesign.status, 2);
  assert.match(badDesign.stderr, /--design must be grid or one-at-a-time \(got random\)/);
  const badBudget = cli("calibrate", "demo", "--budget", "0");
  assert.equal(badBudget.status, 2);
  assert.match(badBudget.stderr, /--budget must be a positive integer \(got 0\)/);
});
