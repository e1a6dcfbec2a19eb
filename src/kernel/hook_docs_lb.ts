// The documentation records of the load balancer's hooks (src/kernel/hook_docs.ts has the rest).
import type { HookName } from "./hooks";
import type { HookDoc } from "./hook_docs_types";

const ENV =
  "struct lb_env: env.era, env.sd (the domain balanced), env.idle (CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE), env.dstCpu (this CPU), env.srcCpu, env.cpus (CPUs still considered), env.imbalance, env.migrationType, env.flags (LBF_*), env.rq(cpu) (an LbRq), env.features, env.tunables, env.now";
const LB = "src/kernel/fair/lb";
const OLD = { file: "kernel/sched.c" } as const;
const FAIR = { file: "kernel/sched/fair.c" } as const;

export const LB_HOOK_DOCS = {
  "fair.find_busiest_group": {
    dispatcher: "findBusiestGroup",
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "find_busiest_group(sd, this_cpu, imbalance, idle, sd_idle, cpus, balance)",
        ...OLD,
        model: "findBusiestGroup2629",
        modelFile: `${LB}/v2629.ts`,
      },
      {
        eras: ["3.19", "4.8"],
        kernel: "find_busiest_group(env): update_sd_lb_stats, calculate_imbalance",
        ...FAIR,
        model: "findBusiestGroup48",
        modelFile: `${LB}/v48.ts`,
      },
      {
        eras: ["5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel: "find_busiest_group(env) (v5.5 rewrite: group_type, migration_type)",
        ...FAIR,
        model: "findBusiestGroup56",
        modelFile: `${LB}/v5x.ts`,
      },
    ],
    context: { env: ENV },
    returns:
      "{ balanced: true, reason } (one per `goto out_balanced`), or { balanced: false, busiestGroup, imbalance, migrationType, forced }",
    defaultDoes:
      "Gathers per-group statistics over env.sd's groups, picks the busiest, and decides whether to balance: 2.6.29 by average load per __cpu_power and imbalance_pct; 3.19/4.8 by group_type (overloaded: 4.8 by utilization over capacity, 3.19 by more CFS tasks than sg_capacity_factor) then avg_load, the CPU_IDLE idle-CPU test (fair.idle_imbalance_slack) or imbalance_pct, then fair.calculate_imbalance; 5.x by group_type order (has_spare .. overloaded, fair.group_classify), with the has_spare idle-CPU and NUMA rules (6.6+: prefer-sibling by sibling_imbalance, and an SMT busiest forced for a non-SMT CPU), then fair.calculate_imbalance. Sets env.imbalance and env.migrationType.",
    example: {
      what: "a newly idle CPU never pulls across NUMA nodes",
      code: `import { patch, SD_NUMA } from "schedlab";

const myPatch = patch("no-newidle-numa").replace("fair.find_busiest_group", (ctx, base) =>
  ctx.env.idle === "CPU_NEWLY_IDLE" && (ctx.env.sd.flags & SD_NUMA) !== 0
    ? { balanced: true, reason: "no_busiest" }
    : base(ctx));`,
    },
  },

  "fair.calculate_imbalance": {
    dispatcher: "calculateImbalance",
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "- (computed inside find_busiest_group; the hook is not called)",
        ...OLD,
        model: "-",
        modelFile: `${LB}/v2629.ts`,
      },
      {
        eras: ["3.19", "4.8"],
        kernel: "calculate_imbalance(env, sds); fix_small_imbalance(env, sds)",
        ...FAIR,
        model: "calculateImbalance48Hook",
        modelFile: `${LB}/v48.ts`,
      },
      {
        eras: ["5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel: "calculate_imbalance(env, sds) (v5.5 rewrite)",
        ...FAIR,
        model: "calculateImbalance56Hook",
        modelFile: `${LB}/v5x.ts`,
      },
    ],
    context: {
      env: ENV,
      family: '"4.x" or "5.x": which statistics sds holds (narrows the union)',
      sds: "struct sd_lb_stats of this pass: sds.local / sds.busiest groups, sds.localStat / sds.busiestStat (SgLbStats48 or SgLbStats56), totalLoad, totalCapacity, avgLoad",
    },
    returns: "{ imbalance, migrationType }: how much to move (load, util or tasks) and as what",
    defaultDoes:
      "4.x: always migrate_load: the lesser of busiest's excess over the domain average (capped by its load above capacity when both groups are overloaded; 3.19: its tasks above sg_capacity_factor) and local's room below it, times capacity / SCHED_LOAD_SCALE; fix_small_imbalance when that is less than one task's load. 5.x: a misfit busiest gives migrate_misfit 1; asym_packing migrate_task of all its tasks; 6.6+ smt_balance migrate_task 1; imbalanced migrate_task 1. A local group with spare capacity: migrate_util of its spare capacity when busiest is overloaded (5.10+: not inside an LLC, LB_LLC_SPREAD), else migrate_task of half the nr_running difference (busiest of one CPU, or SD_PREFER_SIBLING; 6.6+ sibling_imbalance per core, LB_SIBLING_IMBALANCE) or of the idle-CPU difference, passed through fair.numa_imbalance (before the halving in 5.18+). Otherwise migrate_load by average load against the domain average (5.7+: 0 when local's avg_load is at or above busiest's; 6.3+: or above the domain's).",
    example: {
      what: "move at most one task when migrating tasks",
      code: `import { patch } from "schedlab";

const myPatch = patch("one-task-at-a-time").replace("fair.calculate_imbalance", (ctx, base) => {
  const r = base(ctx);
  return r.migrationType === "migrate_task" ? { ...r, imbalance: Math.min(r.imbalance, 1) } : r;
});`,
    },
  },

  "fair.find_busiest_queue": {
    dispatcher: "findBusiestQueue",
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "find_busiest_queue(group, idle, imbalance, cpus)",
        ...OLD,
        model: "findBusiestQueue2629",
        modelFile: `${LB}/v2629.ts`,
      },
      {
        eras: ["3.19", "4.8"],
        kernel: "find_busiest_queue(env, group)",
        ...FAIR,
        model: "findBusiestQueue48",
        modelFile: `${LB}/v48.ts`,
      },
      {
        eras: ["5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel: "find_busiest_queue(env, group) (by migration_type)",
        ...FAIR,
        model: "findBusiestQueue56",
        modelFile: `${LB}/v5x.ts`,
      },
    ],
    context: {
      env: ENV,
      group: "the busiest group find_busiest_group chose: group.cpus (ascending), group.capacity",
    },
    returns: "the LbRq to pull from (env.rq(cpu)), or null (the pass ends as no_busiest_queue)",
    defaultDoes:
      "Iterates group.cpus, skipping CPUs not in env.cpus. 2.6.29: the highest weighted_cpuload, skipping an rq with one task heavier than env.imbalance. 4.x: the highest load per capacity, with the same skip unless the CPU's capacity is reduced (3.19: unless its capacity rounds to no task, capacity_factor). 5.x by env.migrationType: migrate_load as 4.x on cfs load_avg; migrate_util the highest cpu_util; migrate_task the most CFS tasks (cfsHNrRunning); migrate_misfit the largest misfit load. On SD_ASYM_CPUCAPACITY domains 5.x skips a CPU running one task that is not smaller than dst (5.14+: not ~5% smaller, capacity_greater).",
    example: {
      what: "pull from the CPU with the most CFS tasks, whatever the migration type",
      code: `import { patch } from "schedlab";

const myPatch = patch("busiest-by-count").replace("fair.find_busiest_queue", (ctx, base) => {
  let best = null;
  for (const cpu of ctx.group.cpus) {
    if (!ctx.env.cpus.has(cpu)) continue;
    const rq = ctx.env.rq(cpu);
    if (rq.cfsHNrRunning > 1 && (!best || rq.cfsHNrRunning > best.cfsHNrRunning)) best = rq;
  }
  return best ?? base(ctx);
});`,
    },
  },

  "fair.can_migrate_task": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "can_migrate_task(p, rq, this_cpu, sd, idle, all_pinned)",
        ...OLD,
        model: "canMigrateTask",
        modelFile: `${LB}/detach.ts`,
      },
      {
        eras: ["3.19", "4.8", "5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel: "can_migrate_task(p, env)",
        ...FAIR,
        model: "canMigrateTask",
        modelFile: `${LB}/detach.ts`,
      },
    ],
    context: {
      env: ENV,
      task: "the candidate (LbTask): pid, weight, loadAvg, utilAvg, running, cpusAllowed (null: all), execStart, isBuddy",
    },
    returns: "true: the balancer may detach the task",
    defaultDoes:
      "Refuses a task not allowed on env.dstCpu (3.19+: sets LBF_SOME_PINNED and remembers another local-group CPU as env.newDstCpu with LBF_DST_PINNED); clears LBF_ALL_PINNED; refuses the running task; takes any task in an active balance (LBF_ACTIVE_LB, 5.13+); else refuses a cache-hot task (fair.task_hot) until sd.nrBalanceFailed > sd.cacheNiceTries. It writes env.flags, so call base(ctx) before adding a refusal.",
    example: {
      what: "never move a task using more than half a CPU",
      code: `import { patch } from "schedlab";

const myPatch = patch("keep-big-tasks").replace("fair.can_migrate_task", (ctx, base) =>
  base(ctx) && ctx.task.utilAvg < 512);`,
    },
  },

  "fair.task_hot": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "task_hot(p, now, sd)",
        ...OLD,
        model: "taskHot",
        modelFile: `${LB}/detach.ts`,
      },
      {
        eras: ["3.19", "4.8", "5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel: "task_hot(p, env)",
        ...FAIR,
        model: "taskHot",
        modelFile: `${LB}/detach.ts`,
      },
    ],
    context: {
      env: ENV,
      task: "the candidate (LbTask): execStart (ns, when it last ran), isBuddy, idlePolicy",
    },
    returns: "true: cache hot (can_migrate_task refuses it until enough balance failures)",
    defaultDoes:
      "SCHED_IDLE tasks are never hot (3.19+); a buddy is hot with CACHE_HOT_BUDDY (3.19+: only when env.dstCpu is busy); sched_migration_cost_ns -1 means always hot, 0 never; else hot when env.now - task.execStart < sched_migration_cost_ns.",
    example: {
      what: "a task is hot for 2 ms after it ran",
      code: `import { patch } from "schedlab";

const myPatch = patch("hot-2ms").replace("fair.task_hot", (ctx) =>
  ctx.env.now - ctx.task.execStart < 2_000_000);`,
    },
  },

  "fair.need_active_balance": {
    dispatcher: "needActiveBalance",
    eras: [
      {
        eras: ["2.6.29"],
        kernel:
          "- (load_balance tests sd->nr_balance_failed > sd->cache_nice_tries + 2 inline; the hook is not called)",
        ...OLD,
        model: "-",
        modelFile: `${LB}/v2629.ts`,
      },
      {
        eras: ["3.19", "4.8"],
        kernel: "need_active_balance(env)",
        ...FAIR,
        model: "needActiveBalance48",
        modelFile: `${LB}/v48.ts`,
      },
      {
        eras: ["5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel:
          "need_active_balance(env): voluntary_active_balance (5.19+: imbalanced_active_balance)",
        ...FAIR,
        model: "needActiveBalance56",
        modelFile: `${LB}/v5x.ts`,
      },
    ],
    context: { env: ENV },
    returns: "true: queue the stopper on env.srcCpu to push its running task to env.dstCpu",
    defaultDoes:
      "Called after a pass found a busiest queue but moved nothing. 4.x: ASYM_PACKING on a newly idle CPU; an idle destination and a source with one CFS task on capacity reduced by RT/IRQ; else sd.nrBalanceFailed > sd.cacheNiceTries + 2. 5.x: the same voluntary cases plus migrate_misfit; the failure rule (5.12+: only for migrate_task).",
    example: {
      what: "kick the stopper after the first failed pass",
      code: `import { patch } from "schedlab";

const myPatch = patch("eager-active-balance").replace("fair.need_active_balance", (ctx, base) =>
  ctx.env.sd.nrBalanceFailed > 0 || base(ctx));`,
    },
  },

  "fair.idle_imbalance_slack": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "- (no idle-CPU test; the hook is not called)",
        ...OLD,
        model: "idleImbalanceSlack",
        modelFile: `${LB}/v48.ts`,
      },
      {
        eras: ["3.19", "4.8"],
        kernel:
          "find_busiest_group: env->idle == CPU_IDLE && busiest not overloaded && local->idle_cpus <= busiest->idle_cpus + 1",
        ...FAIR,
        model: "idleImbalanceSlack",
        modelFile: `${LB}/v48.ts`,
      },
      {
        eras: ["5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel:
          "find_busiest_group, busiest not overloaded and env->idle != CPU_NOT_IDLE (idle or newly idle): busiest->group_weight > 1 && local->idle_cpus <= busiest->idle_cpus + 1",
        ...FAIR,
        model: "idleImbalanceSlack",
        modelFile: `${LB}/v48.ts`,
      },
    ],
    context: {
      env: ENV,
      sdLlcSize: "per_cpu(sd_llc_size, this_cpu)",
      localIdleCpus: "idle CPUs of the local group",
      busiestIdleCpus: "idle CPUs of the busiest group",
      busiestGroupWeight: "CPUs in the busiest group",
    },
    returns:
      "the slack: the pass is balanced if localIdleCpus <= busiestIdleCpus + slack (4.x: CPU_IDLE passes; 5.x: idle and newly idle passes, busiest of more than one CPU)",
    defaultDoes: "Returns 1, the kernel's constant (seed 000, Mike Galbraith's box, makes it 2).",
    example: {
      what: "a slack of 2 between groups of more than two CPUs",
      code: `import { patch } from "schedlab";

const myPatch = patch("idle-slack-2").replace("fair.idle_imbalance_slack", (ctx, base) =>
  ctx.busiestGroupWeight > 2 ? 2 : base(ctx));`,
    },
  },

  "fair.numa_imbalance": {
    eras: [
      {
        eras: ["2.6.29", "3.19", "4.8"],
        kernel: "- (no NUMA allowance; the hook is not called)",
        file: "kernel/sched.c; kernel/sched/fair.c",
        model: "numaImbalance",
        modelFile: `${LB}/v5x.ts`,
      },
      {
        eras: ["5.6"],
        kernel:
          "calculate_imbalance, group_has_spare (the model's 5.6 is the tree before b396f52326de, seed 003's patch)",
        ...FAIR,
        model: "numaImbalance",
        modelFile: `${LB}/v5x.ts`,
      },
      {
        eras: ["5.10"],
        kernel:
          "adjust_numa_imbalance(imbalance, busiest->sum_nr_running) after the >> 1 (b396f52326de: 0 when busiest runs <= 2)",
        ...FAIR,
        model: "numaImbalance",
        modelFile: `${LB}/v5x.ts`,
      },
      {
        eras: ["5.19", "6.6", "6.19"],
        kernel:
          "adjust_numa_imbalance(imbalance, dst_running, imb_numa_nr), from calculate_imbalance",
        ...FAIR,
        model: "numaImbalance",
        modelFile: `${LB}/v5x.ts`,
      },
    ],
    context: {
      env: ENV,
      sd: "env.sd; check SD_NUMA in sd.flags (the hook is called on every domain)",
      imbalance: "the task imbalance so far",
      halved: "true in 5.6 (called after imbalance >> 1), false in 5.18+ (before it)",
      busiestSumNrRunning: "busiest->sum_nr_running",
      localSumNrRunning: "local->sum_nr_running",
      dstRunning: "local->sum_nr_running + 1 (5.18+ dst_running)",
      imbNumaNr: "sd->imb_numa_nr (5.18+)",
    },
    returns: "the imbalance to use (0 keeps the tasks where they are)",
    defaultDoes:
      "On non-NUMA domains and in 5.6 and older: imbalance unchanged. 5.10 on SD_NUMA: 0 when busiest runs at most 2 tasks (b396f52326de). 5.18+ on SD_NUMA: adjust_numa_imbalance, 0 while dstRunning <= imbNumaNr and imbalance <= NUMA_IMBALANCE_MIN (2).",
    example: {
      what: "seed 003 (Mel Gorman, 2020): keep a pair of communicating tasks on one node",
      code: `import { patch, SD_NUMA } from "schedlab";

const myPatch = patch("numa-pair").replace("fair.numa_imbalance", (ctx, base) =>
  (ctx.sd.flags & SD_NUMA) !== 0 && ctx.busiestSumNrRunning <= 2 ? 0 : base(ctx));`,
    },
  },

  "fair.group_classify": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "- (no group types; the hook is not called)",
        ...OLD,
        model: "groupClassify56",
        modelFile: `${LB}/v5x.ts`,
      },
      {
        eras: ["3.19", "4.8"],
        kernel:
          "group_classify() (group_other, group_imbalanced, group_overloaded; internal in the model, the hook is not called)",
        ...FAIR,
        model: "groupClassify56",
        modelFile: `${LB}/v5x.ts`,
      },
      {
        eras: ["5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel: "group_classify(imbalance_pct, group, sgs)",
        ...FAIR,
        model: "groupClassify56",
        modelFile: `${LB}/v5x.ts`,
      },
    ],
    context: {
      env: ENV,
      group: "the sched group (group.imbalance: sgc->imbalance, a child failed on affinity)",
      sgs: "its struct sg_lb_stats (SgLbStats56): sumNrRunning, sumHNrRunning, idleCpus, groupWeight, groupCapacity, groupUtil, groupRunnable, groupMisfitTaskLoad, groupAsymPacking, groupSmtBalance (6.6+)",
    },
    returns:
      "the group_type, one of GROUP_TYPES_56 (has_spare < fully_busy < misfit_task < smt_balance (6.6+) < asym_packing < imbalanced < overloaded)",
    defaultDoes:
      "group_overloaded if more tasks than CPUs and util (5.7+: or runnable) above capacity by imbalance_pct; else group_imbalanced if group.imbalance; group_asym_packing; 6.6+ group_smt_balance (sgs.groupSmtBalance: an idle CPU facing an SMT group running 2+ tasks, LB_SMT_BALANCE); group_misfit_task; group_fully_busy if it has no spare capacity (at least as many tasks as CPUs and util, 5.7+ or runnable, near capacity); else group_has_spare.",
    example: {
      what: "a group with an idle CPU has spare capacity unless it is overloaded",
      code: `import { patch } from "schedlab";

const myPatch = patch("idle-means-spare").replace("fair.group_classify", (ctx, base) => {
  const type = base(ctx);
  return ctx.sgs.idleCpus > 0 && type !== "group_overloaded" ? "group_has_spare" : type;
});`,
    },
  },

  "fair.get_sd_balance_interval": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel:
          "rebalance_domains: interval = sd->balance_interval (x busy_factor), msecs_to_jiffies, clamped",
        ...OLD,
        model: "getSdBalanceInterval",
        modelFile: `${LB}/common.ts`,
      },
      {
        eras: ["3.19", "4.8", "5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel: "get_sd_balance_interval(sd, cpu_busy)",
        ...FAIR,
        model: "getSdBalanceInterval",
        modelFile: `${LB}/common.ts`,
      },
    ],
    context: {
      sd: "the domain (sd.balanceInterval in ms, sd.busyFactor)",
      cpuBusy: "this CPU is not idle",
      era: "the kernel era",
      hz: "CONFIG_HZ",
      maxInterval: "max_load_balance_interval in jiffies (HZ * CPUs / 10)",
      features:
        "the kernel's sched features; LB_INTERVAL_LESS_JIFFY (5.10+) takes the jiffy off (absent: the era's default)",
    },
    returns: "jiffies until this domain is balanced again from this CPU",
    defaultDoes:
      "sd.balanceInterval, times sd.busyFactor when cpuBusy, in jiffies (rounded up); 5.10+ takes one jiffy off busy intervals (LB_INTERVAL_LESS_JIFFY); at least 1 and at most maxInterval.",
    example: {
      what: "busy CPUs balance twice as often",
      code: `import { patch } from "schedlab";

const myPatch = patch("busy-balance-2x").replace("fair.get_sd_balance_interval", (ctx, base) =>
  ctx.cpuBusy ? Math.max(1, Math.floor(base(ctx) / 2)) : base(ctx));`,
    },
  },
} as const satisfies Partial<Record<HookName, HookDoc>>;
