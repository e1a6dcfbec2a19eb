// A fluent builder for Machine: topology (sockets, dies, cores, threads, who shares L2/LLC,
// NUMA nodes), Linux CPU numbering, costs, idle states. Every invalid parameter throws an Error
// naming the field and the accepted values, so a notebook user sees what to fix: each method
// checks its own argument when called (builder_checks.ts), build() what depends on several.
import { applyIdleLimit, checkIdleLimit, checkIdleStates, type IdleLimit } from "./idle_states";
import {
  checkCostProfile,
  fail,
  fmt,
  intArray,
  nonEmptyString,
  oneOf,
  plainObject,
  posInt,
  profileByName,
} from "./builder_checks";
import {
  ARCHS,
  SHARE_LEVELS,
  type Arch,
  type CacheSizes,
  type CostModel,
  type CostProfile,
  type CpuInfo,
  type IdleState,
  type Machine,
  type ShareLevel,
} from "./types";

/** What the last-level cache spans: one die, the whole package, or (no L3) the L2 instance. */
export type LlcSpan = "die" | "package" | "l2";
export const LLC_SPANS: readonly LlcSpan[] = ["die", "package", "l2"];

/**
 * Linux CPU numbering. "thread-major" is the x86 BIOS/MADT order: thread 0 of every core first
 * (socket by socket), then thread 1 of every core, so SMT siblings are N/2 apart.
 * "core-major" numbers the threads of a core consecutively (siblings adjacent).
 */
export type Numbering = "thread-major" | "core-major";
export const NUMBERINGS: readonly Numbering[] = ["thread-major", "core-major"];

export const LOCAL_DISTANCE = 10;
/** Default remote distance: the usual 2-socket SLIT value (REMOTE_DISTANCE is 20 in the kernel). */
export const DEFAULT_REMOTE_DISTANCE = 21;
/** The capacity of the biggest CPU at its highest frequency (SCHED_CAPACITY_SCALE). */
export const SCHED_CAPACITY_SCALE = 1024;

/** Partial cost overrides; the per-share-level tables may be given in part. */
export type CostOverrides = Partial<
  Omit<CostModel, "rqLockRemoteNs" | "cacheLineNs" | "copyBytesPerNs">
> & {
  rqLockRemoteNs?: Partial<Record<ShareLevel, number>>;
  cacheLineNs?: Partial<Record<ShareLevel, number>>;
  copyBytesPerNs?: Partial<Record<ShareLevel, number>>;
};

/** Cost figures that are one number per machine. */
export const SCALAR_COSTS = [
  "contextSwitchNs",
  "syscallNs",
  "wakeupNs",
  "ipiSendNs",
  "ipiDeliveryNs",
  "rqLockLocalNs",
  "memoryBytesPerNs",
  "smtSiblingSpeed",
] as const;
/** Cost figures given per share level. */
export const LEVEL_COSTS = ["rqLockRemoteNs", "cacheLineNs", "copyBytesPerNs"] as const;

/** Every figure name of a CostModel, as used for Machine.sources keys ("costs.<name>[.<level>]"). */
export function costFigureNames(): string[] {
  const out: string[] = SCALAR_COSTS.map((k) => `costs.${k}`);
  for (const k of LEVEL_COSTS) for (const l of SHARE_LEVELS) out.push(`costs.${k}.${l}`);
  return out;
}

function table(values: number[]): Record<ShareLevel, number> {
  const r = {} as Record<ShareLevel, number>;
  SHARE_LEVELS.forEach((l, i) => {
    r[l] = values[i];
  });
  return r;
}

/**
 * Costs used when a hand-built machine does not state its own: a generic two-socket x86 server of
 * the late 2010s, order-of-magnitude choices (see docs/cost-model.md). Presets never rely on
 * these; every preset figure comes from data/machines/<name>.json with its source.
 */
