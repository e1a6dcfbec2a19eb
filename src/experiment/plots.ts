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

export interface ResultPlots {
  box(metric: string, opts?: BoxOptions): Figure;
  strip(metric: string, opts?: DistributionOptions): Figure;
  violin(metric: string, opts?: DistributionOptions): Figure;
  bar(metric: string, opts?: Parameters<typeof barCi>[2]): Figure;
  percentiles(series: string, opts?: PercentileCurveOptions): Figure;
  cdf(series: string, opts?: CdfOptions): Figure;
  timeline(variant: string, iteration?: number, opts?: TimelineOptions): Figure;
  runqueue(variant: string, iteration?: number, opts?: RunqueueOptions): Figure;
}

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
