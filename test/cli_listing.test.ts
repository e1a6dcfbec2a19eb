// The listing commands (src/cli_listing.ts): --json on list, presets, hooks, eras and era E; an
// unknown option names the options the command accepts; `era E` lists each merged change with
// its commit and the switch that turns it back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";

const BIN = path.join(__dirname, "..", "bin", "schedlab.js");
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });

test("every listing command takes --json and prints one JSON value", () => {
  const list = cli("list", "--json");
  assert.equal(list.status, 0, list.stderr);
  assert.ok(JSON.parse(list.stdout).some((r: { id: string }) => r.id === "002"));
  const presets = cli("presets", "--json");
  assert.equal(presets.status, 0, presets.stderr);
  const core2 = JSON.parse(presets.stdout).find((r: { name: string }) => r.name === "core2-2x2");
  assert.equal(core2.cpus, 4);
  const hooks = cli("hooks", "--json");
  assert.equal(hooks.status, 0, hooks.stderr);
  const sis = JSON.parse(hooks.stdout).find(
    (h: { name: string }) => h.name === "fair.select_idle_sibling",
  );
  assert.match(sis.description, /select_idle_sibling/);
  const eras = cli("eras", "--json");
  assert.equal(eras.status, 0, eras.stderr);
  assert.deepEqual(
    JSON.parse(eras.stdout).map((e: { era: string }) => e.era),
    ["2.6.29", "3.19", "4.8", "5.6", "5.10", "5.19", "6.6", "6.19"],
  );
});

test("an unknown option lists the options the command accepts", () => {
  const r = cli("presets", "--bogus");
  assert.equal(r.status, 2);
  assert.match(r.stderr, /presets: unknown option --bogus \(accepted: --json, --help\)/);
  const m = cli("machine", "import", "--bogus");
  assert.equal(m.status, 2);
  assert.match(
    m.stderr,
    /import: unknown option --bogus \(accepted: --profile, --name, --output, --help\)/,
  );
});

test("schedlab era 5.19 lists the merged changes it runs with commits and the switch turning each back", () => {
  const r = cli("era", "5.19");
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^era 5\.19: fair pick CFS/);
  // 5.18's NUMA fork placement rule in find_idlest_group, folded into 5.19
  assert.match(
    r.stdout,
    /5\.18 +e496132ebedd: fork\/exec placement across NUMA nodes .*\n +turn back: patch\("\.\.\."\)\.feature\("FIG_IMB_NUMA_NR", false\)/,
  );
  assert.doesNotMatch(r.stdout, /SIS_UTIL/, "6.0's SIS_UTIL is not in 5.19");
  const j = cli("era", "6.19", "--json");
  assert.equal(j.status, 0, j.stderr);
  const changes = JSON.parse(j.stdout).changes as Array<{ commit: string; turnBackCode: string }>;
  assert.ok(
    changes.some((c) => c.commit === "70fb5ccf2ebb" && /SIS_UTIL", false/.test(c.turnBackCode)),
  );
  const bad = cli("era", "5.7");
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /era: unknown era "5\.7" \(accepted: 2\.6\.29, .*6\.19\)/);
});
