// The load balancer's views of the runqueues and tasks (implemented structurally by the core),
// struct lb_env, the group statistics of each era, the outcome of a balance pass, and the typed
// contexts of the hookable decision points.
import type { Era, Family, Features, Tunables } from "../../features";
import type { SchedDomain, SchedGroup } from "../../topology/sched_domain";
import type { CpuLoadView } from "../cpu_load";

/** enum cpu_idle_type. */
export type CpuIdleType = "CPU_IDLE" | "CPU_NOT_IDLE" | "CPU_NEWLY_IDLE";

/** lb_env->flags. */
export const LBF_ALL_PINNED = 0x01;
export const LBF_NEED_BREAK = 0x02;
export const LBF_DST_PINNED = 0x04;
export const LBF_SOME_PINNED = 0x08;
/**
 * v5.13+ (Valentin Schneider, "sched/fair: Clean up active balance nr_balance_failed trickery"):
 * the stopper's env; can_migrate_task lets a cache-hot task go. Before, load_balance set
 * nr_balance_failed = cache_nice_tries + 1 after kicking the stopper instead.
 */
export const LBF_ACTIVE_LB = 0x10;

/** sched_nr_migrate_break: detach_tasks takes a breather after this many tasks. */
export const SCHED_NR_MIGRATE_BREAK = 32;
/** MAX_PINNED_INTERVAL (ms): balance_interval cap when everything was pinned. */
export const MAX_PINNED_INTERVAL = 512;
export const SCHED_LOAD_SCALE = 1024; // SCHED_CAPACITY_SCALE / NICE_0_LOAD as the balancer sees them

/** enum migration_type (5.5+), in the kernel's order. Older eras always migrate load. */
export const MIGRATION_TYPES = [
  "migrate_load",
  "migrate_util",
  "migrate_task",
  "migrate_misfit",
] as const;
/** What load_balance moves to fix the imbalance (enum migration_type). */
export type MigrationType = (typeof MIGRATION_TYPES)[number];

/** task_struct as the balancer reads it. */
export interface LbTask {
  pid: number;
  /** se.load.weight, 1024 = nice 0 (2.6.29 balance_tasks moves weight). */
  weight: number;
  /** se.avg.load_avg = task_h_load(p) without task groups (4.x/5.x detach_tasks). */
  loadAvg: number;
  /** task_util_est(p): max(util_avg, util_est) (5.x migrate_util, migrate_misfit). */
  utilAvg: number;
  /** task_running(rq, p): it is rq->curr. */
  running: boolean;
  /** p->cpus_allowed / cpus_ptr; null = every CPU. */
  cpusAllowed: ReadonlySet<number> | null;
  /** se.exec_start (ns) for task_hot. */
  execStart: number;
  /** &p->se == cfs_rq->next (|| == cfs_rq->last in 3.x-5.x): CACHE_HOT_BUDDY. */
  isBuddy: boolean;
  /** SCHED_IDLE policy: never cache hot (task_has_idle_policy). */
  idlePolicy?: boolean;
}

/** struct rq (+ its cfs_rq) as the balancer reads it. */
export interface LbRq extends CpuLoadView {
  cpu: number;
  /** rq->nr_running, all classes. */
  nrRunning: number;
  /** rq->cfs.h_nr_running. */
  cfsHNrRunning: number;
  // loadWeight, runnableLoadAvg, cpuLoad come from CpuLoadView (2.6.x/4.x signals)
  /** cfs_rq->avg.load_avg: cpu_load(rq) in 5.5+. */
  cfsLoadAvg: number;
  /** cfs_rq->avg.util_avg: cpu_util() before the min with capacity_orig. */
  cfsUtilAvg: number;
  /** cfs_rq->avg.util_est(.enqueued) (UTIL_EST, 4.17+); 0 or absent before. */
  cfsUtilEst?: number;
  /** cfs_rq->avg.runnable_avg: cpu_runnable() (5.7+). */
  cfsRunnableAvg: number;
  /** rq->cpu_capacity = capacity_of(cpu). */
  cpuCapacity: number;
  /** rq->cpu_capacity_orig. */
  cpuCapacityOrig: number;
  /** idle_cpu(cpu): idle task running, nothing queued, no pending wakeups. */
  idle: boolean;
  /** rq->misfit_task_load (asym capacity only); 0 on symmetric machines. */
  misfitTaskLoad?: number;
  /** rq->active_balance: a stopper migration is already pending. */
  activeBalance: boolean;
  /** rq->curr when it is a task (null = idle). */
  curr: LbTask | null;
  /** rq->cfs_tasks (cfs_rq->tasks in 2.6.29), list head first; 5.x keeps it MRU first. */
  cfsTasks: readonly LbTask[];
}

