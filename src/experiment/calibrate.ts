// Calibration: fit declared unknowns on published figures named in advance, then freeze them.
//
// The objective is the sum over the targets of ((simulated - published) / scale)^2, scale the
// half-width of the target's band (else 10% of the published value, a stated choice), so each
// target weighs by how precisely its source pins it. The simulator is noisy across seeds; every
// evaluation runs the same seeds (common random numbers), which makes the objective a
// deterministic, if rough, function of the unknowns, so two candidate values are compared on the
// same draws and not on luck. Rough surfaces defeat gradients, so the search is derivative-free:
// a space-filling start (evenly spaced levels, or a Latin hypercube beyond 2 unknowns) with half
// the budget, then Nelder-Mead (fmin) from the best start point with the rest. The fitted values
// are then run on held-out seeds: the record keeps both objectives, so a fit that only matched
// one seed set's draws shows as a large held-out objective.
import seedrandom from "seedrandom";
import { nelderMead } from "../analysis/optimize";
import type { Results } from "./results";
import type { RunOptions } from "./options";
import type { Unknown, UnknownValue } from "./unknown";
import { metricFigures, type SweepFigure } from "./sweep";

/** A figure a calibration fits: its id ("metric/variant"), the published value and its band. */
export interface CalibrationTarget {
  id: string;
  published: number;
  band?: [number, number] | null;
}

/** How a calibration runs (Experiment.calibrate and calibrateReproduction share these). */
export interface CalibrateOptions extends Omit<RunOptions, "onProgress"> {
  /** The figures to fit, named before the fit; never more unknowns than targets. */
  targets: CalibrationTarget[];
  /** The unknowns to fit; the others stay at their values. */
  unknowns: string[];
  /** Figures judged as predictions: a target may not be one of them. */
  predicted?: string[];
  /** Simulation runs the search may spend (default 24). */
  budget?: number;
  /** A point's figures from its results (default: every metric's mean per variant). */
  figures?: (res: Results) => SweepFigure[];
  /** Called after each evaluation. */
  onEvaluation?: (
    n: number,
    budget: number,
    values: Record<string, UnknownValue>,
    objective: number,
  ) => void;
}

/** What a calibration found, with everything needed to judge and repeat it. */
export interface CalibrationRecord {
  /** The fitted values. */
  values: Record<string, UnknownValue>;
  /** The values the other unknowns kept during the fit. */
  fixed: Record<string, UnknownValue>;
  targets: Array<{
    id: string;
    published: number;
    band: [number, number] | null;
    simulated: number;
    /** simulated - published. */
    residual: number;
    /** The same target on the held-out seeds. */
    heldOut: number;
  }>;
  objective: number;
  heldOutObjective: number;
  method: string;
  budget: number;
  evaluations: number;
  run: { iterations: number; duration: number | null; seed: string; heldOutSeed: string };
}

/** What calibrate() needs of an experiment (Experiment has it; structural to avoid a cycle). */
export interface Calibratable<E> {
  declaredUnknowns(): readonly Unknown<E>[];
  unknownValues(): Record<string, UnknownValue>;
  assume(values: Record<string, UnknownValue>): Calibratable<E>;
  runSync(opts: RunOptions): Results;
}

const METHOD =
  "common random numbers; space-filling start (evenly spaced levels, Latin hypercube beyond 2 unknowns) with half the budget, then Nelder-Mead (fmin 0.0.4) in the unknowns' ranges scaled to [0, 1]; objective sum(((simulated - published) / band half-width)^2); fitted values re-run on held-out seeds";

