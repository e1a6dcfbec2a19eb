// Kernel eras and what sets them apart (ERA_TRAITS, and spinlockKind for what also depends on the
// architecture), sched features (kernel/sched/features.h as one table, FEATURES) and sysctl tunables.
import { FOLDED, type FoldedName } from "./features_folded";
import type { Arch } from "../machine/types";

/** Kernel versions whose scheduler logic we model. Each experiment picks its baseline era. */
export const ERAS = ["2.6.29", "3.19", "4.8", "5.6", "5.10", "5.19", "6.6", "6.19"] as const;
/** One of ERAS. */
export type Era = (typeof ERAS)[number];

/** Whether `x` names a modelled era. */
export function isEra(x: unknown): x is Era {
  return typeof x === "string" && (ERAS as readonly string[]).includes(x);
}

/** The generation of fair's load balancer and wakeup placement an era runs. */
export type Family = "2.6" | "4.x" | "5.x";

/** The facts that set an era apart, in one place; code reads these instead of testing eras. */
export interface EraTraits {
  /** The kernel version, [major, minor]; eraAtLeast compares it. */
  readonly version: readonly [number, number];
  /**
   * fair.c's generation: "2.6" (cpu_load and load weights, no PELT), "4.x" (PELT with cpu_load[]
   * and the sd load_idx; 3.19 runs the 4.x code with its v3.8 PELT, capacity in tasks and its
   * pre-4.3 select_task_rq_fair), "5.x" (the v5.5 load_balance
   * rewrite with group types and migration types; select_idle_sibling with idle cores).
   */
  readonly family: Family;
  /** Per-entity load tracking (PELT, v3.8+); before, balancing reads load weights only. */
  readonly pelt: boolean;
  /**
   * PELT in the __update_load_avg form of v4.3 (9d89c257dfb9) until accumulate_sum replaced it in
   * v4.11 (a481db34b9be): weighted entity sums over LOAD_AVG_MAX (fair/pelt_v48.ts).
   */
  readonly pelt43: boolean;
  /**
   * PELT in its first form, v3.8 (9d85f21c94f7, 9ee474f55664, Paul Turner) until 9d89c257dfb9
   * replaced it in v4.3: per-entity runnable_avg_sum / runnable_avg_period and load_avg_contrib,
   * cfs_rq->runnable_load_avg and blocked_load_avg decayed through decay_counter
   * (fair/pelt_v38.ts, the 3.19 code: v4.1 added utilization_avg_contrib to this form, not
   * modelled). wake_affine weighs the tasks by se->load.weight.
   */
  readonly pelt38: boolean;
  /**
   * The 4.x balancer counts a group's capacity in tasks (sg_capacity_factor: sum_nr_running
   * above it is group_overloaded, below it group_has_free_capacity) until v4.1 replaced it with
   * group_capacity / group_no_capacity from utilization ("sched: Replace capacity_factor by usage").
   */
  readonly capacityFactor: boolean;
  /**
   * cfs_rq->runnable_load_avg, the PELT load of the queued entities only, kept beside load_avg
   * (v3.8 ... v5.6; "sched/fair: Replace runnable_load_avg by load_avg", v5.7, removed it). 4.x
   * weighted_cpuload() reads it; from v5.5 the balancer and wakeup path read load_avg instead
   * (b0fb1eb4f04a, 11f10e5420f6), so in 5.6 only the unmodelled NUMA statistics read it.
   */
  readonly runnableLoadAvg: boolean;
  /** The idle-core tracking of select_idle_sibling (sd_llc_shared->has_idle_cores, v4.9+). */
  readonly idleCores: boolean;
  /** pick_next_task_fair moves the picked task to the head of cfs_tasks (v4.16+). */
  readonly pickMovesToFront: boolean;
  /** post_init_entity_util_avg also seeds runnable_avg (v5.7+). */
  readonly runnableAvgAtFork: boolean;
  /** Cap on the scaled sched_latency and min_granularity (v2.6.29 sched_init_granularity: 200 ms). */
  readonly latencyCapNs: number;
  /** check_preempt_tick also preempts once curr is a slice ahead of the leftmost (v2.6.3x+). */
  readonly tickPreemptsVsLeftmost: boolean;
  /** The name of the package-wide domain level (DIE, renamed PKG in v6.7). */
  readonly pkgLevel: "DIE" | "PKG";
  /**
   * update_sysctl rescales latency / min_granularity / wakeup_granularity from rq_online_fair and
   * rq_offline_fair on CPU hotplug (v2.6.33+; kernel/sched/fair.c). Before, sched_init_granularity
   * scaled them once at boot by the CPUs online then (kernel/sched.c, v2.6.29).
   */
  readonly rescaleOnHotplug: boolean;
  /**
   * idle_cpu() also requires nr_running == 0 and an empty wakelist (v3.2+; wake_list until v5.8,
   * then rq->ttwu_pending). v2.6.29 idle_cpu() is only cpu_curr(cpu) == rq->idle.
   */
  readonly idleCpuChecksQueued: boolean;
  /**
   * try_to_wake_up's p->on_cpu handling and its split of the wakeup work between waker and
   * target (v5.8+, c6e7bd7afaeb; core/ttwu.ts), and a blocking read's syscall entry before
   * __schedule. A trait rather than eraAtLeast(era, "5.8"): the wakeup path asks it per call.
   */
  readonly ttwuOnCpu: boolean;
  /**
   * CFS fork placement from the parent (task_fork_fair, v2.6.32 … v6.5): the child starts at its
   * parent's vruntime, place_entity(initial) keeps the larger of that and min_vruntime + vslice on
   * the parent's cfs_rq, and the child is enqueued at that offset from its new cfs_rq's
   * min_vruntime. v2.6.29's place_entity set a new entity to min_vruntime + vslice of the target
   * cfs_rq whatever it held (its max was for wakeups only). EEVDF eras place by lag instead.
   */
  readonly forkFromParent: boolean;
  /**
   * RT bandwidth throttling of each CPU's root rt_rq by def_rt_bandwidth (sched_rt_runtime_us
   * per sched_rt_period_us; rt/bandwidth.ts). Every modelled era up to 6.6 has it (kernel/sched_rt.c
   * v2.6.29, kernel/sched/rt.c v3.19, v4.8); v6.12 removed it without RT_GROUP_SCHED
   * (5f6bd380c7bd "sched/rt: Remove default bandwidth control", v6.12-rc1) for the fair server, a
   * deadline server that runs fair tasks (fairServer).
   */
  readonly rtRootBandwidth: boolean;
  /**
   * The fair server (v6.12+; rt/fair_server.ts): a deferred deadline server per CPU that runs
   * fair tasks starved by RT ones (63ba8422f876 "sched/deadline: Introduce deadline servers"; the
   * fair server and its deferred mode in v6.12, a110a81c52a9 "sched/deadline: Deferrable dl server").
   */
  readonly fairServer: boolean;
  /**
   * The idle loop asks the cpuidle governor before it stops the tick (v4.17: 554c8aa8ecad "sched:
   * idle: Select idle state before stopping the tick", ed98c3491998 "sched: idle: Do not stop the
   * tick before cpuidle_idle_call()", and menu_select's stop_tick output): cpuidle_idle_call
   * stops it only when the governor says so (core/idle_call.ts). Before, tick_nohz_idle_enter
   * stopped it at every idle entry.
   */
  readonly idleGovernorStopsTick: boolean;
  /**
   * The menu governor's repeating-pattern detector, get_typical_interval (v2.6.35+, 1f85f87d4f81),
   * in the form of the era (core/menu_typical.ts): "none" before it, "v3.13" (int_sqrt), "v4.6"
   * (variance, min with the timer term), "v6.6" (RESIDENCY_THRESHOLD_NS), "v6.15" (two-sided).
   */
  readonly menuTypicalInterval: "none" | "v3.13" | "v4.6" | "v6.6" | "v6.15";
}

