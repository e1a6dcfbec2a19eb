// The topology levels per era: kernel/sched/topology.c's default_topology[] with sd_init and
// sched_init_numa (3.x+), and for 2.6.29 kernel/sched.c's SD_*_INIT tables. topology.ts builds
// the domains from these levels.
import type { Machine } from "../../machine/types";
import { ERA_TRAITS, type Era, eraAtLeast } from "../features";
import {
  SD_BALANCE_EXEC,
  SD_BALANCE_FORK,
  SD_BALANCE_NEWIDLE,
  SD_CLUSTER,
  SD_LOAD_BALANCE,
  SD_NUMA,
  SD_PREFER_SIBLING,
  SD_SERIALIZE,
  SD_SHARE_CPUCAPACITY,
  SD_SHARE_PKG_RESOURCES,
  SD_WAKE_AFFINE,
  SD_WAKE_BALANCE,
  type SchedDomain,
  type SdLevel,
} from "./sched_domain";

/**
 * sd->smt_gain of the SMT level (SD_SIBLING_INIT / sd_init: 1178, "15%"): update_cpu_capacity
 * gives each of a core's w threads smt_gain / w (589 for two). Added in v2.6.32 with the dynamic
 * cpu_power work (2.6.29 has no per-CPU power: init_sched_groups_power gives a flat
 * SCHED_LOAD_SCALE); removed in v4.20 by 765d0af19f5f ("sched/topology: Remove the ::smt_gain
 * field from 'struct sched_domain'"). Of our eras: 3.19 and 4.8.
 */
export const SMT_GAIN = 1178;
/** RECLAIM_DISTANCE / node_reclaim_distance: NUMA levels beyond it lose EXEC/FORK/WAKE_AFFINE. */
export const RECLAIM_DISTANCE = 30;
export const LOCAL_DISTANCE = 10;
/** 2.6.29 sched_domain_node_span(): a NODE domain covers this many nearest nodes. */
const SD_NODES_PER_DOMAIN = 16;

// ---------------------------------------------------------------------------------------------
// Topology levels per era

/** The per-level parameters sd_init (or SD_*_INIT) sets. */
export type Params = Pick<
  SchedDomain,
  | "minInterval"
  | "maxInterval"
  | "busyFactor"
  | "imbalancePct"
  | "cacheNiceTries"
  | "busyIdx"
  | "idleIdx"
  | "newidleIdx"
  | "wakeIdx"
  | "forkexecIdx"
  | "flags"
  | "balanceInterval"
>;

export interface TopologyLevel {
  name: SdLevel;
  /** tl->mask(cpu): machine CPU ids (offline ones are filtered later). */
  mask: (cpu: number) => number[];
  /** Built with build_overlap_sched_groups (SDTL_OVERLAP: the NUMA levels, 3.x+). */
  overlap: boolean;
  params: (weight: number) => Params;
}

const P2629 =
  (
    o: Partial<Params> &
      Pick<Params, "minInterval" | "maxInterval" | "busyFactor" | "imbalancePct" | "flags">,
  ): (() => Params) =>
  () => ({
    cacheNiceTries: 0,
    busyIdx: 0,
    idleIdx: 0,
    newidleIdx: 0,
    wakeIdx: 0,
    forkexecIdx: 0,
    balanceInterval: 1,
    ...o,
  });

// include/linux/topology.h and arch/x86/include/asm/topology.h (x86_64) of 2.6.29, without
// sched_mc/smt_power_savings (so no SD_BALANCE_NEWIDLE above SIBLING, no POWERSAVINGS_BALANCE).
const SD_SIBLING_INIT = P2629({
  minInterval: 1,
  maxInterval: 2,
  busyFactor: 64,
  imbalancePct: 110,
  flags:
    SD_LOAD_BALANCE |
    SD_BALANCE_NEWIDLE |
    SD_BALANCE_FORK |
    SD_BALANCE_EXEC |
    SD_WAKE_AFFINE |
    SD_WAKE_BALANCE |
    SD_SHARE_CPUCAPACITY,
});
const SD_MC_INIT = P2629({
  minInterval: 1,
  maxInterval: 4,
  busyFactor: 64,
  imbalancePct: 125,
  cacheNiceTries: 1,
  busyIdx: 2,
  wakeIdx: 1,
  forkexecIdx: 1,
  flags:
    SD_LOAD_BALANCE |
    SD_BALANCE_FORK |
    SD_BALANCE_EXEC |
    SD_WAKE_AFFINE |
    SD_WAKE_BALANCE |
    SD_SHARE_PKG_RESOURCES,
});
const SD_CPU_INIT = P2629({
  minInterval: 1,
  maxInterval: 4,
  busyFactor: 64,
  imbalancePct: 125,
  cacheNiceTries: 1,
  busyIdx: 2,
  idleIdx: 1,
  newidleIdx: 2,
  wakeIdx: 1,
  forkexecIdx: 1,
  flags: SD_LOAD_BALANCE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_WAKE_BALANCE,
});
const SD_NODE_INIT = P2629({
  minInterval: 8,
  maxInterval: 32,
  busyFactor: 32,
  imbalancePct: 125,
  cacheNiceTries: 2,
  busyIdx: 3,
  idleIdx: 2,
  newidleIdx: 2,
  wakeIdx: 1,
  forkexecIdx: 1,
  flags:
    SD_LOAD_BALANCE |
    SD_BALANCE_EXEC |
    SD_BALANCE_FORK |
    SD_WAKE_AFFINE |
    SD_WAKE_BALANCE |
    SD_SERIALIZE,
});