export const DEFAULT_COSTS: CostModel = {
  contextSwitchNs: 1200,
  syscallNs: 150,
  wakeupNs: 400,
  ipiSendNs: 200,
  ipiDeliveryNs: 1500,
  rqLockLocalNs: 20,
  //                     same_cpu same_core shared_l2 shared_llc same_package same_node other_node
  rqLockRemoteNs: table([0, 10, 40, 150, 150, 400, 400]),
  cacheLineNs: table([1, 2, 10, 45, 45, 130, 130]),
  copyBytesPerNs: table([20, 20, 15, 12, 12, 6, 6]),
  memoryBytesPerNs: 10,
  smtSiblingSpeed: 0.65,
};
const DEFAULT_COST_SOURCE =
  "builder default: choice, generic 2-socket x86 server figure (order of magnitude, see docs/cost-model.md); not measured for this machine";

export type { CostProfile } from "./types";

export const DEFAULT_CACHES: CacheSizes = { l2Bytes: 1 << 20, llcBytes: 32 << 20 };

function checkCost(field: string, v: unknown, positive: boolean): void {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || (positive && v === 0)) {
    throw new Error(
      `costs: ${field} must be a ${positive ? "positive" : "non-negative"} finite number (got ${fmt(v)})`,
    );
  }
}

/** A machine built step by step; setters only record, build() validates everything at once. */
export interface MachineBuilder {
  /** The machine's name (default "custom"). */
  name(s: string): MachineBuilder;
  /** One line describing the machine. */
  description(s: string): MachineBuilder;
  /** The architecture (default: the profile's, else "x86_64"). */
  arch(a: Arch): MachineBuilder;
  /** Packages (sockets). Default 1. */
  sockets(n: number): MachineBuilder;
  /** Dies per package (MCM parts such as the Core 2 Quad / Harpertown have 2). Default 1. */
  diesPerSocket(n: number): MachineBuilder;
  /** Cores per socket. */
  cores(nPerSocket: number): MachineBuilder;
  /** SMT threads per core. Default 1. */
  threads(nPerCore: number): MachineBuilder;
  /** Cores sharing one L2 instance (2 on Core 2 pairs). Default 1. */
  l2SharedBy(nCores: number): MachineBuilder;
  /** What the LLC spans. Default "package" ("l2" for machines without an L3). */
  llc(span: LlcSpan): MachineBuilder;
  /** NUMA nodes; sockets are split evenly across them. Default 1. */
  nodes(n: number): MachineBuilder;
  /** node x node SLIT distances; default LOCAL 10 / REMOTE 21. */
  distance(matrix: number[][]): MachineBuilder;
  /** Arch capacity of every CPU (1024 = biggest CPU at max frequency). */
  capacity(n: number): MachineBuilder;
  /**
   * Arch capacity per CPU, in Linux CPU numbering (asymmetric machines: arm64 big.LITTLE, as
   * sysfs cpu_capacity gives it); overrides capacity(). The biggest must be 1024.
   */
  capacities(perCpu: number[]): MachineBuilder;
  /**
   * Start from a cost profile's figures, idle states and cache sizes instead of the defaults: a
   * profile name (costProfileNames(): "x86-server-2019", "arm64-a53-2016", any preset name...),
   * as Experiment.profile takes, or the CostProfile costProfile(name) returns; costs(),
   * idleStates() and caches() still override them.
   */
  profile(p: string | CostProfile): MachineBuilder;
  /** Cost figures that differ from DEFAULT_COSTS; per-level tables may be given in part. */
  costs(partial: CostOverrides): MachineBuilder;
  /** cpuidle states, shallowest first (exit latencies and target residencies in ns). */
  idleStates(states: IdleState[]): MachineBuilder;
  /**
   * Limit the idle states as a boot parameter does: "poll" (idle=poll: the idle loop spins, no
   * cpuidle state, no exit latency) or { maxState: N } (cpuidle states 0..N only, as
   * intel_idle.max_cstate=N on machines whose state 0 is POLL). Applied after idleStates() and
   * profile().
   */
  idle(limit: IdleLimit): MachineBuilder;
  /** L2 and LLC sizes that differ from DEFAULT_CACHES. */
  caches(c: Partial<CacheSizes>): MachineBuilder;
  /** How Linux numbers the CPUs (default "thread-major", the x86 BIOS order). */
  numbering(order: Numbering): MachineBuilder;
  /**
   * CPUs not brought up at boot (Machine.online false): Experiment.offline(cpu, { atBoot: true })
   * does the same on any machine, while Experiment.offline(cpu) takes a CPU down after boot.
   */
  offline(cpus: number[]): MachineBuilder;
  /** Sources for figures ("costs.cacheLineNs.shared_l2" -> "..."); merged over the defaults. */
  sources(s: Record<string, string>): MachineBuilder;
  /** The Machine; throws naming the first invalid field. */
  build(): Machine;
}

