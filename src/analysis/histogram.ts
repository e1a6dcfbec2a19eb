// Latency histograms for any workload that records latencies: HdrHistogram (hdr-histogram-js)
// keeps bounded memory for millions of samples and resolves values to 3 significant digits, so
// integer microseconds up to 2047 are exact and larger ones are within 0.1%. A histogram crosses
// worker threads and iterations as a flat [value, count, value, count, ...] series.
import { build, type Histogram } from "hdr-histogram-js";

/** The percentiles schbench prints (its plist[]), in order. */
export const SCHBENCH_PERCENTILES: readonly number[] = [50, 75, 90, 95, 99, 99.5, 99.9];

/** Relative error bound of a recorded value: 3 significant digits (HdrHistogram's setting here). */
export const HISTOGRAM_RELATIVE_ERROR = 1e-3;

/** Largest value a histogram tracks (it resizes beyond, so this only sizes the first array). */
const HIGHEST_TRACKABLE = 10_000_000;

// The counts array of the pure-JS histogram that build() returns without WebAssembly.
interface CountsView {
  countsArrayLength: number;
  getCountAtIndex(i: number): number;
  valueFromIndex(i: number): number;
}

/**
 * A latency histogram (integer values, e.g. microseconds). Percentiles follow HdrHistogram:
 * the highest value equivalent to the sample at that rank, exact for values below 2048.
 *
 * @example
 * ```ts
 * import { LatencyHistogram } from "schedlab";
 * const h = new LatencyHistogram();
 * for (let v = 1; v <= 1000; v++) h.record(v);
 * console.log(h.count, h.percentiles([50, 99, 99.9]));
 * ```
 * Prints:
 * ```text
 * 1000 [ 500, 990, 999 ]
 * ```
 */
export class LatencyHistogram {
  private readonly h: Histogram;
  constructor() {
    this.h = build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: HIGHEST_TRACKABLE,
      numberOfSignificantValueDigits: 3,
      useWebAssembly: false,
    });
  }

  /** Record one value (rounded to an integer; negative values are an error). */
  record(value: number, count = 1): void {
    if (!(value >= 0) || !Number.isFinite(value))
      throw new Error(`LatencyHistogram.record: value must be a finite number >= 0 (got ${value})`);
    this.h.recordValueWithCount(Math.round(value), count);
  }

  /** Add every sample of `other` to this histogram (mmtests-style merge of iterations). */
  merge(other: LatencyHistogram): this {
    this.h.add(other.h);
    return this;
  }

  /** Number of samples. */
  get count(): number {
    return this.h.totalCount;
  }

  /** Largest sample (0 when empty). */
  get max(): number {
    return this.h.maxValue;
  }

  /** The value at percentile p (0-100); NaN when empty. */
  percentile(p: number): number {
    if (this.count === 0) return NaN;
    return this.h.getValueAtPercentile(p);
  }

  /** The values at several percentiles. */
  percentiles(ps: readonly number[]): number[] {
    return ps.map((p) => this.percentile(p));
  }

  /** The fraction of samples at or below each value of xs (an empirical CDF). */
  cdf(xs: readonly number[]): number[] {
    const pairs = this.toSeries();
    const n = this.count;
    return xs.map((x) => {
      let c = 0;
      for (let i = 0; i < pairs.length; i += 2) if (pairs[i] <= x) c += pairs[i + 1];
      return n ? c / n : NaN;
    });
  }

  /** The non-empty buckets as [value, count, value, count, ...] (a serialisable form). */
  toSeries(): number[] {
    const v = this.h as unknown as CountsView;
    const out: number[] = [];
    for (let i = 0; i < v.countsArrayLength; i++) {
      const c = v.getCountAtIndex(i);
      if (c > 0) out.push(v.valueFromIndex(i), c);
    }
    return out;
  }

  /** A histogram from toSeries() output (one or several concatenated). */
  static fromSeries(pairs: readonly number[]): LatencyHistogram {
    if (pairs.length % 2 !== 0)
      throw new Error(
        `LatencyHistogram.fromSeries: expected [value, count] pairs (got length ${pairs.length})`,
      );
    const h = new LatencyHistogram();
    for (let i = 0; i < pairs.length; i += 2) h.record(pairs[i], pairs[i + 1]);
    return h;
  }

  /** One histogram of every sample of several (e.g. all iterations of a variant). */
  static merged(parts: readonly LatencyHistogram[]): LatencyHistogram {
    const h = new LatencyHistogram();
    for (const p of parts) h.merge(p);
    return h;
  }
}

/** Metric names of the percentiles: lat_p50, lat_p75, ..., lat_p99.5, lat_p99.9. */
export function percentileMetricName(prefix: string, p: number): string {
  return `${prefix}_p${p}`;
}
