// Declared unknowns of the reproductions: list them with their values, sweep them (on the
// thread pool, every point the reproduction's own run and ledger rows), and calibrate them on
// the figures the published file names as calibration targets.
import type { Experiment } from "../experiment/experiment";
import {
  checkCalibration,
  calibrateSync,
  type CalibrationRecord,
  type CalibrationTarget,
} from "../experiment/calibrate";
import {
  SweepResult,
  sweepPoints,
  type SweepDesign,
  type SweepFigure,
  type SweepGrid,
  type SweepPoint,
} from "../experiment/sweep";
import { unknownInfo, type UnknownInfo, type UnknownValue } from "../experiment/unknown";
import type { Results } from "../experiment/results";
import {
  calibrationSource,
  figureRole,
  publishedFor,
  reproduction,
  reproductionAt,
  type Reproduction,
  type RunProfile,
} from "./registry";
import { frozenCalibration } from "./calibration_file";
import { judgeRow, verdictContext } from "./verdict";
import { ReproductionPool } from "./parallel";

/** A reproduction's unknown as the ledger lists it: declared, with its value and whether fitted. */
export interface UnknownEntry extends UnknownInfo {
  /** The value its runs use: calibrated, else the default. */
  value: UnknownValue;
  /** true when the value was fitted on calibration targets (data/calibration/<id>.json). */
  calibrated: boolean;
}

/** The unknowns reproduction `id` declares, with the values its runs use. */
export function reproductionUnknowns(id: string): UnknownEntry[] {
  const r = reproduction(id);
  const exp = r.experiment();
  const values = exp.unknownValues();
  const cal = frozenCalibration(calibrationSource(id));
  const closed = r.closedForm ? Object.keys(r.closedForm(exp)) : [];
  return exp.declaredUnknowns().map((u) => ({
    ...unknownInfo(u),
    value: values[u.name],
    calibrated: (!!cal && u.name in cal.values) || closed.includes(u.name),
  }));
}

/** A reproduction's ledger rows, judged, as sweep figures. */
export function reproductionFigures(r: Pick<Reproduction, "id" | "rows">) {
  const ctx = verdictContext(r.id);
  return (res: Results): SweepFigure[] =>
    r.rows(res).map((row) => {
      const j = judgeRow(row, ctx);
      return {
        id: `${row.metric}/${row.variant}`,
        metric: row.metric,
        variant: row.variant,
        simulated: row.simulated,
        iterations: row.iterations,
        published: row.published,
        band: row.band,
        role: j.role,
      };
    });
}

/** The calibration targets data/published/<id>.json names (figures whose role is calibrated). */
export function calibrationTargets(id: string): CalibrationTarget[] {
  return publishedFor(id)
    .figures.filter((f) => figureRole(f) === "calibrated" && f.value !== null)
    .map((f) => ({ id: `${f.metric}/${f.variant}`, published: f.value!, band: f.band ?? null }));
}

/** Options of calibrateReproduction. */
export interface CalibrateReproductionOptions {
  /** The targets (default: every calibration target of the published file). */
  targets?: string[];
  /** The unknowns (default: the published file's calibration.unknowns). */
  unknowns?: string[];
  /** Runs the search may spend (default 24). */
  budget?: number;
  /** How long and how often each evaluation runs (default: the reproduction's quick profile). */
  profile?: RunProfile;
  seed?: string | number;
  /** Called after each evaluation: its number, the budget, the values tried, the objective. */
  onEvaluation?: (
    n: number,
    budget: number,
    values: Record<string, UnknownValue>,
    objective: number,
  ) => void;
}

/**
 * Fit the unknowns of reproduction `id` on its calibration targets: only figures the published
 * file names as calibrated (before the fit) may be targets, every other published figure is a
 * prediction, and never more unknowns than targets. Returns the record; `schedlab calibrate
 * <id> --write` freezes it into data/calibration/<id>.json.
 */