function traits(version: readonly [number, number], family: Family): EraTraits {
  const at = (maj: number, min: number) =>
    version[0] > maj || (version[0] === maj && version[1] >= min);
  return {
    version,
    family,
    pelt: at(3, 8),
    pelt43: at(4, 3) && !at(4, 11),
    pelt38: at(3, 8) && !at(4, 3),
    capacityFactor: !at(4, 1),
    runnableLoadAvg: at(3, 8) && !at(5, 7),
    idleCores: at(4, 9),
    pickMovesToFront: at(4, 16),
    runnableAvgAtFork: at(5, 7),
    latencyCapNs: version[0] === 2 ? 200_000_000 : Infinity,
    tickPreemptsVsLeftmost: at(3, 0),
    pkgLevel: at(6, 7) ? "PKG" : "DIE",
    rescaleOnHotplug: version[0] > 2, // v2.6.33+: the one 2.6 era modelled is 2.6.29
    idleCpuChecksQueued: at(3, 2),
    ttwuOnCpu: at(5, 8),
    forkFromParent: version[0] > 2,
    rtRootBandwidth: !at(6, 12),
    fairServer: at(6, 12),
    idleGovernorStopsTick: at(4, 17),
    menuTypicalInterval: at(6, 15)
      ? "v6.15"
      : at(6, 6)
        ? "v6.6"
        : at(4, 6)
          ? "v4.6"
          : at(3, 13)
            ? "v3.13"
            : "none", // the one 2.x era modelled is 2.6.29, before v2.6.35
  };
}