/**
 * The hook implementations in force, as src/kernel/hooks.ts's Hooks provides them (Hooks is
 * structurally one). Importing ./load_balance registers the balancer hooks and their defaults.
 */
/** The hooks as the balancer looks them up (a Hooks, or null for the era defaults). */
export interface LbHookLookup {
  /** The implementation of a balancer hook in force. */
  get<K extends LbHookName>(name: K): LbHookSignatures[K];
}

/** struct lb_env. */
export interface LbEnv {
  era: Era;
  features: Features;
  tunables: Tunables;
  /** env->sd. */
  sd: SchedDomain;
  /** env->src_cpu (-1 until find_busiest_queue chose it). */
  srcCpu: number;
  /** env->dst_cpu (dst_rq = rq(dstCpu)). */
  dstCpu: number;
  /** env->idle. */
  idle: CpuIdleType;
  /** env->imbalance: load, util or tasks depending on migrationType. */
  imbalance: number;
  /** env->migration_type (5.x); migrate_load in older eras. */
  migrationType: MigrationType;
  /** env->flags (LBF_*). */
  flags: number;
  /** env->loop / loop_break / loop_max (detach_tasks). */
  loop: number;
  loopBreak: number;
  loopMax: number;
  /**
   * env->cpus: CPUs still considered (sd span & active, minus all-pinned sources). May be a
   * Set shared by every pass over the same span (cpusShared): clear a CPU with lbCpusClear.
   */
  cpus: Set<number>;
  /** env->cpus is the shared span Set of createLbEnv: copy before changing it. */
  cpusShared?: boolean;
  /** env->dst_grpmask: the local group's CPUs (LBF_DST_PINNED retargets within it). */
  dstGrpmask: readonly number[];
  /** env->new_dst_cpu. */
  newDstCpu: number;
  /** rq_clock_task of the rqs involved (ns); the simulator has one clock. */
  now: number;
  /** cpu_rq(cpu). */
  rq(cpu: number): LbRq;
  /** per_cpu(sd_llc_size, dst_cpu). */
  sdLlcSize: number;
  /** Hook table, or null for the era defaults. */
  hooks: LbHookLookup | null;
  /** CONFIG_PREEMPT(ION): newidle detach_tasks stops after the first task. */
  preemptible: boolean;
  /**
   * sched_balance_running's try-lock for a domain with SD_SERIALIZE (fair/lb_serialize.ts):
   * false when another CPU holds it. Null where the pass is not serialised in the model.
   */
  serialize: (() => boolean) | null;
  /**
   * update_idle_cpu_scan(env, sum_util) at the end of update_sd_lb_stats (v6.0+, SIS_UTIL): the
   * LLC's nr_idle_scan from the sum of its CPUs' util. Null where it does not apply (no SIS_UTIL,
   * a newidle pass, a domain other than dst's LLC).
   */
  updateIdleCpuScan?: ((sumUtil: number) => void) | null;
}

// ---------------------------------------------------------------------------------------------
// Group statistics per era.

/** 2.6.29: the per-group tallies of the monolithic find_busiest_group. */
export interface SgStats2629 {
  group: SchedGroup;
  local: boolean;
  /** avg_load = sum of source/target loads * SCHED_LOAD_SCALE / __cpu_power. */
  avgLoad: number;
  /** sum of source/target loads before scaling (contributes to total_load). */
  load: number;
  sumNrRunning: number;
  sumWeightedLoad: number;
  /** __cpu_power / SCHED_LOAD_SCALE, integer. */
  groupCapacity: number;
  /** max - min CPU load > 2 * avg_load_per_task (non-local groups only). */
  groupImb: boolean;
}

