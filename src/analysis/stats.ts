// Summary statistics for iteration results. Pure functions over number arrays (the t distribution
// comes from @stdlib), so the CLI ledger and the notebooks compute the same numbers.
//
// Conventions: an empty input gives NaN (never throws) so a table with a missing variant still
// renders; inputs are never mutated.
import tCdf from "@stdlib/stats-base-dists-t-cdf";

/** Arithmetic mean. */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

function sumSquaredDeviations(xs: readonly number[]): number {
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) * (x - m);
  return s;
}

/** Sample variance (divides by n-1, Bessel's correction). NaN for n < 2. */
export function sampleVariance(xs: readonly number[]): number {
  return xs.length < 2 ? NaN : sumSquaredDeviations(xs) / (xs.length - 1);
}

/** Population variance (divides by n). */
export function populationVariance(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : sumSquaredDeviations(xs) / xs.length;
}

/** Sample standard deviation (n-1): the one to report for iterations of a benchmark. */
export function sampleStddev(xs: readonly number[]): number {
  return Math.sqrt(sampleVariance(xs));
}

/** Population standard deviation (n). */
export function populationStddev(xs: readonly number[]): number {
  return Math.sqrt(populationVariance(xs));
}

/** Smallest value (NaN for an empty sample). */
export function min(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => Math.min(b, a), Infinity);
}

/** Largest value (NaN for an empty sample). */
export function max(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => Math.max(b, a), -Infinity);
}

/** Ascending copy. */
export function sorted(xs: readonly number[]): number[] {
  return Array.from(xs).sort((a, b) => a - b);
}

/**
 * Percentile of an ascending-sorted array, p in [0, 100].
 * Method: linear interpolation between closest ranks, h = (n-1)·p/100
 * (Hyndman & Fan type 7; NumPy's and R's default, Excel PERCENTILE.INC).
 */
export function percentileSorted(asc: ArrayLike<number>, p: number): number {
  const n = asc.length;
  if (n === 0 || !(p >= 0 && p <= 100)) return NaN;
  const h = ((n - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return asc[lo] + (h - lo) * (asc[hi] - asc[lo]);
}

/** Percentile, p in [0, 100], linear interpolation (type 7, see percentileSorted). */
export function percentile(xs: readonly number[], p: number): number {
  return percentileSorted(sorted(xs), p);
}

/** Several percentiles with a single sort. */
export function percentiles(xs: readonly number[], ps: readonly number[]): number[] {
  const asc = sorted(xs);
  return ps.map((p) => percentileSorted(asc, p));
}

/** The 50th percentile. */
export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

/** Geometric mean; NaN unless every value is > 0. */
export function geometricMean(xs: readonly number[]): number {
  if (xs.length === 0 || xs.some((x) => !(x > 0))) return NaN;
  let s = 0;
  for (const x of xs) s += Math.log(x);
  return Math.exp(s / xs.length);
}

/** Harmonic mean (mmtests' Hmean for rates); NaN unless every value is > 0. */
export function harmonicMean(xs: readonly number[]): number {
  if (xs.length === 0 || xs.some((x) => !(x > 0))) return NaN;
  let s = 0;
  for (const x of xs) s += 1 / x;
  return xs.length / s;
}

// ---- Student t distribution -------------------------------------------------------------------

/** ln Γ(x), Lanczos approximation (g=7, n=9), |error| < 1e-14 for x > 0. */
export function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction for the incomplete beta function (modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 500; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** Regularized incomplete beta I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront =
    logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x);
  // The continued fraction converges fast for x < (a+1)/(a+b+2); use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaContinuedFraction(a, b, x)) / a;
  return 1 - (Math.exp(lnFront) * betaContinuedFraction(b, a, 1 - x)) / b;
}

/**
 * Two-sided tail probability P(|T| >= |t|) for Student's t with df degrees of freedom, from the
 * t distribution of `@stdlib/stats-base-dists-t-cdf` rather than our own incomplete beta.
 */
export function studentTTwoSidedP(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return NaN;
  if (!Number.isFinite(t)) return 0;
  return Math.min(1, 2 * tCdf(-Math.abs(t), df));
}

/** CDF of Student's t distribution. */
export function studentTCdf(t: number, df: number): number {
  const tail = studentTTwoSidedP(t, df) / 2;
  return t >= 0 ? 1 - tail : tail;
}

/** Quantile (inverse CDF) of Student's t, by bisection on the CDF: exact to ~1e-12. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) return NaN;
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) hi *= 2; // df=1, p=0.9995 needs hi ~ 637
  for (let i = 0; i < 200 && hi - lo > 1e-13 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

// ---- intervals and tests ----------------------------------------------------------------------

/** A confidence interval of a mean (see confidenceInterval). */
export interface ConfidenceInterval {
  mean: number;
  /** Half-width: the interval is mean ± halfWidth. */
  halfWidth: number;
  low: number;
  high: number;
  level: number;
}

/**
 * Confidence interval of the mean: mean ± t(1-(1-level)/2, n-1) · s/√n, with s the sample
 * stddev. Student t (not normal) because benchmark runs have few iterations. NaN width for n < 2.
 */
export function confidenceInterval(xs: readonly number[], level = 0.95): ConfidenceInterval {
  const m = mean(xs);
  const n = xs.length;
  const halfWidth =
    n < 2 ? NaN : studentTQuantile(1 - (1 - level) / 2, n - 1) * (sampleStddev(xs) / Math.sqrt(n));
  return { mean: m, halfWidth, low: m - halfWidth, high: m + halfWidth, level };
}

/** The outcome of welchTTest. */
export interface WelchResult {
  /** (mean(a) - mean(b)) / sqrt(va/na + vb/nb) */
  t: number;
  /** Welch–Satterthwaite degrees of freedom. */
  df: number;
  /** Two-sided p-value. */
  p: number;
}

/**
 * Welch's unequal-variances t-test of mean(a) = mean(b), two-sided. Chosen over Student's
 * pooled test because a patch can change the spread of a benchmark as well as its mean.
 */
export function welchTTest(a: readonly number[], b: readonly number[]): WelchResult {
  const na = a.length;
  const nb = b.length;
  if (na < 2 || nb < 2) return { t: NaN, df: NaN, p: NaN };
  const va = sampleVariance(a) / na;
  const vb = sampleVariance(b) / nb;
  const diff = mean(a) - mean(b);
  const se2 = va + vb;
  if (se2 === 0) {
    // Both samples constant: identical means are indistinguishable, different ones certain.
    return diff === 0
      ? { t: 0, df: na + nb - 2, p: 1 }
      : { t: diff > 0 ? Infinity : -Infinity, df: na + nb - 2, p: 0 };
  }
  const t = diff / Math.sqrt(se2);
  const df = (se2 * se2) / ((va * va) / (na - 1) + (vb * vb) / (nb - 1));
  return { t, df, p: studentTTwoSidedP(t, df) };
}

/** The usual figures of one sample (see summarize). */
export interface Summary {
  n: number;
  mean: number;
  stddev: number; // sample
  min: number;
  max: number;
  median: number;
  ci95: number; // half-width
}

/** n, mean, sample stddev, min, max, median and the 95% CI half-width of a sample. */
export function summarize(xs: readonly number[]): Summary {
  return {
    n: xs.length,
    mean: mean(xs),
    stddev: sampleStddev(xs),
    min: min(xs),
    max: max(xs),
    median: median(xs),
    ci95: confidenceInterval(xs, 0.95).halfWidth,
  };
}
