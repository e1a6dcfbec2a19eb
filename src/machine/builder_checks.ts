// The argument checks of each MachineBuilder method, run when the method is called: a wrong
// type or value throws at once, naming the method (the field) and the accepted values. Checks
// that need other fields (cores divisible by dies, a distance matrix of `nodes` rows, capacities
// per CPU) stay in build(), which runs them all at once.
import { checkIdleStates } from "./idle_states";
import type { CostProfile } from "./types";

/** Throws `topology: <field> must be <accepted> (got <value>)`. */
export function fail(field: string, accepted: string, got: unknown): never {
  throw new Error(`topology: ${field} must be ${accepted} (got ${fmt(got)})`);
}

export function fmt(x: unknown): string {
  if (typeof x === "string") return JSON.stringify(x);
  if (Array.isArray(x)) return JSON.stringify(x);
  if (x !== null && typeof x === "object") {
    try {
      return JSON.stringify(x).slice(0, 200);
    } catch {
      return "an object";
    }
  }
  return String(x);
}

export function posInt(field: string, n: unknown): number {
  if (typeof n !== "number" || !Number.isInteger(n) || n <= 0) fail(field, "a positive integer", n);
  return n;
}

export function nonEmptyString(field: string, s: unknown): string {
  if (typeof s !== "string" || s.length === 0) fail(field, "a non-empty string", s);
  return s;
}

export function oneOf<T extends string>(field: string, accepted: readonly T[], v: unknown): T {
  if (!(accepted as readonly unknown[]).includes(v))
    fail(field, `one of ${accepted.map((s) => `"${s}"`).join(", ")}`, v);
  return v as T;
}

export function plainObject(field: string, accepted: string, v: unknown): Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) fail(field, accepted, v);
  return v as Record<string, unknown>;
}

export function intArray(field: string, accepted: string, v: unknown, min: number): number[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== "number" || !Number.isInteger(x) || x < min))
    fail(field, accepted, v);
  return [...(v as number[])];
}

/** A CostProfile as costProfile(name) returns it (the builder takes it or the name). */
export function checkCostProfile(p: unknown): CostProfile {
  const accepted =
    "a cost profile name (costProfileNames(): x86-server-2008, x86-server-2015, x86-server-2019, arm64-a53-2016 or a preset name) or a CostProfile from costProfile(name)";
  const o = plainObject("profile", accepted, p);
  if (
    typeof o.name !== "string" ||
    o.costs === null ||
    typeof o.costs !== "object" ||
    !Array.isArray(o.idleStates) ||
    o.caches === null ||
    typeof o.caches !== "object" ||
    o.sources === null ||
    typeof o.sources !== "object"
  )
    fail("profile", accepted, p);
  checkIdleStates(o.idleStates);
  return p as CostProfile;
}

/**
 * How MachineBuilder.profile(name) finds a profile: profiles.ts registers costProfile here when
 * it loads (it reads the presets, which are built with the builder, so the builder cannot import
 * it).
 */
export const profileByName: { resolve?: (name: string) => CostProfile } = {};

/** Called once by profiles.ts: lets MachineBuilder.profile() take a profile name. */
export function registerProfileNames(resolve: (name: string) => CostProfile): void {
  profileByName.resolve = resolve;
}
