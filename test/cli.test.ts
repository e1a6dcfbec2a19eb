import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const BIN = path.join(__dirname, "..", "bin", "schedlab.js");
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });

test("schedlab --help lists the commands", () => {
  const r = cli("--help");
  assert.equal(r.status, 0);
  assert.match(r.stdout, /schedlab reproduce/);
  assert.match(r.stdout, /experiments: demo, 000, 000-llc, 001, 002, 002-ht/);
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
      // the today run (variant today) is timed too
      assert.ok(typeof e.today.wall_s === "number", "today.wall_s");
      delete e.today.wall_s;
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
  assert.match(help.stdout, /--jobs <N>\s+run iterations on N threads \(default: one per core/);
});

test("bad input exits 2 with a message naming the field and the accepted values", () => {
  const cases: Array<[string[], RegExp]> = [
    [
      ["reproduce", "nope"],
      /unknown experiment "nope" \(accepted: demo, 000, 000-llc, 001, 002, 002-ht(, [^)]+)?\)/,
    ],
    [["reproduce", "demo", "--iterations", "0"], /--iterations must be a positive integer/],
    [["reproduce", "demo", "--duration", "-3"], /--duration must be a positive number/],
    [["reproduce", "--bogus"], /unknown option --bogus \(accepted: .*--json/],
    [["domains", "nobox"], /unknown machine "nobox".*xeon-x5472/],
    [["domains", "core2-2x2", "--era", "3.0"], /--era must be one of 2.6.29, .*6.19/],
    [["frob"], /unknown command "frob" \(accepted: reproduce, list/],
    [["reproduce", "demo", "--jobs", "0"], /--jobs must be a positive integer \(got 0\)/],
    [
      ["reproduce", "demo", "--max-events", "-5"],
      /--max-events must be a positive integer \(got -5\)/,
    ],
    [
      ["reproduce", "demo", "--quick", "--max-events", "500"],
      /demo variant baseline iteration \d: run stopped: \d+ events .* passed maxEvents = 500/,
    ],
    [["reproduce", "demo", "--jobs", "1.5"], /--jobs must be a positive integer \(got 1.5\)/],
    [
      ["reproduce", "demo", "--duration", "NaN"],
      /--duration must be a positive number \(got NaN\)/,
    ],
    [["reproduce", "demo", "--duration", "Infinity"], /--duration must be a positive number/],
    [["reproduce", "demo", "--iterations"], /option '--iterations <N>' argument missing/],
    [["domains"], /domains: give one preset \(accepted: core2-2x2,/],
    [
      ["domains", "core2-2x2", "--offline", "0"],
      /--offline: cpu must be an integer from 1 to 3 \(got 0\)/,
    ],
    [["domains", "core2-2x2", "--bogus"], /unknown option --bogus \(accepted: --era, --offline/],
    // output places are checked before any run: these fail at once and write nothing
    [["reproduce", "demo", "--report", "/proc/nope"], /--report \/proc\/nope: cannot create/],
    [
      ["reproduce", "demo", "--save", __filename],
      /--save .*cli\.test\.ts: .*cli\.test\.ts is not a directory/,
    ],
  ];
  for (const [args, re] of cases) {
    const r = cli(...args);
    assert.equal(r.status, 2, `${args.join(" ")}: exit ${r.status}`);
    assert.match(r.stderr, re);
  }
});

test("schedlab domains says which fair pick an era runs and what of the era's EEVDF is not modelled", () => {
  const r619 = cli("domains", "core2-2x2", "--era", "6.19");
  assert.equal(r619.status, 0, r619.stderr);
  assert.match(
    r619.stdout,
    /^# era 6\.19: the fair class runs EEVDF .*DELAY_DEQUEUE.*not modelled/m,
  );
  const r48 = cli("domains", "core2-2x2", "--era", "4.8");
  assert.equal(r48.status, 0, r48.stderr);
  assert.doesNotMatch(r48.stdout, /EEVDF/);
});

test("schedlab domains takes a machine file as well as a preset; a malformed file exits 2 naming the field", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-machine-"));
  const preset = JSON.parse(
    fs.readFileSync(path.join(__dirname, "..", "data", "machines", "xeon-x5472.json"), "utf8"),
  );
  const good = path.join(dir, "mybox.json");
  fs.writeFileSync(good, JSON.stringify({ ...preset, name: "mybox" }));
  const fromFile = cli("domains", good, "--era", "4.8");
  assert.equal(fromFile.status, 0, fromFile.stderr);
  assert.equal(fromFile.stdout, cli("domains", "xeon-x5472", "--era", "4.8").stdout);
  const bad = path.join(dir, "bad.json");
  fs.writeFileSync(bad, JSON.stringify({ ...preset, topology: { ...preset.topology, llc: "l3" } }));
  const r = cli("domains", bad);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /bad.json: topology.llc must be one of die, package, l2 \(got "l3"\)/);
  assert.equal(r.stdout, "");
  const missing = cli("domains", path.join(dir, "none.json"));
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /machine file .*none.json: cannot read it \(ENOENT\)/);
});

test("schedlab machine import reads a sysfs tree or lscpu output into a machine file that domains takes", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-import-"));
  const tree = path.join(dir, "system");
  const files = JSON.parse(
    fs.readFileSync(path.join(__dirname, "machine", "fixtures", "dev-2cpu.sysfs.json"), "utf8"),
  );
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(tree, rel)), { recursive: true });
    fs.writeFileSync(path.join(tree, rel), text as string);
  }
  const out = path.join(dir, "box.json");
  const r = cli("machine", "import", tree, "--profile", "xeon-x5472", "--name", "box", "-o", out);
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stderr,
    /warning: costs and idle states: every figure borrowed from profile xeon-x5472/,
  );
  assert.match(r.stderr, /imported 1 package\(s\) x 2 core\(s\) x 1 thread\(s\), LLC per package/);
  // every chosen figure is listed, marked sourced or guess
  assert.match(
    r.stderr,
    /figures chosen \(costs and idle states from profile xeon-x5472, .*\d+ are guesses\):/,
  );
  assert.match(
    r.stderr,
    /\n {2}guess {3}costs\.ipiDeliveryNs = 1500: profile xeon-x5472, not measured/,
  );
  assert.equal(JSON.parse(fs.readFileSync(out, "utf8")).name, "box");
  const d = cli("domains", out, "--era", "5.6");
  assert.equal(d.status, 0, d.stderr);
  assert.match(d.stdout, /domain-0: MC span=0-1/);
  const lscpu = path.join(dir, "lscpu.txt");
  fs.writeFileSync(
    lscpu,
    "CPU NODE SOCKET CORE L1d:L1i:L2:L3 ONLINE\n0 0 0 0 0:0:0:0 yes\n1 0 0 1 1:1:1:0 yes\n",
  );
  const l = cli("machine", "import", lscpu);
  assert.equal(l.status, 0, l.stderr);
  assert.equal(JSON.parse(l.stdout).topology.coresPerSocket, 2);
  const bad = cli("machine", "import", path.join(dir, "nope"));
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /machine import: .*nope does not exist \(give a sysfs directory/);
  const prof = cli("machine", "import", tree, "--profile", "vax");
  assert.equal(prof.status, 2);
  assert.match(
    prof.stderr,
    /profile: unknown cost profile "vax"; accepted: x86-server-2008, .*core2-2x2/,
  );
});

