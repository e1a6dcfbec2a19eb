// The README's verdict table: counts per experiment and a total, calibrated unknowns named.
import { test } from "node:test";
import assert from "node:assert/strict";
import { verdictTable } from "../../src/reproduce/verdict_table";
import type { LedgerExperiment } from "../../src/reproduce/ledger";

const exp = (id: string, verdicts: string[], unknowns: LedgerExperiment["unknowns"] = []) =>
  ({
    id,
    rows: verdicts.map((v) => ({
      verdict: v,
      role:
        v === "calibration target" ? "calibrated" : v === "not judged" ? "reported" : "predicted",
    })),
    unknowns,
  }) as unknown as LedgerExperiment;

test("the verdict table counts each verdict and totals them", () => {
  const t = verdictTable({
    experiments: [
      exp("a", ["reproduced", "missed", "not judged"]),
      exp(
        "b",
        ["reproduced after calibration", "calibration target", "not comparable"],
        [
          {
            name: "loop_ns",
            kind: "numeric",
            unit: "ns",
            default: 1,
            value: 3.5,
            source: "s",
            calibrated: true,
          },
        ],
      ),
    ],
  }).split("\n");
  assert.equal(t[2], "| a | 1 / 2 | 1 | 0 | 1 | 0 | 0 | - |");
  assert.equal(t[3], "| b | 1 / 2 | 0 | 1 | 0 | 1 | 1 | loop_ns = 3.5 |");
  assert.equal(t[4], "| all | 2 / 4 | 1 | 1 | 1 | 1 | 1 | |");
});