/** Refuses a calibration that breaks a rule, naming the field. */
export function checkCalibration<E>(unknowns: readonly Unknown<E>[], opts: CalibrateOptions): void {
  if (!Array.isArray(opts.targets) || opts.targets.length === 0)
    throw new Error("calibrate: targets must name at least one published figure");
  if (!Array.isArray(opts.unknowns) || opts.unknowns.length === 0)
    throw new Error("calibrate: unknowns must name at least one declared unknown");
  for (const t of opts.targets) {
    if (!t || typeof t.id !== "string")
      throw new Error("calibrate: each target must be { id, published, band? }");
    if (typeof t.published !== "number" || !Number.isFinite(t.published))
      throw new Error(`calibrate: target ${t.id} is not a published figure (no published value)`);
  }
  const ids = opts.targets.map((t) => t.id);
  if (new Set(ids).size !== ids.length) throw new Error("calibrate: targets must be distinct");
  for (const id of ids)
    if (opts.predicted?.includes(id))
      throw new Error(
        `calibrate: target ${id} is also judged as a prediction; a figure is calibrated or predicted, never both`,
      );
  for (const name of opts.unknowns)
    if (!unknowns.some((u) => u.name === name))
      throw new Error(
        `calibrate: "${name}" is not a declared unknown (declared: ${unknowns.map((u) => u.name).join(", ") || "none"})`,
      );
  if (new Set(opts.unknowns).size !== opts.unknowns.length)
    throw new Error("calibrate: unknowns must be distinct");
  if (opts.unknowns.length > ids.length)
    throw new Error(
      `calibrate: ${opts.unknowns.length} unknowns but ${ids.length} targets; never fit more unknowns than targets`,
    );
  const budget = opts.budget ?? 24;
  if (!Number.isInteger(budget) || budget < 2)
    throw new Error(`calibrate: budget must be an integer >= 2 runs (got ${budget})`);
}

/** Signals that the search spent its budget. */
class BudgetSpent extends Error {}

/** Fits the named unknowns of `exp` on the targets; returns the record (freeze with assume). */
export function calibrateSync<E>(exp: Calibratable<E>, opts: CalibrateOptions): CalibrationRecord {
  const declared = exp.declaredUnknowns();
  checkCalibration(declared, opts);
  const budget = opts.budget ?? 24;
  const fit = opts.unknowns.map((n) => declared.find((u) => u.name === n)!);
  const base = exp.unknownValues();
  const fixed = Object.fromEntries(
    Object.entries(base).filter(([k]) => !opts.unknowns.includes(k)),
  );
  const {
    targets,
    unknowns: _u,
    predicted: _p,
    budget: _b,
    figures,
    onEvaluation,
    ...runOpts
  } = opts;
  const seed = String(runOpts.seed ?? 1);
  const figuresOf = figures ?? metricFigures;
  const measure = (values: Record<string, UnknownValue>, s: string) => {
    const res = exp.assume(values).runSync({ ...runOpts, seed: s });
    const figs = figuresOf(res);
    return targets.map((t) => {
      const f = figs.find((x) => x.id === t.id);
      if (!f)
        throw new Error(
          `calibrate: the run gives no figure ${t.id} (figures: ${figs.map((x) => x.id).join(", ")})`,
        );
      return f.simulated;
    });
  };
  const objectiveOf = (sims: number[]) =>
    sims.reduce((acc, s, i) => acc + ((s - targets[i].published) / scaleOf(targets[i])) ** 2, 0);

  const memo = new Map<
    string,
    { values: Record<string, UnknownValue>; sims: number[]; obj: number }
  >();
  let best: { values: Record<string, UnknownValue>; sims: number[]; obj: number } | null = null;
  const evaluate = (values: Record<string, UnknownValue>): number => {
    const key = JSON.stringify(values);
    const hit = memo.get(key);
    if (hit) return hit.obj;
    if (memo.size >= budget) throw new BudgetSpent();
    const sims = measure(values, seed);
    const obj = objectiveOf(sims);
    const e = { values, sims, obj };
    memo.set(key, e);
    if (!best || obj < best.obj) best = e;
    onEvaluation?.(memo.size, budget, values, obj);
    return obj;
  };

  const numeric = fit.filter((u) => u.kind === "numeric");
  const choiceCombos = combos(fit.filter((u) => u.kind === "choice"));
  try {
    for (const combo of choiceCombos) {
      const share = Math.max(2, Math.floor(budget / choiceCombos.length));
      const valuesAt = (t: number[]) => ({ ...combo, ...fromUnit(numeric, t) });
      if (numeric.length === 0) {
        evaluate(valuesAt([]));
        continue;
      }
      const starts = startDesign(numeric.length, Math.max(1, Math.floor(share / 2)), seed);
      let start = starts[0];
      let startObj = Infinity;
      for (const t of starts) {
        const o = evaluate(valuesAt(t));
        if (o < startObj) [start, startObj] = [t, o];
      }
      // Nelder-Mead in shifted coordinates (start at 1): fmin's first simplex scales each
      // coordinate by nonZeroDelta, so 1.1 gives steps of 0.1 of each unknown's range.
      const penalty = (t: number[]) => t.reduce((a, x) => a + Math.max(0, -x, x - 1) ** 2, 0);
      nelderMead()(
        (y) => {
          const t = y.map((v, i) => v - 1 + start[i]);
          return evaluate(valuesAt(t.map(clamp01))) + 1e3 * penalty(t);
        },
        start.map(() => 1),
        { nonZeroDelta: 1.1, maxIterations: 20 * share, minErrorDelta: 1e-6 },
      );
    }
  } catch (e) {
    if (!(e instanceof BudgetSpent)) throw e;
  }
  const found = best as {
    values: Record<string, UnknownValue>;
    sims: number[];
    obj: number;
  } | null;
  if (!found) throw new Error("calibrate: no evaluation ran");
  const heldOutSeed = `${seed}:held-out`;
  const held = measure(found.values, heldOutSeed);
  return {
    values: Object.fromEntries(opts.unknowns.map((n) => [n, found.values[n]])),
    fixed,
    targets: targets.map((t, i) => ({
      id: t.id,
      published: t.published,
      band: t.band ?? null,
      simulated: found.sims[i],
      residual: found.sims[i] - t.published,
      heldOut: held[i],
    })),
    objective: found.obj,
    heldOutObjective: objectiveOf(held),
    method: METHOD,
    budget,
    evaluations: memo.size,
    run: {
      iterations: runOpts.iterations ?? 1,
      duration: runOpts.duration ?? null,
      seed,
      heldOutSeed,
    },
  };
}

