// Machine presets: data/machines/<name>.json holds each machine's topology parameters and every
// cost figure as { value, source }. The loader validates the file, builds the Machine through
// the builder and records each figure's source in Machine.sources.
import * as fs from "node:fs";
import * as path from "node:path";
import {
  costFigureNames,
  machineBuilder,
  type CostOverrides,
  type LlcSpan,
  type Numbering,
} from "./builder";
import { machineSpecSchema, parseWith, type MachineSpec, type Sourced } from "./schema";
import type { Arch, IdleState, Machine } from "./types";

export type { MachineSpec, Sourced } from "./schema";

/**
 * Finds data/<sub> by walking up from this file (works from src/ under tsx and from dist/);
 * `who` names the caller in the error.
 */
export function dataDir(sub: string, who: string): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const cand = path.join(dir, "data", sub);
    if (fs.existsSync(cand)) return cand;
    dir = path.dirname(dir);
  }
  throw new Error(`${who}: cannot find data/${sub} above ${__dirname}`);
}

const machinesDir = () => dataDir("machines", "presets");

/** Names of the machine presets (the JSON files in data/machines), sorted. */
export function presetNames(): string[] {
  return fs
    .readdirSync(machinesDir())
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -5))
    .sort();
}

const specCache = new Map<string, MachineSpec>();

/** The parsed JSON of a preset (for notebooks that show the figures and their sources). */
export function presetSpec(name: string): MachineSpec {
  const cached = specCache.get(name);
  if (cached) return cached;
  const names = presetNames();
  if (!names.includes(name)) {
    throw new Error(
      `preset: unknown machine ${JSON.stringify(name)}; accepted: ${names.join(", ")}`,
    );
  }
  const file = path.join(machinesDir(), `${name}.json`);
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`preset ${name}: ${file} is not valid JSON: ${(e as Error).message}`);
  }
  const spec = parseWith(machineSpecSchema, raw, `preset ${name} (${file})`);
  if (spec.name !== name)
    throw new Error(
      `preset ${name}: "name" in ${file} must be ${JSON.stringify(name)} (got ${JSON.stringify(spec.name)})`,
    );
  specCache.set(name, spec);
  return spec;
}

/** A Machine from a machine file of the preset schema (docs/file-formats.md), anywhere on disk. */
export function machineFromFile(file: string): Machine {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(
      `machine file ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`machine file ${file}: not valid JSON: ${(e as Error).message}`);
  }
  return machineFromSpec(raw, file);
}

/** A preset name, or a path to a machine file (anything ending in .json). */
export function machineByName(nameOrFile: string): Machine {
  return nameOrFile.endsWith(".json") ? machineFromFile(nameOrFile) : preset(nameOrFile);
}

/** A fresh Machine for a preset; callers may mutate it freely. */
export function preset(name: string): Machine {
  return machineFromSpec(presetSpec(name), `preset ${name}`);
}

/** Builds a Machine from its JSON form; every cost, cache and idle figure must carry a source. */
export function machineFromSpec(input: unknown, where = "machine spec"): Machine {
  const spec = parseWith(machineSpecSchema, input, where);
  const t = spec.topology;
  const sources: Record<string, string> = { topology: t.source };
  const b = machineBuilder()
    .name(spec.name)
    .description(spec.description)
    .sockets(t.sockets)
    .diesPerSocket(t.diesPerSocket ?? 1)
    .cores(t.coresPerSocket)
    .threads(t.threadsPerCore ?? 1)
    .l2SharedBy(t.l2SharedBy ?? 1)
    .llc(t.llc as LlcSpan)
    .nodes(t.nodes ?? 1)
    .numbering((t.numbering ?? "thread-major") as Numbering)
    .arch((t.arch ?? "x86_64") as Arch)
    .capacity(t.capacity ?? 1024);
  if (t.capacities !== undefined) b.capacities(t.capacities);
  if (spec.nodeDistance !== undefined) {
    b.distance(spec.nodeDistance.value);
    sources.nodeDistance = spec.nodeDistance.source;
  }

  const c = spec.costs as unknown as Record<
    string,
    Sourced<number> | Record<string, Sourced<number>>
  >;
  const overrides: Record<string, unknown> = {};
  for (const fig of costFigureNames()) {
    const [, key, level] = fig.split(".");
    const s = (
      level === undefined ? c[key] : (c[key] as Record<string, Sourced<number>>)[level]
    ) as Sourced<number>;
    if (level === undefined) overrides[key] = s.value;
    else {
      overrides[key] ??= {};
      (overrides[key] as Record<string, number>)[level] = s.value;
    }
    sources[fig] = s.source;
  }
  b.costs(overrides as CostOverrides);

  b.caches({ l2Bytes: spec.caches.l2Bytes.value, llcBytes: spec.caches.llcBytes.value });
  sources["caches.l2Bytes"] = spec.caches.l2Bytes.source;
  sources["caches.llcBytes"] = spec.caches.llcBytes.source;

  const states: IdleState[] = spec.idleStates.map((s) => {
    sources[`idle.${s.name}.exitLatencyNs`] = s.exitLatencyNs.source;
    sources[`idle.${s.name}.targetResidencyNs`] = s.targetResidencyNs.source;
    let polling = s.polling;
    if (typeof polling === "object") {
      sources[`idle.${s.name}.polling`] = polling.source;
      polling = polling.value;
    }
    const st: IdleState = {
      name: s.name,
      exitLatencyNs: s.exitLatencyNs.value,
      targetResidencyNs: s.targetResidencyNs.value,
      polling,
    };
    if (s.coreExitLatencyNs) {
      st.coreExitLatencyNs = s.coreExitLatencyNs.value;
      sources[`idle.${s.name}.coreExitLatencyNs`] = s.coreExitLatencyNs.source;
    }
    if (s.packageScope) {
      st.packageScope = s.packageScope.value;
      sources[`idle.${s.name}.packageScope`] = s.packageScope.source;
    }
    if (s.exitDraw) {
      const part = (k: "core" | "packageExtra") => {
        const d = s.exitDraw![k];
        sources[`idle.${s.name}.exitDraw.${k}.medianNs`] = d.medianNs.source;
        sources[`idle.${s.name}.exitDraw.${k}.logSd`] = d.logSd.source;
        return { medianNs: d.medianNs.value, logSd: d.logSd.value };
      };
      st.exitDraw = { core: part("core"), packageExtra: part("packageExtra") };
    }
    if (s.haltPoll) {
      st.haltPoll = { pollNs: s.haltPoll.pollNs.value, exitNs: s.haltPoll.exitNs.value };
      sources[`idle.${s.name}.haltPoll.pollNs`] = s.haltPoll.pollNs.source;
      sources[`idle.${s.name}.haltPoll.exitNs`] = s.haltPoll.exitNs.source;
    }
    return st;
  });
  b.idleStates(states);
  b.sources(sources);
  let m: Machine;
  try {
    m = b.build();
  } catch (e) {
    throw new Error(`${where}: ${(e as Error).message}`);
  }
  const bw = spec.bandwidth;
  if (bw) {
    m.bandwidth = { nodeBytesPerNs: bw.nodeBytesPerNs.value };
    m.sources["bandwidth.nodeBytesPerNs"] = bw.nodeBytesPerNs.source;
    for (const k of ["llcBytesPerNs", "interconnectBytesPerNs"] as const) {
      const f = bw[k];
      if (!f) continue;
      m.bandwidth[k] = f.value;
      m.sources[`bandwidth.${k}`] = f.source;
    }
  }
  return m;
}
