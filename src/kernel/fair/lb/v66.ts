// The SMT-aware pieces of the v6.5/v6.6 balancer (kernel/sched/fair.c), used by v5x.ts when the
// LB_SMT_BALANCE / LB_SIBLING_IMBALANCE switches are on (from era 6.6):
//   smt_vs_nonsmt_groups, smt_balance   fee1759e4f04 "sched/fair: Determine active load balance
//                                       for SMT sched groups" (v6.6)
//   sibling_imbalance                   7ff1693236f5 "sched/fair: Implement prefer sibling
//                                       imbalance calculation between asymmetric groups" (v6.6),
//                                       with 450e749707bc "sched/fair: Fix SMT4 group_smt_balance
//                                       handling" (v6.6-rc2)
// sg->cores is d24cb0d9113f "sched/topology: Record number of cores in sched group" (v6.6).
import type { SchedGroup } from "../../topology/sched_domain";
import { SD_SHARE_CPUCAPACITY } from "../../topology/sched_domain";
import type { LbEnv, SdLbStats56, SgLbStats56 } from "./types";

/** sg->flags & SD_SHARE_CPUCAPACITY: the group is an SMT core with 2+ online threads. */
export function smtGroup(sg: SchedGroup | null): boolean {
  return sg !== null && ((sg.flags ?? 0) & SD_SHARE_CPUCAPACITY) !== 0;
}

/** smt_vs_nonsmt_groups(sg1, sg2): one group is SMT and the other is not. */
export function smtVsNonsmtGroups(sg1: SchedGroup | null, sg2: SchedGroup | null): boolean {
  if (!sg1 || !sg2) return false;
  return smtGroup(sg1) !== smtGroup(sg2);
}

/**
 * smt_balance(env, sgs, group): an idle CPU should relieve an SMT group running more than one
 * task (two tasks share a core's capacity). Not for a busy destination.
 */
export function smtBalance(env: LbEnv, sgs: SgLbStats56, group: SchedGroup): boolean {
  if (env.idle === "CPU_NOT_IDLE") return false;
  return smtGroup(group) && sgs.sumHNrRunning > 1;
}

/**
 * sibling_imbalance(env, sds, busiest, local): the tasks to move (x2, the caller halves it) so
 * that both groups run the same number of tasks per core. 0 when this CPU is busy or busiest
 * runs nothing; with equal core counts, the difference in running tasks; a fully idle local
 * group takes at least one task from a busiest group running 2+ (450e749707bc: imbalance <= 1).
 */
export function siblingImbalance(
  env: LbEnv,
  sds: SdLbStats56,
  busiest: SgLbStats56,
  local: SgLbStats56,
): number {
  if (env.idle === "CPU_NOT_IDLE" || !busiest.sumNrRunning) return 0;
  const ncoresBusiest = sds.busiest?.cores ?? busiest.groupWeight;
  const ncoresLocal = sds.local?.cores ?? local.groupWeight;
  if (ncoresBusiest === ncoresLocal) return Math.max(0, busiest.sumNrRunning - local.sumNrRunning);
  // Balance such that nr_running/ncores ratio are same on both groups
  let imbalance = Math.max(
    0,
    ncoresLocal * busiest.sumNrRunning - ncoresBusiest * local.sumNrRunning,
  );
  // Normalize imbalance and do rounding on normalization
  imbalance = Math.floor(
    (2 * imbalance + ncoresLocal + ncoresBusiest) / (ncoresLocal + ncoresBusiest),
  );
  // Take advantage of resource in an empty sched group
  if (imbalance <= 1 && local.sumNrRunning === 0 && busiest.sumNrRunning > 1) imbalance = 2;
  return imbalance;
}
