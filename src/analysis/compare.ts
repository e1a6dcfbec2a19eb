// The A/B table a patch posting shows: per variant mean, spread, CI, % change vs the baseline
// and whether the change is significant (Welch's t-test against the baseline's iterations).
import type { ResultsData } from "../experiment/types";
import { valuesByVariant, variantNames, type VariantValues } from "./metric";
import { confidenceInterval, mean, sampleStddev, welchTTest } from "./stats";

/** Options of compareTable and Results.compare/compareText. */
export interface CompareOptions {
  /** Variant the others are compared with; default the first variant. */
  baseline?: string;
  /** Variants and their order; default the spec's order. */
  variants?: string[];
  /** Significance level of the two-sided Welch test; default 0.05. */
  alpha?: number;
  /** Confidence level of the interval; default 0.95 (the field keeps the name ci95). */
  confidence?: number;
}

/** One variant's line of the comparison table. */
export interface CompareRow {
  metric: string;
  variant: string;
  n: number;
  mean: number;
  /** Sample standard deviation (n-1). */
  stddev: number;
  /** Half-width of the confidence interval of the mean (Student t): mean ± ci95. */
  ci95: number;
  /** (mean - baseline mean) / baseline mean · 100; 0 for the baseline itself. */
  pctChange: number;
  /** Two-sided Welch p-value against the baseline; null for the baseline, NaN when n < 2. */
  pValue: number | null;
  /** pValue < alpha. */
  significant: boolean;
  baseline: boolean;
  values: number[];
}

/** Compare one metric across the variants of a run. See metricValue for metric names. */
export function compareTable(
  data: ResultsData,
  metric: string,
  opts: CompareOptions = {},
): CompareRow[] {
  const variants = opts.variants ?? variantNames(data);
  if (variants.length === 0) throw new Error("compareTable: the results hold no iterations");
  return compareValues(metric, valuesByVariant(data, metric, variants), opts);
}

/** The same table from values already grouped by variant (for figures not in ResultsData). */
export function compareValues(
  metric: string,
  groups: readonly VariantValues[],
  opts: CompareOptions = {},
): CompareRow[] {
  const baseName = opts.baseline ?? groups[0]?.variant;
  const base = groups.find((g) => g.variant === baseName);
  if (!base)
    throw new Error(
      `compareTable: baseline "${baseName}" is not among ${groups.map((g) => g.variant).join(", ")}`,
    );
  const alpha = opts.alpha ?? 0.05;
  const level = opts.confidence ?? 0.95;
  const baseMean = mean(base.values);
  return groups.map((g) => {
    const isBase = g === base;
    const m = mean(g.values);
    const p = isBase ? null : welchTTest(g.values, base.values).p;
    return {
      metric,
      variant: g.variant,
      n: g.values.length,
      mean: m,
      stddev: sampleStddev(g.values),
      ci95: confidenceInterval(g.values, level).halfWidth,
      pctChange: isBase ? 0 : ((m - baseMean) / Math.abs(baseMean)) * 100,
      pValue: p,
      significant: p !== null && p < alpha,
      baseline: isBase,
      values: g.values.slice(),
    };
  });
}

/** Number with a fixed count of significant-looking decimals that suits its magnitude. */
export function fmtNum(x: number, decimals?: number): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "-";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const d = decimals ?? (Math.abs(x) >= 1000 ? 2 : Math.abs(x) >= 1 ? 3 : 4);
  return x.toFixed(d);
}

function fmtP(p: number | null): string {
  if (p === null) return "-";
  if (Number.isNaN(p)) return "n/a";
  return p < 0.0001 ? "<0.0001" : p.toFixed(4);
}

/**
 * mmtests-style text: one column per variant, rows Amean/Stddev/CI95/p/n, the mean's % change
 * vs the baseline in parentheses and starred when significant, as compare-mmtests prints it:
 *
 *                       pre                  post
 *   Amean  tput   1234.560 (   0.00%)  1500.000 *  21.50%*
 */
export function formatCompareTable(rows: readonly CompareRow[]): string {
  if (rows.length === 0) return "";
  const metric = rows[0].metric;
  const labelW = Math.max(8 + metric.length, 14);
  const cells = (f: (r: CompareRow) => string) => rows.map(f);
  const meanCells = cells((r) => {
    const pct = `${r.pctChange.toFixed(2).padStart(7)}%`;
    return r.significant ? `${fmtNum(r.mean)} *${pct}*` : `${fmtNum(r.mean)} (${pct})`;
  });
  const lines: Array<[string, string[]]> = [
    [`Amean   ${metric}`, meanCells],
    [`Stddev  ${metric}`, cells((r) => fmtNum(r.stddev))],
    [`CI95±   ${metric}`, cells((r) => fmtNum(r.ci95))],
    [`p-value ${metric}`, cells((r) => fmtP(r.pValue))],
    [`n       ${metric}`, cells((r) => String(r.n))],
  ];
  const colW = rows.map(
    (r, i) => Math.max(r.variant.length, ...lines.map(([, c]) => c[i].length)) + 2,
  );
  const head = "".padEnd(labelW) + rows.map((r, i) => r.variant.padStart(colW[i])).join("");
  const body = lines.map(
    ([label, c]) => label.padEnd(labelW) + c.map((s, i) => s.padStart(colW[i])).join(""),
  );
  const sig = rows.some((r) => r.significant)
    ? ["* significant at the chosen alpha (Welch two-sided t-test vs baseline)"]
    : [];
  return [head, ...body, ...sig].join("\n");
}
