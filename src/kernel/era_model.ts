// What an era runs in the model, in words: the fair pick policy, the load balancer's generation
// and the later-release changes it carries, the wakeup path and the form of PELT.
// `schedlab domains` and explain() print it; docs/balancer-history.md has the commits.
import { ERA_TRAITS, type Era, eraAtLeast, eraDefaults } from "./features";

/** The fair class's pick: CFS up to 5.19, EEVDF from 6.6 (core.ts chooses the FairPolicy). */
export function pickPolicyOf(era: Era): "CFS" | "EEVDF" {
  return eraAtLeast(era, "6.6") ? "EEVDF" : "CFS";
}

/** The balancer an era runs: its generation and, for 5.x, the later changes (with release). */
export function balancerOf(era: Era): string {
  switch (ERA_TRAITS[era].family) {
    case "2.6":
      return "2.6.29 find_busiest_group (cpu_load[] of load weights, __cpu_power, imbalance_pct)";
    case "4.x":
      return ERA_TRAITS[era].capacityFactor
        ? "4.x find_busiest_group (PELT with cpu_load[] and load_idx; group_other/imbalanced/overloaded; capacity in tasks, sg_capacity_factor)"
        : "4.x find_busiest_group (PELT with cpu_load[] and load_idx; group_other/imbalanced/overloaded)";
    case "5.x": {
      const f = eraDefaults(era).features;
      const parts = ["v5.5 rework (group_type, migration_type)"];
      if (f.LB_GROUP_RUNNABLE) parts.push("5.7 runnable_avg in group_classify");
      if (f.LB_LLC_SPREAD) parts.push("5.10 LB_LLC_SPREAD");
      if (f.LB_ACTIVE_MIGRATE_TASK) parts.push("5.12 migrate_task-only active balance");
      if (f.LB_ACTIVE_LB) parts.push("5.13 LBF_ACTIVE_LB");
      if (f.LB_NEWIDLE_COST) parts.push("5.16 LB_NEWIDLE_COST");
      if (f.LB_IMB_NUMA_NR) parts.push("5.18 imb_numa_nr");
      if (f.LB_SMT_BALANCE) parts.push("6.6 LB_SMT_BALANCE");
      if (f.LB_SIBLING_IMBALANCE) parts.push("6.6 LB_SIBLING_IMBALANCE");
      if (f.NI_RANDOM) parts.push("6.19 NI_RANDOM");
      if (f.LB_SERIALIZE_NEWIDLE) parts.push("6.19 LB_SERIALIZE_NEWIDLE");
      return parts.join(", ");
    }
  }
}

/** The wakeup path an era runs (select_task_rq_fair's fast path). */
export function wakeupOf(era: Era): string {
  switch (ERA_TRAITS[era].family) {
    case "2.6":
      return "2.6.29 wake_affine + wake_idle";
    case "4.x":
      return eraAtLeast(era, "4.3")
        ? "4.x wake_wide + select_idle_sibling (idle group walk)"
        : "3.x select_task_rq_fair (wake_wide of v3.12 inside wake_affine, every wakeup to select_idle_sibling) + select_idle_sibling (idle group walk)";
    case "5.x": {
      const f = eraDefaults(era).features;
      const depth = f.SIS_UTIL ? "SIS_UTIL" : f.SIS_PROP ? "SIS_PROP" : "no depth limit";
      return f.SIS_SINGLE_SCAN
        ? `5.12+ select_idle_sibling (one select_idle_cpu pass for cores or CPUs, prev's SMT siblings, ${depth})`
        : `5.6 select_idle_sibling (select_idle_core, select_idle_cpu with ${depth}, select_idle_smt)`;
    }
  }
}

/** The per-entity load tracking an era runs (fair/pelt_form.ts chooses the code). */
export function peltOf(era: Era): string {
  const t = ERA_TRAITS[era];
  if (!t.pelt) return "none (load weights)";
  if (t.pelt38)
    return "v3.8 runnable_avg_sum / runnable_avg_period (load_avg_contrib, runnable_load_avg and blocked_load_avg; no util_avg)";
  if (t.pelt43)
    return "v4.3 __update_load_avg (load_sum / util_sum over LOAD_AVG_MAX, runnable_load_avg)";
  return t.runnableLoadAvg
    ? "v4.11 accumulate_sum, with runnable_load_avg"
    : "v4.11 accumulate_sum";
}

/** One line on what the era runs: pick policy, balancer version, wakeup path, PELT. */
export function eraModelNote(era: Era): string {
  return `era ${era}: fair pick ${pickPolicyOf(era)}; balancer ${balancerOf(era)}; wakeup ${wakeupOf(era)}; PELT ${peltOf(era)}`;
}
