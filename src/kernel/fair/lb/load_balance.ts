// load_balance() and the era dispatch of the balancer's hookable decisions (fair.c).
// The functions decide; the core moves tasks (LoadBalanceResult.migrations) and queues the
// stopper (activeBalance). Domain balance state (nr_balance_failed, balance_interval,
// sgc->imbalance) is updated here, as load_balance() does in the kernel.
import { ERA_TRAITS } from "../../features";
import { defineHook } from "../../hooks";
import { SD_SERIALIZE, type SchedDomain } from "../../topology/sched_domain";
import {
  type CalculateImbalanceCtx,
  type FbgResult,
  type FindBusiestGroupCtx,
  type FindBusiestQueueCtx,
  type ImbalanceResult,
  LBF_ACTIVE_LB,
  LBF_ALL_PINNED,
  LBF_DST_PINNED,
  LBF_NEED_BREAK,
  LBF_SOME_PINNED,
  type LbDecision,
  type LbEnv,
  type LbHookSignatures,
  type LbMigration,
  type LbPassOutcome,
  type LbRq,
  type LbTask,
  type LoadBalanceResult,
  type NeedActiveBalanceCtx,
  SCHED_NR_MIGRATE_BREAK,
} from "./types";
import {
  family,
  getSdBalanceInterval,
  lbAccountPass,
  lbHook,
  lbCpusClear,
  lbNoteFailure,
  shouldWeBalance,
  taskAllowedOn,
} from "./common";
import { canMigrateTask, detachOneTask, detachSource, detachTasks, taskHot } from "./detach";
import { findBusiestGroup2629, findBusiestQueue2629, loadBalance2629 } from "./v2629";
import {
  calculateImbalance48Hook,
  findBusiestGroup48,
  findBusiestQueue48,
  idleImbalanceSlack,
  needActiveBalance48,
} from "./v48";
import {
  calculateImbalance56Hook,
  findBusiestGroup56,
  findBusiestQueue56,
  groupClassify56,
  needActiveBalance56,
  numaImbalance,
  voluntaryActiveBalance56,
} from "./v5x";

declare module "../../hooks" {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface HookTypes extends LbHookSignatures {}
}

/** find_busiest_group for env.era. */
export function findBusiestGroup(ctx: FindBusiestGroupCtx): FbgResult {
  switch (family(ctx.env)) {
    case "2.6":
      return findBusiestGroup2629(ctx);
    case "4.x":
      return findBusiestGroup48(ctx);
    case "5.x":
      return findBusiestGroup56(ctx);
  }
}

/** calculate_imbalance for the statistics' generation (2.6.29 computes it inside find_busiest_group). */
export function calculateImbalance(ctx: CalculateImbalanceCtx): ImbalanceResult {
  return ctx.family === "4.x" ? calculateImbalance48Hook(ctx) : calculateImbalance56Hook(ctx);
}

/** find_busiest_queue for env.era. */
export function findBusiestQueue(ctx: FindBusiestQueueCtx): LbRq | null {
  switch (family(ctx.env)) {
    case "2.6":
      return findBusiestQueue2629(ctx);
    case "4.x":
      return findBusiestQueue48(ctx);
    case "5.x":
      return findBusiestQueue56(ctx);
  }
}

/** need_active_balance for env.era (2.6.29: nr_balance_failed > cache_nice_tries + 2). */
export function needActiveBalance(ctx: NeedActiveBalanceCtx): boolean {
  switch (family(ctx.env)) {
    case "2.6":
      return ctx.env.sd.nrBalanceFailed > ctx.env.sd.cacheNiceTries + 2;
    case "4.x":
      return needActiveBalance48(ctx);
    case "5.x":
      return needActiveBalance56(ctx);
  }
}

/** The default of every balancer hook; each dispatches on the era in its context. */
export const LB_HOOK_DEFAULTS: { readonly [K in keyof LbHookSignatures]: LbHookSignatures[K] } = {
  "fair.find_busiest_group": findBusiestGroup,
  "fair.calculate_imbalance": calculateImbalance,
  "fair.find_busiest_queue": findBusiestQueue,
  "fair.can_migrate_task": canMigrateTask,
  "fair.task_hot": taskHot,
  "fair.need_active_balance": needActiveBalance,
  "fair.idle_imbalance_slack": idleImbalanceSlack,
  "fair.numa_imbalance": numaImbalance,
  "fair.group_classify": groupClassify56,
  "fair.get_sd_balance_interval": getSdBalanceInterval,
};

