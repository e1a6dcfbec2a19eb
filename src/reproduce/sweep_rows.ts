// Committed sweeps: `schedlab sweep <id> ... --json > data/sweeps/<id>-<name>.json` writes one row
// per point x figure (SweepResult.figureRows()). A notebook reads such a file instead of running
// the sweep again, and draws the same sensitivity (tornado) and envelope plots from its rows.
import * as fs from "node:fs";
import * as path from "node:path";
import type { UnknownValue } from "../experiment/unknown";
import type { SweepGrid } from "../experiment/sweep";
import type { EnvelopeData, SensitivityData } from "../plot/sensitivity";

/** One row of `schedlab sweep --json`: the point, its unknowns' values, one figure. */
export interface SweepFigureRow {
  point: number;
  figure: string;
  simulated: number;
  /** null (NaN before JSON) when nothing was published for the figure. */
  published: number | null;
  band_low: number | null;
  band_high: number | null;
  [unknown: string]: UnknownValue | null;
}

/** data/sweeps/<id>-<name>.json */
export function sweepRowsPath(id: string, name: string): string {
  return path.join(__dirname, "..", "..", "data", "sweeps", `${id}-${name}.json`);
}

/** The rows of a committed sweep, checked for the fields every row has. */
export function readSweepRows(id: string, name: string): SweepFigureRow[] {
  const file = sweepRowsPath(id, name);
  if (!fs.existsSync(file)) throw new Error(`no committed sweep ${id}-${name} (expected ${file})`);
  const rows = JSON.parse(fs.readFileSync(file, "utf8")) as SweepFigureRow[];
  if (!Array.isArray(rows) || rows.length === 0)
    throw new Error(`${file}: expected a non-empty array of sweep rows`);
  for (const [i, r] of rows.entries())
    if (
      typeof r.figure !== "string" ||
      typeof r.simulated !== "number" ||
      typeof r.point !== "number"
    )
      throw new Error(`${file}: row ${i} needs point, figure and simulated`);
  return rows;
}

const num = (x: number | null | undefined) => (typeof x === "number" ? x : null);

/** The rows of one figure where every unknown but `free` has its `base` value. */
function slice(
  rows: readonly SweepFigureRow[],
  base: Record<string, UnknownValue>,
  free: string,
  figure: string,
): SweepFigureRow[] {
  return rows.filter(
    (r) => r.figure === figure && Object.keys(base).every((k) => k === free || r[k] === base[k]),
  );
}

/**
 * A tornado's data from committed rows: per figure and swept unknown, the figure at the first and
 * the last value of `grid` (the others at `base`), and at base.
 */
export function sensitivityOfRows(
  rows: readonly SweepFigureRow[],
  base: Record<string, UnknownValue>,
  grid: SweepGrid,
  figures: readonly string[],
): SensitivityData {
  const out: SensitivityData["rows"] = [];
  for (const figure of figures)
    for (const [name, values] of Object.entries(grid)) {
      const s = slice(rows, base, name, figure);
      const at = (v: UnknownValue) => s.find((r) => r[name] === v);
      const lo = at(values[0]);
      const hi = at(values[values.length - 1]);
      const b = at(base[name]);
      if (!lo || !hi) continue;
      out.push({
        figure,
        unknown: name,
        low: { value: values[0], figure: lo.simulated },
        high: { value: values[values.length - 1], figure: hi.simulated },
        base: b ? b.simulated : Number.NaN,
        published: num(lo.published),
      });
    }
  return { rows: out };
}

/** An envelope's data from committed rows: one figure over one unknown, the others at `base`. */
export function envelopeOfRows(
  rows: readonly SweepFigureRow[],
  base: Record<string, UnknownValue>,
  unknown: string,
  figure: string,
  unit: string,
): EnvelopeData {
  const s = slice(rows, base, unknown, figure);
  if (!s.length) throw new Error(`envelope: no rows of ${figure} with ${unknown} free`);
  const order = (v: UnknownValue | null) => (typeof v === "number" ? v : 0);
  const pts = [...s].sort((a, b) => order(a[unknown]) - order(b[unknown]));
  const lo = num(s[0].band_low);
  const hi = num(s[0].band_high);
  return {
    unknown,
    unit,
    figure,
    // Committed rows keep each point's mean only: min and max are that mean.
    points: pts.map((r) => ({
      value: r[unknown] as UnknownValue,
      mean: r.simulated,
      min: r.simulated,
      max: r.simulated,
    })),
    published: num(s[0].published),
    band: lo !== null && hi !== null ? [lo, hi] : null,
    base: base[unknown],
  };
}
