// Machine presets: data/machines/<name>.json holds each machine's topology parameters and every
// cost figure as { value, source }. The loader validates the file, builds the Machine through
// the builder and records each figure's source in Machine.sources.
import * as fs from "node:fs";
import * as path from "node:path";
import {
  LLC_SPANS,
  NUMBERINGS,
  costFigureNames,
  machineBuilder,
  type CostOverrides,
  type LlcSpan,
  type Numbering,
} from "./builder";
import { SHARE_LEVELS, type IdleState, type Machine, type ShareLevel } from "./types";

export interface Sourced<T> {
  value: T;
  /** A citation, or "choice: ..." saying why the figure was chosen. */
  source: string;
}

type LevelTable = Record<ShareLevel, Sourced<number>>;

/** The JSON form of a machine (data/machines/<name>.json). */
export interface MachineSpec {
  name: string;
  description: string;
  topology: {
    sockets: number;
    diesPerSocket?: number;
    coresPerSocket: number;
    threadsPerCore?: number;
    l2SharedBy?: number;
    llc: LlcSpan;
    nodes?: number;
    numbering?: Numbering;
    capacity?: number;
    source: string;
  };
  nodeDistance?: Sourced<number[][]>;
  caches: { l2Bytes: Sourced<number>; llcBytes: Sourced<number> };
  costs: {
    contextSwitchNs: Sourced<number>;
    syscallNs: Sourced<number>;
    wakeupNs: Sourced<number>;
    ipiSendNs: Sourced<number>;
    ipiDeliveryNs: Sourced<number>;
    rqLockLocalNs: Sourced<number>;
    rqLockRemoteNs: LevelTable;
    cacheLineNs: LevelTable;
    copyBytesPerNs: LevelTable;
    memoryBytesPerNs: Sourced<number>;
    smtSiblingSpeed: Sourced<number>;
  };
  idleStates: Array<{
    name: string;
    /** TIF_POLLING_NRFLAG while in the state; a bare boolean is accepted without a source. */
    polling: boolean | Sourced<boolean>;
    exitLatencyNs: Sourced<number>;
    targetResidencyNs: Sourced<number>;
  }>;
}

/** Finds data/machines by walking up from this file (works from src/ under tsx and from dist/). */
function machinesDir(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const cand = path.join(dir, "data", "machines");
    if (fs.existsSync(cand)) return cand;
    dir = path.dirname(dir);
  }
  throw new Error(`presets: cannot find data/machines above ${__dirname}`);
}

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
  const spec = raw as MachineSpec;
  if (spec.name !== name)
    throw new Error(
      `preset ${name}: "name" in ${file} must be ${JSON.stringify(name)} (got ${JSON.stringify(spec.name)})`,
    );
  specCache.set(name, spec);
  return spec;
}

/** A fresh Machine for a preset; callers may mutate it freely. */
export function preset(name: string): Machine {
  return machineFromSpec(presetSpec(name), `preset ${name}`);
}

function sourced(where: string, field: string, x: unknown): Sourced<number> {
  const s = x as Sourced<number> | undefined;
  if (!s || typeof s !== "object")
    throw new Error(
      `${where}: ${field} must be { "value": number, "source": "..." } (got ${JSON.stringify(x)})`,
    );
  if (typeof s.value !== "number" || !Number.isFinite(s.value)) {
    throw new Error(
      `${where}: ${field}.value must be a finite number (got ${JSON.stringify(s.value)})`,
    );
  }
  if (typeof s.source !== "string" || s.source.trim().length === 0) {
    throw new Error(
      `${where}: ${field}.source must be a non-empty citation or "choice: ..." (got ${JSON.stringify(s.source)})`,
    );
  }
  return s;
}