/** The traits of each era. */
export const ERA_TRAITS: Readonly<Record<Era, EraTraits>> = {
  "2.6.29": traits([2, 6], "2.6"),
  "3.19": traits([3, 19], "4.x"),
  "4.8": traits([4, 8], "4.x"),
  "5.6": traits([5, 6], "5.x"),
  "5.10": traits([5, 10], "5.x"),
  "5.19": traits([5, 19], "5.x"),
  "6.6": traits([6, 6], "5.x"),
  "6.19": traits([6, 19], "5.x"),
};

/**
 * The arch_spinlock_t behind raw_spinlock_t, so behind every rq lock: "ticket" (a FIFO of
 * tickets; every waiter spins on the lock word, so each release's store is seen by all of them)
 * or "queued" (qspinlock: an MCS queue; only its head spins on the lock word, the others on their
 * own per-CPU node).
 */
export type SpinlockKind = "ticket" | "queued";

/**
 * The first release whose spinlocks are queued, per architecture.
 * - x86_64: ticket spinlocks from v2.6.25 (314cdbefd1fd, Nick Piggin, "x86: FIFO ticket
 *   spinlocks", LKML 2007-11-01; 2.6.29's __ticket_spin_lock in arch/x86/include/asm/spinlock.h,
 *   3.19's arch_spin_lock on lock->tickets); queued from v4.2 (a33fda35e3a7 "locking/qspinlock:
 *   Introduce a simple generic 4-byte queued spinlock" and d73a33973f16 "locking/qspinlock, x86:
 *   Enable x86-64 to use queued spinlocks", Waiman Long).
 * - arm64: a ticket lock (arch/arm64/include/asm/spinlock.h, owner/next with LDAXR/STXR and WFE)
 *   until c11090474d70 "arm64: locking: Replace ticket lock implementation with qspinlock" (Will
 *   Deacon, v4.19: its Kconfig hunk sits on v4.18's CC_IS_CLANG). 2.6.29 predates the arm64 port
 *   (v3.7); the model gives that pairing the ticket lock (choice).
 */
const QUEUED_SPINLOCK_SINCE: Readonly<Record<Arch, string>> = { x86_64: "4.2", arm64: "4.19" };

