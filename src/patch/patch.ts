// Patches as data: a named set of hook replacements, feature flips and tunable settings, with
// the published source it came from. Patches compose in order on an era's baseline.
import type { Features, Tunables } from "../kernel/features";
import { eraDefaults, isEra, ERAS, type Era } from "../kernel/features";
import {
  assertHookName,
  type HookName,
  type HookReplacement,
  type HookReplacementEntry,
} from "../kernel/hooks";

export interface PatchSource {
  title: string;
  author?: string;
  date?: string;
  messageId?: string;
  /** lore.kernel.org (or other public) link to the published message. */
  url?: string;
  /** The kernel the patch applies to. */
  baseline?: Era;
  /** Short description of the kernel diff's logic. */
  diff?: string;
}

const FEATURE_NAMES = Object.keys(eraDefaults("6.19").features);
const TUNABLE_NAMES = Object.keys(eraDefaults("6.19").tunables);

export class Patch {
  readonly replacements: HookReplacementEntry[] = [];
  readonly features: Partial<Features> = {};
  readonly tunables: Partial<Tunables> = {};
  source: PatchSource;

  constructor(
    readonly name: string,
    source?: Partial<PatchSource>,
  ) {
    if (typeof name !== "string" || name.trim() === "")
      throw new Error("patch: name must be a non-empty string");
    this.source = { title: name, ...source };
  }

  /** Replace a hook; `fn(ctx, base)` may call the implementation it replaces. */
  replace<K extends HookName>(hook: K, fn: HookReplacement<K>): this {
    assertHookName(hook, `patch "${this.name}"`);
    if (typeof fn !== "function")
      throw new Error(`patch "${this.name}": replacement for ${hook} must be a function`);
    this.replacements.push({
      hook,
      fn: fn as unknown as HookReplacementEntry["fn"],
      patch: this.name,
    });
    return this;
  }

  feature(name: keyof Features, on: boolean): this {
    if (!FEATURE_NAMES.includes(name)) {
      throw new Error(
        `patch "${this.name}": unknown feature "${String(name)}" (accepted: ${FEATURE_NAMES.join(", ")})`,
      );
    }
    this.features[name] = on;
    return this;
  }

  tunable(name: keyof Tunables, value: number): this {
    if (!TUNABLE_NAMES.includes(name)) {
      throw new Error(
        `patch "${this.name}": unknown tunable "${String(name)}" (accepted: ${TUNABLE_NAMES.join(", ")})`,
      );
    }
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new Error(
        `patch "${this.name}": tunable ${name} must be a finite number >= 0 (got ${value})`,
      );
    }
    if (name === "hz" && (!Number.isInteger(value) || value < 1))
      throw new Error(`patch "${this.name}": tunable hz must be a positive integer (got ${value})`);
    this.tunables[name] = value;
    return this;
  }

  describe(meta: Partial<PatchSource>): this {
    this.source = { ...this.source, ...meta };
    return this;
  }
}

export function patch(name: string, source?: Partial<PatchSource>): Patch {
  return new Patch(name, source);
}

/** The kernel configuration that results from an era baseline plus patches in order. */
export function applyPatches(
  era: Era,
  patches: readonly Patch[],
): { tunables: Tunables; features: Features; replacements: HookReplacementEntry[] } {
  if (!isEra(era))
    throw new Error(`era must be one of ${ERAS.join(", ")} (got ${JSON.stringify(era)})`);
  const { tunables, features } = eraDefaults(era);
  const replacements: HookReplacementEntry[] = [];
  for (const p of patches) {
    if (!(p instanceof Patch))
      throw new Error(
        `variants: expected Patch objects made with patch(...) (got ${JSON.stringify(p)})`,
      );
    Object.assign(tunables, p.tunables);
    Object.assign(features, p.features);
    replacements.push(...p.replacements);
  }
  return { tunables, features, replacements };
}
