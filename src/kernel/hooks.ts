// Named decision points. Each place a published patch changes is a hook with a typed context
// and a default implementation per era; a patch replaces it with a function that may still
// call the default (`base`). Kernel modules declare their hooks by merging into HookTypes:
//
//   declare module "./hooks" { interface HookTypes { "fair.x": (ctx: XCtx) => number } }
//   defineHook("fair.x", "what it decides", (era) => defaultImpl);
import type { Era } from "./features";
import { checkedReplacement } from "./hook_checks";

// Empty on purpose: each kernel module adds its hooks by declaration merging.
/**
 * Every hook's name and signature; kernel modules add theirs by declaration merging. Each hook in
 * full (kernel function per era, context fields, default, example): the Hooks document
 * (docs/hooks.md), `npx schedlab hooks --verbose HOOK`, or {@link HOOK_DOCS}.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an open interface extended by module augmentation
export interface HookTypes {}
/** The name of a hook, e.g. "fair.select_task_rq". */
export type HookName = keyof HookTypes & string;
type AnyFn = (ctx: never) => unknown;
export type HookFn<K extends HookName> = HookTypes[K];
/** A replacement gets the hook's context and the implementation it replaces. */
export type HookReplacement<K extends HookName> = HookTypes[K] extends (ctx: infer C) => infer R
  ? (ctx: C, base: HookTypes[K]) => R
  : never;

interface HookDef {
  name: string;
  description: string;
  byEra: (era: Era) => AnyFn;
}

const CATALOG = new Map<string, HookDef>();

export function defineHook<K extends HookName>(
  name: K,
  description: string,
  byEra: (era: Era) => HookTypes[K],
): void {
  if (CATALOG.has(name)) throw new Error(`hook ${name} is defined twice`);
  CATALOG.set(name, { name, description, byEra: byEra as unknown as (era: Era) => AnyFn });
}

/** The names of all defined hooks, sorted (`npx schedlab hooks` lists them). */
export function hookNames(): string[] {
  return [...CATALOG.keys()].sort();
}

/** What a hook decides, in one line, or undefined for an unknown name. */
export function hookDescription(name: string): string | undefined {
  return CATALOG.get(name)?.description;
}

export function assertHookName(name: string, where = "hook"): asserts name is HookName {
  if (!CATALOG.has(name)) {
    throw new Error(`${where}: unknown hook "${name}" (accepted: ${hookNames().join(", ")})`);
  }
}

/** One hook replacement a patch carries: the hook, its replacement, and the patch's name. */
export interface HookReplacementEntry {
  hook: string;
  /** The replacement, called as fn(ctx, base) (a HookReplacement). */
  fn: (ctx: never, base: never) => unknown;
  patch: string;
}

/** The hook implementations in force for one kernel instance: era defaults, then patches in order. */
export class Hooks {
  private readonly impls = new Map<string, AnyFn>();

  constructor(
    readonly era: Era,
    replacements: readonly HookReplacementEntry[] = [],
  ) {
    for (const def of CATALOG.values()) this.impls.set(def.name, def.byEra(era));
    for (const r of replacements) {
      assertHookName(r.hook, `patch ${r.patch}`);
      const base = this.impls.get(r.hook)!;
      const fn = r.fn as unknown as (ctx: unknown, base: unknown) => unknown;
      // checked: an illegal answer stops the run naming the hook and the patch
      this.impls.set(
        r.hook,
        checkedReplacement(r.hook, r.patch, (ctx: unknown) => fn(ctx, base)) as AnyFn,
      );
    }
  }

  /** The implementation of a hook in force for this kernel. */
  get<K extends HookName>(name: K): HookTypes[K] {
    const f = this.impls.get(name);
    if (!f) throw new Error(`unknown hook "${name}" (accepted: ${hookNames().join(", ")})`);
    return f as unknown as HookTypes[K];
  }
}