/** 4.x enum group_type (ordered). */
export const GROUP_TYPES_48 = ["group_other", "group_imbalanced", "group_overloaded"] as const;
export type GroupType48 = (typeof GROUP_TYPES_48)[number];

/** 4.8 struct sg_lb_stats, with the 3.19 capacity factor. */
export interface SgLbStats48 {
  avgLoad: number;
  groupLoad: number;
  sumWeightedLoad: number;
  loadPerTask: number;
  groupCapacity: number;
  /** Σ cpu_util (4.1+; 0 in 3.19, which tracks no utilization). */
  groupUtil: number;
  sumNrRunning: number; // cfs.h_nr_running summed
  idleCpus: number;
  groupWeight: number;
  groupType: GroupType48;
  /** group_no_capacity (4.1+: group_is_overloaded); 3.19: sum_nr_running > group_capacity_factor. */
  groupNoCapacity: boolean;
  /** 3.19 group_capacity_factor (sg_capacity_factor): the tasks the group can run; 0 from 4.1. */
  groupCapacityFactor: number;
  /** 3.19 group_has_free_capacity: group_capacity_factor > sum_nr_running. */
  groupHasFreeCapacity: boolean;
}

/** 4.8 struct sd_lb_stats. */
export interface SdLbStats48 {
  busiest: SchedGroup | null;
  local: SchedGroup | null;
  totalRunning: number;
  totalLoad: number;
  totalCapacity: number;
  avgLoad: number;
  busiestStat: SgLbStats48;
  localStat: SgLbStats48;
}

/** 5.5+ enum group_type, ordered by pull priority (group_smt_balance: v6.6+). */
export const GROUP_TYPES_56 = [
  "group_has_spare",
  "group_fully_busy",
  "group_misfit_task",
  "group_smt_balance",
  "group_asym_packing",
  "group_imbalanced",
  "group_overloaded",
] as const;
export type GroupType56 = (typeof GROUP_TYPES_56)[number];

/** 5.6 struct sg_lb_stats. */
export interface SgLbStats56 {
  avgLoad: number;
  groupLoad: number;
  groupCapacity: number;
  groupUtil: number;
  /** Σ cpu_runnable (5.7+ classification). */
  groupRunnable: number;
  sumNrRunning: number;
  sumHNrRunning: number;
  idleCpus: number;
  groupWeight: number;
  groupType: GroupType56;
  groupAsymPacking: boolean;
  /** v6.6+ (fee1759e4f04): an SMT group with 2+ tasks that an idle CPU should relieve. */
  groupSmtBalance?: boolean;
  groupMisfitTaskLoad: number;
}

/** 5.6 struct sd_lb_stats. */
export interface SdLbStats56 {
  busiest: SchedGroup | null;
  local: SchedGroup | null;
  totalLoad: number;
  totalCapacity: number;
  avgLoad: number;
  preferSibling: boolean;
  busiestStat: SgLbStats56;
  localStat: SgLbStats56;
}

// ---------------------------------------------------------------------------------------------
// Outcomes.

/** Why a pass found nothing to do (one per goto out_balanced in the kernel). */
export type LbBalancedReason =
  | "should_we_balance" // another CPU of the local group balances this level
  | "no_busiest" // no candidate group
  | "busiest_no_tasks" // busiest->sum_nr_running == 0
  | "local_ge_busiest" // this_load >= max_load / local avg_load >= busiest avg_load
  | "local_ge_domain_avg" // this group is already above the domain average
  | "imbalance_pct" // 100*busiest <= imbalance_pct*local
  | "max_load_le_load_per_task" // 2.6.29: max_load <= busiest_load_per_task
  | "idle_cpus" // local->idle_cpus <= busiest->idle_cpus + slack
  | "busy_dst_not_overloaded" // 5.x: busiest not overloaded and this CPU is busy
  | "busiest_single_task" // 5.x: busiest->sum_h_nr_running == 1
  | "local_busier_type" // 5.x: local->group_type > busiest->group_type
  | "zero_imbalance" // calculate_imbalance left env->imbalance == 0
  | "no_busiest_queue" // find_busiest_queue found no rq
  | "all_pinned" // every candidate source was pinned away
  | "sched_balance_running"; // v6.19: another CPU balances an SD_SERIALIZE domain

