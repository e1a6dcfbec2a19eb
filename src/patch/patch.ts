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
  /** File under ../shared/seeds or a URL-free citation. */
  file?: string;
  /** The kernel the patch applies to. */
  baseline?: Era;
  /** Short description of the kernel diff's logic. */
  diff?: string;
}

const FEATURE_NAMES = Object.keys(eraDefaults("6.19").features);
const TUNABLE_NAMES = Object.keys(eraDefaults("6.19").tunables);

/** Everything a Patch holds; frozen, and replaced (never changed) by each builder step. */
export interface PatchProps {
  readonly name: string;
  readonly source: Readonly<PatchSource>;
  readonly replacements: readonly HookReplacementEntry[];
  readonly features: Readonly<Partial<Features>>;
  readonly tunables: Readonly<Partial<Tunables>>;
}

const freeze = Object.freeze;

export class Patch {
  // Kysely's pattern: frozen props, and each step returns a new Patch. The published patches
  // (seeds) are shared with the reproductions, so changing one in place would change what a
  // reproduction measures.
  readonly name: string;
  readonly source: Readonly<PatchSource>;
  readonly replacements: readonly HookReplacementEntry[];
  readonly features: Readonly<Partial<Features>>;
  readonly tunables: Readonly<Partial<Tunables>>;

  /** @internal Use patch() to start a patch. */
  constructor(props: PatchProps) {
    this.name = props.name;
    this.source = freeze({ ...props.source });
    this.replacements = freeze(props.replacements.map((r) => freeze({ ...r })));
    this.features = freeze({ ...props.features });
    this.tunables = freeze({ ...props.tunables });
    freeze(this);
  }

  #with(changes: Partial<PatchProps>): Patch {
    const { name, source, replacements, features, tunables } = this;
    return new Patch({ name, source, replacements, features, tunables, ...changes });
  }

  /** Replace a hook; `fn(ctx, base)` may call the implementation it replaces. */
  replace<K extends HookName>(hook: K, fn: HookReplacement<K>): Patch {
    assertHookName(hook, `patch "${this.name}"`);
    if (typeof fn !== "function")
      throw new Error(`patch "${this.name}": replacement for ${hook} must be a function`);
    const entry: HookReplacementEntry = {
      hook,
      fn: fn as unknown as HookReplacementEntry["fn"],
      patch: this.name,
    };
    return this.#with({ replacements: [...this.replacements, entry] });
  }

  feature(name: keyof Features, on: boolean): Patch {
    if (!FEATURE_NAMES.includes(name)) {
      throw new Error(
        `patch "${this.name}": unknown feature "${String(name)}" (accepted: ${FEATURE_NAMES.join(", ")})`,
      );
    }
    return this.#with({ features: { ...this.features, [name]: on } });
  }

  tunable(name: keyof Tunables, value: number): Patch {
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
    return this.#with({ tunables: { ...this.tunables, [name]: value } });
  }

  describe(meta: Partial<PatchSource>): Patch {
    return this.#with({ source: { ...this.source, ...meta } });
  }
}

export function patch(name: string, source?: Partial<PatchSource>): Patch {
  if (typeof name !== "string" || name.trim() === "")
    throw new Error("patch: name must be a non-empty string");
  return new Patch({
    name,
    source: { title: name, ...source },
    replacements: [],
    features: {},
    tunables: {},
  });
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