export function calibrateReproduction(
  id: string,
  opts: CalibrateReproductionOptions = {},
): CalibrationRecord {
  const r = reproduction(id);
  const pub = publishedFor(id);
  if (pub.calibration?.from)
    throw new Error(
      `calibrate ${id}: its values come from ${pub.calibration.from}'s calibration (data/published/${id}.json calibration.from); calibrate ${pub.calibration.from}`,
    );
  if (!pub.calibration)
    throw new Error(
      `calibrate ${id}: data/published/${id}.json declares no calibration (add "calibration": { "unknowns": [...] } and mark the target figures "role": "calibrated")`,
    );
  const declared = calibrationTargets(id);
  const byId = new Map(pub.figures.map((f) => [`${f.metric}/${f.variant}`, f]));
  const wanted = opts.targets ?? declared.map((t) => t.id);
  const targets = wanted.map((t) => {
    const f = byId.get(t);
    if (!f || f.value === null)
      throw new Error(
        `calibrate ${id}: target ${t} is not a published figure (figures: ${[...byId.keys()].join(", ")})`,
      );
    if (figureRole(f) !== "calibrated")
      throw new Error(
        `calibrate ${id}: target ${t} is a prediction in data/published/${id}.json; a figure is calibrated or predicted, never both (name targets before the fit with "role": "calibrated")`,
      );
    return declared.find((d) => d.id === t)!;
  });
  if (r.closedForm)
    throw new Error(
      `calibrate ${id}: ${pub.calibration.unknowns.join(", ")} ${pub.calibration.unknowns.length > 1 ? "are" : "is"} fitted by a closed form (data/published/${id}.json calibration.method: ${pub.calibration.method ?? "not given"}), refitted at every run and sweep point: there is nothing to freeze`,
    );
  const unknowns = opts.unknowns ?? pub.calibration.unknowns;
  for (const u of unknowns)
    if (!pub.calibration.unknowns.includes(u))
      throw new Error(
        `calibrate ${id}: unknown ${u} is not among the calibration's unknowns in data/published/${id}.json (${pub.calibration.unknowns.join(", ")})`,
      );
  const predicted = pub.figures
    .filter((f) => figureRole(f) === "predicted" && f.value !== null)
    .map((f) => `${f.metric}/${f.variant}`);
  const profile = opts.profile ?? r.quick;
  const exp = r.experiment();
  const calOpts = {
    targets,
    unknowns,
    predicted,
    budget: opts.budget,
    iterations: profile.iterations,
    duration: profile.duration,
    warmup: profile.warmup,
    seed: opts.seed ?? 1,
    figures: reproductionFigures(r),
    onEvaluation: opts.onEvaluation,
  };
  checkCalibration(exp.declaredUnknowns(), calOpts);
  return calibrateSync(exp, calOpts);
}

/** Options of sweepReproduction. */
export interface SweepReproductionOptions {
  design?: SweepDesign;
  /** Each point's run (default: the reproduction's quick profile). */
  profile?: RunProfile;
  seed?: string | number;
  /** Threads (default 1: this one). */
  jobs?: number;
  /** Called after each point: how many are done, of how many, and the point's values. */
  onPoint?: (done: number, total: number, values: Record<string, UnknownValue>) => void;
}

/**
 * Run reproduction `id` at each point of a grid over its unknowns, each point a full run of its
 * variants with its ledger rows as figures (published and band marked), on `jobs` threads.
 */
export async function sweepReproduction(
  id: string,
  grid: SweepGrid,
  opts: SweepReproductionOptions = {},
): Promise<SweepResult> {
  const r = reproduction(id);
  const exp: Experiment = r.experiment();
  const unknowns = exp.declaredUnknowns();
  // Unknowns a closed form calibrates (and the grid does not sweep) are refitted at every point:
  // they are no base values of the sweep, and each point records the value it ran with.
  const fitted = (r.closedForm ? Object.keys(r.closedForm(exp)) : []).filter((n) => !(n in grid));
  const free = (v: Record<string, UnknownValue>) =>
    Object.fromEntries(Object.entries(v).filter(([n]) => !fitted.includes(n)));
  const base = free(exp.unknownValues());
  const points = sweepPoints(unknowns, exp.unknownValues(), grid, opts.design);
  const profile = opts.profile ?? r.quick;
  const figures = reproductionFigures(r);
  const pool = new ReproductionPool(opts.jobs ?? 1);
  const out: SweepPoint[] = [];
  try {
    for (const p of points) {
      const atPoint = reproductionAt(id, free(p));
      const values = atPoint.unknownValues();
      const point = { id: `${id}|${JSON.stringify(values)}`, experiment: () => atPoint };
      const results = await pool.run(point, profile, { seed: opts.seed ?? 1 });
      out.push({ values, results, figures: figures(results) });
      opts.onPoint?.(out.length, points.length, values);
    }
  } finally {
    await pool.close();
  }
  return new SweepResult(unknowns.map(unknownInfo), base, grid, opts.design ?? "grid", out);
}
