import { test } from "node:test";
import assert from "node:assert/strict";
import { display, newLedger, type LedgerExperiment } from "../../src/index";

/** Runs fn with tslab's display.html replaced by a recorder; returns what it was given. */
function captured(fn: () => void): string[] {
  const tslabPath = require.resolve("tslab");
  const saved = require.cache[tslabPath];
  const outputs: string[] = [];
  require.cache[tslabPath] = {
    id: tslabPath,
    filename: tslabPath,
    loaded: true,
    exports: { display: { html: (s: string) => outputs.push(s) } },
  } as unknown as NodeJS.Module;
  try {
    fn();
  } finally {
    if (saved) require.cache[tslabPath] = saved;
    else delete require.cache[tslabPath];
  }
  return outputs;
}

const cells = (html: string) =>
  [...html.matchAll(/<t[hd][^>]*>([^<]*)<\/t[hd]>/g)].map((m) => m[1]);

test("fmt: a dash for missing values, one decimal from 100 up, else the digits asked for", () => {
  assert.deepEqual(
    [null, undefined, NaN, 0.12345, -0.5, 99.99, 100, 1234.56, 2 / 3].map((x) => display.fmt(x)),
    ["–", "–", "–", "0.123", "-0.500", "99.990", "100.0", "1234.6", "0.667"],
  );
  assert.equal(display.fmt(2 / 3, 1), "0.7");
});

test("tableHtml: records, rows of cells with columns, and DataFrame-like input give one table", () => {
  const records = display.tableHtml([
    { cpu: 0, share: 0.75351 },
    { cpu: 1, share: 0.24649, note: "<b>" },
  ]);
  assert.deepEqual(cells(records), [
    "cpu",
    "share",
    "note",
    "0",
    "0.754",
    "–",
    "1",
    "0.246",
    "&lt;b&gt;",
  ]);
  const rows = display.tableHtml([[3, 2 / 3]], {
    columns: ["a", "b"],
    digits: 1,
    caption: "x & y",
  });
  assert.deepEqual(cells(rows), ["a", "b", "3", "0.7"]);
  assert.match(rows, /<caption[^>]*>x &amp; y<\/caption>/);
  const frame = display.tableHtml({ columns: ["v"], values: [["pre"], ["post"]] });
  assert.deepEqual(cells(frame), ["v", "pre", "post"]);
  assert.deepEqual(cells(display.tableHtml([{ a: 1, b: 2 }], { columns: ["b"] })), ["b", "2"]);
});

test("tableHtml: numbers, percentages and ranges right-aligned, text left", () => {
  const html = display.tableHtml([["12.5%", "1.0..2.0", "yes", "–"]], {
    columns: ["a", "b", "c", "d"],
  });
  const aligns = [...html.matchAll(/<td style="text-align:(\w+)/g)].map((m) => m[1]);
  assert.deepEqual(aligns, ["right", "right", "left", "right"]);
});

test("tableHtml: rows of cells without column names fail with what to pass", () => {
  assert.throws(() => display.tableHtml([[1, 2]]), /rows of cells need opts.columns/);
});

test("display.table and display.ledger draw through tslab's display.html", () => {
  const entry: LedgerExperiment = {
    id: "demo",
    title: "two hogs",
    machine: "core2-2x2",
    source: "weight table",
    rows: [
      {
        metric: "share_hog0",
        variant: "baseline",
        published: 0.7535,
        simulated: 0.75,
        iterations: [0.75, 0.75],
        ratio: 0.995,
        band: [0.746, 0.761],
        inBand: true,
        kind: "independent",
      },
      {
        metric: "share_hog1",
        variant: "baseline",
        published: 0.2465,
        simulated: 0.26,
        iterations: [0.26, 0.26],
        ratio: 1.05,
        band: [0.244, 0.249],
        inBand: false,
        kind: "independent",
      },
    ],
    run: { iterations: 2, durationS: 1, seed: "1", era: "6.19" },
  };
  const out = captured(() => {
    display.table([{ a: 1 }], { caption: "c" });
    display.ledger(newLedger([entry]));
  });
  assert.equal(out.length, 2);
  assert.match(out[0], /^<table/);
  assert.match(out[1], /<style>table\.ledger/);
  assert.match(out[1], /<h4>demo: two hogs<\/h4>/);
  assert.deepEqual(out[1].match(/<tr class="(in|out)">/g), ['<tr class="in">', '<tr class="out">']);
});

test("display.table outside a tslab kernel fails with a clear message", () => {
  assert.throws(() => display.table([{ a: 1 }]), /inside a tslab Jupyter kernel/);
});