const isLoadIdxEra = (era: Era) => ERA_TRAITS[era].family === "4.x";
/** Whether the era scales an SMT thread's capacity by smt_gain (v2.6.32 ... v4.19). */
export const hasSmtGain = (era: Era): boolean =>
  eraAtLeast(era, "2.6.32") && !eraAtLeast(era, "4.20");

/** sd_init() of 3.19 ... 6.19: turns the level's topology flags into behaviour. */
export function sdInit(era: Era, tlFlags: number, numaDistance: number): (w: number) => Params {
  return (w) => {
    const late = eraAtLeast(era, "5.10"); // busy_factor 16, imbalance_pct 117 (v5.10)
    const preferAll = ERA_TRAITS[era].family !== "4.x"; // PREFER_SIBLING on every level but NUMA
    const p: Params = {
      minInterval: w,
      maxInterval: 2 * w,
      balanceInterval: w,
      busyFactor: late ? 16 : 32,
      imbalancePct: late ? 117 : 125,
      cacheNiceTries: 0,
      busyIdx: 0,
      idleIdx: 0,
      newidleIdx: 0,
      wakeIdx: 0,
      forkexecIdx: 0,
      // SD_LOAD_BALANCE is kept after 5.8 (where every domain balances) so checks stay era-neutral.
      flags:
        SD_LOAD_BALANCE |
        SD_BALANCE_NEWIDLE |
        SD_BALANCE_EXEC |
        SD_BALANCE_FORK |
        SD_WAKE_AFFINE |
        tlFlags |
        (preferAll ? SD_PREFER_SIBLING : 0),
    };
    const idx = isLoadIdxEra(era);
    if (p.flags & SD_SHARE_CPUCAPACITY) {
      p.flags |= idx ? SD_PREFER_SIBLING : 0;
      p.imbalancePct = 110;
    } else if (p.flags & SD_SHARE_PKG_RESOURCES) {
      p.imbalancePct = 117;
      p.cacheNiceTries = 1;
      if (idx) p.busyIdx = 2;
    } else if (p.flags & SD_NUMA) {
      p.cacheNiceTries = 2;
      if (idx) {
        p.busyIdx = 3;
        p.idleIdx = 2;
      }
      p.flags &= ~SD_PREFER_SIBLING;
      p.flags |= SD_SERIALIZE;
      if (numaDistance > RECLAIM_DISTANCE)
        p.flags &= ~(SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE);
    } else {
      p.flags |= idx ? SD_PREFER_SIBLING : 0;
      p.cacheNiceTries = 1;
      if (idx) {
        p.busyIdx = 2;
        p.idleIdx = 1;
      }
    }
    return p;
  };
}

/**
 * The CLS level (CONFIG_SCHED_CLUSTER, default y): added to default_topology[] (arm64 and other
 * generic-topology architectures) and x86_topology[] in v5.16 ("sched: Add cluster scheduler
 * level in core and related Kconfig for ARM64", "sched: Add cluster scheduler level for x86").
 * Of our eras: 5.19 and 6.19.
 */
export const hasClusterLevel = (era: Era): boolean => eraAtLeast(era, "5.16");

/**
 * cpu_cluster_flags(): SD_SHARE_PKG_RESOURCES from v5.16; SD_CLUSTER added in v6.8 with the
 * cluster scan of select_idle_cpu ("sched/fair: Scan cluster before scanning LLC in wake-up
 * path"; include/linux/sched/topology.h).
 */
export function clusterFlags(era: Era): number {
  return SD_SHARE_PKG_RESOURCES | (eraAtLeast(era, "6.8") ? SD_CLUSTER : 0);
}

/**
 * cpu_clustergroup_mask(): the CPUs of this CPU's cluster, which the model takes as the CPUs
 * sharing its L2 (x86: cpu_l2c_shared_mask; arm64: cluster_sibling, L2 on the A53/A55 boards).
 * When the cluster spans the whole coregroup (no cache below the LLC, e.g. an L2 that is the
 * LLC), the SMT mask instead, as drivers/base/arch_topology.c does since v6.0 ("arch_topology:
 * Limit span of cpu_clustergroup_mask()"), so that CLS degenerates and MC stays. Departure: an
 * x86 kernel keeps the cluster mask there and names the surviving level CLS instead of MC; the
 * flags that matter for balancing (SD_SHARE_PKG_RESOURCES) are the same.
 */
