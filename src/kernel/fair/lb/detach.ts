// Which tasks a balance pass may take: task_hot, can_migrate_task, detach_tasks and
// detach_one_task (4.x/5.x fair.c), balance_tasks/move_tasks (2.6.29 kernel/sched.c).
// Tasks are not moved here: the functions return the tasks to move, in order, and keep
// the source rq's nr_running and the cfs_tasks list order in a working copy.
import { eraAtLeastFn } from "../../features";
import {
  type CanMigrateTaskCtx,
  LBF_ACTIVE_LB,
  LBF_ALL_PINNED,
  LBF_DST_PINNED,
  LBF_NEED_BREAK,
  LBF_SOME_PINNED,
  type LbEnv,
  type LbRq,
  type LbTask,
  SCHED_NR_MIGRATE_BREAK,
  type TaskHotCtx,
} from "./types";
import { family, lbHook, taskAllowedOn } from "./common";
import { SD_SHARE_CPUCAPACITY } from "../../topology/sched_domain";

const atLeast510 = eraAtLeastFn("5.10");

/**
 * task_hot: never within an SMT domain (v5.10+), buddies are hot (CACHE_HOT_BUDDY; 4.x+ only when
 * the destination is busy), a task that ran less than sysctl_sched_migration_cost ago is hot
 * (-1: always, 0: never).
 */
export function taskHot(ctx: TaskHotCtx): boolean {
  const { env, task } = ctx;
  const fam = family(env);
  if (fam !== "2.6" && task.idlePolicy) return false;
  // "SMT siblings share cache": Josh Don, "sched/fair: Ignore cache hotness for SMT migration"
  // (ec73240b1627, v5.10), right after the idle-policy test.
  if (env.sd.flags & SD_SHARE_CPUCAPACITY && atLeast510(env.era)) return false;
  if (
    env.features.CACHE_HOT_BUDDY &&
    task.isBuddy &&
    (fam === "2.6" || env.rq(env.dstCpu).nrRunning > 0)
  )
    return true;
  const cost = env.tunables.sched_migration_cost_ns;
  if (cost === -1) return true;
  if (cost === 0) return false;
  return env.now - task.execStart < cost;
}

/**
 * can_migrate_task: refuse tasks not allowed on dst_cpu (4.x+: remember another CPU of the
 * local group for LBF_DST_PINNED), the running task, and cache-hot tasks until
 * sd->nr_balance_failed > sd->cache_nice_tries. LBF_ALL_PINNED is cleared by the first task
 * that may run on dst_cpu. No NUMA balancing: migrate_degrades_locality is always -1.
 */
export function canMigrateTask(ctx: CanMigrateTaskCtx): boolean {
  const { env, task } = ctx;
  const fam = family(env);
  if (!taskAllowedOn(task, env.dstCpu)) {
    if (fam === "2.6") return false;
    env.flags |= LBF_SOME_PINNED;
    if (env.idle === "CPU_NEWLY_IDLE" || env.flags & LBF_DST_PINNED) return false;
    for (const cpu of env.dstGrpmask) {
      if (env.cpus.has(cpu) && taskAllowedOn(task, cpu)) {
        env.flags |= LBF_DST_PINNED;
        env.newDstCpu = cpu;
        break;
      }
    }
    return false;
  }
  env.flags &= ~LBF_ALL_PINNED;
  if (task.running) return false;
  if (env.flags & LBF_ACTIVE_LB) return true; // v5.13+: active balance takes hot tasks too
  const hot = lbHook(env.hooks, "fair.task_hot", taskHot)({ env, task });
  return !hot || env.sd.nrBalanceFailed > env.sd.cacheNiceTries;
}

/** A working copy of rq->cfs_tasks, list head first, with the list operations detach uses. */
export class CfsTaskList {
  readonly tasks: LbTask[];
  constructor(tasks: readonly LbTask[]) {
    this.tasks = [...tasks];
  }
  get empty(): boolean {
    return this.tasks.length === 0;
  }
  /** list_first_entry (4.x walks from the head) or list_last_entry (5.x walks from the tail). */
  peek(fromTail: boolean): LbTask {
    return fromTail ? this.tasks[this.tasks.length - 1] : this.tasks[0];
  }
  remove(p: LbTask): void {
    this.tasks.splice(this.tasks.indexOf(p), 1);
  }
  /** The skip: 4.x list_move_tail, 5.x list_move (back to the head). */
  skip(p: LbTask, fromTail: boolean): void {
    this.remove(p);
    if (fromTail) this.tasks.unshift(p);
    else this.tasks.push(p);
  }
}

/** The source rq as detach sees it while it detaches: its nr_running drops with each task. */
export interface DetachSource {
  rq: LbRq;
  nrRunning: number;
  list: CfsTaskList;
}

export function detachSource(rq: LbRq): DetachSource {
  return { rq, nrRunning: rq.nrRunning, list: new CfsTaskList(rq.cfsTasks) };
}

const CAPACITY_MARGIN = 1280; // fits_capacity: cap * 1280 < max * 1024

