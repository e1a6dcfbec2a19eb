import { test } from "node:test";
import assert from "node:assert/strict";
import {
  confidenceInterval,
  geometricMean,
  harmonicMean,
  mean,
  median,
  percentile,
  percentiles,
  populationStddev,
  sampleStddev,
  studentTCdf,
  studentTQuantile,
  studentTTwoSidedP,
  welchTTest,
  summarize,
} from "../../src/analysis/stats";

const close = (a: number, b: number, tol = 1e-6, what = "") =>
  assert.ok(Math.abs(a - b) <= tol, `${what} ${a} vs ${b}`);

test("mean, sample vs population stddev", () => {
  const xs = [2, 4, 4, 4, 5, 5, 7, 9];
  assert.equal(mean(xs), 5);
  assert.equal(populationStddev(xs), 2); // the textbook example
  close(sampleStddev(xs), Math.sqrt(32 / 7), 1e-12);
  assert.ok(Number.isNaN(mean([])));
  assert.ok(Number.isNaN(sampleStddev([1])));
});

test("percentile uses linear interpolation between closest ranks (type 7)", () => {
  const xs = [4, 1, 3, 2];
  assert.equal(percentile(xs, 0), 1);
  assert.equal(percentile(xs, 100), 4);
  close(percentile(xs, 25), 1.75, 1e-12);
  close(percentile(xs, 90), 3.7, 1e-12);
  assert.deepEqual(percentiles(xs, [50, 75]), [2.5, 3.25]);
  assert.equal(median([3, 1, 2]), 2);
  assert.ok(Number.isNaN(percentile(xs, 101)));
  assert.deepEqual(xs, [4, 1, 3, 2], "input untouched");
});

test("geometric and harmonic means", () => {
  close(geometricMean([1, 2, 4]), 2, 1e-12);
  close(harmonicMean([1, 2, 4]), 3 / 1.75, 1e-12);
  assert.ok(Number.isNaN(geometricMean([1, 0])));
});

test("Student t: closed forms for df=1,2 and table quantiles", () => {
  close(studentTCdf(1, 1), 0.75, 1e-12);
  close(studentTCdf(-2, 1), 0.5 + Math.atan(-2) / Math.PI, 1e-12);
  const t = 1.3;
  close(studentTCdf(t, 2), 0.5 + t / (2 * Math.sqrt(2 + t * t)), 1e-12);
  // Two-sided 95% critical values from the t table.
  close(studentTQuantile(0.975, 1), 12.706205, 1e-5);
  close(studentTQuantile(0.975, 4), 2.776445, 1e-6);
  close(studentTQuantile(0.975, 8), 2.306004, 1e-6);
  close(studentTQuantile(0.975, 30), 2.042272, 1e-6);
  close(studentTQuantile(0.995, 10), 3.169273, 1e-6);
  close(studentTQuantile(0.025, 4), -2.776445, 1e-6);
  close(studentTTwoSidedP(2.776445, 4), 0.05, 1e-6);
});

test("95% confidence interval of the mean", () => {
  const ci = confidenceInterval([1, 2, 3, 4, 5]);
  assert.equal(ci.mean, 3);
  // t(0.975, 4) * s / sqrt(n) = 2.776445 * sqrt(2.5) / sqrt(5)
  close(ci.halfWidth, 2.776445 * Math.sqrt(2.5 / 5), 1e-5);
  close(ci.low, 3 - ci.halfWidth, 1e-12);
  assert.ok(Number.isNaN(confidenceInterval([1]).halfWidth));
  const ci90 = confidenceInterval([1, 2, 3, 4, 5], 0.9);
  close(ci90.halfWidth, 2.131847 * Math.sqrt(0.5), 1e-5);
});

test("Welch t-test, computed by hand", () => {
  // a=[0,2], b=[4,6]: means 1 and 5, variances 2 and 2 -> t = -4/sqrt(1+1), df = 4/(1+1) = 2,
  // and with df=2 the CDF is closed-form: p = 2(1 - (0.5 + |t|/(2 sqrt(2+t^2)))).
  const r = welchTTest([0, 2], [4, 6]);
  close(r.t, -4 / Math.SQRT2, 1e-12, "t");
  close(r.df, 2, 1e-12, "df");
  const tt = 4 / Math.SQRT2;
  close(r.p, 1 - tt / Math.sqrt(2 + tt * tt), 1e-10, "p");

  // Unequal variances: a=[1..5] (var 2.5), b=[2,4,..,10] (var 10): se^2 = 0.5 + 2 = 2.5,
  // t = -3/sqrt(2.5), df = 2.5^2 / (0.5^2/4 + 2^2/4) = 100/17; p by numerical integration of the
  // t density (Simpson, 2e6 steps): 0.1075312.
  const u = welchTTest([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]);
  close(u.t, -3 / Math.sqrt(2.5), 1e-12, "t");
  close(u.df, 100 / 17, 1e-12, "df");
  close(u.p, 0.1075312, 1e-6, "p");
  assert.deepEqual(welchTTest([1, 2, 3], [1, 2, 3]), { t: 0, df: 4, p: 1 });
  assert.equal(welchTTest([5, 5], [6, 6]).p, 0);
  assert.ok(Number.isNaN(welchTTest([1], [2, 3]).p));
});

test("summarize", () => {
  const s = summarize([1, 2, 3, 4, 5]);
  assert.equal(s.n, 5);
  assert.equal(s.median, 3);
  assert.equal(s.min, 1);
  assert.equal(s.max, 5);
});

test("Welch p from the @stdlib t distribution: textbook values", () => {
  // P(|T| >= 2.228) with 10 df is 0.05; with 1 df P(|T| >= 1) is 0.5 (Cauchy)
  assert.ok(Math.abs(studentTTwoSidedP(2.228138852, 10) - 0.05) < 1e-6);
  assert.ok(Math.abs(studentTTwoSidedP(1, 1) - 0.5) < 1e-12);
  assert.equal(studentTTwoSidedP(0, 5), 1);
});
