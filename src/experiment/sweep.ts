// Sweeps over declared unknowns: run an experiment at each point of a grid (or one unknown at a
// time from the base values), keep every point's results, and turn them into a frame (one row
// per point x variant x iteration) and into figures (a value per point: a metric's mean, or a
// ledger row beside its published number) for the sensitivity and envelope plots.
import type { Results } from "./results";
import type { RunOptions } from "./options";
import {
  checkUnknownValue,
  unknownInfo,
  type Unknown,
  type UnknownInfo,
  type UnknownValue,
} from "./unknown";
import { toRows, type FrameRow } from "../analysis/frame";
import type { DataFrame } from "danfojs-node";
import { mean } from "../analysis/stats";
import type { Figure } from "../plot/types";
import {
  envelopePlot,
  sensitivityPlot,
  type EnvelopeData,
  type EnvelopeOptions,
  type SensitivityData,
  type SensitivityOptions,
} from "../plot/sensitivity";

export type { EnvelopeData, SensitivityData } from "../plot/sensitivity";

/** A grid: unknown name -> the values to run it at. */
export type SweepGrid = Record<string, readonly UnknownValue[]>;

/**
 * How the points are chosen: "grid" runs every combination; "one-at-a-time" moves one unknown
 * through its values with the others at their base values (1 + sum(n_i - 1) points), which is
 * what a sensitivity (tornado) plot needs and far cheaper for several unknowns.
 */
export type SweepDesign = "grid" | "one-at-a-time";

/** One simulated figure at one point: a metric's mean for a variant, or a ledger row. */
export interface SweepFigure {
  /** "metric/variant". */
  id: string;
  metric: string;
  variant: string;
  simulated: number;
  iterations: number[];
  published?: number | null;
  band?: [number, number] | null;
  /** calibrated, predicted or reported (ledger rows only). */
  role?: string;
}

/** One point of a sweep: the unknowns' values, the run's results, its figures. */
export interface SweepPoint {
  values: Record<string, UnknownValue>;
  results: Results;
  figures: SweepFigure[];
}

/** What a sweep needs of an experiment (Experiment has it; kept structural to avoid a cycle). */
export interface Sweepable<E> {
  declaredUnknowns(): readonly Unknown<E>[];
  unknownValues(): Record<string, UnknownValue>;
  assume(values: Record<string, UnknownValue>): Sweepable<E>;
  runSync(opts: RunOptions): Results;
}

/** Options of Experiment.sweep. */
export interface SweepOptions extends Omit<RunOptions, "onProgress"> {
  /** "grid" (default) or "one-at-a-time". */
  design?: SweepDesign;
  /** Called after each point with the number done, the total and the point's values. */
  onPoint?: (done: number, total: number, values: Record<string, UnknownValue>) => void;
  /** A point's figures from its results (default: every metric's mean per variant). */
  figures?: (res: Results) => SweepFigure[];
}

/** Every metric's mean per variant, as sweep figures. */
export function metricFigures(res: Results): SweepFigure[] {
  const out: SweepFigure[] = [];
  for (const variant of res.variants) {
    const first = res.data.iterations.find((it) => it.variant === variant);
    for (const metric of Object.keys(first?.metrics ?? {})) {
      const iterations = res.values(metric, variant);
      out.push({
        id: `${metric}/${variant}`,
        metric,
        variant,
        simulated: mean(iterations),
        iterations,
      });
    }
  }
  return out;
}

/**
 * The points of a sweep: validated values per unknown, combined by the design; the unknowns not
 * in the grid keep their base values.
 */
