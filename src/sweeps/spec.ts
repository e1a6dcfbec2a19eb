// A sweep spec (`schedlab sweep SPEC.json`): which reproduction, a grid over its declared unknowns,
// the design, the variants, the iterations, the seed and how long each run lasts. planSweep turns
// it into jobs, one per (point, variant, iteration), each keyed by a hash of everything its
// numbers depend on, so a job is never run twice and a repeated sweep reuses finished jobs.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { z } from "zod";
import { parseWith } from "../machine/schema";
import { sweepPoints, type SweepDesign, type SweepGrid } from "../experiment/sweep";
import { spanOf, type UnknownValue } from "../experiment/unknown";
import { reproduction, reproductionIds } from "../reproduce/registry";
import {
  sweepJobExperiment,
  sweepJobId,
  variantFromSpec,
  type SweepJobTarget,
  type VariantSpec,
} from "../reproduce/sweep_job";
import type { PoolTask } from "../reproduce/parallel";
import { identity, type Identity } from "./identity";

const variantSpecSchema = z
  .strictObject({
    description: z.string().optional().describe("one line saying what the variant is"),
    era: z.string().optional().describe("another kernel era (schedlab --help lists them)"),
    machine: z
      .string()
      .optional()
      .describe("another machine: a preset name, or a machine file present where the jobs run"),
    tunables: z
      .record(z.string(), z.number())
      .optional()
      .describe('sysctls set for this variant, e.g. { "hz": 250 }'),
    features: z
      .record(z.string(), z.boolean())
      .optional()
      .describe('scheduler features turned on or off, e.g. { "NEXT_BUDDY": false }'),
    patches: z
      .array(z.string())
      .optional()
      .describe('published patches by name, e.g. ["group-power-2009"]'),
  })
  .describe("a variant: what it changes on the experiment's baseline");

/** The schema of a sweep spec file (scripts/file-formats.ts documents it from this object). */
export const sweepSpecSchema = z
  .strictObject({
    experiment: z.string().min(1).describe("the reproduction to sweep (schedlab list)"),
    description: z.string().optional().describe("what the sweep is for, in a line"),
    grid: z
      .record(
        z.string(),
        z.union([
          z.array(z.union([z.number(), z.string()])).min(1),
          z.string().regex(/^(all|span:\d+)$/, 'must be a list of values, "span:N" or "all"'),
        ]),
      )
      .refine((g) => Object.keys(g).length > 0, { message: "must name at least one unknown" })
      .describe(
        'declared unknown -> the values to run it at: a list, "span:N" (N values over its range) or "all" (every choice)',
      ),
    design: z
      .enum(["grid", "one-at-a-time"])
      .optional()
      .describe("grid (every combination, default) or one-at-a-time (one unknown moves at a time)"),
    variants: z
      .union([z.array(z.string().min(1)).min(1), z.record(z.string(), variantSpecSchema)], {
        error:
          'must be a list of the experiment\'s variant names or an object name -> { "era", "machine", "tunables", "features", "patches" }',
      })
      .optional()
      .describe(
        'a subset of the experiment\'s variants by name, or variants of its own: name -> { "era", "machine" (a preset), "tunables", "features", "patches" (published patch names), "description" }; default: the experiment\'s variants',
      ),
    iterations: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("iterations per point and variant (default: the profile's)"),
    seed: z
      .union([z.string().min(1), z.number()])
      .optional()
      .describe("master seed (default 1); iteration i of every job uses the same derived seed"),
    profile: z
      .union(
        [
          z.enum(["quick", "full"]),
          z.strictObject({
            duration: z.number().positive().describe("simulated seconds per run"),
            warmup: z.number().nonnegative().optional().describe("seconds before measuring"),
          }),
        ],
        { error: 'must be "quick", "full" or { "duration": seconds, "warmup": seconds }' },
      )
      .optional()
      .describe(
        'how long each run lasts: "quick" (default) or "full" (the reproduction\'s profiles), or { duration, warmup }',
      ),
  })
  .describe(
    "A sweep of a reproduction over its declared unknowns: `schedlab sweep SPEC.json [--db FILE] [--queue redis://HOST:PORT]`.",
  );

/** A sweep spec as written. */
export type SweepSpec = z.infer<typeof sweepSpecSchema>;

/** One job of a sweep: one run of one variant at one point. */
export interface PlannedJob {
  /** Hash of the job's full spec, seed, iteration, schedlab version and model. */
  key: string;
  /** Index of the point in the sweep. */
  point: number;
  values: Record<string, UnknownValue>;
  variant: string;
  iteration: number;
  /** What a worker thread runs. */
  task: PoolTask;
}

/** A sweep spec made concrete: its points, variants and jobs. */
export interface SweepPlan {
  /** Hash of the spec as planned (with the identity). */
  id: string;
  spec: SweepSpec;
  experiment: string;
  identity: Identity;
  grid: SweepGrid;
  design: SweepDesign;
  /** The unknowns' values outside the grid (and at the base point). */
  base: Record<string, UnknownValue>;
  points: Array<Record<string, UnknownValue>>;
  variants: string[];
  /** The spec's own variants, when it defines them. */
  variantSpecs: Record<string, VariantSpec> | null;
  iterations: number;
  duration: number;
  warmup: number | undefined;
  seed: string;
  jobs: PlannedJob[];
}