/** The rq locks' spinlock kind for a machine's architecture and a kernel era. */
export function spinlockKind(arch: Arch, era: Era): SpinlockKind {
  const since = QUEUED_SPINLOCK_SINCE[arch];
  if (since === undefined) throw new Error(`arch must be one of x86_64, arm64 (got ${arch})`);
  return eraAtLeast(era, since) ? "queued" : "ticket";
}

/** A version as one comparable number: major * 1e6 + minor * 1e3 + patch. */
function versionCode(major: number, minor: number, patch: number): number {
  return major * 1e6 + minor * 1e3 + patch;
}

const ERA_CODE = {} as Record<Era, number>;
for (const era of ERAS) {
  const [maj, min, patch] = era.split(".").map(Number);
  ERA_CODE[era] = versionCode(maj, min, patch ?? 0);
}

/** Parsed `since` strings; eraAtLeast runs on hot paths, so each string is parsed once. */
const SINCE_CODE = new Map<string, number>();

/** Whether `era`'s kernel has a change merged in version `since` ("5.10", "2.6.32", ...). */
export function eraAtLeast(era: Era, since: string): boolean {
  let code = SINCE_CODE.get(since);
  if (code === undefined) {
    const [maj, min, patch] = since.split(".").map(Number);
    code = versionCode(maj, min ?? 0, patch ?? 0);
    SINCE_CODE.set(since, code);
  }
  return ERA_CODE[era] >= code;
}

/**
 * `eraAtLeast(era, since)` as a function of the era alone, for hot paths: it remembers the answer
 * for the last era asked (a kernel asks with one era all run long), where eraAtLeast looks two
 * tables up by string on every call.
 */
export function eraAtLeastFn(since: string): (era: Era) => boolean {
  let lastEra: Era | null = null;
  let last = false;
  return (era: Era): boolean => {
    if (era !== lastEra) {
      last = eraAtLeast(era, since);
      lastEra = era;
    }
    return last;
  };
}

/**
 * What an era's fair class runs in the model when it differs from the real kernel's, as one line
 * for explain output and `schedlab domains`; null when they agree. v6.6+ eras run EEVDF
 * (fair/eevdf.ts, docs/eevdf.md); what is left out is listed here.
 */
export function fairPolicyNote(era: Era): string | null {
  if (!eraAtLeast(era, "6.6")) return null;
  if (!eraAtLeast(era, "6.12"))
    return `era ${era}: the fair class runs EEVDF (avg_vruntime, lag placement, virtual deadlines, RUN_TO_PARITY to curr's deadline; reweight keeps lag as v6.7 does); not modelled: HRTICK (off by default in v${era}), cgroups`;
  return `era ${era}: the fair class runs EEVDF (avg_vruntime, lag placement, virtual deadlines, RUN_TO_PARITY to the shortest queued slice, DELAY_DEQUEUE with DELAY_ZERO, per-task slices with PREEMPT_SHORT, lag-keeping reweight); not modelled: HRTICK (off by default in v${era}), cgroups, and the balancer's view of delayed tasks (it counts them as runnable and may move them)`;
}

