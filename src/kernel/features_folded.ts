// Switches for changes of later releases that the 5.x eras fold in (ours, not the kernel's
// features.h). Each era runs the change from its release on (the switch's default), and a patch
// turns it back with patch().feature(NAME, false), so a variant can show what the change did
// without rewriting the older rule by hand. FEATURES (features.ts) takes these with the defaults
// `since` gives; era_changes.ts lists them per era with their commits (`schedlab era E`,
// docs/eras.md). Commit ids and releases as in docs/balancer-history.md, which checked them
// against the tip-bot or pull-request text; a quoted title stands where no id was checked.
// Imports nothing, so that features.ts can read it.

/** One folded-in change: the first release that has it, its commit, and what the switch turns off. */
export interface FoldedChange {
  /** The first mainline release with the change ("5.7"); the switch is on in eras from it. */
  readonly since: string;
  /** Commit id(s), or the quoted subject where the id was not checked. */
  readonly commit: string;
  /** Which part of the model the switch gates (file and function). */
  readonly where: string;
  readonly why: string;
}

/** The folded-in changes with a switch of their own, by switch name. */
export const FOLDED = {
  LB_GROUP_RUNNABLE: {
    since: "5.7",
    commit: "070f5e860ee2",
    where:
      "lb/v5x.ts groupIsOverloaded56, groupHasCapacity56; wake/find_idlest.ts groupClassifyWakeup",
    why: "ours (v5.7, 070f5e860ee2): group_classify also reads runnable_avg: a group whose runnable exceeds its capacity by imbalance_pct is overloaded and has no spare capacity (balancer and find_idlest_group)",
  },
  LB_FULLY_BUSY_NO_PULL: {
    since: "5.7",
    commit: "111688ca1c4a",
    where: "lb/v5x.ts calculateImbalance56",
    why: "ours (v5.7, 111688ca1c4a): calculate_imbalance pulls nothing when a fully busy local group's avg_load is at or above the busiest's (5.6 wraps the unsigned subtraction)",
  },
  LB_DETACH_FAILED_SHIFT: {
    since: "5.10",
    commit: "5a7f55590467",
    where: "lb/detach.ts detachTasks",
    why: "ours (v5.10, 5a7f55590467): detach_tasks takes a task for migrate_load while load >> nr_balance_failed fits the imbalance (before: load/2, and only before cache_nice_tries failures)",
  },
  LB_INTERVAL_LESS_JIFFY: {
    since: "5.10",
    commit: '"sched/fair: Minimize concurrent LBs between domain level"',
    where: "lb/common.ts getSdBalanceInterval",
    why: 'ours (v5.10, "sched/fair: Minimize concurrent LBs between domain level"): get_sd_balance_interval takes a jiffy off a busy CPU\'s interval so that the levels do not fire together',
  },
  LB_ACTIVE_MIGRATE_TASK: {
    since: "5.12",
    commit: "e9b9734b7465",
    where: "lb/v5x.ts needActiveBalance56",
    why: "ours (v5.12, e9b9734b7465): need_active_balance applies the nr_balance_failed rule to migrate_task imbalances only (imbalanced_active_balance)",
  },
  LB_ACTIVE_LB: {
    since: "5.13",
    commit: "23fb06d9602b",
    where: "lb/load_balance.ts (env.flags), lb/common.ts lbAccountPass",
    why: "ours (v5.13, 23fb06d9602b): LBF_ACTIVE_LB: only the stopper may take a cache-hot task, and an active-balance kick no longer sets nr_balance_failed to cache_nice_tries + 1",
  },
  LB_CAPACITY_GREATER: {
    since: "5.14",
    commit: "4aed8aa41524",
    where: "lb/misfit.ts",
    why: "ours (v5.14, 4aed8aa41524): the misfit group comparisons use capacity_greater (about 5%) against capacity_of(dst_cpu) instead of fits_capacity",
  },
  LB_IMB_NUMA_NR: {
    since: "5.18",
    commit: "e496132ebedd",
    where: "lb/v5x.ts numaImbalance, calculateImbalance56",
    why: "ours (v5.18, e496132ebedd): the balancer allows a NUMA imbalance of up to sd->imb_numa_nr tasks (adjust_numa_imbalance before the >> 1) instead of the 5.7 rule of at most 2 running tasks",
  },
  LB_LOCAL_ABOVE_SD_AVG: {
    since: "6.3",
    commit: "91dcf1e8068e",
    where: "lb/v5x.ts calculateImbalance56",
    why: "ours (v6.3, 91dcf1e8068e): calculate_imbalance pulls nothing either when the local group's avg_load is at or above the domain's average",
  },
  LB_SERIALIZE_AFTER_CHECKS: {
    since: "6.19",
    commit: "3324b2180c17",
    where: "fair/balance.ts (serializeEarly)",
    why: "ours (v6.19, 3324b2180c17): with LB_SERIALIZE, sched_balance_running is taken in sched_balance_rq after should_we_balance and the due check, no longer before them in rebalance_domains",
  },
  NEWIDLE_TTWU_PENDING: {
    since: "5.14",
    commit: "e5e678e4fea2",
    where: "core/avg_idle.ts newidleSkipsForWakelist",
    why: "ours (v5.14, e5e678e4fea2): newidle_balance returns at once when a wakee already waits on this CPU's wakelist (rq->ttwu_pending), before idle_stamp",
  },
  FIG_AVG_LOAD_BUSY: {
    since: "5.7",
    commit: "6c8116c914b6",
    where: "wake/find_idlest.ts updateSgWakeupStats",
    why: 'ours (v5.7, 6c8116c914b6 "sched/fair: Fix condition of avg_load calculation"): find_idlest_group computes avg_load for fully busy and overloaded groups (5.5/5.6: for has_spare groups only)',
  },
  FIG_UTIL_TIE: {
    since: "5.9",
    commit: '"sched/fair: Select group with lowest group_util when idle_cpus are equal"',
    where: "wake/find_idlest.ts updatePickIdlest",
    why: "ours (v5.9, Peter Puhov): find_idlest_group splits two has_spare groups with as many idle CPUs by the lower group_util (before: the first stays)",
  },
  FIG_IMB_NUMA_NR: {
    since: "5.18",
    commit: "e496132ebedd",
    where: "wake/find_idlest.ts findIdlestGroup5x",
    why: "ours (v5.18, e496132ebedd): fork/exec placement across NUMA nodes keeps the task on its node while the idle-CPU difference stays within imb_numa_nr (adjust_numa_imbalance); off: the 5.6 rule, the local node whenever it has an idle CPU",
  },
  SIS_ASYM_CAPACITY: {
    since: "5.7",
    commit: '000619680c37 + "sched/fair: Add asymmetric CPU capacity wakeup scan"',
    where: "wake/common.ts WakeState.asymWakeup57",
    why: 'ours (v5.7, 000619680c37 "sched/fair: Remove wake_cap()" and the asymmetric wakeup scan): on SD_ASYM_CPUCAPACITY machines the affine path is no longer skipped by wake_cap, and select_idle_sibling scans with select_idle_capacity',
  },
  SIS_SINGLE_SCAN: {
    since: "5.12",
    commit:
      '9fe1f127b913, 6cd56ef1df39, c722f35b513f, "sched/fair: Check for idle core in wake_affine", "sched/fair: Use prev instead of new target as recent_used_cpu", "sched/fair: Age the average idle time"',
    where: "wake/common.ts WakeState.late519, wake/v5x.ts",
    why: "ours (v5.11-v5.13): the select_idle_sibling rework: one select_idle_cpu pass for cores or CPUs, select_idle_smt on prev's siblings, recent_used_cpu = prev, an idle prev in wake_affine_idle, SIS_PROP from the aged wake_avg_idle; off: the 5.6 select_idle_sibling (select_idle_core, select_idle_cpu, select_idle_smt)",
  },
  SIS_RECENT_ALLOWED: {
    since: "6.5",
    commit: "ae2ad293d6be",
    where: "wake/common.ts WakeState.recentMaskFixed",
    why: "ours (v6.5, ae2ad293d6be): select_idle_sibling tests recent_used_cpu against p->cpus_ptr (5.12-6.4 tested prev, already stored as recent_used_cpu)",
  },
} as const satisfies Record<string, FoldedChange>;

/** The name of a folded-in change's switch. */
export type FoldedName = keyof typeof FOLDED;
