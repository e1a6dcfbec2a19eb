// Latency distributions from a result series (e.g. schbench wakeup latencies): a percentile
// curve p50..p99.9 as schbench and mmtests report them, and CDF curves.
import type { ResultsData } from "../experiment/types";
import { seriesByVariant, type VariantValues } from "../analysis/metric";
import { percentileSorted, sorted } from "../analysis/stats";
import { baseLayout, colorOf, type CommonPlotOptions, type Figure, type PlotTrace } from "./types";

/** The percentiles percentileCurve draws by default (the tail that latency reports show). */
export const DEFAULT_PERCENTILES = [50, 75, 90, 95, 99, 99.5, 99.9];

export interface LatencyOptions extends CommonPlotOptions {
  variants?: string[];
  /** Unit label for the values axis, e.g. "us". */
  unit?: string;
  /** Log-scaled values axis; default true for percentile curves (tails span decades). */
  log?: boolean;
}

export interface PercentileCurveOptions extends LatencyOptions {
  percentiles?: number[];
  /** Published percentiles per variant, drawn as open markers: { post: { 99: 120 } }. */
  published?: Record<string, Record<number, number>>;
}

/** Percentile curve of a series pooled over each variant's iterations. */
export function percentileCurve(
  data: ResultsData,
  series: string,
  opts: PercentileCurveOptions = {},
): Figure {
  return percentileCurveFromValues(seriesByVariant(data, series, opts.variants), {
    title: opts.title ?? `${series} percentiles`,
    ...opts,
  });
}

/** percentileCurve() from samples already grouped by variant. */
export function percentileCurveFromValues(
  groups: readonly VariantValues[],
  opts: PercentileCurveOptions = {},
): Figure {
  const ps = opts.percentiles ?? DEFAULT_PERCENTILES;
  const labels = ps.map((p) => `p${p}`);
  const data: PlotTrace[] = [];
  groups.forEach((g, i) => {
    const asc = sorted(g.values);
    data.push({
      type: "scatter",
      mode: "lines+markers",
      name: g.variant,
      x: labels,
      y: ps.map((p) => percentileSorted(asc, p)),
      line: { color: colorOf(i) },
      hovertemplate: `${g.variant} %{x}: %{y}${opts.unit ? ` ${opts.unit}` : ""} (n=${asc.length})<extra></extra>`,
    });
    const pub = opts.published?.[g.variant];
    if (pub) {
      const keys = ps.filter((p) => typeof pub[p] === "number");
      data.push({
        type: "scatter",
        mode: "markers",
        name: `${g.variant} published`,
        x: keys.map((p) => `p${p}`),
        y: keys.map((p) => pub[p]),
        marker: { color: colorOf(i), symbol: "diamond-open", size: 12, line: { width: 2 } },
      });
    }
  });
  return {
    data,
    layout: baseLayout(opts, {
      xaxis: { type: "category", title: { text: "percentile" } },
      yaxis: {
        type: opts.log === false ? "linear" : "log",
        title: { text: opts.unit ? `latency (${opts.unit})` : "latency" },
      },
    }),
  };
}

export interface CdfOptions extends LatencyOptions {
  /** At most this many points per curve (evenly spaced in rank); default 2000. */
  maxPoints?: number;
  /** Plot 1-CDF (the tail) on a log axis instead of the CDF. */
  tail?: boolean;
}

/** Empirical CDF curves of a series pooled over each variant's iterations. */
export function cdf(data: ResultsData, series: string, opts: CdfOptions = {}): Figure {
  return cdfFromValues(seriesByVariant(data, series, opts.variants), {
    title: opts.title ?? `${series} CDF`,
    ...opts,
  });
}

/** cdf() from samples already grouped by variant. */
export function cdfFromValues(groups: readonly VariantValues[], opts: CdfOptions = {}): Figure {
  const maxPoints = Math.max(2, opts.maxPoints ?? 2000);
  const data: PlotTrace[] = groups.map((g, i) => {
    const asc = sorted(g.values);
    const n = asc.length;
    const xs: number[] = [];
    const ys: number[] = [];
    // Thin by rank, always keeping the last point so the tail is drawn.
    const step = Math.max(1, Math.ceil(n / maxPoints));
    for (let k = 0; k < n; k += step) {
      xs.push(asc[k]);
      ys.push((k + 1) / n);
    }
    if (n > 0 && xs.length && ys[ys.length - 1] !== 1) {
      xs.push(asc[n - 1]);
      ys.push(1);
    }
    return {
      type: "scatter",
      mode: "lines",
      line: { shape: "hv", color: colorOf(i) },
      name: g.variant,
      x: xs,
      y: opts.tail ? ys.map((y) => Math.max(1 - y, 1 / (n + 1))) : ys,
    };
  });
  return {
    data,
    layout: baseLayout(opts, {
      xaxis: {
        type: opts.log ? "log" : "linear",
        title: { text: opts.unit ? `value (${opts.unit})` : "value" },
      },
      yaxis: opts.tail
        ? { type: "log", title: { text: "1 - CDF" } }
        : { range: [0, 1.02], title: { text: "CDF" } },
    }),
  };
}