/** sysctl_sched_* and friends, in nanoseconds where they are times (unscaled base values). */
export interface Tunables {
  hz: number; // CONFIG_HZ
  sched_latency_ns: number; // before 1 + ilog2(ncpus) scaling
  /** min_granularity; since v6.6 the EEVDF base slice (debugfs base_slice_ns), same default. */
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
  /** The fair server's runtime per period, ns (debugfs sched/fair_server/cpuN/runtime, v6.12+); 0 turns it off. */
  fair_server_runtime_ns: number;
  /** The fair server's period, ns (debugfs sched/fair_server/cpuN/period, v6.12+). */
  fair_server_period_ns: number;
  /**
   * 1: pressure stall information is kept (CONFIG_PSI=y and the boot parameter psi=1; v4.20+,
   * eb414681d5a0 "psi: pressure stall information for CPU, memory, and IO", Johannes Weiner).
   * Its only cost in the model is psi_enqueue's write to the target CPU's psi_group_cpu line
   * when another CPU enqueues the task (enqueue_task; the root group only, no cgroups), one
   * cacheLineNs transfer. psi_ttwu_dequeue does work only for a task in iowait or a memory
   * stall, which no modelled task is. 0 (default; earlier eras ignore it): distributions differ
   * (CONFIG_PSI_DEFAULT_DISABLED, e0c274472d5d "psi: make disabling/enabling easier for vendor
   * kernels", exists because SUSE ships PSI off for its hackbench cost), and no experiment
   * states its config (choice).
   */
  psi: number;
  /**
   * 1 (default): CONFIG_SCHED_CLUSTER=y, the CLS level of the eras that have it (v5.16+,
   * "sched: Add cluster scheduler level in core and related Kconfig for ARM64" 778c558f49a2,
   * "sched: Add cluster scheduler level for x86" 66558b730f25); 0: =n, no CLS level, so an era
   * with the level can be compared with itself without it. Earlier eras have none either way.
   */
  sched_cluster: number;
  /** 1: each CPU's tick is offset by cpu x (TICK_NSEC / 2) / nr_possible_cpus (skew_tick=1;
   *  unconditional before 2.6.3x), 0: ticks aligned across CPUs (the default since). */
  skew_tick: number;
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
  fair_server_runtime_ns: 50_000_000, // fair_server_init / sched_init_dl_servers: 50 ms
  fair_server_period_ns: 1_000_000_000, // per 1000 ms
  skew_tick: 0,
  psi: 0,
  sched_cluster: 1,
};

/** Eras from `since` on (a feature's default: on in these eras). */
const from = (since: Era): readonly Era[] => ERAS.slice(ERAS.indexOf(since));
/** Eras up to and including `until`. */
const upTo = (until: Era): readonly Era[] => ERAS.slice(0, ERAS.indexOf(until) + 1);

/** A feature's default (true, false, or the eras in which it is on) and why it exists. */
interface FeatureDef {
  readonly default: boolean | readonly Era[];
  readonly why: string;
}