/** Result of find_busiest_group: the busiest group with env->imbalance set, or balanced. */
export type FbgResult =
  | { balanced: true; reason: LbBalancedReason; stopBalancing?: boolean; stats?: unknown }
  | {
      balanced: false;
      busiestGroup: SchedGroup;
      imbalance: number;
      migrationType: MigrationType;
      forced: boolean;
      stats?: unknown;
    };

/** One load_balance decision: balanced, or where to pull from and how much. */
export type LbDecision =
  | { balanced: true; reason: LbBalancedReason }
  | {
      balanced: false;
      busiestGroup: SchedGroup;
      busiestCpu: number;
      imbalance: number;
      migrationType: MigrationType;
    };

/** A task load_balance moved. The core performs the move (detach_task/attach_task). */
export interface LbMigration {
  task: LbTask;
  srcCpu: number;
  dstCpu: number;
}

/** How a pass ended, for nr_balance_failed and balance_interval accounting. */
export type LbPassOutcome =
  | { kind: "balanced"; allPinned: boolean } // out_balanced / out_all_pinned
  | { kind: "one_pinned" } // active balance refused: busiest->curr pinned
  | { kind: "moved" } // ld_moved > 0
  | { kind: "failed"; needActive: boolean; activeKicked: boolean; voluntary: boolean };

/** The result of load_balance(). */
export interface LoadBalanceResult {
  decision: LbDecision;
  outcome: LbPassOutcome;
  migrations: LbMigration[];
  /** Queue active_load_balance_cpu_stop on busiestCpu, pushing to pushCpu. */
  activeBalance: { busiestCpu: number; pushCpu: number } | null;
  /** *continue_balancing (*balance in 2.6.29): false stops the walk up the domains. */
  continueBalancing: boolean;
  /** The kernel's return value: tasks moved (2.6.29: 1/0, or -1 for a busy SMT sibling). */
  ldMoved: number;
  /** env->flags at the end of the pass. */
  flags: number;
}

// ---------------------------------------------------------------------------------------------
// Hooks: names and typed contexts.

/** find_busiest_group(env): the busiest group of env->sd, setting env->imbalance. */
export interface FindBusiestGroupCtx {
  env: LbEnv;
}
/** find_busiest_queue(env, group): the runqueue to pull from within the busiest group. */
export interface FindBusiestQueueCtx {
  env: LbEnv;
  group: SchedGroup;
}
/** can_migrate_task(p, env): may the balancer move this task? */
export interface CanMigrateTaskCtx {
  env: LbEnv;
  task: LbTask;
}
/** task_hot(p, env): is this task cache-hot on its CPU? */
export interface TaskHotCtx {
  env: LbEnv;
  task: LbTask;
}
/** need_active_balance(env): kick the stopper to push the busiest CPU's running task? */
export interface NeedActiveBalanceCtx {
  env: LbEnv;
}

/** calculate_imbalance's inputs; the hook returns env->imbalance and migration_type. */
export type CalculateImbalanceCtx =
  | { env: LbEnv; family: "4.x"; sds: SdLbStats48 }
  | { env: LbEnv; family: "5.x"; sds: SdLbStats56 };
/** What calculate_imbalance sets: env->imbalance and env->migration_type. */
export interface ImbalanceResult {
  imbalance: number;
  migrationType: MigrationType;
}

/** The CPU_IDLE idle-CPU test: balanced if local->idle_cpus <= busiest->idle_cpus + slack. */
export interface IdleImbalanceSlackCtx {
  env: LbEnv;
  /** per_cpu(sd_llc_size, this_cpu). */
  sdLlcSize: number;
  localIdleCpus: number;
  busiestIdleCpus: number;
  busiestGroupWeight: number;
}