export function sweepPoints<E>(
  unknowns: readonly Unknown<E>[],
  base: Record<string, UnknownValue>,
  grid: SweepGrid,
  design: SweepDesign = "grid",
): Array<Record<string, UnknownValue>> {
  if (!grid || typeof grid !== "object" || Object.keys(grid).length === 0)
    throw new Error("sweep: grid must name at least one unknown: { name: [values...] }");
  if (design !== "grid" && design !== "one-at-a-time")
    throw new Error(
      `sweep: design must be "grid" or "one-at-a-time" (got ${JSON.stringify(design)})`,
    );
  const names = Object.keys(grid);
  for (const name of names) {
    const u = unknowns.find((x) => x.name === name);
    if (!u)
      throw new Error(
        `sweep: "${name}" is not a declared unknown (declared: ${unknowns.map((x) => x.name).join(", ") || "none"})`,
      );
    const vs = grid[name];
    if (!Array.isArray(vs) || vs.length === 0)
      throw new Error(`sweep: grid.${name} must be a non-empty array of values`);
    for (const v of vs) checkUnknownValue(u, v, `grid.${name} value`);
  }
  if (design === "grid") {
    let points: Array<Record<string, UnknownValue>> = [{ ...base }];
    for (const name of names)
      points = points.flatMap((p) => grid[name].map((v) => ({ ...p, [name]: v })));
    return points;
  }
  const points: Array<Record<string, UnknownValue>> = [{ ...base }];
  const key = (p: Record<string, UnknownValue>) => JSON.stringify(p);
  const seen = new Set([key(base)]);
  for (const name of names)
    for (const v of grid[name]) {
      const p = { ...base, [name]: v };
      if (!seen.has(key(p))) {
        seen.add(key(p));
        points.push(p);
      }
    }
  return points;
}

/** Runs `exp` at every point of the grid, in this thread. */
export function sweepSync<E>(
  exp: Sweepable<E>,
  grid: SweepGrid,
  opts: SweepOptions = {},
): SweepResult {
  const unknowns = exp.declaredUnknowns();
  const base = exp.unknownValues();
  const points = sweepPoints(unknowns, base, grid, opts.design);
  const { design: _d, onPoint, figures, ...runOpts } = opts;
  const out: SweepPoint[] = [];
  for (const values of points) {
    const results = exp.assume(values).runSync(runOpts);
    out.push({ values, results, figures: (figures ?? metricFigures)(results) });
    onPoint?.(out.length, points.length, values);
  }
  return new SweepResult(unknowns.map(unknownInfo), base, grid, opts.design ?? "grid", out);
}

/**
 * The points of a sweep with their results: as rows (one per point x variant x iteration), as
 * figures (one per point x figure), as a DataFrame, and as sensitivity and envelope plots.
 */
export class SweepResult {
  /** res.plot.sensitivity() and res.plot.envelope(unknown, figure). */
  readonly plot: {
    /** The tornado: each unknown's effect on each figure (sensitivity()), published marked. */
    sensitivity(opts?: SensitivityOptions): Figure;
    /** One figure over one unknown's values (envelope()), the published number and band drawn. */
    envelope(unknown: string, figure: string, opts?: EnvelopeOptions): Figure;
  };

  constructor(
    /** The experiment's declared unknowns. */
    readonly unknowns: UnknownInfo[],
    /** The values of the unknowns outside the grid (and of the base point). */
    readonly base: Record<string, UnknownValue>,
    readonly grid: SweepGrid,
    readonly design: SweepDesign,
    readonly points: SweepPoint[],
  ) {
    this.plot = {
      sensitivity: (o = {}) => sensitivityPlot(this.sensitivity(o.figures), o),
      envelope: (u, f, o = {}) => envelopePlot(this.envelope(u, f), o),
    };
  }

  /** One row per point x variant x iteration: the unknowns' values, then the run's columns. */
  rows(): FrameRow[] {
    return this.points.flatMap((p, i) =>
      toRows(p.results.data, { counters: false }).map((r) => ({ point: i, ...p.values, ...r })),
    );
  }

  /** rows() as a danfojs-node DataFrame (danfo loads on first use). */
  frame(): DataFrame {
    const danfo = require("danfojs-node") as typeof import("danfojs-node");
    return new danfo.DataFrame(this.rows());
  }

  /** One row per point x figure: the unknowns' values, the figure, simulated and published. */
  figureRows(): FrameRow[] {
    return this.points.flatMap((p, i) =>
      p.figures.map((f) => ({
        point: i,
        ...p.values,
        figure: f.id,
        simulated: f.simulated,
        published: f.published ?? NaN,
        band_low: f.band ? f.band[0] : NaN,
        band_high: f.band ? f.band[1] : NaN,
      })),
    );
  }