interface Params {
  name: string;
  description: string | null;
  arch: Arch | null;
  sockets: number;
  dies: number;
  cores: number | null;
  threads: number;
  l2SharedBy: number;
  llc: LlcSpan;
  nodes: number;
  distance: number[][] | null;
  capacity: number;
  capacities: number[] | null;
  profile: CostProfile | null;
  costs: CostOverrides;
  idleStates: IdleState[] | null;
  idle: IdleLimit | null;
  caches: Partial<CacheSizes>;
  numbering: Numbering;
  offline: number[];
  sources: Record<string, string>;
}

/** Start a machine from scratch (topology() without a preset forwards its steps here). */
export function machineBuilder(): MachineBuilder {
  const p: Params = {
    name: "custom",
    description: null,
    arch: null,
    sockets: 1,
    dies: 1,
    cores: null,
    threads: 1,
    l2SharedBy: 1,
    llc: "package",
    nodes: 1,
    distance: null,
    capacity: SCHED_CAPACITY_SCALE,
    capacities: null,
    profile: null,
    costs: {},
    idleStates: null,
    idle: null,
    caches: {},
    numbering: "thread-major",
    offline: [],
    sources: {},
  };
  // Setters only record; build() validates everything at once so the order of calls is free.
  const b: MachineBuilder = {
    name(s) {
      p.name = nonEmptyString("name", s);
      return b;
    },
    description(s) {
      if (typeof s !== "string") fail("description", "a string", s);
      p.description = s;
      return b;
    },
    arch(a) {
      p.arch = a;
      return b;
    },
    sockets(n) {
      p.sockets = posInt("sockets", n);
      return b;
    },
    diesPerSocket(n) {
      p.dies = posInt("diesPerSocket", n);
      return b;
    },
    cores(n) {
      p.cores = posInt("cores", n);
      return b;
    },
    threads(n) {
      p.threads = posInt("threads", n);
      return b;
    },
    l2SharedBy(n) {
      p.l2SharedBy = posInt("l2SharedBy", n);
      return b;
    },
    llc(s) {
      p.llc = oneOf("llc", LLC_SPANS, s);
      return b;
    },
    nodes(n) {
      p.nodes = posInt("nodes", n);
      return b;
    },
    distance(m) {
      if (!Array.isArray(m) || m.some((r) => !Array.isArray(r)))
        fail("distance", "a node x node matrix (an array of rows of integers)", m);
      p.distance = m.map((r) => [...r]);
      return b;
    },
    capacity(n) {
      if (typeof n !== "number" || !Number.isInteger(n) || n <= 0 || n > SCHED_CAPACITY_SCALE)
        fail("capacity", `an integer in 1..${SCHED_CAPACITY_SCALE}`, n);
      p.capacity = n;
      return b;
    },
    capacities(list) {
      p.capacities = intArray(
        "capacities",
        `an array of integers in 1..${SCHED_CAPACITY_SCALE}, one per CPU`,
        list,
        1,
      );
      return b;
    },
    profile(prof) {
      if (typeof prof === "string") {
        if (!profileByName.resolve)
          throw new Error(
            `topology: profile ${fmt(prof)}: the cost profiles are not loaded (import from "schedlab", or pass costProfile(name))`,
          );
        p.profile = profileByName.resolve(prof);
      } else p.profile = checkCostProfile(prof);
      return b;
    },
    costs(c) {
      plainObject("costs", "an object of cost figures (see CostOverrides)", c);
      const { rqLockRemoteNs, cacheLineNs, copyBytesPerNs, ...scalars } = c;
      p.costs = {
        ...p.costs,
        ...scalars,
        rqLockRemoteNs: { ...p.costs.rqLockRemoteNs, ...rqLockRemoteNs },
        cacheLineNs: { ...p.costs.cacheLineNs, ...cacheLineNs },
        copyBytesPerNs: { ...p.costs.copyBytesPerNs, ...copyBytesPerNs },
      };
      return b;
    },
    idleStates(s) {
      checkIdleStates(s);
      p.idleStates = s.map((x) => ({ ...x }));
      return b;
    },
    idle(limit) {
      p.idle = checkIdleLimit(limit);
      return b;
    },
    caches(c) {
      const o = plainObject("caches", "{ l2Bytes?, llcBytes? } (positive integers of bytes)", c);
      for (const key of Object.keys(o)) oneOf("caches key", ["l2Bytes", "llcBytes"] as const, key);
      p.caches = { ...p.caches, ...c };
      return b;
    },
    numbering(o) {
      p.numbering = oneOf("numbering", NUMBERINGS, o);
      return b;
    },
    offline(cpus) {
      p.offline = intArray("offline", "an array of CPU ids (integers >= 0)", cpus, 0);
      return b;
    },
    sources(s) {
      const o = plainObject("sources", "an object of figure name -> source text", s);
      for (const [k, v] of Object.entries(o))
        if (typeof v !== "string") fail(`sources["${k}"]`, "a string", v);
      p.sources = { ...p.sources, ...s };
      return b;
    },
    build: () => build(p),
  };
  return b;
}