/** JSON with object keys sorted at every level: the same value always hashes the same. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

function sha(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The spec's variants with each machine file read in (machineSpec), so jobs carry it. */
function withMachineFiles(
  variants: Record<string, VariantSpec>,
  where: string,
): Record<string, VariantSpec> {
  return Object.fromEntries(
    Object.entries(variants).map(([n, v]) => {
      if (!v.machine?.endsWith(".json")) return [n, v];
      let text: string;
      try {
        text = fs.readFileSync(v.machine, "utf8");
      } catch (err) {
        throw new Error(
          `${where}: variants.${n}.machine: cannot read machine file ${v.machine} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
        );
      }
      try {
        return [n, { ...v, machineSpec: JSON.parse(text) as unknown }];
      } catch (err) {
        throw new Error(
          `${where}: variants.${n}.machine: ${v.machine} is not valid JSON: ${(err as Error).message}`,
        );
      }
    }),
  );
}

/** Reads and checks a sweep spec file; errors name the file and the field. */
export function loadSweepSpec(file: string): SweepSpec {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`sweep spec ${file}: cannot read it (${(err as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`sweep spec ${file} is not valid JSON: ${(err as Error).message}`);
  }
  return parseSweepSpec(raw, file);
}

/** Checks a sweep spec's shape (the fields and their types); `where` names it in errors. */
export function parseSweepSpec(raw: unknown, where: string): SweepSpec {
  return parseWith(sweepSpecSchema, raw, where);
}

/**
 * The jobs of a sweep spec, every value checked against the experiment it names: the experiment
 * exists, the grid names its declared unknowns with values in their ranges, the variants exist
 * (or are valid variants of the spec's own).
 */
export function planSweep(
  spec: SweepSpec,
  where = "sweep spec",
  who: Identity = identity(),
): SweepPlan {
  const fail = (field: string, msg: string): never => {
    throw new Error(`${where}: ${field ? `${field} ` : ""}${msg}`);
  };
  if (!reproductionIds().includes(spec.experiment))
    fail(
      "experiment",
      `must be a reproduction (accepted: ${reproductionIds().join(", ")}; got ${JSON.stringify(spec.experiment)})`,
    );
  const r = reproduction(spec.experiment);
  const exp = r.experiment();
  const declared = exp.declaredUnknowns();
  const grid: SweepGrid = {};
  for (const [name, vs] of Object.entries(spec.grid)) {
    const u = declared.find((x) => x.name === name);
    if (!u)
      fail(
        `grid.${name}`,
        `is not a declared unknown of ${spec.experiment} (declared: ${declared.map((x) => x.name).join(", ") || "none"})`,
      );
    if (typeof vs === "string") {
      const span = /^span:(\d+)$/.exec(vs);
      try {
        grid[name] = span ? spanOf(u!, Number(span[1])) : spanOf(u!);
      } catch (err) {
        fail(`grid.${name}`, (err as Error).message.replace(/^spanOf: /, ""));
      }
    } else grid[name] = vs;
  }
  const design = spec.design ?? "grid";
  let points: Array<Record<string, UnknownValue>> = [];
  try {
    points = sweepPoints(declared, exp.unknownValues(), grid, design);
  } catch (err) {
    fail("", (err as Error).message.replace(/^sweep: /, ""));
  }
  const own = exp.jobs({ iterations: 1 }).map((j) => j.variant);
  let variants = own;
  let variantSpecs: Record<string, VariantSpec> | null = null;
  if (Array.isArray(spec.variants)) {
    const subset: string[] = spec.variants;
    for (const v of subset)
      if (!own.includes(v))
        fail(
          "variants",
          `names "${v}", not a variant of ${spec.experiment} (variants: ${own.join(", ")})`,
        );
    variants = own.filter((v) => subset.includes(v));
  } else if (spec.variants) {
    variantSpecs = withMachineFiles(spec.variants as Record<string, VariantSpec>, where);
    if (Object.keys(variantSpecs).length === 0)
      fail("variants", "must define at least one variant");
    for (const [n, v] of Object.entries(variantSpecs))
      variantFromSpec(`${where}: variants.${n}`, v);
    variants = Object.keys(variantSpecs);
  }
  const prof =
    spec.profile === undefined || spec.profile === "quick"
      ? r.quick
      : spec.profile === "full"
        ? r.full
        : { iterations: r.quick.iterations, ...spec.profile };
  const iterations = spec.iterations ?? prof.iterations;
  const seed = String(spec.seed ?? 1);
  const opts = { iterations, duration: prof.duration, warmup: prof.warmup, seed };
  const jobs: PlannedJob[] = [];
  points.forEach((values, point) => {
    const target: SweepJobTarget = {
      experiment: spec.experiment,
      values,
      ...(variantSpecs ? { variants: variantSpecs } : {}),
    };
    const pexp = sweepJobExperiment(target);
    const { iterations: _n, variants: vs, ...common } = pexp.spec(opts);
    const id = sweepJobId(target);
    for (let iteration = 0; iteration < iterations; iteration++)
      for (const variant of variants) {
        const key = sha(
          canonicalJson({
            schedlab: who.version,
            model: who.model,
            experiment: spec.experiment,
            spec: { ...common, variant: vs[variant] },
            variantSpec: variantSpecs?.[variant] ?? null,
            variant,
            iteration,
          }),
        ).slice(0, 32);
        jobs.push({
          key,
          point,
          values,
          variant,
          iteration,
          task: { id, opts, job: { variant, iteration } },
        });
      }
  });
  const planned = {
    experiment: spec.experiment,
    grid,
    design,
    variants: variantSpecs ?? variants,
    iterations,
    duration: prof.duration,
    warmup: prof.warmup,
    seed,
  };
  return {
    id: sha(canonicalJson({ ...planned, ...who })).slice(0, 16),
    spec,
    experiment: spec.experiment,
    identity: who,
    grid,
    design,
    base: exp.unknownValues(),
    points,
    variants,
    variantSpecs,
    iterations,
    duration: prof.duration,
    warmup: prof.warmup,
    seed,
    jobs,
  };
}
