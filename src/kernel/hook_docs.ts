// What `npx schedlab hooks --verbose` prints and docs/hooks.md shows, per hook: the kernel
// function and file each era names, the model's default per era, every context field, what the
// default does, and a minimal replacement. Data only: src/kernel/hook_docs_text.ts formats it,
// test/kernel/hook_docs.test.ts checks it against the hook types, the catalog and the page.
import type { HookName } from "./hooks";
import { LB_HOOK_DOCS } from "./hook_docs_lb";
import { type HookDoc, K_FIELD } from "./hook_docs_types";

export type { HookDoc, HookEraDoc } from "./hook_docs_types";

const K = K_FIELD;

const WAKE = "src/kernel/fair/wake";

const CORE_WAKE_DOCS = {
  "core.ttwu_queue_cond": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "- (try_to_wake_up always takes the target's rq lock)",
        file: "kernel/sched.c",
        model: "ttwuQueueCond519",
        modelFile: "src/kernel/core/ttwu.ts",
      },
      {
        eras: ["3.19"],
        kernel:
          "ttwu_queue(p, cpu): sched_feat(TTWU_QUEUE) && !cpus_share_cache(smp_processor_id(), cpu)",
        file: "kernel/sched/core.c",
        model: "ttwuQueueCond519",
        modelFile: "src/kernel/core/ttwu.ts",
      },
      {
        eras: ["4.8", "5.6"],
        kernel: "ttwu_queue(p, cpu, wake_flags): the same test",
        file: "kernel/sched/core.c",
        model: "ttwuQueueCond519",
        modelFile: "src/kernel/core/ttwu.ts",
      },
      {
        eras: ["5.10", "5.19"],
        kernel: "ttwu_queue_cond(cpu, wake_flags), from ttwu_queue_wakelist",
        file: "kernel/sched/core.c",
        model: "ttwuQueueCond519",
        modelFile: "src/kernel/core/ttwu.ts",
      },
      {
        eras: ["6.6", "6.19"],
        kernel: "ttwu_queue_cond(p, cpu), from ttwu_queue_wakelist",
        file: "kernel/sched/core.c",
        model: "ttwuQueueCond60",
        modelFile: "src/kernel/core/ttwu.ts",
      },
    ],
    context: {
      k: K,
      p: "the waking task",
      cpu: "the target CPU select_task_rq chose",
      thisCpu: "the waking CPU (smp_processor_id()); -1 outside any CPU context",
      wakeFlags: "WF_* flags of this wakeup (WF_TTWU, WF_SYNC, WF_MIGRATED, ...)",
    },
    returns:
      "true: queue p on cpu's wakelist (the target activates it, after an IPI unless it polls); false: lock cpu's rq and activate p here",
    defaultDoes:
      "Called only when the TTWU_QUEUE feature is on (3.19+). Up to 5.19: false for an offline target or no waking CPU; true when waker and target do not share an LLC (sdLlcId); else true only for WF_ON_CPU with at most one task on the target (the model never sets WF_ON_CPU). 6.0+: also false when p may not run on cpu or cpu is the waking CPU; true across LLCs, and within the LLC when the target runs nothing (nrRunning == 0).",
    example: {
      what: "use the wakelist only for an idle target",
      code: `import { patch } from "schedlab";

const myPatch = patch("wakelist-only-to-idle").replace("core.ttwu_queue_cond", (ctx, base) =>
  base(ctx) && ctx.k.rqs[ctx.cpu].nrRunning === 0);`,
    },
  },

  "fair.select_task_rq": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel:
          "select_task_rq_fair(p, sync) (wakeups); sched_balance_self(cpu, flag) (fork, exec)",
        file: "kernel/sched_fair.c; kernel/sched.c",
        model: "selectTaskRqFair2629",
        modelFile: `${WAKE}/v2629.ts`,
      },
      {
        eras: ["3.19"],
        kernel: "select_task_rq_fair(p, prev_cpu, sd_flag, wake_flags) (before v4.3's restructure)",
        file: "kernel/sched/fair.c",
        model: "selectTaskRqFair319",
        modelFile: `${WAKE}/v319.ts`,
      },
      {
        eras: ["4.8"],
        kernel: "select_task_rq_fair(p, prev_cpu, sd_flag, wake_flags)",
        file: "kernel/sched/fair.c",
        model: "selectTaskRqFair48",
        modelFile: `${WAKE}/v48.ts`,
      },
      {
        eras: ["5.6", "5.10"],
        kernel: "select_task_rq_fair(p, prev_cpu, sd_flag, wake_flags)",
        file: "kernel/sched/fair.c",
        model: "selectTaskRqFair5x",
        modelFile: `${WAKE}/v5x.ts`,
      },
      {
        eras: ["5.19", "6.6", "6.19"],
        kernel: "select_task_rq_fair(p, prev_cpu, wake_flags)",
        file: "kernel/sched/fair.c",
        model: "selectTaskRqFair5x",
        modelFile: `${WAKE}/v5x.ts`,
      },
    ],
    context: {
      k: K,
      p: "the task being placed",
      prevCpu: "task_cpu(p): where it last ran (for a fork, the parent's CPU)",
      wakerCpu: "the waking or forking CPU (smp_processor_id()); -1 outside any CPU context",
      wakeFlags: "WF_TTWU, WF_FORK or WF_EXEC, with WF_SYNC for a sync wakeup",
    },
    returns:
      "the CPU to place p on (the core corrects a disallowed or offline answer with select_fallback_rq, and the checker stops a run on a CPU number out of range)",
    defaultDoes:
      "Wakeups: walk up the domains of wakerCpu; with want_affine (p may run on wakerCpu and, 4.3+, !fair.wake_wide) the lowest SD_WAKE_AFFINE domain spanning prevCpu asks fair.wake_affine for the waking CPU or prevCpu (3.19: unless fair.wake_wide, asked there), then fair.select_idle_sibling(prev, target) picks an idle CPU near it. Forks and execs (and, 4.3+, wakeups with SD_BALANCE_WAKE) take the slow path: fair.find_idlest_group level by level, then the idlest CPU of that group. 3.19 sends every wakeup to select_idle_sibling, skips domains without SD_LOAD_BALANCE instead of stopping there, and starts a fork's new_cpu at wakerCpu. 2.6.29 calls wake_idle in place of select_idle_sibling and does fork/exec in sched_balance_self.",
    example: {
      what: "a wakeup stays on prev_cpu whenever prev_cpu is idle",
      code: `import { patch, WF_TTWU } from "schedlab";

const myPatch = patch("stay-on-idle-prev").replace("fair.select_task_rq", (ctx, base) =>
  ctx.wakeFlags & WF_TTWU && ctx.p.cpusAllowed[ctx.prevCpu] && ctx.k.rqs[ctx.prevCpu].isIdle()
    ? ctx.prevCpu
    : base(ctx));`,
    },
  },

  "fair.wake_wide": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "- (no wake_wide before v3.12)",
        file: "kernel/sched_fair.c",
        model: "-",
        modelFile: `${WAKE}/select.ts`,
      },
      {
        eras: ["3.19"],
        kernel: "wake_wide(p) (v3.12 form), called from wake_affine, which then returns 0",
        file: "kernel/sched/fair.c",
        model: "wakeWide312",
        modelFile: `${WAKE}/v48.ts`,
      },
      {
        eras: ["4.8", "5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel: "wake_wide(p) (v4.3 form), clears want_affine in select_task_rq_fair",
        file: "kernel/sched/fair.c",
        model: "wakeWide",
        modelFile: `${WAKE}/v48.ts`,
      },
    ],
    context: {
      k: K,
      p: "the wakee; p.wakeeFlips counts how often it switched wakees (record_wakee, halved each second)",
      waker: "current on the waking CPU (null: idle or no CPU context); waker.wakeeFlips",
      factor: "this_cpu_read(sd_llc_size) of the waking CPU",
    },
    returns:
      "true: a 1:N waker, spread its wakees (no affine pull); false: consider the affine pull",
    defaultDoes:
      "2.6.29: always false. 3.19 (v3.12): wide when p.wakeeFlips > factor and waker.wakeeFlips > factor * p.wakeeFlips. 4.3+: with master = max and slave = min of the two flip counts, wide unless slave < factor or master < slave * factor.",
    example: {
      what: "wide only when the waker switches wakees more than twice per LLC CPU",
      code: `import { patch } from "schedlab";

const myPatch = patch("wake-wide-2x").replace("fair.wake_wide", (ctx) =>
  (ctx.waker?.wakeeFlips ?? 0) > 2 * ctx.factor);`,
    },
  },

  "fair.wake_affine": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel:
          "wake_affine(this_sd, this_rq, p, prev_cpu, this_cpu, sync, idx, load, this_load, imbalance)",
        file: "kernel/sched_fair.c",
        model: "wakeAffine2629",
        modelFile: `${WAKE}/v2629.ts`,
      },
      {
        eras: ["3.19", "4.8"],
        kernel: "wake_affine(sd, p, sync)",
        file: "kernel/sched/fair.c",
        model: "wakeAffine48",
        modelFile: `${WAKE}/v48.ts`,
      },
      {
        eras: ["5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel:
          "wake_affine(sd, p, this_cpu, prev_cpu, sync): wake_affine_idle, wake_affine_weight",
        file: "kernel/sched/fair.c",
        model: "wakeAffine5x",
        modelFile: `${WAKE}/v5x.ts`,
      },
    ],
    context: {
      k: K,
      p: "the wakee (p.se.weight, p.se.avg.loadAvg)",
      sd: "the SD_WAKE_AFFINE domain of thisCpu that spans prevCpu (affine_sd); sd.imbalancePct, sd.wakeIdx",
      thisCpu: "the waking CPU",
      prevCpu: "task_cpu(p)",
      sync: "WF_SYNC: the waker is about to sleep",
    },
    returns:
      "thisCpu (pull the wakee to the waker's CPU) or prevCpu; the result becomes select_idle_sibling's target",
    defaultDoes:
      "2.6.29: load-weight balance test (cpu_load[wake_idx] biased); a sync wakeup takes the waker's weight off this_cpu and is affine when balanced, else affine when balanced or this_cpu is lightly loaded. 3.19/4.8: the same test on runnable_load_avg loads and capacities, the wakee and the sync waker weighed by PELT load_avg (3.19: load.weight), affine when this_eff_load <= prev_eff_load (imbalance_pct/2 margin). 5.x: WA_IDLE first (an idle this_cpu sharing the cache with prev wins unless prev is idle too; a sync wakeup from a CPU running only the waker wins; 5.19+: an idle prev wins), then WA_WEIGHT (this_cpu if its cfs load_avg with the wakee, less the waker's for sync, is below prev's without it, with the imbalance_pct/2 bias of WA_BIAS), else prevCpu.",
    example: {
      what: "sync wakeups are always affine",
      code: `import { patch } from "schedlab";

const myPatch = patch("sync-always-affine").replace("fair.wake_affine", (ctx, base) =>
  ctx.sync ? ctx.thisCpu : base(ctx));`,
    },
  },

  "fair.select_idle_sibling": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "wake_idle(cpu, p)",
        file: "kernel/sched_fair.c",
        model: "wakeIdle2629",
        modelFile: `${WAKE}/v2629.ts`,
      },
      {
        eras: ["3.19", "4.8"],
        kernel: "select_idle_sibling(p, target) (prev is task_cpu(p))",
        file: "kernel/sched/fair.c",
        model: "selectIdleSibling48",
        modelFile: `${WAKE}/v48.ts`,
      },
      {
        eras: ["5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel:
          "select_idle_sibling(p, prev, target): select_idle_core, select_idle_cpu, select_idle_smt",
        file: "kernel/sched/fair.c",
        model: "selectIdleSibling5x",
        modelFile: `${WAKE}/v5x.ts`,
      },
    ],
    context: {
      k: K,
      p: "the wakee (p.cpusAllowed[cpu] is 1 where it may run)",
      prev: "task_cpu(p): where it last ran",
      target: "the CPU wake_affine chose (the waking CPU or prev)",
      thisCpu: "the waking CPU (smp_processor_id()); its rq avg_idle and sd_llc bound the 5.x scan",
    },
    returns: "the CPU to wake on: an idle CPU near target, else target",
    defaultDoes:
      "2.6.29 wake_idle: target if idle or running more than one fair task, else the first idle allowed CPU of each SD_WAKE_IDLE domain going up (no x86 domain sets it, so target). 3.19/4.8: target if idle; prev if it shares the LLC with target and is idle; else a group of target's sd_llc (and children) whose CPUs are all idle, else target. 5.x: target, prev, then p's recent_used_cpu if idle and cache-affine; then within sd_llc of target: an idle core (has_idle_cores), an idle CPU (scan bounded by avg_idle / SIS_PROP in 5.6, by wake_avg_idle / SIS_PROP in 5.19, by nr_idle_scan / SIS_UTIL in 6.6+), an idle SMT sibling; else target. The scans cost modelled cache-line reads.",
    example: {
      what: "an idle prev is taken even when it is in another LLC",
      code: `import { patch } from "schedlab";

const myPatch = patch("idle-prev-anywhere").replace("fair.select_idle_sibling", (ctx, base) =>
  ctx.prev !== ctx.target && ctx.p.cpusAllowed[ctx.prev] && ctx.k.rqs[ctx.prev].isIdle()
    ? ctx.prev
    : base(ctx));`,
    },
  },

  "fair.find_idlest_group": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "find_idlest_group(sd, p, this_cpu), from sched_balance_self",
        file: "kernel/sched.c",
        model: "findIdlestGroup2629",
        modelFile: `${WAKE}/find_idlest.ts`,
      },
      {
        eras: ["3.19", "4.8"],
        kernel: "find_idlest_group(sd, p, this_cpu, sd_flag)",
        file: "kernel/sched/fair.c",
        model: "findIdlestGroup48",
        modelFile: `${WAKE}/find_idlest.ts`,
      },
      {
        eras: ["5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel:
          "find_idlest_group(sd, p, this_cpu) (v5.5 rewrite: group types, update_sg_wakeup_stats)",
        file: "kernel/sched/fair.c",
        model: "findIdlestGroup5x",
        modelFile: `${WAKE}/find_idlest.ts`,
      },
    ],
    context: {
      k: K,
      p: "the task being placed",
      sd: "the domain being searched (one with sdFlag set), from the top down",
      thisCpu: "the CPU the search is at (starts at the forking / waking CPU)",
      sdFlag: "SD_BALANCE_FORK, SD_BALANCE_EXEC or SD_BALANCE_WAKE",
      groupStats:
        "() => per group p may run on: the struct sg_lb_stats of update_sg_wakeup_stats (idleCpus, sumNrRunning, sumHNrRunning, groupLoad, groupUtil, groupRunnable, groupCapacity, groupWeight, groupType, avgLoad; p's own contribution taken out) and whether it is local; computed at the first call, given in every era",
    },
    returns: "the group to push p to, or null to stay in the local group and go down a level",
    defaultDoes:
      "2.6.29, 3.19, 4.8: the group with the least average load (source/target load at sd's forkexec or wake index, per capacity); null if the local group is within imbalance_pct of it. 5.x: classify each group (has_spare, fully_busy, overloaded, ...) by its CPUs' util, runnable and nr_running with p's contribution taken off; pick the idlest by type, then load or idle CPUs; null when the local group is as good; across SD_NUMA with spare capacity, null while the local node has an idle CPU (5.6) or while the imbalance is within imb_numa_nr (adjust_numa_imbalance, 5.18+).",
    example: {
      what: "across NUMA nodes a fork stays local while its node has an idle CPU (5.6's rule), from the group statistics",
      code: `import { patch, SD_BALANCE_FORK, SD_NUMA } from "schedlab";

const myPatch = patch("fork-node-local").replace("fair.find_idlest_group", (ctx, base) => {
  if (ctx.sdFlag !== SD_BALANCE_FORK || (ctx.sd.flags & SD_NUMA) === 0) return base(ctx);
  const local = ctx.groupStats().find((g) => g.local);
  return local && local.idleCpus > 0 ? null : base(ctx);
});`,
    },
  },
} as const satisfies Partial<Record<HookName, HookDoc>>;

