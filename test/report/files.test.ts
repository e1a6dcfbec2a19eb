import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { prepareOutputDir, writeFileAtomic } from "../../src/report/files";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-files-"));

test("prepareOutputDir creates missing levels and leaves no probe file behind", () => {
  const root = tmp();
  const dir = path.join(root, "a", "b", "c");
  assert.equal(prepareOutputDir(dir, "--save"), dir);
  assert.ok(fs.statSync(dir).isDirectory());
  assert.deepEqual(fs.readdirSync(dir), []);
});

test("prepareOutputDir refuses, naming the field, a path under a file, /proc and an empty path", () => {
  const root = tmp();
  const file = path.join(root, "f");
  fs.writeFileSync(file, "x");
  assert.throws(
    () => prepareOutputDir(path.join(file, "d"), "--save"),
    /^Error: --save .*f is not a directory$/,
  );
  // a recursive mkdir under /proc never returns; this must fail at once
  if (fs.existsSync("/proc/self"))
    assert.throws(
      () => prepareOutputDir("/proc/nope/deeper", "--report"),
      /^Error: --report \/proc\/nope\/deeper: cannot create \/proc\/nope/,
    );
  assert.throws(() => prepareOutputDir(" ", "--report"), /--report must be a directory path/);
});

test("writeFileAtomic replaces the file whole and leaves no temporary file", () => {
  const root = tmp();
  const file = path.join(root, "out.json");
  writeFileAtomic(file, "old");
  writeFileAtomic(file, "new content");
  assert.equal(fs.readFileSync(file, "utf8"), "new content");
  assert.deepEqual(fs.readdirSync(root), ["out.json"]);
  assert.throws(() => writeFileAtomic(path.join(root, "missing", "x"), "y"), /ENOENT/);
  assert.deepEqual(fs.readdirSync(root), ["out.json"]);
});