function build(p: Params): Machine {
  if (typeof p.name !== "string" || p.name.length === 0) fail("name", "a non-empty string", p.name);
  const sockets = posInt("sockets", p.sockets);
  const dies = posInt("diesPerSocket", p.dies);
  if (p.cores === null)
    fail("cores", "a positive integer (cores per socket; call .cores(n))", "unset");
  const cores = posInt("cores", p.cores);
  const threads = posInt("threads", p.threads);
  const l2By = posInt("l2SharedBy", p.l2SharedBy);
  const nodes = posInt("nodes", p.nodes);
  // llc, numbering and capacity were checked by their setters (the defaults are valid)
  const arch = p.arch ?? p.profile?.arch ?? "x86_64";
  if (!ARCHS.includes(arch)) fail("arch", `one of ${ARCHS.map((s) => `"${s}"`).join(", ")}`, arch);
  if (cores % dies !== 0) fail("cores", `divisible by diesPerSocket (${dies})`, cores);
  const coresPerDie = cores / dies;
  // An L2 never spans two dies: the cores sharing it must fit in one die.
  if (coresPerDie % l2By !== 0)
    fail("l2SharedBy", `a divisor of the cores per die (${coresPerDie})`, l2By);
  if (sockets % nodes !== 0)
    fail(
      "nodes",
      `a divisor of sockets (${sockets}); sockets are split evenly across nodes`,
      nodes,
    );
  const nodeDistance = p.distance ?? defaultDistance(nodes);
  checkDistance(nodeDistance, nodes);

  const socketsPerNode = sockets / nodes;
  const nCores = sockets * cores;
  const n = nCores * threads;
  const cpus: CpuInfo[] = new Array(n);
  for (let s = 0; s < sockets; s++) {
    for (let c = 0; c < cores; c++) {
      const core = s * cores + c;
      const die = s * dies + Math.floor(c / coresPerDie);
      const l2 = Math.floor(core / l2By);
      const llc = p.llc === "l2" ? l2 : p.llc === "die" ? die : s;
      for (let t = 0; t < threads; t++) {
        const id = p.numbering === "thread-major" ? t * nCores + core : core * threads + t;
        cpus[id] = {
          id,
          thread: t,
          core,
          die,
          package: s,
          node: Math.floor(s / socketsPerNode),
          l2,
          llc,
          capacity: p.capacity,
        };
      }
    }
  }

  if (p.capacities !== null) {
    const caps = p.capacities;
    if (!Array.isArray(caps) || caps.length !== n)
      fail("capacities", `an array of ${n} capacities, one per CPU`, caps);
    caps.forEach((c, i) => {
      if (!Number.isInteger(c) || c <= 0 || c > SCHED_CAPACITY_SCALE)
        fail(`capacities[${i}]`, `an integer in 1..${SCHED_CAPACITY_SCALE}`, c);
    });
    // arch_scale_cpu_capacity is normalised so the biggest CPU has SCHED_CAPACITY_SCALE
    // (topology_normalize_cpu_scale).
    if (Math.max(...caps) !== SCHED_CAPACITY_SCALE)
      fail("capacities", `a list whose largest value is ${SCHED_CAPACITY_SCALE}`, caps);
    // SMT threads of one core share its capacity (sd_init warns on SMT with asymmetry).
    for (const c of cpus)
      for (const d of cpus)
        if (c.core === d.core && caps[c.id] !== caps[d.id])
          fail(`capacities[${d.id}]`, `equal to capacities[${c.id}] (same core)`, caps[d.id]);
    for (const c of cpus) c.capacity = caps[c.id];
  }

  const online = new Array<boolean>(n).fill(true);
  for (const c of p.offline) {
    if (!Number.isInteger(c) || c < 0 || c >= n) fail("offline", `CPU ids in 0..${n - 1}`, c);
    online[c] = false;
  }
  if (!online.some(Boolean)) fail("offline", "a list leaving at least one CPU online", p.offline);

  const prof = p.profile;
  const costs = buildCosts(p.costs, prof?.costs);
  const idleStates = p.idleStates ??
    prof?.idleStates.map((x) => ({ ...x })) ?? [
      { name: "C1", exitLatencyNs: 1000, targetResidencyNs: 2000, polling: false },
    ];
  checkIdleStates(idleStates);
  const caches: CacheSizes = { ...DEFAULT_CACHES, ...prof?.caches, ...p.caches };
  for (const k of ["l2Bytes", "llcBytes"] as const) {
    if (typeof caches[k] !== "number" || !Number.isInteger(caches[k]) || caches[k] <= 0) {
      throw new Error(
        `caches: ${k} must be a positive integer number of bytes (got ${fmt(caches[k])})`,
      );
    }
  }

  // Every figure gets a source; what the caller did not source is marked as a builder default.
  const sources: Record<string, string> = {};
  for (const k of costFigureNames()) sources[k] = DEFAULT_COST_SOURCE;
  for (const s of idleStates) {
    sources[`idle.${s.name}.exitLatencyNs`] = sources[`idle.${s.name}.targetResidencyNs`] =
      "builder: given without a source";
    if (s.coreExitLatencyNs !== undefined)
      sources[`idle.${s.name}.coreExitLatencyNs`] = sources[`idle.${s.name}.packageScope`] =
        "builder: given without a source";
    if (s.exitDraw !== undefined) {
      sources[`idle.${s.name}.packageScope`] = "builder: given without a source";
      for (const part of ["core", "packageExtra"])
        for (const f of ["medianNs", "logSd"])
          sources[`idle.${s.name}.exitDraw.${part}.${f}`] = "builder: given without a source";
    }
  }
  sources["caches.l2Bytes"] = sources["caches.llcBytes"] = "builder: given without a source";
  sources.nodeDistance = p.distance
    ? "builder: given without a source"
    : `builder default: LOCAL ${LOCAL_DISTANCE} / remote ${DEFAULT_REMOTE_DISTANCE}`;
  sources.topology = "builder: given without a source";
  if (p.idleStates === null && !prof) {
    sources["idle.C1.exitLatencyNs"] = sources["idle.C1.targetResidencyNs"] =
      "builder default: a single HLT-like C1 state, 1 us exit / 2 us residency (choice)";
  }
  if (p.caches.l2Bytes === undefined) sources["caches.l2Bytes"] = "builder default: 1 MiB (choice)";
  if (p.caches.llcBytes === undefined)
    sources["caches.llcBytes"] = "builder default: 32 MiB (choice)";
  if (prof) {
    // The profile's sources for what it supplied; figures set by hand keep "given without a source".
    const byHand = new Set<string>();
    for (const k of SCALAR_COSTS) if (p.costs[k] !== undefined) byHand.add(`costs.${k}`);
    for (const k of LEVEL_COSTS)
      for (const l of Object.keys(p.costs[k] ?? {})) byHand.add(`costs.${k}.${l}`);
    for (const k of ["l2Bytes", "llcBytes"] as const)
      if (p.caches[k] !== undefined) byHand.add(`caches.${k}`);
    for (const [k, v] of Object.entries(prof.sources)) {
      if (k.startsWith("idle.") && p.idleStates !== null) continue;
      if (!(k.startsWith("costs.") || k.startsWith("idle.") || k.startsWith("caches."))) continue;
      sources[k] = byHand.has(k) ? "builder: given without a source" : `profile ${prof.name}: ${v}`;
    }
  }
  Object.assign(sources, p.sources);

  const description =
    p.description ??
    `${sockets} socket(s) x ${dies > 1 ? `${dies} dies x ` : ""}${cores} cores x ${threads} thread(s), ` +
      `L2 shared by ${l2By} core(s), LLC per ${p.llc}, ${nodes} NUMA node(s), ${p.numbering} numbering`;
  const machine: Machine = {
    name: p.name,
    description,
    arch,
    cpus,
    nodeDistance: nodeDistance.map((r) => [...r]),
    online,
    costs,
    idleStates,
    caches,
    sources,
  };
  return p.idle ? applyIdleLimit(machine, p.idle) : machine;
}

