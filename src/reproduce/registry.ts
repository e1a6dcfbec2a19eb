// Named, runnable reproductions of published experiments.
import * as fs from "node:fs";
import * as path from "node:path";
import type { Experiment, RunOptions } from "../experiment/experiment";
import type { UnknownValue } from "../experiment/unknown";
import type { Results } from "../experiment/results";
import type { Figure } from "../plot/types";
import type { FigureKind, LedgerRow, TodaySpec } from "./types";
import { parseWith } from "../machine/schema";
import { publishedFileSchema } from "./published_schema";
import { frozenCalibration } from "./calibration_file";

/** How long and how often a reproduction runs. */
export interface RunProfile {
  iterations: number;
  /** Simulated seconds per iteration. */
  duration: number;
  warmup?: number;
}

/**
 * A named, runnable reproduction of a published experiment: the experiment, how long to run
 * it, and how its results become ledger rows beside the published numbers.
 */
export interface Reproduction {
  id: string;
  title: string;
  machine: string;
  /** The seed message the published numbers come from. */
  source: string;
  /** The experiment, ready to run. */
  experiment(): Experiment;
  /** What `schedlab reproduce` runs. */
  full: RunProfile;
  /** Shorter runs for tests, still long enough for stable checks. */
  quick: RunProfile;
  /** Ledger rows from results (published figures come from data/published/<id>.json). */
  rows(res: Results): LedgerRow[];
  /** Figures for the report (published values marked). */
  figures?(res: Results): Figure[];
  notes?: string;
  /** The `today` variant: this machine and workload on today's kernel, no patch (today.ts). */
  today?: TodaySpec;
  /**
   * A calibration by closed form: the values of the unknowns the published file's calibration
   * names (its `method` says how), computed from the experiment with every other unknown's value
   * applied. Every run refits them to those values (sweeps too: reproductionAt), so a calibrated
   * figure follows the machine or cost it depends on.
   */
  closedForm?: (exp: Experiment) => Record<string, UnknownValue>;
}

const REGISTRY = new Map<string, Reproduction>();

/**
 * Register a reproduction under its id (done once, when its module loads). Its experiment runs
 * with the values of its frozen calibration (data/calibration/<id>.json), when it has one, and
 * with its closed-form calibration (`closedForm`), when it has one.
 */
export function defineReproduction(r: Reproduction): Reproduction {
  if (REGISTRY.has(r.id)) throw new Error(`reproduction ${r.id} is defined twice`);
  const make = r.experiment;
  const wrapped: Reproduction = {
    ...r,
    experiment: () => {
      const exp = make();
      const cal = frozenCalibration(calibrationSource(r.id));
      return refit(r, cal ? exp.assume(cal.values) : exp, {});
    },
  };
  REGISTRY.set(r.id, wrapped);
  return wrapped;
}

/**
 * `exp` with r's closed-form calibration fitted to its other unknowns' values, unless `values`
 * (a sweep point's) set a calibrated unknown themselves. The published file must declare the
 * calibration, its method, and exactly the unknowns the closed form gives.
 */
function refit(r: Reproduction, exp: Experiment, values: Record<string, UnknownValue>): Experiment {
  if (!r.closedForm) return exp;
  const fitted = r.closedForm(exp);
  const cal = publishedFor(r.id).calibration;
  const names = Object.keys(fitted);
  const where = `data/published/${r.id}.json calibration`;
  if (!cal?.method)
    throw new Error(
      `reproduction ${r.id}: calibrated by a closed form, so ${where} must give "method" (how) and "unknowns" (${names.join(", ")})`,
    );
  if (cal.unknowns.length !== names.length || !names.every((n) => cal.unknowns.includes(n)))
    throw new Error(
      `reproduction ${r.id}: ${where}.unknowns must be the closed form's unknowns (${names.join(", ")}); got ${cal.unknowns.join(", ")}`,
    );
  return names.some((n) => n in values) ? exp : exp.assume(fitted);
}

/**
 * Reproduction `id`'s experiment at a point of its unknowns: `values` assumed, and its
 * closed-form calibration (if any) refitted to them, so a calibrated figure follows the machine
 * or cost the point changes (unless the point sets the calibrated unknown itself).
 *
 * @example
 * ```ts
 * import { reproductionAt } from "schedlab";
 * // 002-ht with no sibling slowdown: the loop cost refitted to 1 + 2 x 1 busy CPUs
 * console.log(reproductionAt("002-ht", { smt_sibling_speed: 1 }).unknownValues());
 * ```
 * Prints:
 * ```text
 * {
 *   ht_machine: 'ht-2x1x2',
 *   smt_sibling_speed: 1,
 *   loop_ns: 3493246.3903120635
 * }
 * ```
 */
export function reproductionAt(id: string, values: Record<string, UnknownValue>): Experiment {
  const r = reproduction(id);
  return refit(r, r.experiment().assume(values), values);
}

