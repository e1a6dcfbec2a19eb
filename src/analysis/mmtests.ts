// The compare table of mmtests (compare-mmtests.pl) for latency-type metrics: one row per metric,
// the baseline's value with (0.00%), each other variant's value with its gain in brackets (for
// latencies lower is better, so a drop is a positive gain), and the brackets replaced by stars
// when Welch's two-sided t-test over the iterations finds the difference significant.
import { mean, welchTTest } from "./stats";

/** One metric's per-iteration values for each variant. */
export interface MmtestsRowInput {
  /** The label mmtests prints, e.g. "Lat 50.00th-qrtle-1". */
  label: string;
  /** variant -> one value per iteration. */
  values: Record<string, readonly number[]>;
}

/** One cell of the table. */
export interface MmtestsCell {
  variant: string;
  mean: number;
  /** % gain vs the baseline (positive = better). */
  gainPct: number;
  /** Welch's two-sided p-value vs the baseline; null for the baseline, NaN when n < 2. */
  pValue: number | null;
  significant: boolean;
}

/** A row of the table. */
export interface MmtestsRow {
  label: string;
  cells: MmtestsCell[];
}

/** Options of mmtestsCompare. */
export interface MmtestsOptions {
  /** Variants in column order; the first is the baseline. */
  variants: readonly string[];
  /** true when lower values are better (latencies, default), false for throughputs. */
  lowerIsBetter?: boolean;
  /** Significance level; default 0.05. */
  alpha?: number;
}

/** The compare rows: the mean over iterations per variant, the gain and Welch's verdict. */
export function mmtestsCompare(
  rows: readonly MmtestsRowInput[],
  opts: MmtestsOptions,
): MmtestsRow[] {
  const [base] = opts.variants;
  const lower = opts.lowerIsBetter ?? true;
  const alpha = opts.alpha ?? 0.05;
  return rows.map((r) => {
    const b = r.values[base] ?? [];
    const bm = mean(b);
    return {
      label: r.label,
      cells: opts.variants.map((v) => {
        const xs = r.values[v] ?? [];
        const m = mean(xs);
        const isBase = v === base;
        const gain = isBase ? 0 : ((lower ? bm - m : m - bm) / Math.abs(bm)) * 100;
        const p = isBase ? null : welchTTest(xs, b).p;
        return {
          variant: v,
          mean: m,
          gainPct: gain,
          pValue: p,
          significant: p !== null && p < alpha,
        };
      }),
    };
  });
}

/**
 * The table as compare-mmtests prints it:
 * `Lat 50.00th-qrtle-1  44.00 (   0.00%)  37.00 *  15.91%*`.
 *
 * @example
 * ```ts
 * import { analysis } from "schedlab";
 * const rows = analysis.mmtestsCompare(
 *   [{ label: "Lat 50.00th-qrtle-1", values: { pre: [44, 45, 43], post: [37, 36, 38] } }],
 *   { variants: ["pre", "post"] },
 * );
 * console.log(analysis.formatMmtests(rows, ["pre", "post"]));
 * ```
 * Prints:
 * ```text
 *                                       pre                 post
 * Lat 50.00th-qrtle-1      44.00 (   0.00%)     37.00 *  15.91%*
 * ```
 */
export function formatMmtests(rows: readonly MmtestsRow[], variants: readonly string[]): string {
  const labelW = Math.max(...rows.map((r) => r.label.length), 4) + 1;
  const cell = (c: MmtestsCell) => {
    const pct = `${c.gainPct.toFixed(2).padStart(7)}%`;
    const v = Number.isFinite(c.mean) ? c.mean.toFixed(2) : "-";
    return `${v.padStart(8)} ${c.significant ? `*${pct}*` : `(${pct})`}`;
  };
  const head = "".padEnd(labelW) + variants.map((v) => v.padStart(21)).join("");
  const body = rows.map(
    (r) => r.label.padEnd(labelW) + r.cells.map((c) => cell(c).padStart(21)).join(""),
  );
  return [head, ...body].join("\n");
}