export function clusterMask(machine: Machine): (cpu: number) => number[] {
  const cpus = machine.cpus;
  return (cpu) => {
    const me = cpus[cpu];
    const cluster = cpus.filter((c) => c.l2 === me.l2).map((c) => c.id);
    const coregroup = cpus.filter((c) => c.llc === me.llc);
    if (coregroup.every((c) => c.l2 === me.l2))
      return cpus.filter((c) => c.core === me.core).map((c) => c.id);
    return cluster;
  };
}

export function topologyLevels(machine: Machine, era: Era, schedCluster = true): TopologyLevel[] {
  const cpus = machine.cpus;
  // Each mask once per core / LLC / node (and per node and distance below), not once per CPU:
  // at 1024 CPUs a walk over every CPU for each CPU and level is most of the domain build.
  // Callers only read the masks.
  const by = (key: "core" | "llc" | "node") => {
    const memo = new Map<number, number[]>();
    return (cpu: number) => {
      const v = cpus[cpu][key];
      let m = memo.get(v);
      if (!m) {
        m = cpus.filter((c) => c[key] === v).map((c) => c.id);
        memo.set(v, m);
      }
      return m;
    };
  };
  const smt = by("core"); // cpu_smt_mask / cpu_sibling_map
  const llc = by("llc"); // cpu_coregroup_mask = llc_shared_map (no power-savings policy)
  const node = by("node"); // cpu_cpu_mask = cpumask_of_node
  const dist = machine.nodeDistance;
  const nodesWithCpus = [...new Set(cpus.map((c) => c.node))].sort((a, b) => a - b);
  const within = new Map<string, number[]>();
  const nodesWithin = (cpu: number, d: number) => {
    const home = cpus[cpu].node;
    const key = `${home}/${d}`;
    let m = within.get(key);
    if (!m) {
      const ok = new Set(nodesWithCpus.filter((k) => dist[home][k] <= d));
      m = cpus.filter((c) => ok.has(c.node)).map((c) => c.id);
      within.set(key, m);
    }
    return m;
  };

  if (ERA_TRAITS[era].family === "2.6") {
    const nn = dist.length;
    // sched_domain_node_span: the node plus its SD_NODES_PER_DOMAIN-1 nearest (ties: next ids first).
    const nodeSpan = (cpu: number) => {
      const home = cpus[cpu].node;
      const others = nodesWithCpus
        .filter((k) => k !== home)
        .sort(
          (a, b) =>
            dist[home][a] - dist[home][b] || ((a - home + nn) % nn) - ((b - home + nn) % nn),
        )
        .slice(0, SD_NODES_PER_DOMAIN - 1);
      const ok = new Set([home, ...others]);
      return cpus.filter((c) => ok.has(c.node)).map((c) => c.id);
    };
    // The ALLNODES level (only above 16 nodes' worth of CPUs) is not modelled.
    return [
      { name: "SIBLING", mask: smt, overlap: false, params: SD_SIBLING_INIT },
      { name: "MC", mask: llc, overlap: false, params: SD_MC_INIT },
      { name: "CPU", mask: node, overlap: false, params: SD_CPU_INIT },
      { name: "NODE", mask: nodeSpan, overlap: false, params: SD_NODE_INIT },
    ];
  }

  // default_topology / x86_topology: SMT, CLS (5.16+), MC, DIE (PKG in 6.7+).
  const levels: TopologyLevel[] = [
    {
      name: "SMT",
      mask: smt,
      overlap: false,
      params: sdInit(era, SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES, 0),
    },
  ];
  if (schedCluster && hasClusterLevel(era)) {
    levels.push({
      name: "CLS",
      mask: clusterMask(machine),
      overlap: false,
      params: sdInit(era, clusterFlags(era), 0),
    });
  }
  levels.push(
    { name: "MC", mask: llc, overlap: false, params: sdInit(era, SD_SHARE_PKG_RESOURCES, 0) },
    { name: ERA_TRAITS[era].pkgLevel, mask: node, overlap: false, params: sdInit(era, 0, 0) },
  );
  // sched_init_numa: one level per distinct distance; 4.19+ adds the identity NODE level first.
  if (ERA_TRAITS[era].family !== "4.x") {
    levels.push({
      name: "NODE",
      mask: node,
      overlap: false,
      params: sdInit(era, 0, LOCAL_DISTANCE),
    });
  }
  const distances = new Set<number>();
  for (const a of nodesWithCpus)
    for (const b of nodesWithCpus) if (dist[a][b] > LOCAL_DISTANCE) distances.add(dist[a][b]);
  for (const d of [...distances].sort((a, b) => a - b)) {
    levels.push({
      name: "NUMA",
      mask: (cpu) => nodesWithin(cpu, d),
      overlap: true,
      params: sdInit(era, SD_NUMA, d),
    });
  }
  return levels;
}
