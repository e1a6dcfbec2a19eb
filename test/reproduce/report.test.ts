import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { chromiumUnavailable, figuresInDom, renderHtml } from "../report/chromium";

const BIN = path.join(__dirname, "..", "..", "bin", "schedlab.js");

test("schedlab reproduce with no ids runs every experiment, prints the ledger and writes a report that draws", {
  timeout: 300_000,
}, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-reproduce-"));
  try {
    const r = spawnSync(process.execPath, [BIN, "reproduce", "--quick"], {
      cwd: dir,
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    for (const id of ["demo", "002", "002-ht"])
      assert.match(r.stdout, new RegExp(`^${id}\\s`, "m"));
    assert.match(r.stderr, /\[002\] \d+\/\d+ runs/, "progress lines");
    const file = path.join(dir, "report", "index.html");
    assert.ok(fs.existsSync(file), "report/index.html written");
    const html = fs.readFileSync(file, "utf8");
    for (const id of ["demo", "002", "002-ht"])
      assert.match(html, new RegExp(`<section id="exp-${id}">`));
    const skip = chromiumUnavailable();
    if (skip) return t.skip(skip);
    const page = renderHtml(html);
    assert.equal(page.status, 0, page.stderr.slice(-2000));
    assert.deepEqual(page.pageErrors ?? [], []);
    const figs = figuresInDom(page.dom);
    assert.ok(figs.length >= 5, `${figs.length} figures`);
    for (const f of figs) assert.ok(f.hasPlot && (f.drawn ?? 0) > 0, `${f.id} did not draw`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