const KERNEL_FEATURES = {
  GENTLE_FAIR_SLEEPERS: {
    // v2.6.29 place_entity (NEW_FAIR_SLEEPERS) credits the full sysctl_sched_latency; the halving
    // came with Mike Galbraith's GENTLE_FAIR_SLEEPERS (51e0304ce6e5) in v2.6.32.
    default: from("3.19"),
    why: "a waking sleeper gets credit for at most half a latency period, so sleepers cannot spread the queue apart (v2.6.32+; 2.6.29 credits a full one)",
  },
  ASYM_GRAN: {
    // v2.6.29 kernel/sched_fair.c wakeup_gran(curr): gran is scaled by calc_delta_fair only when
    // !ASYM_GRAN or curr is heavier than nice 0. Later eras scale by the wakee (wakeup_gran(se)).
    default: upTo("2.6.29"),
    why: "2.6.29 wakeup_gran: the wakeup granularity is converted to curr's virtual time only when curr weighs more than nice 0 (easier to preempt - nice tasks, not harder to preempt + nice ones)",
  },
  START_DEBIT: {
    default: true,
    why: "a new task starts one slice behind, so forking cannot starve the tasks already running",
  },
  WAKEUP_PREEMPTION: {
    default: true,
    why: "a woken task may preempt the running one (WAKEUP_PREEMPT in 2.6.29)",
  },
  NEXT_BUDDY: {
    default: false,
    why: "prefer the task just woken, which likely consumes data the waker touched",
  },
  LAST_BUDDY: {
    default: true,
    why: "after a wakeup preemption, prefer the preempted task, whose data is still in cache",
  },
  CACHE_HOT_BUDDY: {
    default: true,
    why: "the balancer treats buddies as cache hot and is slower to migrate them",
  },
  TTWU_QUEUE: {
    default: from("3.19"),
    why: "queue remote wakeups on the target CPU's wakelist and let it activate them (v3.0+), less rq-lock bouncing",
  },
  LB_BIAS: {
    default: upTo("4.8"),
    why: "source_load/target_load read the biased cpu_load[] (gone with cpu_load in v5.0)",
  },
  NONTASK_CAPACITY: {
    default: from("3.19"),
    why: "CPU capacity discounts time spent in IRQ and steal, not running tasks",
  },
  RT_PUSH_IPI: {
    // SCHED_FEAT(RT_PUSH_IPI, true) under HAVE_RT_PUSH_IPI since v4.1 (Steven Rostedt, "sched/rt:
    // Use IPI to trigger RT task push migration instead of pulling"); the model runs the v4.16
    // irq_work walk of the rto_mask for 4.8 too.
    default: from("4.8"),
    why: "an idle-ish CPU asks overloaded CPUs by IPI to push RT tasks instead of all of them pulling and contending on one rq lock",
  },
  RT_RUNTIME_SHARE: {
    // SCHED_FEAT(RT_RUNTIME_SHARE, true) in kernel/sched/features.h v3.19 and v4.8; off from v5.10
    // (2586af1ac187 "sched/rt: Disable RT_RUNTIME_SHARE by default", Daniel Bristot de Oliveira,
    // in the v5.10 scheduler pull, Message-ID <20201012133701.GA3206705@gmail.com>). v2.6.29 has
    // no switch: its balance_runtime always borrows (kernel/sched_rt.c), which the default keeps.
    default: upTo("5.6"),
    why: "balance_runtime: an rt_rq past its runtime borrows unused runtime from the other CPUs of the root domain (up to a whole period), so a spinning RT task can keep its CPU",
  },
  SIS_PROP: {
    default: ["5.6", "5.10", "5.19"] as readonly Era[],
    why: "select_idle_cpu scans a number of CPUs proportional to the expected idle time (off once SIS_UTIL came, v6.0)",
  },
  SIS_UTIL: {
    default: from("6.6"),
    why: "select_idle_cpu's scan depth follows the LLC's utilisation (v6.0+)",
  },
  WA_IDLE: {
    default: true,
    why: "wake_affine prefers whichever of the waker's and the previous CPU is idle",
  },
  WA_WEIGHT: {
    default: true,
    why: "wake_affine compares the two CPUs' loads including the wakee's",
  },
  WA_BIAS: {
    default: true,
    why: "wake_affine_weight biases the comparison toward the previous CPU by imbalance_pct",
  },
  RUN_TO_PARITY: {
    default: from("6.6"),
    why: "EEVDF (v6.6+): the running task keeps the CPU until it reaches the deadline it was picked with, unless it stops being eligible",
  },
  PLACE_LAG: {
    default: from("6.6"),
    why: "EEVDF (v6.6+): an entity keeps the lag it had at dequeue when it is enqueued again",
  },
  PLACE_DEADLINE_INITIAL: {
    default: from("6.6"),
    why: "EEVDF (v6.6+): a new task starts with half a slice to its deadline, as the others are on average halfway through theirs",
  },
  PLACE_REL_DEADLINE: {
    default: from("6.19"),
    why: "EEVDF: a migrated or requeued entity keeps its deadline relative to its vruntime",
  },
  PICK_BUDDY: {
    default: from("6.19"),
    why: "EEVDF: an eligible next buddy is picked before the earliest deadline",
  },
  PREEMPT_SHORT: {
    // v6.12, 85e511df3cec "sched/eevdf: Allow shorter slices to wakeup-preempt"
    default: from("6.19"),
    why: "EEVDF (v6.12+): a wakee with a shorter slice than curr is picked without curr's slice protection, so it can preempt",
  },
  DELAY_DEQUEUE: {
    // v6.12, 152e11f6df29 "sched/fair: Implement delayed dequeue"
    default: from("6.19"),
    why: "EEVDF (v6.12+): a sleeper with negative lag stays queued (sched_delayed) until picked or woken, burning off its lag",
  },
  DELAY_ZERO: {
    // v6.12, 54a58a787791 "sched/fair: Implement DELAY_ZERO"
    default: from("6.19"),
    why: "EEVDF (v6.12+): the lag of a delayed entity is clipped to 0 when it is finally dequeued or woken",
  },
  UTIL_EST: {
    // v4.17, 7f65ea42eb00 "sched/fair: Add util_est on top of PELT"; SCHED_FEAT(UTIL_EST, true)
    default: from("5.6"),
    why: "a task's utilization estimate survives its sleeps (util_est, v4.17+): capacity fits, misfit and cpu_util read max(util_avg, util_est), so a task that just woke does not look small",
  },
  UTIL_EST_FASTUP: {
    // v5.5 (b8c96361402a) to v6.7; folded into util_est_update by v6.8's "sched/fair: Remove
    // SCHED_FEAT(UTIL_EST_FASTUP, true)" (Vincent Guittot), where the reset is unconditional
    default: ["5.6", "5.10", "5.19", "6.6"] as readonly Era[],
    why: "util_est's EWMA jumps to a larger sample at once instead of moving a quarter of the way (v5.5-v6.7; always so from v6.8)",
  },
  // Ours, not the kernel's: switches for balancer changes of later releases, on from the release
  // that merged them, so that a patch can turn one off to see what it did (docs/balancer-history.md).
  LB_LLC_SPREAD: {
    default: from("5.10"),
    why: "ours (v5.10, 16b0a7a1a0af): within an LLC, an overloaded busiest group is relieved by task count (migrate_task), not by the local group's spare capacity (migrate_util)",
  },
  LB_SMT_BALANCE: {
    default: from("6.6"),
    why: "ours (v6.6, fee1759e4f04 + 450e749707bc): an SMT group running 2+ tasks is group_smt_balance for an idle CPU, and an SMT group with one task is not picked over a non-SMT group",
  },
  LB_SIBLING_IMBALANCE: {
    default: from("6.6"),
    why: "ours (v6.6, 7ff1693236f5 + 450e749707bc): prefer-sibling spreading uses sibling_imbalance (per-core task ratio; none when this CPU is busy; at least one task to an empty group)",
  },
  LB_NEWIDLE_COST: {
    default: from("5.19"),
    why: "ours (v5.16, c5b0a7eefc70): newidle balance is skipped when avg_idle is below the lowest domain's max_newidle_lb_cost (the measured cost of its newidle passes) instead of sysctl_sched_migration_cost (0.5 ms); with it, update_newidle_cost's decay (e60b56e46b38)",
  },
  NI_RANDOM: {
    default: from("6.19"),
    why: "sched_balance_newidle runs a domain's pass with a probability that follows its success rate, a 1024-sided die against newidle_ratio (v6.19, 33cf66d88306)",
  },
  LB_SERIALIZE: {
    default: true,
    why: "ours (v2.6.19, 08c183f31bdb; v6.19, 3324b2180c17): periodic and idle passes of an SD_SERIALIZE (NUMA) domain take the global balancing flag, one CPU at a time; before 6.19 rebalance_domains takes it before the due check, from 6.19 sched_balance_rq after should_we_balance; a CPU that finds it held skips the domain and does not retry",
  },
  LB_SERIALIZE_NEWIDLE: {
    default: from("6.19"),
    why: "ours (v6.19, 522fb20fbdbe): a newidle pass of an SD_SERIALIZE (NUMA) domain takes sched_balance_running; a CPU that finds it held skips the pass",
  },
  NEWIDLE: {
    default: true,
    why: "ours: newly-idle balancing as a whole (idle_balance / newidle_balance)",
  },
  VISIBILITY_WINDOWS: {
    default: true,
    why: "ours: a CPU a waker or forker has claimed keeps looking idle to other CPUs' unlocked reads (idle_cpu, nr_running) until the enqueue or the wakelist's ttwu_pending store is done, and before v6.2 again from sched_ttwu_pending's early clear of ttwu_pending to its enqueue; off, a claimed CPU stops looking idle at the event's instant (core/idle_cpu.ts)",
  },
} as const satisfies Record<string, FeatureDef>;

