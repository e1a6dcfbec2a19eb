import { test } from "node:test";
import assert from "node:assert/strict";
import { formatMmtests, mmtestsCompare } from "../../src/analysis/mmtests";

test("mmtests compare: a latency drop is a positive gain, starred when Welch finds it significant", () => {
  const rows = mmtestsCompare(
    [
      { label: "Lat 50.00th-qrtle-1", values: { pre: [44, 45, 43, 44], post: [37, 36, 38, 37] } },
      { label: "Lat 99.00th-qrtle-1", values: { pre: [70, 90, 60, 84], post: [75, 55, 80, 60] } },
    ],
    { variants: ["pre", "post"] },
  );
  const [p50, p99] = rows;
  assert.equal(p50.cells[0].gainPct, 0);
  assert.equal(p50.cells[0].pValue, null);
  assert.ok(Math.abs(p50.cells[1].gainPct - 15.909) < 0.01);
  assert.equal(p50.cells[1].significant, true);
  // noisy tail: a gain but not significant at 0.05
  assert.ok(p99.cells[1].gainPct > 0);
  assert.equal(p99.cells[1].significant, false);
  const text = formatMmtests(rows, ["pre", "post"]);
  assert.match(text, /Lat 50\.00th-qrtle-1\s+44\.00 \(\s+0\.00%\)\s+37\.00 \*\s+15\.91%\*/);
  assert.match(text, /Lat 99\.00th-qrtle-1\s+76\.00 \(\s+0\.00%\)\s+67\.50 \(\s+11\.18%\)/);
});

test("mmtests compare: throughput rows count a rise as the gain", () => {
  const [row] = mmtestsCompare([{ label: "Tput", values: { a: [100, 100], b: [110, 110] } }], {
    variants: ["a", "b"],
    lowerIsBetter: false,
  });
  assert.ok(Math.abs(row.cells[1].gainPct - 10) < 1e-9);
  assert.equal(row.cells[1].significant, true); // constant samples, different means
});
