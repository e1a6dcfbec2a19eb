// One job of a sweep spec as worker threads and queue workers rebuild it: a reproduction, the
// values of its unknowns at one point, and optionally the variants the spec defines in JSON
// (another era, machine, tunables, features or published patches) in place of the
// reproduction's own. Experiments hold closures that cannot cross threads or machines, so a job
// travels as this small description and is rebuilt where it runs.
import type { Experiment } from "../experiment/experiment";
import { variant } from "../experiment/declare";
import type { UnknownValue } from "../experiment/unknown";
import type { Variant } from "../experiment/variant";
import type { Machine } from "../machine/types";
import { ERAS, isEra, type Era, type Features } from "../kernel/features";
import { checkTunable, type Patch } from "../patch/patch";
import { machineFromSpec, preset } from "../machine/presets";
import * as patchSeeds from "../patch/seeds/index";
import { reproduction } from "./registry";

/** A variant written in JSON (a sweep spec's `variants` entry): what it changes on the baseline. */
export interface VariantSpec {
  description?: string;
  /** Another kernel era. */
  era?: string;
  /** Another machine: a preset name or a machine file (which must exist where the job runs). */
  machine?: string;
  /** Sysctls set for this variant. */
  tunables?: Record<string, number>;
  /** Scheduler features turned on or off. */
  features?: Record<string, boolean>;
  /** Published patches by name (`schedlab` seeds, e.g. "group-power-2009"). */
  patches?: string[];
  /**
   * The content of `machine` when it is a machine file: planSweep reads the file where the
   * sweep is planned and ships it with the job, so workers elsewhere need no copy of it.
   */
  machineSpec?: unknown;
}

/** What a sweep job runs: a reproduction at one point, with the spec's variants if it has any. */
export interface SweepJobTarget {
  experiment: string;
  values: Record<string, UnknownValue>;
  variants?: Record<string, VariantSpec>;
}

/** The published patches by name. */
export function publishedPatches(): Map<string, Patch> {
  return new Map(Object.values(patchSeeds).map((p) => [p.name, p]));
}

/** A Variant from its JSON form, every field checked; `where` names it in errors. */
export function variantFromSpec(where: string, v: VariantSpec): Variant<Experiment> {
  if (v.era !== undefined && !isEra(v.era))
    throw new Error(
      `${where}.era must be one of ${ERAS.join(", ")} (got ${JSON.stringify(v.era)})`,
    );
  for (const [name, value] of Object.entries(v.tunables ?? {}))
    checkTunable(`${where}.tunables`, name, value);
  const known = publishedPatches();
  const patches = (v.patches ?? []).map((name) => {
    const p = known.get(name);
    if (!p)
      throw new Error(
        `${where}.patches: "${name}" is not a published patch (accepted: ${[...known.keys()].join(", ")})`,
      );
    return p;
  });
  let machine: string | Machine | undefined = v.machine;
  try {
    if (v.machineSpec !== undefined)
      machine = machineFromSpec(v.machineSpec, `${where}.machine (${v.machine})`);
    else if (v.machine !== undefined && !v.machine.endsWith(".json")) preset(v.machine);
  } catch (err) {
    throw new Error(`${where}.machine: ${(err as Error).message}`);
  }
  try {
    return variant({
      ...(v.description !== undefined ? { description: v.description } : {}),
      ...(v.era !== undefined ? { era: v.era as Era } : {}),
      ...(machine !== undefined ? { machine } : {}),
      ...(v.tunables ? { tunables: v.tunables } : {}),
      ...(v.features ? { features: v.features as Partial<Record<keyof Features, boolean>> } : {}),
      patches,
    });
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`);
  }
}

/** The experiment a sweep job runs. */
export function sweepJobExperiment(t: SweepJobTarget): Experiment {
  let exp = reproduction(t.experiment).experiment().assume(t.values);
  if (t.variants)
    exp = exp.variants(
      Object.fromEntries(
        Object.entries(t.variants).map(([n, v]) => [n, variantFromSpec(`variants.${n}`, v)]),
      ),
    );
  return exp;
}

/** The id worker threads rebuild a sweep job's experiment from (experimentById): its JSON. */
export function sweepJobId(t: SweepJobTarget): string {
  return JSON.stringify({
    experiment: t.experiment,
    values: t.values,
    ...(t.variants ? { variants: t.variants } : {}),
  });
}

/** The target of a sweep job id (a JSON object), checked for shape. */
export function parseSweepJobId(id: string): SweepJobTarget {
  const t = JSON.parse(id) as SweepJobTarget;
  if (!t || typeof t.experiment !== "string" || !t.values || typeof t.values !== "object")
    throw new Error(`not a sweep job: ${id.slice(0, 120)}`);
  return t;
}
