import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";

const BIN = path.join(__dirname, "..", "bin", "schedlab.js");
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });

test("schedlab --help lists the commands", () => {
  const r = cli("--help");
  assert.equal(r.status, 0);
  assert.match(r.stdout, /schedlab reproduce/);
  assert.match(r.stdout, /experiments: demo, 002, 002-ht/);
});

test("schedlab reproduce demo --json prints the ledger as one JSON object", () => {
  const r = cli("reproduce", "demo", "--json", "--quick");
  assert.equal(r.status, 0, r.stderr);
  const ledger = JSON.parse(r.stdout);
  assert.equal(typeof ledger.version, "string");
  const e = ledger.experiments[0];
  assert.equal(e.id, "demo");
  for (const key of ["title", "machine", "rows"]) assert.ok(key in e, key);
  for (const row of e.rows) {
    for (const key of ["metric", "variant", "published", "simulated", "iterations"])
      assert.ok(key in row, key);
    assert.equal(row.iterations.length, 2);
    assert.ok(
      Math.abs(row.simulated - row.iterations.reduce((a: number, b: number) => a + b, 0) / 2) <
        1e-12,
    );
  }
});

test("reproduce runs on one thread per core by default, with the same ledger as --jobs 1 but wall_s", () => {
  // wall_s is wall-clock time: it differs from run to run, so it is left out of the comparison
  const ledger = (...args: string[]) => {
    const r = cli("reproduce", "002", "--json", "--quick", ...args);
    assert.equal(r.status, 0, r.stderr);
    const l = JSON.parse(r.stdout);
    for (const e of l.experiments) {
      assert.ok(typeof e.run.wall_s === "number" && e.run.wall_s > 0, "run.wall_s");
      assert.ok(Number.isInteger(e.run.events) && e.run.events > 0, "run.events");
      delete e.run.wall_s;
    }
    return { l, stderr: r.stderr };
  };
  const def = ledger();
  const one = ledger("--jobs", "1");
  assert.deepEqual(def.l, one.l);
  const threads = Math.min(os.availableParallelism(), 6); // 002 --quick: 6 runs
  if (threads > 1) assert.match(def.stderr, new RegExp(`runs .* on ${threads} threads$`, "m"));
  assert.doesNotMatch(one.stderr, /threads/);
  const help = cli("reproduce", "--help");
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--jobs N .*default: one per core/);
});

test("bad input exits 2 with a message naming the field and the accepted values", () => {
  const cases: Array<[string[], RegExp]> = [
    [["reproduce", "nope"], /unknown experiment "nope" \(accepted: demo, 002, 002-ht\)/],
    [["reproduce", "demo", "--iterations", "0"], /--iterations must be a positive integer/],
    [["reproduce", "demo", "--duration", "-3"], /--duration must be a positive number/],
    [["reproduce", "--bogus"], /unknown option --bogus \(accepted: .*--json/],
    [["domains", "nobox"], /unknown machine "nobox".*xeon-x5472/],
    [["domains", "core2-2x2", "--era", "3.0"], /--era must be one of 2.6.29, .*6.19/],
    [["frob"], /unknown command "frob"/],
  ];
  for (const [args, re] of cases) {
    const r = cli(...args);
    assert.equal(r.status, 2, `${args.join(" ")}: exit ${r.status}`);
    assert.match(r.stderr, re);
  }
});

test("schedlab domains says when the era's fair class runs CFS where the kernel runs EEVDF", () => {
  const r619 = cli("domains", "core2-2x2", "--era", "6.19");
  assert.equal(r619.status, 0, r619.stderr);
  assert.match(r619.stdout, /^# era 6\.19: the fair class runs CFS .*EEVDF .*not modelled/m);
  const r48 = cli("domains", "core2-2x2", "--era", "4.8");
  assert.equal(r48.status, 0, r48.stderr);
  assert.doesNotMatch(r48.stdout, /EEVDF/);
});
