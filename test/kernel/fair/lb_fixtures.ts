// Hand-built runqueue views, sched groups and domains for the balancer tests.
import { eraDefaults, type Era } from "../../../src/kernel/features";
import type { SchedDomain, SchedGroup, SdLevel } from "../../../src/kernel/topology/sched_domain";
import {
  SD_BALANCE_EXEC,
  SD_BALANCE_FORK,
  SD_BALANCE_NEWIDLE,
  SD_LOAD_BALANCE,
  SD_NUMA,
  SD_PREFER_SIBLING,
  SD_SERIALIZE,
  SD_WAKE_AFFINE,
} from "../../../src/kernel/topology/sched_domain";
import type {
  CpuIdleType,
  LbEnv,
  LbHookLookup,
  LbRq,
  LbTask,
} from "../../../src/kernel/fair/lb/types";
import { createLbEnv } from "../../../src/kernel/fair/lb/common";

export const NOW = 1_000_000_000; // 1 s into the run
export const BASE_FLAGS =
  SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE;

let nextPid = 100;

export function task(opts: Partial<LbTask> = {}): LbTask {
  return {
    pid: nextPid++,
    weight: 1024,
    loadAvg: 1024,
    utilAvg: 1024,
    running: false,
    cpusAllowed: null,
    execStart: NOW - 10_000_000,
    isBuddy: false,
    ...opts,
  };
}

/** A CPU running `tasks` CFS hogs (the first one is current) in steady state. */
export function rq(cpu: number, tasks: LbTask[], opts: Partial<LbRq> = {}): LbRq {
  const list = tasks.map((t, i) => (i === 0 ? { ...t, running: true } : t));
  const load = list.reduce((s, t) => s + t.weight, 0);
  const pelt = list.reduce((s, t) => s + t.loadAvg, 0);
  return {
    cpu,
    nrRunning: list.length,
    cfsHNrRunning: list.length,
    loadWeight: load,
    runnableLoadAvg: pelt,
    cpuLoad: [load, load, load, load, load],
    cfsLoadAvg: pelt,
    cfsUtilAvg: list.length ? 1024 : 0,
    cfsRunnableAvg: 1024 * list.length,
    cpuCapacity: 1024,
    cpuCapacityOrig: 1024,
    idle: list.length === 0,
    activeBalance: false,
    curr: list[0] ?? null,
    cfsTasks: list,
    ...opts,
  };
}

export function hogs(n: number, opts: Partial<LbTask> = {}): LbTask[] {
  return Array.from({ length: n }, () => task(opts));
}

export function group(cpus: number[], capacity = 1024 * cpus.length): SchedGroup {
  return { cpus, weight: cpus.length, capacity, imbalance: false, balanceCpu: cpus[0] };
}

export interface DomainOpts {
  level: SdLevel;
  cpu: number;
  groups: SchedGroup[]; // local group first
  flags?: number;
  minInterval?: number;
  maxInterval?: number;
  busyFactor?: number;
  imbalancePct?: number;
  cacheNiceTries?: number;
  busyIdx?: number;
  idleIdx?: number;
  newidleIdx?: number;
  imbNumaNr?: number;
  child?: SchedDomain | null;
  parent?: SchedDomain | null;
}

export function domain(o: DomainOpts): SchedDomain {
  const span = o.groups.flatMap((g) => g.cpus).sort((a, b) => a - b);
  return {
    level: o.level,
    cpu: o.cpu,
    span,
    spanWeight: span.length,
    flags: o.flags ?? BASE_FLAGS,
    groups: o.groups,
    parent: o.parent ?? null,
    child: o.child ?? null,
    minInterval: o.minInterval ?? span.length,
    maxInterval: o.maxInterval ?? 2 * span.length,
    busyFactor: o.busyFactor ?? 32,
    imbalancePct: o.imbalancePct ?? 125,
    cacheNiceTries: o.cacheNiceTries ?? 1,
    busyIdx: o.busyIdx ?? 0,
    idleIdx: o.idleIdx ?? 0,
    newidleIdx: o.newidleIdx ?? 0,
    wakeIdx: 0,
    forkexecIdx: 0,
    imbNumaNr: o.imbNumaNr ?? 0,
    balanceInterval: o.minInterval ?? span.length,
    lastBalance: 0,
    nrBalanceFailed: 0,
    maxNewidleLbCost: 0,
  };
}

export interface EnvOpts {
  era: Era;
  sd: SchedDomain;
  dstCpu: number;
  idle: CpuIdleType;
  rqs: LbRq[];
  sdLlcSize?: number;
  hooks?: LbHookLookup | null;
  lbBias?: boolean;
}

export function env(o: EnvOpts): LbEnv {
  const { tunables, features } = eraDefaults(o.era);
  if (o.lbBias !== undefined) features.LB_BIAS = o.lbBias;
  const byCpu = new Map(o.rqs.map((r) => [r.cpu, r]));
  return createLbEnv({
    era: o.era,
    features,
    tunables,
    sd: o.sd,
    dstCpu: o.dstCpu,
    idle: o.idle,
    now: NOW,
    rq: (cpu) => {
      const r = byCpu.get(cpu);
      if (!r) throw new Error(`no rq view for cpu ${cpu}`);
      return r;
    },
    sdLlcSize: o.sdLlcSize ?? 1,
    hooks: o.hooks ?? null,
  });
}

/**
 * A 2-node toy for the NUMA level: node 0 = cpus 0-3, node 1 = cpus 4-7, one CPU per group below
 * (`childLevel`); `cpu` balances it. The seed-003 allowance tests use it.
 */
export function numa2(
  cpu: number,
  o: { imbNumaNr?: number; childLevel?: SdLevel } = {},
): SchedDomain {
  const n0 = [0, 1, 2, 3];
  const n1 = [4, 5, 6, 7];
  const mine = n0.includes(cpu) ? n0 : n1;
  const child = domain({
    level: o.childLevel ?? "DIE",
    cpu,
    groups: mine.map((c) => group([c])),
    flags: BASE_FLAGS | SD_PREFER_SIBLING,
  });
  return domain({
    level: "NUMA",
    cpu,
    groups: [group(mine), group(mine === n0 ? n1 : n0)],
    flags: BASE_FLAGS | SD_NUMA | SD_SERIALIZE,
    imbalancePct: 125,
    cacheNiceTries: 2,
    child,
    imbNumaNr: o.imbNumaNr ?? 0,
  });
}