/** Builds a Machine from its JSON form; every cost, cache and idle figure must carry a source. */
export function machineFromSpec(spec: MachineSpec, where = "machine spec"): Machine {
  if (!spec || typeof spec !== "object") throw new Error(`${where}: must be an object`);
  const t = spec.topology;
  if (!t || typeof t !== "object")
    throw new Error(
      `${where}: "topology" must be an object with sockets, coresPerSocket, llc, source`,
    );
  if (typeof t.source !== "string" || !t.source.trim())
    throw new Error(`${where}: topology.source must be a non-empty string`);
  if (!LLC_SPANS.includes(t.llc))
    throw new Error(
      `${where}: topology.llc must be one of ${LLC_SPANS.join(", ")} (got ${JSON.stringify(t.llc)})`,
    );
  if (t.numbering !== undefined && !NUMBERINGS.includes(t.numbering)) {
    throw new Error(
      `${where}: topology.numbering must be one of ${NUMBERINGS.join(", ")} (got ${JSON.stringify(t.numbering)})`,
    );
  }
  const sources: Record<string, string> = { topology: t.source };
  const b = machineBuilder()
    .name(spec.name)
    .description(spec.description)
    .sockets(t.sockets)
    .diesPerSocket(t.diesPerSocket ?? 1)
    .cores(t.coresPerSocket)
    .threads(t.threadsPerCore ?? 1)
    .l2SharedBy(t.l2SharedBy ?? 1)
    .llc(t.llc)
    .nodes(t.nodes ?? 1)
    .numbering(t.numbering ?? "thread-major")
    .capacity(t.capacity ?? 1024);
  if (spec.nodeDistance !== undefined) {
    const d = spec.nodeDistance as Sourced<unknown>;
    if (!d || typeof d.source !== "string" || !d.source.trim())
      throw new Error(`${where}: nodeDistance.source must be a non-empty string`);
    b.distance(d.value as number[][]);
    sources.nodeDistance = d.source;
  }

  const c = spec.costs as unknown as Record<string, unknown>;
  if (!c || typeof c !== "object")
    throw new Error(`${where}: "costs" must be an object of sourced figures`);
  const overrides: Record<string, unknown> = {};
  for (const fig of costFigureNames()) {
    const [, key, level] = fig.split(".");
    let raw = c[key];
    if (level !== undefined) {
      const tbl = c[key] as Record<string, unknown> | undefined;
      if (!tbl || typeof tbl !== "object")
        throw new Error(
          `${where}: costs.${key} must map each of ${SHARE_LEVELS.join(", ")} to a sourced figure`,
        );
      raw = tbl[level];
    }
    const s = sourced(where, fig, raw);
    if (level === undefined) overrides[key] = s.value;
    else {
      overrides[key] ??= {};
      (overrides[key] as Record<string, number>)[level] = s.value;
    }
    sources[fig] = s.source;
  }
  for (const key of Object.keys(c)) {
    if (!costFigureNames().some((f) => f.split(".")[1] === key))
      throw new Error(`${where}: costs.${key} is not a cost figure`);
  }
  b.costs(overrides as CostOverrides);

  const ca = spec.caches;
  if (!ca || typeof ca !== "object")
    throw new Error(`${where}: "caches" must hold sourced l2Bytes and llcBytes`);
  const l2 = sourced(where, "caches.l2Bytes", ca.l2Bytes);
  const llc = sourced(where, "caches.llcBytes", ca.llcBytes);
  b.caches({ l2Bytes: l2.value, llcBytes: llc.value });
  sources["caches.l2Bytes"] = l2.source;
  sources["caches.llcBytes"] = llc.source;

  if (!Array.isArray(spec.idleStates))
    throw new Error(`${where}: "idleStates" must be an array (shallow to deep)`);
  const states: IdleState[] = spec.idleStates.map((s, i) => {
    const ex = sourced(where, `idleStates[${i}].exitLatencyNs`, s?.exitLatencyNs);
    const tr = sourced(where, `idleStates[${i}].targetResidencyNs`, s?.targetResidencyNs);
    sources[`idle.${s.name}.exitLatencyNs`] = ex.source;
    sources[`idle.${s.name}.targetResidencyNs`] = tr.source;
    let polling: unknown = s.polling;
    if (polling !== null && typeof polling === "object") {
      const ps = polling as Sourced<unknown>;
      if (typeof ps.source !== "string" || !ps.source.trim())
        throw new Error(`${where}: idleStates[${i}].polling.source must be a non-empty string`);
      sources[`idle.${s.name}.polling`] = ps.source;
      polling = ps.value;
    }
    return {
      name: s.name,
      exitLatencyNs: ex.value,
      targetResidencyNs: tr.value,
      polling: polling as boolean,
    };
  });
  b.idleStates(states);
  b.sources(sources);
  try {
    return b.build();
  } catch (e) {
    throw new Error(`${where}: ${(e as Error).message}`);
  }
}
