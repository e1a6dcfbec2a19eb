// `schedlab machine import` (src/cli_machine.ts): a malformed sysfs value is refused with status
// 2 naming the file and the value; a missing file still falls back with a warning.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const BIN = path.join(__dirname, "..", "bin", "schedlab.js");
const FIXTURE = path.join(__dirname, "machine", "fixtures", "dev-2cpu.sysfs.json");

function tree(change: (files: Record<string, string>) => void): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-sysfs-")), "system");
  const files = JSON.parse(fs.readFileSync(FIXTURE, "utf8")) as Record<string, string>;
  change(files);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const importTree = (dir: string) =>
  spawnSync(process.execPath, [BIN, "machine", "import", dir], { encoding: "utf8" });

test("a malformed sysfs value (core_id 1x) is refused with status 2 naming the file and the value", () => {
  const r = importTree(
    tree((f) => {
      f["cpu/cpu1/topology/core_id"] = "1x\n";
    }),
  );
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /cpu\/cpu1\/topology\/core_id: not an integer: "1x"/);
  assert.equal(r.stdout, "");
  for (const [file, value] of [
    ["cpu/cpu0/topology/cluster_id", "0x0"],
    ["cpu/cpu0/topology/physical_package_id", ""],
  ]) {
    const b = importTree(
      tree((f) => {
        f[file] = `${value}\n`;
      }),
    );
    assert.equal(b.status, 2, `${file}: ${b.stderr}`);
    assert.match(b.stderr, new RegExp(`${file}: not an integer: "${value}"`));
  }
});

test("a missing file still falls back, with a warning", () => {
  const r = importTree(
    tree((f) => {
      delete f["cpu/online"];
    }),
  );
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /warning: .*cpu\/online \(every present CPU taken as online\)/);
});
