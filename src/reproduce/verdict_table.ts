// Per experiment, how its published figures fared: predicted figures in band out of all
// predicted, each verdict's count, and the unknowns calibrated (README and report).
import type { Ledger } from "./ledger";
import { verdictCounts } from "./verdict";

/** A Markdown table of each experiment's verdict counts, and a total row. */
export function verdictTable(ledger: Pick<Ledger, "experiments">): string {
  const head =
    "| id | predicted in band | reproduced | after calibration | missed | not comparable | calibration targets | calibrated unknowns |";
  const rule = "|---|---:|---:|---:|---:|---:|---:|---|";
  const total = { predicted: 0, hits: 0, r: 0, rc: 0, m: 0, nc: 0, t: 0 };
  const lines = ledger.experiments.map((e) => {
    const v = e.verdicts ?? verdictCounts(e.rows);
    const hits = v.reproduced + v.reproducedAfterCalibration;
    total.predicted += v.predicted;
    total.hits += hits;
    total.r += v.reproduced;
    total.rc += v.reproducedAfterCalibration;
    total.m += v.missed;
    total.nc += v.notComparable;
    total.t += v.calibrationTargets;
    const cal = (e.unknowns ?? [])
      .filter((u) => u.calibrated)
      .map(
        (u) =>
          `${u.name} = ${typeof u.value === "number" ? Number(u.value.toPrecision(4)) : u.value}`,
      );
    return `| ${e.id} | ${hits} / ${v.predicted} | ${v.reproduced} | ${v.reproducedAfterCalibration} | ${v.missed} | ${v.notComparable} | ${v.calibrationTargets} | ${cal.join(", ") || "-"} |`;
  });
  lines.push(
    `| all | ${total.hits} / ${total.predicted} | ${total.r} | ${total.rc} | ${total.m} | ${total.nc} | ${total.t} | |`,
  );
  return [head, rule, ...lines].join("\n");
}
