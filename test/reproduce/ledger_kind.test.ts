// Ledger honesty: rows fixed by calibration (or derived from a calibrated one) are labelled and
// never judged in band; only independent outputs are.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { formatLedger, ledgerRow, newLedger } from "../../src/reproduce/ledger";
import { reportRows } from "../../src/reproduce/report";
import { ledgerTable, renderReport } from "../../src/report/html";
import { ledgerTotals, ledgerRows } from "../../src/report/ledger";
import type { PublishedFile } from "../../src/reproduce/registry";

const entry = () =>
  newLedger([
    {
      id: "x",
      title: "t",
      machine: "core2-2x2",
      source: "s",
      run: { iterations: 2, durationS: 1, seed: "1", era: "2.6.29" },
      rows: [
        ledgerRow("avg_loops", "pre", 100, [100, 100], [90, 110], "calibrated"),
        ledgerRow("stddev_loops", "pre", 30, [31, 33], null, "derived"),
        ledgerRow("cv_loops", "pre", 0.3, [0.32, 0.32], [0.25, 0.42]),
      ],
    },
  ]);

test("a calibrated row has inBand null even with a band; an independent one is judged", () => {
  const [cal, der, ind] = entry().experiments[0].rows;
  assert.deepEqual([cal.kind, cal.inBand], ["calibrated", null]);
  assert.deepEqual([der.kind, der.inBand], ["derived", null]);
  assert.deepEqual([ind.kind, ind.inBand], ["independent", true]);
  // the JSON carries the kind
  const json = JSON.parse(JSON.stringify(entry()));
  assert.equal(json.experiments[0].rows[0].kind, "calibrated");
});

test("the text ledger and the HTML table label calibrated and derived rows", () => {
  const l = entry();
  const text = formatLedger(l);
  assert.match(text, /^\s+metric\s+variant\s+role\s+published/m);
  assert.match(
    text,
    /^\s+avg_loops\s+pre\s+calibrated\s+100\.0\s+100\.0\s+1\.000\s+90\.0000\.\.110\.0\s+-$/m,
  );
  assert.match(text, /^\s+stddev_loops\s+pre\s+derived\s/m);
  assert.match(text, /^\s+cv_loops\s+pre\s+-\s.*\s+yes$/m);
  const e = { ...l.experiments[0], rows: reportRows(l.experiments[0]), figures: [] };
  const html = ledgerTable(e);
  assert.match(html, /<th>role<\/th>/);
  assert.match(html, /<td>avg_loops<\/td><td>pre<\/td><td class="kind">calibrated<\/td>/);
  assert.match(html, /<td>stddev_loops<\/td><td>pre<\/td><td class="kind">derived<\/td>/);
  // totals count only the independent row as judged
  assert.deepEqual(ledgerTotals(ledgerRows([e])), { rows: 3, judged: 1, inBand: 1, outOfBand: 0 });
});

test("data/published: every figure has a kind; calibrated and derived ones carry no band", () => {
  const dir = path.join(__dirname, "..", "..", "data", "published");
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".json"))) {
    const pub = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as PublishedFile;
    for (const fig of pub.figures) {
      const where = `${f} ${fig.metric}/${fig.variant}`;
      assert.ok(["independent", "calibrated", "derived"].includes(fig.kind ?? ""), where);
      if (fig.kind !== "independent") assert.equal(fig.band, undefined, where);
    }
  }
  const s002 = JSON.parse(fs.readFileSync(path.join(dir, "002.json"), "utf8")) as PublishedFile;
  const kind = (m: string, v: string) =>
    s002.figures.find((x) => x.metric === m && x.variant === v)?.kind;
  assert.equal(kind("avg_loops", "pre"), "calibrated");
  assert.equal(kind("stddev_loops", "post"), "derived");
  assert.equal(kind("cv_loops", "post"), "independent");
});

test("the text ledger and the report say what the runs cost: wall seconds and events", () => {
  const l = entry();
  Object.assign(l.experiments[0].run, { wall_s: 12.345, events: 45_600_000 });
  assert.match(formatLedger(l), /seed 1, 12\.3 s wall, 45\.6 M events; source s$/m);
  const html = renderReport({
    version: "0",
    experiments: [{ ...l.experiments[0], rows: [], figures: [], wallS: 12.345, events: 45_600 }],
  });
  assert.match(
    html,
    /<p class="meta">machine <b>core2-2x2<\/b> · source: s · 12\.3 s wall, 45\.6 k events<\/p>/,
  );
  // a ledger without them (built by hand) prints as before
  assert.match(formatLedger(entry()), /seed 1; source s$/m);
});
