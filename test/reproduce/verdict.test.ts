// Verdicts: each rule on a hand-made row, and the held-out guard over every reproduction: a
// calibration target is never judged as a prediction, and a calibration refuses a predicted
// figure as its target.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ledgerRow } from "../../src/reproduce/ledger";
import { judgeRow, verdictCounts, type VerdictContext } from "../../src/reproduce/verdict";
import { figureRole, publishedFor, reproductionIds } from "../../src/reproduce/registry";
import { calibrateReproduction, calibrationTargets } from "../../src/reproduce/unknowns";
import { frozenCalibration } from "../../src/reproduce/calibration_file";
import "../../src/index";

const pub = {
  id: "x",
  source: "s",
  figures: [
    { metric: "a", variant: "pre", value: 10, kind: "calibrated" as const },
    {
      metric: "b",
      variant: "pre",
      value: 5,
      band: [4, 6] as [number, number],
      bandSource: "replicate run",
    },
    { metric: "c", variant: "pre", value: 5, band: [4, 6] as [number, number] },
    { metric: "d", variant: "pre", value: 3, comparable: "the source's units are unknown" },
    { metric: "e", variant: "pre", value: 3, kind: "derived" as const, derivation: "cv x mean" },
    { metric: "f", variant: "pre", value: 3 },
  ],
};
const ctx = (calibrated: string[]): VerdictContext => ({
  published: pub,
  calibrated,
  doc: "docs/experiments/x.md",
});
const judge = (c: VerdictContext, ...args: Parameters<typeof ledgerRow>) =>
  judgeRow(ledgerRow(...args), c);

test("each verdict rule", () => {
  const none = ctx([]);
  assert.equal(judge(none, "a", "pre", 10, [10], null, "calibrated").verdict, "calibration target");
  const hit = judge(none, "b", "pre", 5, [5.5], [4, 6]);
  assert.deepEqual(
    [hit.role, hit.verdict, hit.bandSource],
    ["predicted", "reproduced", "replicate run"],
  );
  // the same hit with an unknown fitted on other figures
  const after = judge(ctx(["loop_ns"]), "b", "pre", 5, [5.5], [4, 6]);
  assert.equal(after.verdict, "reproduced after calibration");
  assert.match(after.reason ?? "", /1 unknown fitted on other figures \(loop_ns\)/);
  const miss = judge(none, "c", "pre", 5, [9], [4, 6]);
  assert.equal(miss.verdict, "missed");
  assert.match(miss.reason ?? "", /docs\/experiments\/x\.md, "What would have to be true"/);
  assert.deepEqual(
    [
      judge(none, "d", "pre", 3, [3], [2, 4]).verdict,
      judge(none, "d", "pre", 3, [3], [2, 4]).reason,
    ],
    ["not comparable", "the source's units are unknown"],
  );
  assert.equal(judge(none, "e", "pre", 3, [3], null, "derived").verdict, "not comparable");
  assert.match(judge(none, "f", "pre", 3, [3]).reason ?? "", /no band/);
  const reported = judge(none, "g", "today", null, [1]);
  assert.deepEqual([reported.role, reported.verdict], ["reported", "not judged"]);
  // a calibration target is never counted as reproduced, even when "in band"
  const rows = [judge(none, "a", "pre", 10, [10], [9, 11], "calibrated"), hit, miss];
  assert.deepEqual(verdictCounts(rows), {
    predicted: 2,
    reproduced: 1,
    reproducedAfterCalibration: 0,
    missed: 1,
    notComparable: 0,
    calibrationTargets: 1,
  });
});

test("held-out guard: no reproduction judges a calibration target as a prediction", () => {
  for (const id of reproductionIds()) {
    let file: ReturnType<typeof publishedFor>;
    try {
      file = publishedFor(id);
    } catch {
      continue;
    }
    const targets = new Set(calibrationTargets(id).map((t) => t.id));
    for (const f of file.figures) {
      const key = `${f.metric}/${f.variant}`;
      if (targets.has(key)) assert.equal(figureRole(f), "calibrated", `${id} ${key}`);
    }
    // a calibration names no more unknowns than targets, and a frozen fit used exactly them
    if (file.calibration && !file.calibration.from) {
      assert.ok(
        file.calibration.unknowns.length <= targets.size,
        `${id}: more unknowns than targets`,
      );
      const cal = frozenCalibration(id);
      if (cal)
        assert.deepEqual(new Set(cal.targets.map((t) => t.id)), targets, `${id}: frozen targets`);
    }
  }
});

test("a calibration refuses a predicted figure as its target, naming it", () => {
  // 002's published file names avg_loops/pre as its calibration target; cv_loops/pre is predicted
  assert.throws(
    () => calibrateReproduction("002", { targets: ["cv_loops/pre"] }),
    /calibrate 002: (target cv_loops\/pre is a prediction|data\/published\/002\.json declares no calibration)/,
  );
  assert.throws(
    () => calibrateReproduction("002", { targets: ["nope/pre"] }),
    /calibrate 002: (target nope\/pre is not a published figure|data\/published\/002\.json declares no calibration)/,
  );
  assert.throws(() => calibrateReproduction("nope"), /unknown experiment "nope"/);
});