/** The folded-in changes of features_folded.ts, each on from its release. */
const FOLDED_FEATURES = Object.fromEntries(
  Object.entries(FOLDED).map(([name, f]) => [
    name,
    { default: ERAS.filter((e) => eraAtLeast(e, f.since)), why: f.why },
  ]),
) as unknown as {
  readonly [F in FoldedName]: { readonly default: readonly Era[]; readonly why: string };
};

/**
 * kernel/sched/features.h as one table: each SCHED_FEAT we model once, with its default (true,
 * false, or the eras in which it is on) and why it exists. NEWIDLE, the LB_* switches and the
 * switches of features_folded.ts (a later release's change folded into an era, on from that
 * release) are ours, not the kernel's; `schedlab era E` lists them with their commits.
 */
export const FEATURES = { ...KERNEL_FEATURES, ...FOLDED_FEATURES };

/** The name of a modelled sched feature. */
export type FeatureName = keyof typeof FEATURES;
/** A value for every modelled SCHED_FEAT; true = on. */
export type Features = { [F in FeatureName]: boolean };

function featureDefaults(era: Era): Features {
  const out = {} as Features;
  for (const name of Object.keys(FEATURES) as FeatureName[]) {
    const d: boolean | readonly Era[] = FEATURES[name].default;
    out[name] = typeof d === "boolean" ? d : d.includes(era);
  }
  return out;
}