function defaultDistance(nodes: number): number[][] {
  return Array.from({ length: nodes }, (_, i) =>
    Array.from({ length: nodes }, (_, j) => (i === j ? LOCAL_DISTANCE : DEFAULT_REMOTE_DISTANCE)),
  );
}

function checkDistance(m: unknown, nodes: number): asserts m is number[][] {
  const shape = `a ${nodes}x${nodes} matrix (one row per node)`;
  if (!Array.isArray(m) || m.length !== nodes) fail("distance", shape, m);
  for (const row of m) if (!Array.isArray(row) || row.length !== nodes) fail("distance", shape, m);
  const mm = m as number[][];
  for (let i = 0; i < nodes; i++) {
    for (let j = 0; j < nodes; j++) {
      const d = mm[i][j];
      if (i === j && d !== LOCAL_DISTANCE)
        fail(`distance[${i}][${i}]`, `${LOCAL_DISTANCE} (LOCAL_DISTANCE)`, d);
      // The kernel keeps distances in 8 bits (sched_init_numa) and treats <= LOCAL as invalid.
      if (i !== j && (!Number.isInteger(d) || d <= LOCAL_DISTANCE || d > 255)) {
        fail(`distance[${i}][${j}]`, `an integer in ${LOCAL_DISTANCE + 1}..255`, d);
      }
      if (mm[j][i] !== d)
        fail(
          `distance[${j}][${i}]`,
          `equal to distance[${i}][${j}] (${d}); the matrix must be symmetric`,
          mm[j][i],
        );
    }
  }
}

