// Cost profiles: named sets of machine figures (every cost, the idle states and the cache sizes,
// each with its source) to start a hand-built or imported machine from, by CPU family and era.
// Each profile is the figure set of a preset in data/machines, so a figure and its source live
// in one place. Sources starting "choice:" or "estimate:" (or builder defaults) are guesses; the
// others cite a primary source for the preset's machine. For another machine of the family every
// figure is borrowed, which isGuess / profileFigures say.
import type { CostProfile } from "./builder";
import { registerProfileNames } from "./builder_checks";
import { presetNames, preset } from "./presets";
import type { Machine } from "./types";

/** A profile's name, the preset whose figures it takes, and what it stands for. */
export interface CostProfileInfo {
  name: string;
  preset: string;
  description: string;
}

/** The generic profiles by CPU family and era (presets can be named directly too). */
export const COST_PROFILES: readonly CostProfileInfo[] = [
  {
    name: "x86-server-2008",
    preset: "xeon-x5472",
    description:
      "two-socket Core 2 / Harpertown class FSB server (2007-2008), L2 shared by core pairs",
  },
  {
    name: "x86-server-2015",
    preset: "hsw-ep-2x18x2",
    description: "two-socket Haswell-EP class server (2014-2015), ring L3, QPI",
  },
  {
    name: "x86-server-2019",
    preset: "x86-104t",
    description: "two-socket Cascade Lake-SP class server (2019), mesh L3, UPI",
  },
  {
    name: "arm64-a53-2016",
    preset: "hikey-a53-2x4",
    description: "two-cluster Cortex-A53 board (HiKey / Hi6220 class, 2015-2016), L2 per cluster",
  },
];

/** Every name costProfile() takes: the generic profiles, then the presets. */
export function costProfileNames(): string[] {
  return [...COST_PROFILES.map((p) => p.name), ...presetNames()];
}

/** A cost profile by name: a generic profile (COST_PROFILES) or any preset. */
export function costProfile(name: string): CostProfile {
  const info = COST_PROFILES.find((p) => p.name === name);
  const presetName = info?.preset ?? name;
  if (!presetNames().includes(presetName))
    throw new Error(
      `profile: unknown cost profile ${JSON.stringify(name)}; accepted: ${costProfileNames().join(", ")}`,
    );
  const m = preset(presetName);
  const sources: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.sources))
    if (k.startsWith("costs.") || k.startsWith("idle.") || k.startsWith("caches.")) sources[k] = v;
  return {
    name,
    description: info ? `${info.description} (figures of preset ${presetName})` : m.description,
    arch: m.arch,
    costs: m.costs,
    idleStates: m.idleStates,
    caches: m.caches,
    sources,
  };
}

/** The preset a profile name stands for (itself for a preset name). */
export function profilePreset(name: string): string {
  costProfile(name); // validates the name
  return COST_PROFILES.find((p) => p.name === name)?.preset ?? name;
}

/** Whether a figure's source is a guess (a choice, an estimate or a default) rather than a citation. */
export function isGuess(source: string): boolean {
  const s = source.replace(/^profile [^:]+(, not measured on this machine)?: /, "").trim();
  return /^(choice|estimate|builder|override|level does not occur)/i.test(s);
}

/** One line per figure of a machine file or Machine sources: its value and whether it is a guess. */
export function profileFigures(
  sources: Record<string, string>,
  value: (figure: string) => number | boolean | undefined,
): string[] {
  return Object.keys(sources)
    .filter((k) => k.startsWith("costs.") || k.startsWith("idle.") || k.startsWith("caches."))
    .sort()
    .map((k) => {
      const v = value(k);
      const tag = isGuess(sources[k]) ? "guess  " : "sourced";
      return `${tag} ${k} = ${v === undefined ? "?" : v}: ${sources[k]}`;
    });
}

/** The value of a figure name ("costs.cacheLineNs.shared_l2", "idle.C1.exitLatencyNs", ...) in `m`. */
export function figureValue(m: Machine, figure: string): number | boolean | undefined {
  const [kind, a, b] = figure.split(".");
  if (kind === "costs") {
    const v = (m.costs as unknown as Record<string, number | Record<string, number>>)[a];
    return typeof v === "number" ? v : v?.[b];
  }
  if (kind === "caches") return m.caches[a as "l2Bytes" | "llcBytes"];
  if (kind === "idle") {
    const st = m.idleStates.find((x) => x.name === a);
    return st ? (st as unknown as Record<string, number | boolean>)[b] : undefined;
  }
  return undefined;
}

/** Every figure of `m` with its value, marked sourced or guess (what the CLI prints). */
export function machineFigures(m: Machine): string[] {
  return profileFigures(m.sources, (f) => figureValue(m, f));
}

// machineBuilder().profile(name) takes the same names as costProfile
registerProfileNames(costProfile);
