// struct sched_domain / struct sched_group, as the balancer and wakeup path read them.

/** SD_* flags (names from include/linux/sched/sd_flags.h; bit values are ours). */
export const SD_LOAD_BALANCE = 1 << 0;
export const SD_BALANCE_NEWIDLE = 1 << 1;
export const SD_BALANCE_EXEC = 1 << 2;
export const SD_BALANCE_FORK = 1 << 3;
export const SD_BALANCE_WAKE = 1 << 4;
export const SD_WAKE_AFFINE = 1 << 5;
export const SD_SHARE_CPUCAPACITY = 1 << 6; // SD_SHARE_CPUPOWER in 2.6.x: SMT siblings
export const SD_SHARE_PKG_RESOURCES = 1 << 7; // SD_SHARE_LLC in 6.x
export const SD_SERIALIZE = 1 << 8;
export const SD_PREFER_SIBLING = 1 << 9;
export const SD_NUMA = 1 << 10;
export const SD_ASYM_PACKING = 1 << 11;
export const SD_POWERSAVINGS_BALANCE = 1 << 12; // 2.6.x only
export const SD_WAKE_IDLE = 1 << 13; // 2.6.x
export const SD_WAKE_BALANCE = 1 << 14; // 2.6.x
/** Domain members share a cluster (L2 or LLC tags below the LLC): the CLS level, v6.8+. */
export const SD_CLUSTER = 1 << 15;
/** Domain members have different CPU capacities (set by asym_cpu_capacity_level/_classify, v5.0+). */
export const SD_ASYM_CPUCAPACITY = 1 << 16;
/** Domain members span every CPU capacity of the system (v5.14+ asym_cpu_capacity_classify). */
export const SD_ASYM_CPUCAPACITY_FULL = 1 << 17;

export const SD_FLAG_NAMES: ReadonlyArray<[number, string]> = [
  [SD_LOAD_BALANCE, "SD_LOAD_BALANCE"],
  [SD_BALANCE_NEWIDLE, "SD_BALANCE_NEWIDLE"],
  [SD_BALANCE_EXEC, "SD_BALANCE_EXEC"],
  [SD_BALANCE_FORK, "SD_BALANCE_FORK"],
  [SD_BALANCE_WAKE, "SD_BALANCE_WAKE"],
  [SD_WAKE_AFFINE, "SD_WAKE_AFFINE"],
  [SD_SHARE_CPUCAPACITY, "SD_SHARE_CPUCAPACITY"],
  [SD_SHARE_PKG_RESOURCES, "SD_SHARE_PKG_RESOURCES"],
  [SD_SERIALIZE, "SD_SERIALIZE"],
  [SD_PREFER_SIBLING, "SD_PREFER_SIBLING"],
  [SD_NUMA, "SD_NUMA"],
  [SD_ASYM_PACKING, "SD_ASYM_PACKING"],
  [SD_POWERSAVINGS_BALANCE, "SD_POWERSAVINGS_BALANCE"],
  [SD_WAKE_IDLE, "SD_WAKE_IDLE"],
  [SD_WAKE_BALANCE, "SD_WAKE_BALANCE"],
  [SD_CLUSTER, "SD_CLUSTER"],
  [SD_ASYM_CPUCAPACITY, "SD_ASYM_CPUCAPACITY"],
  [SD_ASYM_CPUCAPACITY_FULL, "SD_ASYM_CPUCAPACITY_FULL"],
];

export function sdFlagNames(flags: number): string[] {
  return SD_FLAG_NAMES.filter(([bit]) => (flags & bit) !== 0).map(([, name]) => name);
}

/**
 * Topology level names across eras: SIBLING/MC/CPU/NODE in 2.6.x, SMT/MC/DIE/NUMA later, CLS
 * (clusters) from 5.16, PKG in 6.x.
 */
export type SdLevel = "SMT" | "SIBLING" | "CLS" | "MC" | "CPU" | "DIE" | "PKG" | "NODE" | "NUMA";