export function buildCosts(o: CostOverrides, base: CostModel = DEFAULT_COSTS): CostModel {
  const c: CostModel = {
    ...base,
    rqLockRemoteNs: { ...base.rqLockRemoteNs },
    cacheLineNs: { ...base.cacheLineNs },
    copyBytesPerNs: { ...base.copyBytesPerNs },
  };
  for (const k of SCALAR_COSTS) if (o[k] !== undefined) c[k] = o[k] as number;
  for (const k of LEVEL_COSTS) {
    const t = o[k];
    if (!t) continue;
    for (const key of Object.keys(t)) {
      if (!(SHARE_LEVELS as readonly string[]).includes(key)) {
        throw new Error(
          `costs: ${k} has an unknown share level "${key}"; accepted: ${SHARE_LEVELS.join(", ")}`,
        );
      }
      c[k][key as ShareLevel] = t[key as ShareLevel] as number;
    }
  }
  for (const k of Object.keys(o)) {
    if (
      !(SCALAR_COSTS as readonly string[]).includes(k) &&
      !(LEVEL_COSTS as readonly string[]).includes(k)
    ) {
      throw new Error(
        `costs: unknown figure "${k}"; accepted: ${[...SCALAR_COSTS, ...LEVEL_COSTS].join(", ")}`,
      );
    }
  }
  for (const k of SCALAR_COSTS)
    checkCost(k, c[k], k === "memoryBytesPerNs" || k === "smtSiblingSpeed");
  if (c.smtSiblingSpeed > 1)
    throw new Error(
      `costs: smtSiblingSpeed must be at most 1, a thread's speed with a busy sibling relative to running alone (got ${c.smtSiblingSpeed})`,
    );
  for (const k of LEVEL_COSTS)
    for (const l of SHARE_LEVELS) checkCost(`${k}.${l}`, c[k][l], k === "copyBytesPerNs");
  return c;
}