test("Ctrl-C stops the runs, names what finished and writes no report", {
  timeout: 60_000,
}, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-int-"));
  const child = spawn(
    process.execPath,
    [BIN, "reproduce", "demo", "002", "--iterations", "500", "--report", dir, "--jobs", "2"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  let stdout = "";
  let sent = false;
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => {
    stderr += d;
    // interrupt once 002 is under way (demo is finished by then)
    if (!sent && /\[002\] \d+\/1000 runs/.test(stderr)) sent = child.kill("SIGINT");
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  assert.equal(code, 130, stderr);
  assert.match(stderr, /interrupted; finished: demo; no ledger or report written/);
  assert.equal(stdout, "");
  assert.deepEqual(fs.readdirSync(dir), []);
});

test("schedlab hooks --verbose HOOK describes one hook; an unknown hook exits 2 naming the accepted ones", () => {
  const r = cli("hooks", "--verbose", "fair.select_idle_sibling");
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^fair\.select_idle_sibling\n/);
  assert.match(r.stdout, /2\.6\.29\s+wake_idle\(cpu, p\)\n\s+kernel\/sched_fair\.c/);
  assert.match(r.stdout, /5\.6-6\.19\s+select_idle_sibling\(p, prev, target\)/);
  assert.match(r.stdout, /model: selectIdleSibling5x \(src\/kernel\/fair\/wake\/v5x\.ts\)/);
  for (const field of ["k", "p", "prev", "target", "thisCpu"])
    assert.match(r.stdout, new RegExp(`^    ${field} +\\S`, "m"), field);
  assert.match(r.stdout, /default: /);
  assert.match(r.stdout, /\.replace\("fair\.select_idle_sibling", \(ctx, base\) =>/);
  assert.doesNotMatch(r.stdout, /^fair\.wake_affine/m, "one hook only");
  const plain = cli("hooks");
  const all = cli("hooks", "--verbose");
  assert.equal(all.status, 0, all.stderr);
  // one full description per hook the plain list names
  assert.equal(
    all.stdout.match(/^ {2}example: /gm)?.length,
    plain.stdout.trim().split("\n").length,
  );
  assert.match(plain.stdout, /^fair\.select_idle_sibling +select_idle_sibling\(p, prev, target\)/m);
  assert.doesNotMatch(plain.stdout, /example/);
  const bad = cli("hooks", "--verbose", "fair.select_idle_sibing");
  assert.equal(bad.status, 2);
  assert.match(
    bad.stderr,
    /unknown hook "fair\.select_idle_sibing" \(accepted: core\.ttwu_queue_cond, .*fair\.select_idle_sibling, .*topology\.group_capacity\)/,
  );
  assert.equal(bad.stdout, "");
});
