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

/** Where a patch was published: title, author, date, LKML Message-ID, and what its diff does. */
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

/** Everything a Patch holds; frozen, and replaced (never changed) by each builder step. */
export interface PatchProps {
  /** The patch's name; a variant made of patches is named after them. */
  readonly name: string;
  /** Where the patch was published. */
  readonly source: Readonly<PatchSource>;
  /** Hook replacements, in the order they were added. */
  readonly replacements: readonly HookReplacementEntry[];
  /** Scheduler features this patch turns on or off. */
  readonly features: Readonly<Partial<Features>>;
  /** Tunables (sysctls) this patch sets. */
  readonly tunables: Readonly<Partial<Tunables>>;
}

const freeze = Object.freeze;

/** Throws, naming `where`, unless `name` is a tunable and `value` a legal setting of it. */
export function checkTunable(where: string, name: string, value: unknown): void {
  if (!TUNABLE_NAMES.includes(name)) {
    throw new Error(`${where}: unknown tunable "${name}" (accepted: ${TUNABLE_NAMES.join(", ")})`);
  }
  // sched_rt_runtime_us = -1 is RUNTIME_INF: no RT throttling (rt_bandwidth_enabled() is false).
  if (name === "sched_rt_runtime_us" && value === -1) return;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    const inf = name === "sched_rt_runtime_us" ? " or -1 (RUNTIME_INF)" : "";
    throw new Error(`${where}: tunable ${name} must be a finite number >= 0${inf} (got ${value})`);
  }
  if (name === "sched_rt_period_us" && !(value >= 1))
    throw new Error(`${where}: tunable sched_rt_period_us must be >= 1 (got ${value})`);
  if (name === "fair_server_period_ns" && !(value >= 1))
    throw new Error(`${where}: tunable fair_server_period_ns must be >= 1 (got ${value})`);
  if (
    (name === "psi" || name === "skew_tick" || name === "sched_cluster") &&
    value !== 0 &&
    value !== 1
  )
    throw new Error(`${where}: tunable ${name} must be 0 or 1 (got ${value})`);
  if (name === "hz" && (!Number.isInteger(value) || value < 1))
    throw new Error(`${where}: tunable hz must be a positive integer (got ${value})`);
}

/**
 * A kernel patch as data: hook replacements, feature flips and tunable settings, with the
 * published source it came from. Make one with patch(). Each step returns a new Patch and leaves
 * the one it was called on unchanged, so the published patches in `seeds` are safe to extend.
 *
 * @example
 * ```ts
 * import { seeds } from "schedlab";
 * const hz100 = seeds.groupPower2009.tunable("hz", 100);
 * console.log(seeds.groupPower2009.tunables, hz100.tunables, hz100.replacements.length);
 * ```
 * Prints:
 * ```text
 * {} { hz: 100 } 1
 * ```
 */
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

  /**
   * Replace a hook; `fn(ctx, base)` may call the implementation it replaces. `npx schedlab hooks`
   * (or hookNames()/hookDescription()) lists the hooks and what their context holds.
   *
   * @example
   * ```ts
   * import { patch, topology, workload } from "schedlab";
   * let calls = 0;
   * const counted = patch("count-wake-affine").replace("fair.wake_affine", (ctx, base) => {
   *   calls++;
   *   return base(ctx);
   * });
   * await topology("core2-2x2").patch(counted).workload(workload.pingpong({ pairs: 1, seconds: 0.01 })).run();
   * console.log(counted.replacements.map((r) => r.hook), calls > 0);
   * ```
   * Prints:
   * ```text
   * [ 'fair.wake_affine' ] true
   * ```
   */
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

  /**
   * Turn a scheduler feature (kernel/sched/features.h) on or off.
   *
   * @example
   * ```ts
   * import { eraDefaults, patch } from "schedlab";
   * const p = patch("no-start-debit").feature("START_DEBIT", false);
   * console.log(eraDefaults("6.19").features.START_DEBIT, "->", p.features.START_DEBIT);
   * ```
   * Prints:
   * ```text
   * true -> false
   * ```
   */
  feature(name: keyof Features, on: boolean): Patch {
    if (!FEATURE_NAMES.includes(name)) {
      throw new Error(
        `patch "${this.name}": unknown feature "${String(name)}" (accepted: ${FEATURE_NAMES.join(", ")})`,
      );
    }
    return this.#with({ features: { ...this.features, [name]: on } });
  }

  /**
   * Set a tunable (a sysctl or a compile-time constant such as hz).
   *
   * @example
   * ```ts
   * import { patch } from "schedlab";
   * const p = patch("hz250").tunable("hz", 250);
   * console.log(p.tunables);
   * try {
   *   p.tunable("hz", 0);
   * } catch (e) {
   *   console.log((e as Error).message);
   * }
   * ```
   * Prints:
   * ```text
   * { hz: 250 }
   * patch "hz250": tunable hz must be a positive integer (got 0)
   * ```
   */
  tunable(name: keyof Tunables, value: number): Patch {
    checkTunable(`patch "${this.name}"`, name, value);
    return this.#with({ tunables: { ...this.tunables, [name]: value } });
  }

  /**
   * The same patch with more (or corrected) source information.
   *
   * @example
   * ```ts
   * import { patch } from "schedlab";
   * const p = patch("hz250").tunable("hz", 250).describe({ author: "me", date: "2024-01-01" });
   * console.log(p.source);
   * ```
   * Prints:
   * ```text
   * { title: 'hz250', author: 'me', date: '2024-01-01' }
   * ```
   */
  describe(meta: Partial<PatchSource>): Patch {
    return this.#with({ source: { ...this.source, ...meta } });
  }
}

/**
 * Start a patch: a name, and optionally where it was published. Add its changes with
 * replace(), feature() and tunable(), then pass it to Experiment.patch() or variants().
 *
 * @example
 * ```ts
 * import { patch, topology, workload } from "schedlab";
 * const longer = patch("slice x4", { title: "base_slice_ns = 3 ms" })
 *   .tunable("sched_min_granularity_ns", 3e6);
 * const res = await topology("core2-2x2")
 *   .workload(workload.hogs({ n: 2, cpus: [0], seconds: 0.2 }))
 *   .variants({ base: [], longer: [longer] })
 *   .run();
 * console.log(res.variants, res.mean("sched.contextSwitches", "longer") < res.mean("sched.contextSwitches", "base"));
 * ```
 * Prints:
 * ```text
 * [ 'base', 'longer' ] true
 * ```
 */
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
