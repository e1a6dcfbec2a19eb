// Distributions of a metric over iterations, one group per variant: box, strip, violin, and a
// bar of means with confidence-interval error bars.
import type { ResultsData } from "../experiment/types";
import { compareValues } from "../analysis/compare";
import { valuesByVariant, type VariantValues } from "../analysis/metric";
import { baseLayout, colorOf, type CommonPlotOptions, type Figure, type PlotTrace } from "./types";

export interface DistributionOptions extends CommonPlotOptions {
  /** Variants and their order; default the spec's order. */
  variants?: string[];
  /** Axis title for the values; default the metric name. */
  yTitle?: string;
  /**
   * The published figure: one number drawn as a dashed horizontal line across the plot, or a
   * number per variant drawn as a short black bar over that variant.
   */
  published?: number | Record<string, number | null | undefined>;
}

export interface BoxOptions extends DistributionOptions {
  /** Show the iterations as points beside the box; default "all". */
  points?: "all" | "outliers" | false;
}

/** Box plot of `metric` over iterations, per variant. */
export function box(data: ResultsData, metric: string, opts: BoxOptions = {}): Figure {
  return boxFromValues(valuesByVariant(data, metric, opts.variants), { yTitle: metric, ...opts });
}

/** box() from values already grouped by variant (for numbers that do not come from one run). */
export function boxFromValues(groups: readonly VariantValues[], opts: BoxOptions = {}): Figure {
  const data: PlotTrace[] = groups.map((g, i) => ({
    type: "box",
    name: g.variant,
    y: g.values,
    boxmean: true,
    boxpoints: opts.points ?? "all",
    jitter: 0.3,
    pointpos: -1.6,
    marker: { color: colorOf(i) },
  }));
  return withPublished({ data, layout: distLayout(opts) }, groups, opts.published);
}

/** Strip plot: every iteration as a jittered point, no box. */
export function strip(data: ResultsData, metric: string, opts: DistributionOptions = {}): Figure {
  return stripFromValues(valuesByVariant(data, metric, opts.variants), { yTitle: metric, ...opts });
}

/** strip() from values already grouped by variant. */
export function stripFromValues(
  groups: readonly VariantValues[],
  opts: DistributionOptions = {},
): Figure {
  // A box trace with transparent box and all points is plotly's idiom for a strip chart.
  const data: PlotTrace[] = groups.map((g, i) => ({
    type: "box",
    name: g.variant,
    y: g.values,
    boxpoints: "all",
    jitter: 0.5,
    pointpos: 0,
    fillcolor: "rgba(255,255,255,0)",
    line: { color: "rgba(255,255,255,0)" },
    hoveron: "points",
    marker: { color: colorOf(i), size: 8 },
  }));
  return withPublished({ data, layout: distLayout(opts) }, groups, opts.published);
}

/** Violin plot with the inner box, mean line and points. */
export function violin(data: ResultsData, metric: string, opts: DistributionOptions = {}): Figure {
  return violinFromValues(valuesByVariant(data, metric, opts.variants), {
    yTitle: metric,
    ...opts,
  });
}

/** violin() from values already grouped by variant. */
export function violinFromValues(
  groups: readonly VariantValues[],
  opts: DistributionOptions = {},
): Figure {
  const data: PlotTrace[] = groups.map((g, i) => ({
    type: "violin",
    name: g.variant,
    y: g.values,
    box: { visible: true },
    meanline: { visible: true },
    points: "all",
    line: { color: colorOf(i) },
  }));
  return withPublished({ data, layout: distLayout(opts) }, groups, opts.published);
}

export interface BarCiOptions extends DistributionOptions {
  /** Confidence level of the error bars; default 0.95. */
  confidence?: number;
  /** Baseline for the % change labels; default the first variant. */
  baseline?: string;
}

/** Bar of the mean per variant with Student-t confidence-interval error bars and % change labels. */
export function barCi(data: ResultsData, metric: string, opts: BarCiOptions = {}): Figure {
  return barCiFromValues(metric, valuesByVariant(data, metric, opts.variants), {
    yTitle: metric,
    ...opts,
  });
}

/** barCi() from values already grouped by variant. */
export function barCiFromValues(
  metric: string,
  groups: readonly VariantValues[],
  opts: BarCiOptions = {},
): Figure {
  const rows = compareValues(metric, groups, {
    baseline: opts.baseline,
    confidence: opts.confidence,
  });
  const level = Math.round((opts.confidence ?? 0.95) * 100);
  const trace: PlotTrace = {
    type: "bar",
    name: `mean ± ${level}% CI`,
    x: rows.map((r) => r.variant),
    y: rows.map((r) => r.mean),
    error_y: {
      type: "data",
      array: rows.map((r) => (Number.isFinite(r.ci95) ? r.ci95 : 0)),
      visible: true,
    },
    text: rows.map((r) =>
      r.baseline
        ? "baseline"
        : `${r.pctChange >= 0 ? "+" : ""}${r.pctChange.toFixed(1)}%${r.significant ? "*" : ""}`,
    ),
    textposition: "outside",
    marker: { color: rows.map((_, i) => colorOf(i)) },
  };
  return withPublished(
    { data: [trace], layout: distLayout(opts, { showlegend: false }) },
    groups,
    opts.published,
  );
}

function distLayout(
  opts: DistributionOptions,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return baseLayout(opts, {
    yaxis: { title: { text: opts.yTitle ?? "" }, zeroline: false },
    xaxis: { type: "category" },
    showlegend: false,
    ...extra,
  });
}

/** Add the published value(s) to a categorical-x figure. */
export function withPublished(
  fig: Figure,
  groups: readonly { variant: string }[],
  published: DistributionOptions["published"],
): Figure {
  if (published === undefined || published === null) return fig;
  if (typeof published === "number") {
    const shapes = [...((fig.layout.shapes as unknown[]) ?? [])];
    shapes.push({
      type: "line",
      xref: "paper",
      x0: 0,
      x1: 1,
      yref: "y",
      y0: published,
      y1: published,
      line: { color: "black", width: 2, dash: "dash" },
    });
    const annotations = [...((fig.layout.annotations as unknown[]) ?? [])];
    annotations.push({
      xref: "paper",
      x: 1,
      xanchor: "right",
      yref: "y",
      y: published,
      yanchor: "bottom",
      text: `published ${published}`,
      showarrow: false,
    });
    return { ...fig, layout: { ...fig.layout, shapes, annotations } };
  }
  const xs: string[] = [];
  const ys: number[] = [];
  for (const g of groups) {
    const v = published[g.variant];
    if (typeof v === "number") {
      xs.push(g.variant);
      ys.push(v);
    }
  }
  if (xs.length === 0) return fig;
  const marker: PlotTrace = {
    type: "scatter",
    mode: "markers",
    name: "published",
    x: xs,
    y: ys,
    marker: {
      symbol: "line-ew-open",
      size: 44,
      color: "black",
      line: { width: 3, color: "black" },
    },
    hovertemplate: "published %{y}<extra></extra>",
  };
  return { ...fig, data: [...fig.data, marker], layout: { ...fig.layout, showlegend: true } };
}