const HOOK_DESCRIPTIONS: { readonly [K in keyof LbHookSignatures]: string } = {
  "fair.find_busiest_group":
    "find_busiest_group: the busiest group of a domain and env->imbalance, or balanced",
  "fair.calculate_imbalance":
    "calculate_imbalance: how much (load, util, tasks) to move and as what migration type",
  "fair.find_busiest_queue":
    "find_busiest_queue: the runqueue to pull from within the busiest group",
  "fair.can_migrate_task": "can_migrate_task: affinity, running and cache-hot refusals",
  "fair.task_hot": "task_hot: buddy and migration_cost cache-hotness",
  "fair.need_active_balance": "need_active_balance: kick the stopper to push the running task",
  "fair.idle_imbalance_slack":
    "CPU_IDLE test: balanced if local->idle_cpus <= busiest->idle_cpus + slack (kernel: 1)",
  "fair.numa_imbalance":
    "allowed task imbalance between SD_NUMA groups with spare capacity (5.6 seed 003, 5.18 adjust_numa_imbalance)",
  "fair.group_classify": "group_classify (5.5+): group_type of a sched_group",
  "fair.get_sd_balance_interval":
    "get_sd_balance_interval: jiffies between periodic balances of a domain",
};

for (const name of Object.keys(LB_HOOK_DEFAULTS) as (keyof LbHookSignatures)[]) {
  defineHook(name, HOOK_DESCRIPTIONS[name], () => LB_HOOK_DEFAULTS[name] as never);
}

const subset = (cpus: Set<number>, mask: readonly number[]): boolean =>
  [...cpus].every((c) => mask.includes(c));

/**
 * load_balance(this_cpu, sd, idle): should_we_balance, find_busiest_group, find_busiest_queue,
 * detach_tasks (with the LBF_NEED_BREAK / LBF_DST_PINNED / LBF_ALL_PINNED loops), failure
 * accounting and the active-balance kick. Dispatches to the 2.6.29 version by era.
 */
export function loadBalance(env: LbEnv): LoadBalanceResult {
  if (ERA_TRAITS[env.era].family === "2.6") return loadBalance2629(env);
  const sd = env.sd;
  const sdParent = sd.parent;
  const thisCpu = env.dstCpu;
  const migrations: LbMigration[] = [];
  const findGroup = lbHook(env.hooks, "fair.find_busiest_group", findBusiestGroup);
  const findQueue = lbHook(env.hooks, "fair.find_busiest_queue", findBusiestQueue);
  const needActive = lbHook(env.hooks, "fair.need_active_balance", needActiveBalance);
  const is5x = ERA_TRAITS[env.era].family === "5.x";

  const finish = (
    decision: LbDecision,
    outcome: LbPassOutcome,
    ldMoved: number,
    cont: boolean,
    active: LoadBalanceResult["activeBalance"],
  ): LoadBalanceResult => {
    lbAccountPass(sd, outcome, env.idle, env.era, env.features);
    return {
      decision,
      outcome,
      migrations,
      activeBalance: active,
      continueBalancing: cont,
      ldMoved,
      flags: env.flags,
    };
  };
  const outBalanced = (
    decision: LbDecision,
    cont: boolean,
    allPinnedExit: boolean,
  ): LoadBalanceResult => {
    // Balanced despite affinity constraints: clear the parent's group imbalance (5.x: only if
    // other tasks could move). out_all_pinned keeps it for the parent level.
    if (!allPinnedExit && sdParent && !(is5x && env.flags & LBF_ALL_PINNED))
      sdParent.groups[0].imbalance = false;
    return finish(
      decision,
      { kind: "balanced", allPinned: (env.flags & LBF_ALL_PINNED) !== 0 },
      0,
      cont,
      null,
    );
  };

  let serialized = false;
  for (;;) {
    // redo
    if (!shouldWeBalance(env))
      return outBalanced({ balanced: true, reason: "should_we_balance" }, false, false);
    // v6.19: one CPU at a time balances an SD_SERIALIZE domain; redo keeps the flag.
    if (!serialized && env.serialize && env.sd.flags & SD_SERIALIZE) {
      if (!env.serialize())
        return outBalanced({ balanced: true, reason: "sched_balance_running" }, true, false);
      serialized = true;
    }
    const fbg = findGroup({ env });
    if (fbg.balanced) return outBalanced({ balanced: true, reason: fbg.reason }, true, false);
    env.imbalance = fbg.imbalance;
    env.migrationType = fbg.migrationType;
    const busiest = findQueue({ env, group: fbg.busiestGroup });
    if (!busiest) return outBalanced({ balanced: true, reason: "no_busiest_queue" }, true, false);
    const decision: LbDecision = {
      balanced: false,
      busiestGroup: fbg.busiestGroup,
      busiestCpu: busiest.cpu,
      imbalance: env.imbalance,
      migrationType: env.migrationType,
    };
    env.srcCpu = busiest.cpu;
    let ldMoved = 0;
    if (busiest.nrRunning > 1) {
      env.flags |= LBF_ALL_PINNED;
      env.loopMax = Math.min(env.tunables.sched_nr_migrate, busiest.nrRunning);
      const src = detachSource(busiest);
      for (;;) {
        // more_balance
        const detached = detachTasks(env, src);
        for (const task of detached)
          migrations.push({ task, srcCpu: busiest.cpu, dstCpu: env.dstCpu });
        ldMoved += detached.length;
        if (env.flags & LBF_NEED_BREAK) {
          env.flags &= ~LBF_NEED_BREAK;
          continue;
        }
        // Affine tasks that could not come here may go to another CPU of our group.
        if (env.flags & LBF_DST_PINNED && env.imbalance > 0) {
          lbCpusClear(env, env.dstCpu);
          env.dstCpu = env.newDstCpu;
          env.flags &= ~LBF_DST_PINNED;
          env.loop = 0;
          env.loopBreak = SCHED_NR_MIGRATE_BREAK;
          continue;
        }
        break;
      }
      // Failed to reach balance because of affinity: tell the parent level.
      if (sdParent && env.flags & LBF_SOME_PINNED && env.imbalance > 0)
        sdParent.groups[0].imbalance = true;
      if (env.flags & LBF_ALL_PINNED) {
        lbCpusClear(env, busiest.cpu);
        if (!subset(env.cpus, env.dstGrpmask)) {
          env.loop = 0;
          env.loopBreak = SCHED_NR_MIGRATE_BREAK;
          continue; // redo
        }
        return outBalanced({ balanced: true, reason: "all_pinned" }, true, true);
      }
    }
    if (ldMoved) return finish(decision, { kind: "moved" }, ldMoved, true, null);

    lbNoteFailure(sd, env.idle, env.era);
    const need = needActive({ env });
    let active: LoadBalanceResult["activeBalance"] = null;
    if (need) {
      // The stopper would move busiest's current task: it must be allowed here.
      if (busiest.curr && !taskAllowedOn(busiest.curr, thisCpu)) {
        env.flags |= LBF_ALL_PINNED;
        return finish(decision, { kind: "one_pinned" }, 0, true, null);
      }
      if (!busiest.activeBalance) active = { busiestCpu: busiest.cpu, pushCpu: thisCpu };
    }
    const voluntary = is5x && need && voluntaryActiveBalance56(env);
    return finish(
      decision,
      { kind: "failed", needActive: need, activeKicked: active !== null, voluntary },
      0,
      true,
      active,
    );
  }
}