  /** The ids of the figures every point has, in the first point's order. */
  figureIds(): string[] {
    return (this.points[0]?.figures ?? []).map((f) => f.id);
  }

  /**
   * Per figure and unknown: the figure at the lowest and highest value swept of that unknown
   * with the others at their base values (one-at-a-time slices, from any design), and at base.
   */
  sensitivity(figures?: string[]): SensitivityData {
    const ids = figures ?? this.figureIds();
    const basePoint = this.#at(this.#anchor());
    const rows: SensitivityData["rows"] = [];
    for (const id of ids) {
      this.#checkFigure(id);
      for (const name of Object.keys(this.grid)) {
        const slice = this.#slice(name, id);
        if (slice.length < 2) continue;
        const lo = slice[0];
        const hi = slice[slice.length - 1];
        rows.push({
          figure: id,
          unknown: name,
          low: { value: lo.x, figure: lo.y },
          high: { value: hi.x, figure: hi.y },
          base: basePoint ? this.#figure(basePoint, id).simulated : NaN,
          published: this.#figure(this.points[0], id).published ?? null,
        });
      }
    }
    return { rows };
  }

  /** A figure over one unknown's swept values (others at base): mean, min and max over iterations. */
  envelope(unknown: string, figure: string): EnvelopeData {
    if (!(unknown in this.grid))
      throw new Error(
        `envelope: "${unknown}" was not swept (swept: ${Object.keys(this.grid).join(", ")})`,
      );
    this.#checkFigure(figure);
    const f0 = this.#figure(this.points[0], figure);
    const u = this.unknowns.find((x) => x.name === unknown)!;
    return {
      unknown,
      unit: u.unit,
      figure,
      points: this.#slice(unknown, figure).map((s) => ({
        value: s.x,
        mean: s.y,
        min: Math.min(...s.its),
        max: Math.max(...s.its),
      })),
      published: f0.published ?? null,
      band: f0.band ?? null,
      base: this.base[unknown],
    };
  }

  #checkFigure(id: string): void {
    if (!this.figureIds().includes(id))
      throw new Error(
        `sweep: no figure "${id}" (figures: ${this.figureIds().slice(0, 12).join(", ")}${this.figureIds().length > 12 ? ", ..." : ""})`,
      );
  }

  #figure(p: SweepPoint, id: string): SweepFigure {
    const f = p.figures.find((x) => x.id === id);
    if (!f) throw new Error(`sweep: point ${JSON.stringify(p.values)} has no figure "${id}"`);
    return f;
  }

  /**
   * The base values as the sweep has them: an unknown's base value, or for a grid that does not
   * hold it, the swept value nearest to it (the first, for a choice).
   */
  #anchor(): Record<string, UnknownValue> {
    const out: Record<string, UnknownValue> = { ...this.base };
    for (const [k, vs] of Object.entries(this.grid)) {
      if (vs.includes(this.base[k]) || this.design === "one-at-a-time") continue;
      const b = this.base[k];
      out[k] =
        typeof b === "number"
          ? vs.reduce((best, v) =>
              Math.abs(Number(v) - b) < Math.abs(Number(best) - b) ? v : best,
            )
          : vs[0];
    }
    return out;
  }

  #at(values: Record<string, UnknownValue>): SweepPoint | undefined {
    return this.points.find((p) => Object.keys(values).every((k) => p.values[k] === values[k]));
  }

  /** The points where only `name` moves from base, sorted by its value (as swept). */
  #slice(name: string, id: string): Array<{ x: UnknownValue; y: number; its: number[] }> {
    const anchor = this.#anchor();
    const others = Object.keys(anchor).filter((k) => k !== name);
    const order = this.grid[name];
    return this.points
      .filter((p) => others.every((k) => p.values[k] === anchor[k]))
      .map((p) => {
        const f = this.#figure(p, id);
        return { x: p.values[name], y: f.simulated, its: f.iterations };
      })
      .sort((a, b) => rank(order, a.x) - rank(order, b.x));
  }
}

function rank(order: readonly UnknownValue[], v: UnknownValue): number {
  const i = order.indexOf(v);
  return i < 0 ? (typeof v === "number" ? v : -1) : i;
}