/**
 * detach_tasks (4.x/5.x): walk cfs_tasks, at most loop_max tasks, breaking every
 * sched_nr_migrate_break (LBF_NEED_BREAK: the caller calls again); an idle destination never
 * takes the last task. 4.x moves load and skips tasks with load/2 > imbalance; 5.x moves
 * load (relaxed after cache_nice_tries failures; 5.10+ load >> nr_balance_failed), util,
 * a number of tasks, or the misfit task. Returns the detached tasks.
 */
export function detachTasks(env: LbEnv, src: DetachSource): LbTask[] {
  const detached: LbTask[] = [];
  if (env.imbalance <= 0) return detached;
  const fam = family(env);
  const fromTail = fam === "5.x";
  const canMigrate = lbHook(env.hooks, "fair.can_migrate_task", canMigrateTask);
  const list = src.list;
  while (!list.empty) {
    if (env.idle !== "CPU_NOT_IDLE" && src.nrRunning <= 1) break;
    const p = list.peek(fromTail);
    env.loop++;
    if (env.loop > env.loopMax) break;
    if (env.loop > env.loopBreak) {
      env.loopBreak += SCHED_NR_MIGRATE_BREAK;
      env.flags |= LBF_NEED_BREAK;
      break;
    }
    let take = canMigrate({ env, task: p });
    if (take) {
      if (fam === "4.x") {
        const load = p.loadAvg;
        if (Math.floor(load / 2) > env.imbalance) take = false;
        else env.imbalance -= load;
      } else {
        take = takeByMigrationType(env, src.rq, p);
      }
    }
    if (!take) {
      list.skip(p, fromTail);
      continue;
    }
    list.remove(p);
    src.nrRunning--;
    detached.push(p);
    if (env.preemptible && env.idle === "CPU_NEWLY_IDLE") break;
    if (env.imbalance <= 0) break;
  }
  return detached;
}

/** The switch (env->migration_type) of 5.x detach_tasks; false = goto next. */
function takeByMigrationType(env: LbEnv, src: LbRq, p: LbTask): boolean {
  const sd = env.sd;
  switch (env.migrationType) {
    case "migrate_load": {
      const load = p.loadAvg;
      if (env.features.LB_DETACH_FAILED_SHIFT) {
        // shr_bound(load, nr_balance_failed)
        if (Math.floor(load / 2 ** Math.min(sd.nrBalanceFailed, 63)) > env.imbalance) return false;
      } else if (Math.floor(load / 2) > env.imbalance && sd.nrBalanceFailed <= sd.cacheNiceTries) {
        return false;
      }
      env.imbalance -= load;
      return true;
    }
    case "migrate_util":
      if (p.utilAvg > env.imbalance) return false;
      env.imbalance -= p.utilAvg;
      return true;
    case "migrate_task":
      env.imbalance--;
      return true;
    case "migrate_misfit":
      if (p.utilAvg * CAPACITY_MARGIN < src.cpuCapacity * 1024) return false; // task fits src
      env.imbalance = 0;
      return true;
  }
}

/**
 * detach_one_task (active balance): the first task that can_migrate_task accepts, walking
 * from the head (4.x) or the tail (5.x).
 */
export function detachOneTask(env: LbEnv, src: LbRq): LbTask | null {
  const canMigrate = lbHook(env.hooks, "fair.can_migrate_task", canMigrateTask);
  const tasks = family(env) === "5.x" ? [...src.cfsTasks].reverse() : src.cfsTasks;
  for (const p of tasks) {
    if (canMigrate({ env, task: p })) return p;
  }
  return null;
}

/**
 * 2.6.29 balance_tasks over the fair class (move_tasks: the RT class moves nothing): walk
 * cfs_rq->tasks from the head, up to sysctl_sched_nr_migrate + 1 tasks, skipping tasks whose
 * weight/2 exceeds the remaining load (before can_migrate_task, so such skips keep
 * all_pinned set), pulling until the remaining load is used up. env.flags & LBF_ALL_PINNED
 * plays *all_pinned.
 */
export function balanceTasks2629(env: LbEnv, src: LbRq): LbTask[] {
  const pulled: LbTask[] = [];
  let rem = env.imbalance;
  if (rem <= 0) {
    // max_load_move == 0: nothing examined, *all_pinned = pinned = 0
    env.flags &= ~LBF_ALL_PINNED;
    return pulled;
  }
  env.flags |= LBF_ALL_PINNED; // pinned = 1 until a task may run on this_cpu
  const canMigrate = lbHook(env.hooks, "fair.can_migrate_task", canMigrateTask);
  let loops = 0;
  for (const p of src.cfsTasks) {
    if (loops++ > env.tunables.sched_nr_migrate) break;
    if (p.weight >> 1 > rem || !canMigrate({ env, task: p })) continue;
    pulled.push(p);
    rem -= p.weight;
    if (rem <= 0) break;
  }
  env.imbalance = rem;
  return pulled;
}