/** for_each_domain(target_cpu, sd) until one spans busiest_cpu (with SD_LOAD_BALANCE). */
export function domainSpanning(
  domainsOfTarget: readonly SchedDomain[],
  busiestCpu: number,
): SchedDomain | null {
  for (const sd of domainsOfTarget) if (sd.span.includes(busiestCpu)) return sd;
  return null;
}

/**
 * active_load_balance_cpu_stop (4.x/5.x) / active_load_balance (2.6.29), run on the busiest
 * CPU by the stopper: if it still has more than one task, move the first task can_migrate_task
 * accepts (CPU_IDLE, LBF_DST_PINNED so no retargeting) to push_cpu; success resets the
 * domain's nr_balance_failed (4.x+). With only the stopper and one task left on the CPU,
 * nr_running counts both, so the running task (now preempted) is the one that moves.
 * `env` is built for sd = domainSpanning(push_cpu's domains, busiest), dst = push_cpu.
 */
export function activeLoadBalanceCpuStop(env: LbEnv, busiest: LbRq): LbMigration | null {
  if (busiest.nrRunning <= 1) return null;
  env.idle = "CPU_IDLE";
  // No dst_grpmask: DST_PINNED keeps can_migrate_task from retargeting (v5.13+: LBF_ACTIVE_LB).
  env.flags = env.features.LB_ACTIVE_LB ? LBF_DST_PINNED | LBF_ACTIVE_LB : LBF_DST_PINNED;
  env.srcCpu = busiest.cpu;
  let p: LbTask | null = null;
  if (ERA_TRAITS[env.era].family === "2.6") {
    const canMigrate = lbHook(env.hooks, "fair.can_migrate_task", canMigrateTask);
    for (const t of busiest.cfsTasks)
      if (canMigrate({ env, task: t })) {
        p = t;
        break;
      }
  } else {
    p = detachOneTask(env, busiest);
    if (p) env.sd.nrBalanceFailed = 0;
  }
  return p ? { task: p, srcCpu: busiest.cpu, dstCpu: env.dstCpu } : null;
}