/** struct sched_group (+ sched_group_capacity). One instance per group per CPU's domain. */
export interface SchedGroup {
  cpus: number[]; // CPUs of the group, ascending
  weight: number; // cpumask_weight(group)
  /** sgc->capacity (4.x+) or __cpu_power (2.6.x), 1024 scale. */
  capacity: number;
  /** sgc->imbalance: a child domain failed to balance because of affinity. */
  imbalance: boolean;
  /** first CPU of the group: the one that balances for it (group_balance_cpu). */
  balanceCpu: number;
  /**
   * sg->flags: the flags of the child domain the group spans (0 for a single CPU, and for a
   * lone SMT thread, whose degenerate SMT domain the kernel removes). Read by the v6.6+
   * balancer (SD_SHARE_CPUCAPACITY: an SMT group). Absent = 0.
   */
  flags?: number;
  /** sg->cores (v6.6, d24cb0d9113f): the cores (SMT sibling sets) in the group. Absent = weight. */
  cores?: number;
}

/** struct sched_domain, per CPU per level. Mutable balance state lives here as in the kernel. */
export interface SchedDomain {
  level: SdLevel;
  cpu: number; // the CPU this instance belongs to
  span: number[]; // sched_domain_span, ascending
  spanWeight: number;
  flags: number;
  groups: SchedGroup[]; // the group containing `cpu` first (sd->groups)
  parent: SchedDomain | null;
  child: SchedDomain | null;
  // per-level parameters (sd_init / SD_*_INIT)
  minInterval: number; // ms
  maxInterval: number; // ms
  busyFactor: number;
  imbalancePct: number;
  cacheNiceTries: number;
  busyIdx: number;
  idleIdx: number;
  newidleIdx: number;
  wakeIdx: number;
  forkexecIdx: number;
  /** NUMA: allowed imbalance in tasks (imb_numa_nr, 5.18+); 0 where unused. */
  imbNumaNr: number;
  // balance state
  balanceInterval: number; // ms, starts at minInterval (1 in 2.6.29)
  lastBalance: number; // ns
  nrBalanceFailed: number;
  maxNewidleLbCost: number; // ns
}

/** The per-CPU domain hierarchy plus the cached pointers the fast paths use. */
export interface DomainTree {
  /** domains[cpu] bottom-up (lowest level first); empty for offline CPUs or single-CPU systems. */
  domains: SchedDomain[][];
  /** sd_llc: highest domain with SD_SHARE_PKG_RESOURCES, or null. */
  sdLlc: (SchedDomain | null)[];
  /** sd_llc_size: span weight of sd_llc (1 when none). */
  sdLlcSize: number[];
  /** sd_llc_id: first CPU of the sd_llc span (the CPU itself when none). */
  sdLlcId: number[];
  /** sd_numa: lowest domain with SD_NUMA, or null. */
  sdNuma: (SchedDomain | null)[];
  /** CPUs that are online and part of the tree. */
  online: number[];
  /**
   * rq->cpu_capacity(_orig) per CPU as update_cpu_capacity sets it: the arch capacity, or
   * smt_gain / span_weight for an SMT thread in the eras with smt_gain (machine capacity for
   * offline CPUs).
   */
  cpuCapacity: number[];
  /**
   * sd_asym_cpucapacity: the lowest domain with SD_ASYM_CPUCAPACITY (5.0 ... 5.13) or
   * SD_ASYM_CPUCAPACITY_FULL (5.14+), or null (symmetric machines, eras before 5.0).
   */
  sdAsymCpucapacity: (SchedDomain | null)[];
  /** sd_share_id (6.8+): first CPU of the highest SD_CLUSTER domain, else sd_llc_id. */
  sdShareId: number[];
  /** sched_cluster_active (6.8+): some CPU kept a domain with SD_CLUSTER after degeneration. */
  clusterActive: boolean;
  /** sched_asym_cpucapacity: some domain was built with SD_ASYM_CPUCAPACITY. */
  asymCpucapacity: boolean;
}
