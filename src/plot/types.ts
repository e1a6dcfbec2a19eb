// A plotly figure as plain data: what Plotly.newPlot takes. Builders return these without
// importing plotly, so they run (and are tested) in Node; display() and the report draw them.

/** One plotly trace ({ type: "box", y: [...], ... }); kept loose, plotly has hundreds of keys. */
export interface PlotTrace {
  type?: string;
  name?: string;
  [key: string]: unknown;
}

/** A plotly figure as plain data (what Plotly.newPlot takes); draw it with plot.display(). */
export interface Figure {
  data: PlotTrace[];
  layout: Record<string, unknown>;
  /** plotly config (displaylogo, responsive...); optional. */
  config?: Record<string, unknown>;
}

/** Options every builder takes. */
export interface CommonPlotOptions {
  title?: string;
  /** Figure height in px; plotly's default is 450. */
  height?: number;
  width?: number;
}

/** Default layout bits shared by the builders. */
export function baseLayout(
  opts: CommonPlotOptions,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const layout: Record<string, unknown> = {
    margin: { l: 70, r: 30, t: opts.title ? 50 : 20, b: 50 },
    ...extra,
  };
  if (opts.title) layout.title = { text: opts.title };
  if (opts.height) layout.height = opts.height;
  if (opts.width) layout.width = opts.width;
  return layout;
}

/** A qualitative palette (plotly's default D3 set) so variants keep colours across figures. */
export const PALETTE = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
];

/** The palette colour of series i (wraps around), so a variant keeps its colour across figures. */
export function colorOf(i: number): string {
  return PALETTE[((i % PALETTE.length) + PALETTE.length) % PALETTE.length];
}
