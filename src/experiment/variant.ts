// A variant that changes more than patches: the machine, the era, tunables, features, or anything
// an experiment step can change (idle states, offline CPUs). It is compared like any other
// variant: same seeds, same workload, one row per iteration.
import { Patch, patch } from "../patch/patch";
import type { Features } from "../kernel/features";
import { ERAS, isEra, type Era } from "../kernel/features";
import type { Machine } from "../machine/types";

/** The options of variant(): what this variant changes on the experiment's baseline. */
export interface VariantOptions<E> {
  /** Patches applied after the experiment's own (the same as a plain Patch[] variant). */
  patches?: Patch[];
  /** Another kernel era. */
  era?: Era;
  /** Another machine: a preset name, a machine file (.json) or a Machine. */
  machine?: string | Machine;
  /** Sysctls set for this variant (after the patches). */
  tunables?: Record<string, number>;
  /** Scheduler features turned on or off for this variant (as `patch().feature()`). */
  features?: Partial<Record<keyof Features, boolean>>;
  /** Any other experiment step, e.g. `(e) => e.offline(3)` or `(e) => e.costs({...})`. */
  apply?: (exp: E) => E;
  /** One line saying what the variant is (shown in the spec); default: from the options. */
  description?: string;
}

/** A variant beyond a patch list; make one with variant(). */
export class Variant<E = unknown> {
  readonly patches: readonly Patch[];
  readonly era?: Era;
  readonly machine?: string | Machine;
  readonly tunables?: Readonly<Record<string, number>>;
  /** A further experiment step this variant takes. */
  readonly apply?: (exp: E) => E;
  /** What the variant changes, in one line. */
  readonly description: string;

  /** @internal Use variant(). */
  constructor(opts: VariantOptions<E>) {
    const keys = ["patches", "era", "machine", "tunables", "features", "apply", "description"];
    for (const k of Object.keys(opts ?? {}))
      if (!keys.includes(k))
        throw new Error(`variant: unknown option "${k}" (accepted: ${keys.join(", ")})`);
    const ps = opts.patches ?? [];
    if (!Array.isArray(ps) || ps.some((p) => !(p instanceof Patch)))
      throw new Error("variant: patches must be an array of Patch objects made with patch(...)");
    if (opts.era !== undefined && !isEra(opts.era))
      throw new Error(
        `variant: era must be one of ${ERAS.join(", ")} (got ${JSON.stringify(opts.era)})`,
      );
    if (
      opts.machine !== undefined &&
      typeof opts.machine !== "string" &&
      !(typeof opts.machine === "object" && Array.isArray((opts.machine as Machine).cpus))
    )
      throw new Error("variant: machine must be a preset name, a machine file or a Machine");
    if (opts.apply !== undefined && typeof opts.apply !== "function")
      throw new Error("variant: apply must be a function (experiment) => experiment");
    const features = Object.entries(opts.features ?? {});
    let extra: Patch[] = [];
    if (features.length) {
      let fp = patch(`features ${features.map(([k, on]) => `${on ? "+" : "-"}${k}`).join(" ")}`);
      for (const [k, on] of features) {
        if (typeof on !== "boolean")
          throw new Error(
            `variant: features.${k} must be true or false (got ${JSON.stringify(on)})`,
          );
        fp = fp.feature(k as keyof Features, on);
      }
      extra = [fp];
    }
    this.patches = Object.freeze([...ps, ...extra]);
    this.era = opts.era;
    this.machine = typeof opts.machine === "object" ? structuredClone(opts.machine) : opts.machine;
    this.tunables = opts.tunables ? Object.freeze({ ...opts.tunables }) : undefined;
    this.apply = opts.apply;
    this.description = opts.description ?? describe(opts, this.patches);
    Object.freeze(this);
  }

  /** What the spec records for this variant. */
  toJSON(): Record<string, unknown> {
    return {
      description: this.description,
      patches: this.patches.map((p) => p.name),
      ...(this.era ? { era: this.era } : {}),
      ...(this.machine
        ? { machine: typeof this.machine === "string" ? this.machine : this.machine.name }
        : {}),
      ...(this.tunables ? { tunables: { ...this.tunables } } : {}),
    };
  }
}

function describe<E>(opts: VariantOptions<E>, ps: readonly Patch[]): string {
  const parts: string[] = [];
  if (opts.machine)
    parts.push(`machine ${typeof opts.machine === "string" ? opts.machine : opts.machine.name}`);
  if (opts.era) parts.push(`era ${opts.era}`);
  if (opts.tunables) parts.push(`tunables ${JSON.stringify(opts.tunables)}`);
  if (ps.length) parts.push(`patches ${ps.map((p) => p.name).join("+")}`);
  if (opts.apply) parts.push("a further step");
  return parts.join(", ") || "the baseline";
}
