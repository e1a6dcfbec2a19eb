// What published percentiles imply about a sub-population. When a run's samples are a mixture
// F = (1 - w)·K + w·U of a component K that another run shows alone (e.g. local wakeups, which
// the patched run has only) and an unknown one U (the cross-node wakeups), U's CDF at each of
// the mixture's percentile points follows: U(x) = (F(x) - (1 - w)·K(x)) / w. K between its listed
// percentiles is interpolated linearly (an assumption, stated with the result); outside them only
// bounds are known, so each point carries a low and a high value. Derived numbers for the docs and
// notebooks, never an input of the model.

/** Percentile (0-100) → value, as schbench and mmtests print them. */
export type Percentiles = Readonly<Record<number, number>>;

/** One point of an implied CDF: at `x`, the component's CDF lies in [lo, hi] (0-1). */
export interface ImpliedPoint {
  /** Value (e.g. usec) at which the CDF is given: the mixture's `percentile`. */
  x: number;
  /** The mixture's percentile at `x` (0-100). */
  percentile: number;
  /** Lower bound of the component's CDF at `x` (clamped to 0-1). */
  lo: number;
  /** Upper bound (equal to `lo` where `x` falls inside the known component's listed range). */
  hi: number;
}

function sorted(p: Percentiles, what: string): [number, number][] {
  const pts = Object.entries(p)
    .map(([q, v]) => [Number(q) / 100, v] as [number, number])
    .sort((a, b) => a[0] - b[0]);
  if (pts.length === 0) throw new Error(`${what}: no percentiles given`);
  for (const [q, v] of pts) {
    if (!(q > 0 && q < 1) || !Number.isFinite(v))
      throw new Error(`${what}: percentiles must be in (0, 100) with finite values`);
  }
  for (let i = 1; i < pts.length; i++) {
    if (pts[i][1] < pts[i - 1][1])
      throw new Error(`${what}: values must not fall as percentiles rise`);
  }
  return pts;
}

/** Bounds of a CDF known only at `pts` (fraction, value), linear between them. */
function cdfBounds(pts: [number, number][], x: number): [number, number] {
  const first = pts[0];
  const last = pts[pts.length - 1];
  if (x < first[1]) return [0, first[0]];
  if (x > last[1]) return [last[0], 1];
  for (let i = pts.length - 1; i >= 0; i--) {
    if (pts[i][1] === x) return [pts[i][0], pts[i][0]];
  }
  let i = 1;
  while (pts[i][1] < x) i++;
  const [q0, v0] = pts[i - 1];
  const [q1, v1] = pts[i];
  const f = q0 + ((q1 - q0) * (x - v0)) / (v1 - v0);
  return [f, f];
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/**
 * The CDF of the unknown component U of a mixture `(1 - share)·known + share·U`, at each of the
 * mixture's percentile points, from the two runs' published percentiles.
 *
 * @example
 * ```ts
 * import { analysis } from "schedlab";
 * // half the samples as `known` (10-12), half slower: the mixture's p75 (20) is U's median
 * const u = analysis.impliedComponent({ 50: 12, 75: 20 }, { 50: 10, 99: 12 }, 0.5);
 * console.log(u.map((p) => `${p.x}: ${p.lo.toFixed(2)}`).join(", "));
 * ```
 * Prints:
 * ```text
 * 12: 0.01, 20: 0.50
 * ```
 */
export function impliedComponent(
  mixture: Percentiles,
  known: Percentiles,
  share: number,
): ImpliedPoint[] {
  if (!(share > 0 && share <= 1))
    throw new Error(`impliedComponent: share must be in (0, 1] (got ${share})`);
  const mix = sorted(mixture, "impliedComponent mixture");
  const k = sorted(known, "impliedComponent known");
  return mix.map(([q, x]) => {
    const [kLo, kHi] = cdfBounds(k, x);
    return {
      x,
      percentile: q * 100,
      lo: clamp01((q - (1 - share) * kHi) / share),
      hi: clamp01((q - (1 - share) * kLo) / share),
    };
  });
}

/**
 * The share g of a mixture `(1 - g)·known + g·other` implied at each of the mixture's percentile
 * points: g = (K(x) - q) / (K(x) - O(x)), with K and O read from their percentiles (linear between
 * listed points, bounded outside them), so each point gives a range [lo, hi] (NaN where the two
 * components do not differ there).
 */
export function impliedShare(
  mixture: Percentiles,
  known: Percentiles,
  other: Percentiles,
): { x: number; percentile: number; lo: number; hi: number }[] {
  const mix = sorted(mixture, "impliedShare mixture");
  const k = sorted(known, "impliedShare known");
  const o = sorted(other, "impliedShare other");
  return mix.map(([q, x]) => {
    const gs: number[] = [];
    for (const fk of cdfBounds(k, x))
      for (const fo of cdfBounds(o, x)) if (fk - fo > 1e-9) gs.push(clamp01((fk - q) / (fk - fo)));
    return {
      x,
      percentile: q * 100,
      lo: gs.length ? Math.min(...gs) : NaN,
      hi: gs.length ? Math.max(...gs) : NaN,
    };
  });
}