/**
 * The ids of every registered reproduction, in registration order.
 *
 * @example
 * ```ts
 * import { reproductionIds } from "schedlab";
 * console.log(reproductionIds().join(" "));
 * ```
 * Prints:
 * ```text
 * demo 000 000-llc 001 002 002-ht 003-1w 003-2w 004
 * ```
 */
export function reproductionIds(): string[] {
  return [...REGISTRY.keys()];
}

/**
 * The reproduction with this id; throws listing the accepted ids.
 *
 * @example
 * ```ts
 * import { reproduction } from "schedlab";
 * const r = reproduction("002");
 * console.log(r.title, "|", r.machine, "|", r.full);
 * console.log(r.experiment().spec(r.full).variants);
 * ```
 * Prints:
 * ```text
 * nice-fairness with cpu3 offline, 2 x 2 cores (group __cpu_power, 2009) | core2-2x2 | { iterations: 10, duration: 60.01 }
 * { pre: [], post: [ 'group-power-2009' ] }
 * ```
 */
export function reproduction(id: string): Reproduction {
  const r = REGISTRY.get(id);
  if (!r) throw new Error(`unknown experiment "${id}" (accepted: ${reproductionIds().join(", ")})`);
  return r;
}

/**
 * Ids as the CLI takes them: a registered id stands for itself; an unregistered one that prefixes
 * registered ids as `<id>-...` stands for all of them (`003` = `003-1w`, `003-2w`); anything else
 * is left for reproduction() to refuse.
 */
export function expandReproductionIds(ids: readonly string[]): string[] {
  return ids.flatMap((id) => {
    if (REGISTRY.has(id)) return [id];
    const group = reproductionIds().filter((x) => x.startsWith(`${id}-`));
    return group.length ? group : [id];
  });
}

/**
 * Run a reproduction with a run profile (its `full` or `quick` one, or your own) in this thread.
 *
 * @example
 * ```ts
 * import { formatLedger, ledgerEntry, newLedger, reproduction, runReproduction } from "schedlab";
 * const demo = reproduction("demo");
 * const res = runReproduction(demo, { iterations: 2, duration: 0.5, warmup: 0.1 });
 * const ledger = newLedger([ledgerEntry(demo, res)]);
 * console.log(formatLedger(ledger).split("\n").slice(-4).join("\n"));
 * ```
 */
export function runReproduction(
  r: Reproduction,
  profile: RunProfile,
  opts: Pick<RunOptions, "seed" | "onProgress" | "trace"> = {},
): Results {
  return r.experiment().runSync({
    iterations: profile.iterations,
    duration: profile.duration,
    warmup: profile.warmup,
    ...opts,
  });
}

/** One published number: the metric and variant it belongs to, and the band a reproduction aims for. */
export interface PublishedFigure {
  metric: string;
  variant: string;
  value: number | null;
  band?: [number, number];
  /** How the value was derived from the source text. */
  derivation?: string;
  /** independent (default), calibrated (fixes a model input) or derived from a calibrated one. */
  kind?: FigureKind;
  /** calibrated (a calibration target, named before the fit) or predicted (default from kind). */
  role?: "calibrated" | "predicted";
  /** Where the band comes from: the published noise, or "choice: <reason>". */
  bandSource?: string;
  /** Why the figure cannot be judged, when it cannot. */
  comparable?: string;
}

/** The published numbers of one reproduction (data/published/<id>.json). */
export interface PublishedFile {
  id: string;
  source: string;
  figures: PublishedFigure[];
  /** The unknowns fitted on the calibrated figures, and how when not by `schedlab calibrate`. */
  calibration?: { unknowns: string[]; method?: string; from?: string };
}

/**
 * The experiment whose frozen calibration `id` runs with: its published file's calibration.from,
 * else itself (no published file: itself).
 */
export function calibrationSource(id: string): string {
  const file = path.join(__dirname, "..", "..", "data", "published", `${id}.json`);
  if (!fs.existsSync(file)) return id;
  return publishedFor(id).calibration?.from ?? id;
}

/** A published figure's role: calibrated (named as a calibration target) or predicted. */
export function figureRole(f: PublishedFigure): "calibrated" | "predicted" {
  return f.role ?? (f.kind === "calibrated" ? "calibrated" : "predicted");
}

/** data/published/<id>.json */
export function publishedFor(id: string): PublishedFile {
  const file = path.join(__dirname, "..", "..", "data", "published", `${id}.json`);
  if (!fs.existsSync(file)) throw new Error(`no published figures for ${id} (expected ${file})`);
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  const pub = parseWith(publishedFileSchema, raw, file);
  if (pub.id !== id)
    throw new Error(`${file}: id must be ${JSON.stringify(id)} (got ${JSON.stringify(pub.id)})`);
  return pub;
}

/** The published figure for one metric and variant; throws if the file has none. */
export function publishedValue(
  pub: PublishedFile,
  metric: string,
  variant: string,
): PublishedFigure {
  const f = pub.figures.find((x) => x.metric === metric && x.variant === variant);
  if (!f) throw new Error(`data/published/${pub.id}.json has no figure for ${metric}/${variant}`);
  return f;
}
