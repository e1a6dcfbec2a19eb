// Kernel eras, sched features (the SCHED_FEAT table) and sysctl tunables.

/** Kernel versions whose scheduler logic we model. Each experiment picks its baseline era. */
export const ERAS = ["2.6.29", "3.19", "4.8", "5.6", "5.19", "6.19"] as const;
export type Era = (typeof ERAS)[number];

export function isEra(x: unknown): x is Era {
  return typeof x === "string" && (ERAS as readonly string[]).includes(x);
}

/** sysctl_sched_* and friends, in nanoseconds where they are times (unscaled base values). */
export interface Tunables {
  hz: number; // CONFIG_HZ
  sched_latency_ns: number; // before 1 + ilog2(ncpus) scaling
  sched_min_granularity_ns: number;
  sched_wakeup_granularity_ns: number;
  sched_nr_latency: number;
  sched_migration_cost_ns: number;
  sched_nr_migrate: number;
  /** SCHED_TUNABLESCALING_LOG cap on ncpus (8 from 2.6.37; none in 2.6.29 = 0). */
  tunable_scaling_cpu_cap: number;
  sched_rt_runtime_us: number;
  sched_rt_period_us: number;
  rr_timeslice_ns: number;
  /** 1: each CPU's tick is offset by cpu x (TICK_NSEC / 2) / nr_possible_cpus (skew_tick=1;
   *  unconditional before 2.6.3x), 0: ticks aligned across CPUs (the default since). */
  skew_tick: number;
}

/** SCHED_FEAT names we model; true = on. */
export interface Features {
  GENTLE_FAIR_SLEEPERS: boolean;
  START_DEBIT: boolean;
  WAKEUP_PREEMPTION: boolean;
  NEXT_BUDDY: boolean;
  LAST_BUDDY: boolean;
  CACHE_HOT_BUDDY: boolean;
  TTWU_QUEUE: boolean;
  LB_BIAS: boolean;
  NONTASK_CAPACITY: boolean;
  RT_PUSH_IPI: boolean;
  SIS_PROP: boolean;
  SIS_UTIL: boolean;
  WA_IDLE: boolean;
  WA_WEIGHT: boolean;
  WA_BIAS: boolean;
  NEWIDLE: boolean; // our switch for newly-idle balancing as a whole
}

const BASE_TUNABLES: Tunables = {
  hz: 1000,
  sched_latency_ns: 6_000_000,
  sched_min_granularity_ns: 750_000,
  sched_wakeup_granularity_ns: 1_000_000,
  sched_nr_latency: 8,
  sched_migration_cost_ns: 500_000,
  sched_nr_migrate: 32,
  tunable_scaling_cpu_cap: 8,
  sched_rt_runtime_us: 950_000,
  sched_rt_period_us: 1_000_000,
  rr_timeslice_ns: 100_000_000,
  skew_tick: 0,
};

const BASE_FEATURES: Features = {
  GENTLE_FAIR_SLEEPERS: true,
  START_DEBIT: true,
  WAKEUP_PREEMPTION: true,
  NEXT_BUDDY: false,
  LAST_BUDDY: true,
  CACHE_HOT_BUDDY: true,
  TTWU_QUEUE: true,
  LB_BIAS: true,
  NONTASK_CAPACITY: true,
  RT_PUSH_IPI: false,
  SIS_PROP: true,
  SIS_UTIL: false,
  WA_IDLE: true,
  WA_WEIGHT: true,
  WA_BIAS: true,
  NEWIDLE: true,
};

/**
 * Per-era defaults. 2.6.29: latency 20 ms, min_gran 4 ms, wakeup_gran 5 ms, nr_latency 5, scaled
 * by 1 + ilog2(ncpus) without a cap; HZ 250 was the x86 default config of the time (our choice).
 * 3.19-6.5: 6 / 0.75 / 1 ms, nr_latency 8, scaling capped at 8 CPUs. See kernel-mechanisms.md 6.2.
 */
export function eraDefaults(era: Era): { tunables: Tunables; features: Features } {
  const tunables = { ...BASE_TUNABLES };
  const features = { ...BASE_FEATURES };
  switch (era) {
    case "2.6.29":
      Object.assign(tunables, {
        hz: 250,
        sched_latency_ns: 20_000_000,
        sched_min_granularity_ns: 4_000_000,
        sched_wakeup_granularity_ns: 5_000_000,
        sched_nr_latency: 5,
        tunable_scaling_cpu_cap: 0,
        // tick_setup_sched_timer skewed every CPU's tick across half a jiffy until
        // "clockevents: Remove the per cpu tick skew" (2.6.3x); skew_tick=1 restored it as an option.
        skew_tick: 1,
      });
      // 2.6.29 had no wakelist (TTWU_QUEUE came in 3.0), no wake_affine feature split.
      // 2.6.29 sched_features.h: LB_BIAS on (source/target_load read cpu_load[]), no wakelist (3.0).
      Object.assign(features, {
        TTWU_QUEUE: false,
        CACHE_HOT_BUDDY: true,
        LB_BIAS: true,
        NONTASK_CAPACITY: false,
        SIS_PROP: false,
      });
      break;
    case "3.19":
      Object.assign(features, { SIS_PROP: false });
      break;
    case "4.8":
      Object.assign(features, { SIS_PROP: false });
      break;
    case "5.6":
      Object.assign(features, { LB_BIAS: false, RT_PUSH_IPI: true });
      break;
    case "5.19":
      Object.assign(features, { LB_BIAS: false, RT_PUSH_IPI: true, SIS_PROP: true });
      break;
    case "6.19":
      Object.assign(features, {
        LB_BIAS: false,
        RT_PUSH_IPI: true,
        SIS_PROP: false,
        SIS_UTIL: true,
      });
      break;
  }
  return { tunables, features };
}

/** 1 + ilog2(n), with the era's CPU cap (0 = no cap). sched_init_granularity / update_sysctl. */
export function tunableScale(onlineCpus: number, cap: number): number {
  const n = cap > 0 ? Math.min(onlineCpus, cap) : onlineCpus;
  return 1 + Math.floor(Math.log2(Math.max(1, n)));
}