/**
 * The allowed NUMA imbalance in calculate_imbalance's has_spare branch. 5.6 applies it to the
 * task imbalance after >> 1 (seed 003: 0 when busiest->sum_nr_running <= 2); 5.18+ applies
 * adjust_numa_imbalance(imbalance, dst_running, imb_numa_nr) before the >> 1. `halved` tells
 * which. Called on every domain; check SD_NUMA in sd.flags.
 */
export interface NumaImbalanceCtx {
  env: LbEnv;
  sd: SchedDomain;
  imbalance: number;
  halved: boolean;
  busiestSumNrRunning: number;
  localSumNrRunning: number;
  /** local->sum_nr_running + 1 (5.18+ dst_running). */
  dstRunning: number;
  /** sd->imb_numa_nr (5.18+). */
  imbNumaNr: number;
}

/** group_classify(imbalance_pct, group, sgs) (5.5+): the group_type of a sched group. */
export interface GroupClassifyCtx {
  env: LbEnv;
  group: SchedGroup;
  sgs: SgLbStats56;
}

/** get_sd_balance_interval(sd, cpu_busy): jiffies between periodic balances of a domain. */
export interface GetSdBalanceIntervalCtx {
  sd: SchedDomain;
  cpuBusy: boolean;
  era: Era;
  hz: number;
  /** max_load_balance_interval in jiffies. */
  maxInterval: number;
  /** The kernel's features (LB_INTERVAL_LESS_JIFFY: the v5.10 jiffy off a busy interval); default: the era's. */
  features?: Pick<Features, "LB_INTERVAL_LESS_JIFFY">;
}

/** The balancer's hooks and their signatures (merged into HookTypes). */
export interface LbHookSignatures {
  /** find_busiest_group: the busiest group of a domain and env->imbalance, or balanced. */
  "fair.find_busiest_group": (ctx: FindBusiestGroupCtx) => FbgResult;
  /** calculate_imbalance: how much (load, util, tasks) to move and as what migration type. */
  "fair.calculate_imbalance": (ctx: CalculateImbalanceCtx) => ImbalanceResult;
  /** find_busiest_queue: the runqueue to pull from within the busiest group. */
  "fair.find_busiest_queue": (ctx: FindBusiestQueueCtx) => LbRq | null;
  /** can_migrate_task: affinity, running and cache-hot refusals. */
  "fair.can_migrate_task": (ctx: CanMigrateTaskCtx) => boolean;
  /** task_hot: buddy and migration_cost cache-hotness. */
  "fair.task_hot": (ctx: TaskHotCtx) => boolean;
  /** need_active_balance: kick the stopper to push the running task. */
  "fair.need_active_balance": (ctx: NeedActiveBalanceCtx) => boolean;
  /** CPU_IDLE test: balanced if local->idle_cpus <= busiest->idle_cpus + slack (kernel: 1). */
  "fair.idle_imbalance_slack": (ctx: IdleImbalanceSlackCtx) => number;
  /** allowed task imbalance between SD_NUMA groups with spare capacity (5.6 seed 003, 5.18 adjust_numa_imbalance). */
  "fair.numa_imbalance": (ctx: NumaImbalanceCtx) => number;
  /** group_classify (5.5+): group_type of a sched_group. */
  "fair.group_classify": (ctx: GroupClassifyCtx) => GroupType56;
  /** get_sd_balance_interval: jiffies between periodic balances of a domain. */
  "fair.get_sd_balance_interval": (ctx: GetSdBalanceIntervalCtx) => number;
}
/** The name of a balancer hook. */
export type LbHookName = keyof LbHookSignatures;

/** The hookable decision points of the balancer, for the hook registry. */
export const LB_HOOKS: readonly LbHookName[] = [
  "fair.find_busiest_group",
  "fair.calculate_imbalance",
  "fair.find_busiest_queue",
  "fair.can_migrate_task",
  "fair.task_hot",
  "fair.need_active_balance",
  "fair.idle_imbalance_slack",
  "fair.numa_imbalance",
  "fair.group_classify",
  "fair.get_sd_balance_interval",
];

/** Which balancer generation an era uses (ERA_TRAITS[era].family). */
export type LbFamily = Family;
