// What would have to be true: how each prediction moves across each unknown's range. The
// sensitivity (tornado) plot puts, per figure, one bar per unknown from the figure at the low end
// of the unknown's swept values to the high end (the others at their base values), with the
// published number marked; the envelope plot draws one figure over one unknown's values, the
// spread over iterations as a band, the published number and its band as lines.
import type { UnknownValue } from "../experiment/unknown";
import { baseLayout, colorOf, type CommonPlotOptions, type Figure, type PlotTrace } from "./types";

/** The data of a sensitivity (tornado) plot. */
export interface SensitivityData {
  rows: Array<{
    figure: string;
    unknown: string;
    low: { value: UnknownValue; figure: number };
    high: { value: UnknownValue; figure: number };
    base: number;
    published: number | null;
  }>;
}

/** The data of an envelope plot: one figure over one unknown. */
export interface EnvelopeData {
  unknown: string;
  unit: string;
  figure: string;
  points: Array<{ value: UnknownValue; mean: number; min: number; max: number }>;
  published: number | null;
  band: [number, number] | null;
  base: UnknownValue;
}

/** Options of the sensitivity plot. */
export interface SensitivityOptions extends CommonPlotOptions {
  /** The figures to show (default: all the sweep has). */
  figures?: string[];
  /**
   * "ratio" (default) draws each figure relative to its published number (1 = published), so
   * figures of different units share one axis; "value" draws the figures' own values.
   */
  scale?: "ratio" | "value";
}

/** Options of the envelope plot. */
export type EnvelopeOptions = CommonPlotOptions;

const fmtV = (v: UnknownValue) => (typeof v === "number" ? `${+v.toPrecision(4)}` : v);

/**
 * A tornado: for each figure (a row group) and unknown, a bar from the figure at the unknown's
 * lowest swept value to its highest, the others at base; a diamond at the base value and a
 * black tick at the published number.
 */
export function sensitivityPlot(d: SensitivityData, opts: SensitivityOptions = {}): Figure {
  const ratio = (opts.scale ?? "ratio") === "ratio";
  const unknowns = [...new Set(d.rows.map((r) => r.unknown))];
  const norm = (x: number, pub: number | null) => (ratio ? (pub ? x / pub : NaN) : x);
  const label = (r: SensitivityData["rows"][number]) => `${r.figure} · ${r.unknown}`;
  const data: PlotTrace[] = unknowns.map((u, i) => {
    const rows = d.rows.filter((r) => r.unknown === u);
    const lo = rows.map((r) =>
      Math.min(norm(r.low.figure, r.published), norm(r.high.figure, r.published)),
    );
    const hi = rows.map((r) =>
      Math.max(norm(r.low.figure, r.published), norm(r.high.figure, r.published)),
    );
    return {
      type: "bar",
      orientation: "h",
      name: u,
      y: rows.map(label),
      base: lo,
      x: hi.map((h, j) => h - lo[j]),
      marker: { color: colorOf(i) },
      hovertext: rows.map(
        (r) =>
          `${u} ${fmtV(r.low.value)} -> ${r.figure} ${+r.low.figure.toPrecision(4)}; ${u} ${fmtV(r.high.value)} -> ${+r.high.figure.toPrecision(4)}`,
      ),
      hoverinfo: "text",
    };
  });
  data.push({
    type: "scatter",
    mode: "markers",
    name: "base values",
    y: d.rows.map(label),
    x: d.rows.map((r) => norm(r.base, r.published)),
    marker: { symbol: "diamond", color: "#333", size: 9 },
  });
  if (!ratio)
    data.push({
      type: "scatter",
      mode: "markers",
      name: "published",
      y: d.rows.map(label),
      x: d.rows.map((r) => r.published ?? NaN),
      marker: { symbol: "line-ns-open", color: "black", size: 16, line: { width: 3 } },
    });
  const layout = baseLayout(opts, {
    barmode: "overlay",
    xaxis: { title: { text: ratio ? "simulated / published" : "simulated" } },
    yaxis: { automargin: true, autorange: "reversed" },
    height: opts.height ?? Math.max(300, 40 + 28 * d.rows.length),
    legend: { orientation: "h" },
  });
  if (ratio)
    layout.shapes = [
      {
        type: "line",
        x0: 1,
        x1: 1,
        yref: "paper",
        y0: 0,
        y1: 1,
        line: { color: "black", dash: "dash" },
      },
    ];
  return { data, layout };
}

/** One figure over one unknown: mean with the min-max over iterations, published and its band. */
export function envelopePlot(d: EnvelopeData, opts: EnvelopeOptions = {}): Figure {
  const x = d.points.map((p) => p.value);
  const data: PlotTrace[] = [
    {
      type: "scatter",
      mode: "lines",
      name: "max over iterations",
      x,
      y: d.points.map((p) => p.max),
      line: { width: 0 },
      showlegend: false,
    },
    {
      type: "scatter",
      mode: "lines",
      name: "min-max over iterations",
      x,
      y: d.points.map((p) => p.min),
      fill: "tonexty",
      fillcolor: "rgba(31,119,180,0.2)",
      line: { width: 0 },
    },
    {
      type: "scatter",
      mode: "lines+markers",
      name: `${d.figure} (simulated mean)`,
      x,
      y: d.points.map((p) => p.mean),
      marker: { color: colorOf(0) },
    },
  ];
  const shapes: Record<string, unknown>[] = [];
  if (d.published !== null)
    shapes.push({
      type: "line",
      xref: "paper",
      x0: 0,
      x1: 1,
      y0: d.published,
      y1: d.published,
      line: { color: "black", dash: "dash" },
    });
  if (d.band)
    shapes.push({
      type: "rect",
      xref: "paper",
      x0: 0,
      x1: 1,
      y0: d.band[0],
      y1: d.band[1],
      fillcolor: "rgba(44,160,44,0.12)",
      line: { width: 0 },
    });
  const layout = baseLayout(opts, {
    xaxis: {
      title: { text: `${d.unknown}${d.unit && d.unit !== "choice" ? ` (${d.unit})` : ""}` },
    },
    yaxis: { title: { text: d.figure } },
    shapes,
    annotations:
      d.published === null
        ? []
        : [
            {
              xref: "paper",
              x: 1,
              y: d.published,
              xanchor: "right",
              yanchor: "bottom",
              text: `published ${+d.published.toPrecision(4)}${d.band ? " (band shaded)" : ""}`,
              showarrow: false,
            },
          ],
  });
  return { data, layout };
}