/** A target's scale: its band's half-width, else 10% of the published value (choice). */
function scaleOf(t: CalibrationTarget): number {
  if (t.band) return Math.max(Math.abs(t.band[1] - t.band[0]) / 2, 1e-12);
  return Math.max(Math.abs(t.published) * 0.1, 1e-12);
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Numeric unknowns' values from a point of the unit cube (rounded to 4 significant digits). */
function fromUnit<E>(us: readonly Unknown<E>[], t: number[]): Record<string, UnknownValue> {
  return Object.fromEntries(
    us.map((u, i) => {
      const [lo, hi] = u.range!;
      const v = lo + (hi - lo) * clamp01(t[i]);
      return [u.name, u.integer ? Math.round(v) : +v.toPrecision(4)];
    }),
  );
}

/** Every combination of the choice unknowns' values ([{}] when there are none). */
function combos<E>(us: readonly Unknown<E>[]): Array<Record<string, UnknownValue>> {
  let out: Array<Record<string, UnknownValue>> = [{}];
  for (const u of us) out = out.flatMap((c) => u.choices!.map((v) => ({ ...c, [u.name]: v })));
  return out;
}

/**
 * Start points in the unit cube: n evenly spaced levels for one unknown, a full 3-level grid
 * for two (when the budget allows), a seeded Latin hypercube otherwise.
 */
export function startDesign(d: number, n: number, seed: string): number[][] {
  if (d === 1) {
    const k = Math.max(2, Math.min(n, 5));
    return Array.from({ length: k }, (_, i) => [i / (k - 1)]);
  }
  if (3 ** d <= n) {
    let pts: number[][] = [[]];
    for (let i = 0; i < d; i++) pts = pts.flatMap((p) => [0, 0.5, 1].map((x) => [...p, x]));
    return pts;
  }
  const rng = seedrandom(`lhs:${seed}`);
  const cols = Array.from({ length: d }, () => {
    const perm = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [perm[i], perm[j]] = [perm[j], perm[i]];
    }
    return perm.map((p) => (p + rng()) / n);
  });
  return Array.from({ length: n }, (_, i) => cols.map((c) => c[i]));
}
