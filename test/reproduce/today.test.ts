import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  ledgerEntry,
  newLedger,
  publishedFor,
  reproduction,
  reproductionIds,
  runReproduction,
  runToday,
  TODAY_ERA,
  TODAY_VARIANT,
  todayExperiment,
  withToday,
  type LedgerExperiment,
} from "../../src/index";
import { experimentById } from "../../src/reproduce/today";
import { writeReport } from "../../src/reproduce/report";
import { publishedValue } from "../../src/reproduce/registry";

const entries = new Map<string, LedgerExperiment>();

for (const id of reproductionIds()) {
  test(`${id}: the quick profile gives a today row per headline metric, unpublished, with the note`, () => {
    const r = reproduction(id);
    const t = r.today;
    assert.ok(t, `${id} has a today variant`);
    assert.match(t.note, /merged|6\.19/, `${id}: the note says what became of the patch`);
    const exp = todayExperiment(r);
    let entry: LedgerExperiment;
    if (t.fromVariant === undefined) {
      // today's kernel, no patch, one variant; the worker builds the same experiment by id
      assert.ok(exp);
      const s = exp.spec(r.quick);
      assert.equal(s.era, TODAY_ERA);
      assert.deepEqual(s.variants, { [TODAY_VARIANT]: [] });
      assert.deepEqual(s.machine, r.experiment().spec(r.quick).machine);
      assert.deepEqual(experimentById(`${id}@today`).spec(r.quick), s);
      const today = runToday(r, r.quick)!;
      // the today rows only (the published variants' rows are not run here: `base` has none)
      const base = { id, title: r.title, machine: r.machine, source: r.source, rows: [] };
      const run = { iterations: 0, durationS: 0, seed: "1", era: "-" };
      entry = withToday({ ...base, run }, r, today, today, 1);
      assert.equal(entry.today?.era, TODAY_ERA);
      assert.equal(entry.today?.iterations, r.quick.iterations);
    } else {
      assert.equal(exp, null);
      assert.equal(r.experiment().spec().era, TODAY_ERA, `${id} runs today's kernel itself`);
      const res = runReproduction(r, r.quick);
      entry = withToday(ledgerEntry(r, res), r, res, null);
      assert.equal(entry.today?.fromVariant, t.fromVariant);
      // the published variants' rows come first and are left as they were
      // (ledgerEntry adds each row's role, verdict and reason to what rows() gives)
      const strip = (x: object) =>
        Object.fromEntries(
          Object.entries(x).filter(
            ([k]) => !["role", "verdict", "reason", "bandSource"].includes(k),
          ),
        );
      assert.deepEqual(entry.rows.slice(0, r.rows(res).length).map(strip), r.rows(res).map(strip));
    }
    assert.equal(entry.today?.note, t.note);
    const rows = entry.rows.filter((x) => x.variant === TODAY_VARIANT);
    assert.deepEqual(
      rows.map((x) => x.metric),
      [...t.metrics],
    );
    for (const row of rows) {
      assert.equal(row.published, null, `${id} ${row.metric}`);
      assert.equal(row.inBand, null);
      assert.equal(row.ratio, null);
      assert.deepEqual([row.role, row.verdict], ["reported", "not judged"]);
      assert.ok(row.iterations.length >= 1, `${id} ${row.metric}: no values`);
      assert.ok(Number.isFinite(row.simulated), `${id} ${row.metric}: ${row.simulated}`);
    }
    entries.set(id, entry);
  });
}

// Kernel history: today's update_group_capacity sums the child groups, so the package with two
// online CPUs is worth twice the lone CPU's and the 2:1 split of 2.6.29 cannot come back.
test("002 today keeps the fix's fairness: 6.19 spreads the 8 hogs like post, far from pre's 1/3", () => {
  const e = entries.get("002");
  assert.ok(e, "the table test above ran 002");
  const today = e.rows.find(
    (x) => x.metric === "cv_loops" && x.variant === TODAY_VARIANT,
  )!.simulated;
  // published: 0.3333 before the patch (the 2:1 split), 0.0916 after; post's band is <= 0.15
  const pre = publishedValue(publishedFor("002"), "cv_loops", "pre").value!;
  assert.ok(today <= 0.15, `002 today stddev/avg ${today}`);
  assert.ok(today < pre / 2, `002 today ${today} vs published pre ${pre}`);
});

test("the report shows the today rows beside the published variants, with what they mean", () => {
  const e = entries.get("demo");
  assert.ok(e, "the table test above ran demo");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-today-"));
  try {
    const file = writeReport(dir, newLedger([e]), []);
    const html = fs.readFileSync(file, "utf8");
    // each today row right after its metric's published variants
    const at = (m: string, v: string) => html.indexOf(`<td>${m}</td><td>${v}</td>`);
    assert.ok(at("share_hog0", "baseline") >= 0);
    assert.ok(at("share_hog0", "baseline") < at("share_hog0", "today"));
    assert.ok(at("share_hog0", "today") < at("share_hog1", "baseline"));
    assert.ok(at("share_hog1", "baseline") < at("share_hog1", "today"));
    assert.match(html, /<b>Today\.<\/b> Rows with variant today run the same machine/);
    assert.ok(html.includes("The demo already runs 6.19 with no patch"));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
