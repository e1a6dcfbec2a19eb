// The repository stands on its own: no tracked file may point at material outside it (the
// team's working notes), and every figure in data/ carries a source a reader can follow.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const root = path.join(__dirname, "..");

// Built from pieces so that this file does not match its own patterns.
const FORBIDDEN = ["shared" + "/", "kernel" + "-mechanisms", "DESIGN" + ".md"];

function trackedFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" });
  return out.split("\0").filter((f) => f !== "");
}

function isText(buf: Buffer): boolean {
  return !buf.subarray(0, 8000).includes(0);
}

test("no tracked file refers to material outside the repository", () => {
  const hits: string[] = [];
  for (const file of trackedFiles()) {
    const abs = path.join(root, file);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isFile()) continue;
    const buf = fs.readFileSync(abs);
    if (!isText(buf)) continue;
    const lines = buf.toString("utf8").split("\n");
    lines.forEach((line, i) => {
      for (const pat of FORBIDDEN) {
        if (line.includes(pat))
          hits.push(`${file}:${i + 1}: "${pat}" in ${line.trim().slice(0, 120)}`);
      }
    });
  }
  assert.deepEqual(hits, [], `references outside the repository:\n${hits.join("\n")}`);
});

test("no tracked file points a reader at this project's issues or unpublished design pages", () => {
  // "issue N" / "issue #N" of this repository cannot be followed from a clone; another project's
  // issue is named with its project (byte-unixbench issue #79) or linked.
  const ISSUE = /\bissues? #?\d+\b/i;
  const OTHER_PROJECT = /byte-unixbench|https?:\/\/|bugzilla/i;
  const DESIGN = "design" + " page";
  const hits: string[] = [];
  for (const file of trackedFiles()) {
    const abs = path.join(root, file);
    if (file === "test/standalone.test.ts" || !fs.existsSync(abs) || !fs.statSync(abs).isFile())
      continue;
    const buf = fs.readFileSync(abs);
    if (!isText(buf)) continue;
    buf
      .toString("utf8")
      .split("\n")
      .forEach((line, i) => {
        if ((ISSUE.test(line) && !OTHER_PROJECT.test(line)) || line.includes(DESIGN))
          hits.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
  }
  assert.deepEqual(hits, [], `pointers a reader cannot follow:\n${hits.join("\n")}`);
});

/** Every object that holds a figure (`value`) must also hold a non-empty `source`, its own or an
 *  enclosing one (data/published figures share the file's top-level source). */
function missingSources(node: unknown, where: string, inherited: boolean, out: string[]): void {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) missingSources(node[i], `${where}[${i}]`, inherited, out);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const obj = node as Record<string, unknown>;
  const own = typeof obj.source === "string" && obj.source.trim() !== "";
  if ("source" in obj && !own) out.push(`${where}.source is empty or not a string`);
  if ("value" in obj && obj.value !== null && !own && !inherited)
    out.push(`${where} has a value but no source`);
  for (const [k, v] of Object.entries(obj)) {
    if (k === "source") continue;
    missingSources(v, `${where}.${k}`, inherited || own, out);
  }
}

for (const dir of ["data/machines", "data/published"]) {
  test(`every figure in ${dir}/*.json has a non-empty source`, () => {
    const files = fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith(".json"));
    assert.ok(files.length > 0, `${dir} has JSON files`);
    const problems: string[] = [];
    for (const f of files) {
      const json: unknown = JSON.parse(fs.readFileSync(path.join(root, dir, f), "utf8"));
      // Machine figures each carry their own source; published figures share the file's.
      const top = (json as Record<string, unknown>).source;
      const fileLevel = dir === "data/published" && typeof top === "string" && top.trim() !== "";
      if (dir === "data/published" && !fileLevel) problems.push(`${dir}/${f}: no top-level source`);
      const obj = json as Record<string, unknown>;
      for (const [k, v] of Object.entries(obj)) {
        if (k === "source") continue;
        missingSources(v, `${dir}/${f}:${k}`, fileLevel, problems);
      }
    }
    assert.deepEqual(problems, [], problems.join("\n"));
  });
}

test("machine figures cite their own source, not an inherited one", () => {
  // In data/machines a figure object is { value, source }; a value without a sibling source is
  // a figure nobody can check, even inside a sourced block.
  const problems: string[] = [];
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) walk(node[i], `${where}[${i}]`);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const obj = node as Record<string, unknown>;
    if ("value" in obj && !(typeof obj.source === "string" && obj.source.trim() !== ""))
      problems.push(`${where}: value without its own source`);
    for (const [k, v] of Object.entries(obj)) walk(v, `${where}.${k}`);
  };
  const dir = path.join(root, "data/machines");
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".json")))
    walk(JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")), f);
  assert.deepEqual(problems, [], problems.join("\n"));
});