/** Tunables that differ from BASE_TUNABLES, per era. */
const ERA_TUNABLES: Partial<Record<Era, Partial<Tunables>>> = {
  "2.6.29": {
    hz: 250,
    sched_latency_ns: 20_000_000,
    sched_min_granularity_ns: 4_000_000,
    sched_wakeup_granularity_ns: 5_000_000,
    sched_nr_latency: 5,
    tunable_scaling_cpu_cap: 0,
    // tick_setup_sched_timer skewed every CPU's tick across half a jiffy until
    // "clockevents: Remove the per cpu tick skew" (2.6.3x); skew_tick=1 restored it as an option.
    skew_tick: 1,
  },
};

/**
 * Per-era defaults. 2.6.29: latency 20 ms, min_gran 4 ms, wakeup_gran 5 ms, nr_latency 5, scaled
 * by 1 + ilog2(ncpus) without a cap; HZ 250 was the x86 default config of the time (our choice).
 * 3.19-6.5: 6 / 0.75 / 1 ms, nr_latency 8, scaling capped at 8 CPUs. Sources: kernel/sched_fair.c and
 * sched_init_granularity in kernel/sched.c, v2.6.29; kernel/sched/fair.c, sysctl_sched_* and
 * get_update_sysctl_factor, v4.8.
 */
export function eraDefaults(era: Era): { tunables: Tunables; features: Features } {
  const tunables = { ...BASE_TUNABLES };
  const features = featureDefaults(era);
  Object.assign(tunables, ERA_TUNABLES[era]);
  return { tunables, features };
}

/** 1 + ilog2(n), with the era's CPU cap (0 = no cap). sched_init_granularity / update_sysctl. */
export function tunableScale(onlineCpus: number, cap: number): number {
  const n = cap > 0 ? Math.min(onlineCpus, cap) : onlineCpus;
  return 1 + Math.floor(Math.log2(Math.max(1, n)));
}