const RT = "src/kernel/rt/select.ts";

const RT_TOPOLOGY_DOCS = {
  "rt.select_task_rq": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "select_task_rq_rt(p, sync)",
        file: "kernel/sched_rt.c",
        model: "selectTaskRqRtDefault",
        modelFile: RT,
      },
      {
        eras: ["3.19", "4.8", "5.6", "5.10"],
        kernel: "select_task_rq_rt(p, cpu, sd_flag, flags)",
        file: "kernel/sched/rt.c",
        model: "selectTaskRqRtDefault",
        modelFile: RT,
      },
      {
        eras: ["5.19", "6.6", "6.19"],
        kernel: "select_task_rq_rt(p, cpu, flags)",
        file: "kernel/sched/rt.c",
        model: "selectTaskRqRtDefault",
        modelFile: RT,
      },
    ],
    context: {
      k: K,
      p: "the waking or forked RT task",
      prevCpu: "task_cpu(p)",
      wakerCpu: "the waking CPU; -1 outside any CPU context",
      wakeFlags: "WF_TTWU or WF_FORK (other placements keep prevCpu)",
    },
    returns: "the CPU to place p on",
    defaultDoes:
      "Only wakeups and forks move. If prevCpu runs an RT task (unlocked read of curr) that is pinned or for which rt.wakeup_push_cond holds, ask rt.find_lowest_rq; use its CPU if rt.target_feasible agrees, else prevCpu. The model applies the 3.x curr test in every era; 2.6.29's select_task_rq_rt moved p whenever curr was an RT task.",
    example: {
      what: "an RT wakee stays on prev_cpu while prev_cpu is idle",
      code: `import { patch } from "schedlab";

const myPatch = patch("rt-stay-if-idle").replace("rt.select_task_rq", (ctx, base) =>
  ctx.k.rqs[ctx.prevCpu].curr === null ? ctx.prevCpu : base(ctx));`,
    },
  },

  "rt.wakeup_push_cond": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "- (select_task_rq_rt moves p whenever rq->curr is an RT task)",
        file: "kernel/sched_rt.c",
        model: "wakeupPushCondDefault",
        modelFile: RT,
      },
      {
        eras: ["3.19", "4.8", "5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel: "curr->prio <= p->prio in select_task_rq_rt and task_woken_rt",
        file: "kernel/sched/rt.c",
        model: "wakeupPushCondDefault",
        modelFile: RT,
      },
    ],
    context: {
      k: K,
      rq: "the rq p wakes on (select_task_rq_rt: task_cpu(p); task_woken_rt: the rq it was queued on)",
      curr: "that rq's running RT task",
      p: "the waking task (p.prio: 0..99 RT, lower is more important)",
      site: '"select_task_rq" or "task_woken": which kernel function asks',
    },
    returns: "true: look for another CPU (select_task_rq) or push (task_woken)",
    defaultDoes:
      "curr.prio <= p.prio: curr is at least as important as the wakee (a pinned curr moves the wakee without asking).",
    example: {
      what: "seed 004 (Tim Chen, 2015): move only when curr is strictly more important",
      code: `import { patch } from "schedlab";

const myPatch = patch("rt-push-strict").replace("rt.wakeup_push_cond", (ctx) =>
  ctx.curr.prio < ctx.p.prio);`,
    },
  },

  "rt.target_feasible": {
    eras: [
      {
        eras: ["2.6.29", "3.19"],
        kernel: "- (find_lowest_rq's CPU is used as it is)",
        file: "kernel/sched_rt.c; kernel/sched/rt.c",
        model: "-",
        modelFile: RT,
      },
      {
        eras: ["4.8", "5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel:
          "p->prio < cpu_rq(target)->rt.highest_prio.curr in select_task_rq_rt; the same in find_lock_lowest_rq",
        file: "kernel/sched/rt.c",
        model: "targetFeasible40",
        modelFile: RT,
      },
    ],
    context: {
      k: K,
      p: "the task to place or push",
      target: "the CPU rt.find_lowest_rq returned",
      site: '"select_task_rq" or "find_lock_lowest_rq"',
    },
    returns:
      "true: use (or lock) target; false: keep prev_cpu (select_task_rq) or give up this push attempt",
    defaultDoes:
      "Before v4.0: always true. v4.0+: p.prio below the target rq's rt.highestPrio (highest_prio.curr) as this CPU reads it, unlocked: p outranks the best RT task queued there.",
    example: {
      what: "also accept a target whose best RT task is as important as p",
      code: `import { patch } from "schedlab";

const myPatch = patch("rt-feasible-equal").replace("rt.target_feasible", (ctx) =>
  ctx.p.prio <= ctx.k.rqs[ctx.target].rt.highestPrio);`,
    },
  },

  "rt.find_lowest_rq": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "find_lowest_rq(task)",
        file: "kernel/sched_rt.c",
        model: "findLowestRqDefault",
        modelFile: RT,
      },
      {
        eras: ["3.19", "4.8", "5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel: "find_lowest_rq(task)",
        file: "kernel/sched/rt.c",
        model: "findLowestRqDefault",
        modelFile: RT,
      },
    ],
    context: {
      k: K,
      task: "the RT task to place or push",
      taskCpu: "task_cpu(task) (for a fork: the parent's CPU)",
      thisCpu: "smp_processor_id(); -1 outside any CPU context",
    },
    returns: "a CPU running less important work that task may preempt, or -1 for none",
    defaultDoes:
      "-1 if task is pinned or cpupri finds no lower priority level (k.rt.rd); else taskCpu if it is in the lowest mask (cache hot); else walking taskCpu's SD_WAKE_AFFINE domains: thisCpu if the domain holds it, else the first CPU of the mask in the domain (5.19+: the next one, cpumask_any_and_distribute); else thisCpu, else any CPU of the mask.",
    example: {
      what: "prefer any idle allowed CPU",
      code: `import { patch } from "schedlab";

const myPatch = patch("rt-prefer-idle").replace("rt.find_lowest_rq", (ctx, base) => {
  const idle = ctx.k.rqs.find((rq) => rq.online && rq.curr === null && ctx.task.cpusAllowed[rq.cpu]);
  return idle ? idle.cpu : base(ctx);
});`,
    },
  },

  "topology.group_capacity": {
    eras: [
      {
        eras: ["2.6.29"],
        kernel: "init_sched_groups_power(cpu, sd)",
        file: "kernel/sched.c",
        model: "groupPower2629",
        modelFile: "src/kernel/topology/topology.ts",
      },
      {
        eras: ["3.19", "4.8"],
        kernel: "init_sched_groups_capacity(cpu, sd); update_group_capacity(sd, cpu)",
        file: "kernel/sched/core.c; kernel/sched/fair.c",
        model: "groupCapacitySum",
        modelFile: "src/kernel/topology/topology.ts",
      },
      {
        eras: ["5.6", "5.10", "5.19", "6.6", "6.19"],
        kernel: "init_sched_groups_capacity(cpu, sd); update_group_capacity(sd, cpu)",
        file: "kernel/sched/topology.c; kernel/sched/fair.c",
        model: "groupCapacitySum",
        modelFile: "src/kernel/topology/topology.ts",
      },
    ],
    context: {
      era: "the kernel era the domains are built for",
      sd: "the group's balance CPU's domain at this level (sd.child: the level below, before degeneration; sd.flags)",
      group: "the sched group (group.cpus, group.weight)",
      childGroupCapacities: "capacities of sd.child's groups; null at the bottom level",
      cpuCapacity:
        "cpuCapacity(cpu): one CPU's own capacity in this era (3.19/4.8 SMT threads: smt_gain / siblings)",
    },
    returns:
      "the group's capacity (__cpu_power in 2.6.29, sgc->capacity later), 1024 = one full CPU",
    defaultDoes:
      "2.6.29: a flat 1024 at the bottom level and wherever the child domain shares CPU power (SMT) or package resources (MC) without power-savings balancing; otherwise the sum of the child's groups. 3.19+: the sum of the group's CPU capacities at the bottom level or over a NUMA child, else the sum of the child's groups.",
    example: {
      what: "seed 002 (Miao Xie, 2009): every level above the bottom sums its children",
      code: `import { patch } from "schedlab";

const myPatch = patch("group-power-sum").replace("topology.group_capacity", (ctx, base) =>
  ctx.childGroupCapacities ? ctx.childGroupCapacities.reduce((a, b) => a + b, 0) : base(ctx));`,
    },
  },
} as const satisfies Partial<Record<HookName, HookDoc>>;

/** One record per hook (a hook without one fails to compile). */
export const HOOK_DOCS: { readonly [N in HookName]: HookDoc } = {
  ...CORE_WAKE_DOCS,
  ...LB_HOOK_DOCS,
  ...RT_TOPOLOGY_DOCS,
};

/** The record of a hook, or undefined for an unknown name. */
export function hookDoc(name: string): HookDoc | undefined {
  return (HOOK_DOCS as Record<string, HookDoc>)[name];
}
