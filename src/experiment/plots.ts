// res.plot: the figure builders of src/plot bound to one run's data.
import type { ResultsData } from "./types";
import type { Figure } from "../plot/types";
import {
  box,
  strip,
  violin,
  barCi,
  type BoxOptions,
  type DistributionOptions,
} from "../plot/distribution";
import {
  percentileCurve,
  cdf,
  type PercentileCurveOptions,
  type CdfOptions,
} from "../plot/latency";
import {
  cpuTimeline,
  runqueueLength,
  type TimelineOptions,
  type RunqueueOptions,
} from "../plot/timeline";

/**
 * `res.plot`: the figure builders of `plot` bound to one run's results. Each returns a Figure;
 * draw it in a notebook with plot.display(fig) or put it in a report.
 */
export interface ResultPlots {
  /** Box plot of a metric's per-iteration values, one box per variant. */
  box(metric: string, opts?: BoxOptions): Figure;
  /** Every iteration's value of a metric as a point, per variant. */
  strip(metric: string, opts?: DistributionOptions): Figure;
  /** Violin plot of a metric's per-iteration values, per variant. */
  violin(metric: string, opts?: DistributionOptions): Figure;
  /** Mean of a metric per variant with its confidence interval. */
  bar(metric: string, opts?: Parameters<typeof barCi>[2]): Figure;
  /** Percentiles (p50..p99.9) of a series pooled over iterations, per variant. */
  percentiles(series: string, opts?: PercentileCurveOptions): Figure;
  /** Cumulative distribution of a series pooled over iterations, per variant. */
  cdf(series: string, opts?: CdfOptions): Figure;
  /** Which task ran on which CPU over time (needs run({ trace: true })). */
  timeline(variant: string, iteration?: number, opts?: TimelineOptions): Figure;
  /** Runqueue length per CPU over time (needs run({ trace: true })). */
  runqueue(variant: string, iteration?: number, opts?: RunqueueOptions): Figure;
}

/** res.plot for one run's data. */
export function plotsFor(data: ResultsData): ResultPlots {
  const traceOf = (variant: string, i: number) => {
    const it = data.iterations.find((x) => x.variant === variant && x.iteration === i);
    if (!it) throw new Error(`plot: no iteration ${i} of variant "${variant}"`);
    if (!it.trace) throw new Error("plot: this run recorded no trace; run with { trace: true }");
    return it.trace;
  };
  return {
    box: (m, o) => box(data, m, o),
    strip: (m, o) => strip(data, m, o),
    violin: (m, o) => violin(data, m, o),
    bar: (m, o) => barCi(data, m, o),
    percentiles: (s, o) => percentileCurve(data, s, o),
    cdf: (s, o) => cdf(data, s, o),
    timeline: (v, i = 0, o) => cpuTimeline(traceOf(v, i), o),
    runqueue: (v, i = 0, o) => runqueueLength(traceOf(v, i), o),
  };
}
