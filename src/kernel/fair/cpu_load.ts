// rq->cpu_load[] (2.6.x-4.x, removed in 5.x) and the load signals the balancer reads from it:
// update_cpu_load (2.6.29 kernel/sched.c), __update_cpu_load and update_*cpu_load* (3.19
// kernel/sched/proc.c), cpu_load_update* and decay_load_missed (4.8 fair.c), weighted_cpuload,
// source_load / target_load with the LB_BIAS feature.
import { ERA_TRAITS, type Era, type Features } from "../features";

export const CPU_LOAD_IDX_MAX = 5;

/** 2.6.29 set_load_weight: every RT task weighs prio_to_weight[0] * 2 (kernel/sched.c). */
export const RT_LOAD_WEIGHT_2629 = 88761 * 2;

/**
 * rq->load.weight of v2.6.29: the fair entities' weights plus every queued RT task's
 * (enqueue_task_rt calls inc_cpu_load with p->se.load.weight; kernel/sched_rt.c, v2.6.29).
 */
export function rqLoadWeight2629(rq: {
  cfs: { loadWeight: number };
  rt: { rtNrRunning: number };
}): number {
  return rq.cfs.loadWeight + rq.rt.rtNrRunning * RT_LOAD_WEIGHT_2629;
}

/** The per-rq state these functions update (struct rq fields). */
export interface CpuLoadState {
  /** rq->cpu_load[0..4]. */
  cpuLoad: number[];
  /** rq->last_load_update_tick (jiffies), NO_HZ_COMMON in 4.x. */
  lastLoadUpdateTick: number;
  nrLoadUpdates: number;
}

export function createCpuLoadState(): CpuLoadState {
  return { cpuLoad: [0, 0, 0, 0, 0], lastLoadUpdateTick: 0, nrLoadUpdates: 0 };
}

/**
 * 2.6.29 update_cpu_load: every tick, cpu_load[i] = (old*(2^i - 1) + new) / 2^i, rounding up
 * while the load increases so that a steady load is reached exactly ("stuck on 9" comment).
 * `thisLoad` is rq->load.weight.
 */
export function updateCpuLoad2629(st: CpuLoadState, thisLoad: number): void {
  st.nrLoadUpdates++;
  for (let i = 0, scale = 1; i < CPU_LOAD_IDX_MAX; i++, scale += scale) {
    const oldLoad = st.cpuLoad[i];
    let newLoad = thisLoad;
    if (newLoad > oldLoad) newLoad += scale - 1;
    st.cpuLoad[i] = Math.floor((oldLoad * (scale - 1) + newLoad) / scale);
  }
}

export const DEGRADE_SHIFT = 7;
/** Missed ticks after which cpu_load[idx] is considered fully decayed. */
export const degrade_zero_ticks: readonly number[] = [0, 8, 32, 64, 128];
/** (1 - 1/2^idx)^(2^j) on a 128 scale. */
export const degrade_factor: readonly (readonly number[])[] = [
  [0, 0, 0, 0, 0, 0, 0, 0],
  [64, 32, 8, 0, 0, 0, 0, 0],
  [96, 72, 40, 12, 1, 0, 0, 0],
  [112, 98, 75, 43, 15, 1, 0, 0],
  [120, 112, 98, 76, 45, 16, 2, 0],
];

/** decay_load_missed: load * (1 - 1/2^idx)^missed, by binary decomposition of `missed`. */
export function decayLoadMissed(load: number, missedUpdates: number, idx: number): number {
  if (!missedUpdates) return load;
  if (missedUpdates >= degrade_zero_ticks[idx]) return 0;
  if (idx === 1) return Math.floor(load / 2 ** missedUpdates);
  let j = 0;
  while (missedUpdates) {
    if (missedUpdates % 2) load = Math.floor((load * degrade_factor[idx][j]) / 2 ** DEGRADE_SHIFT);
    missedUpdates = Math.floor(missedUpdates / 2);
    j++;
  }
  return load;
}

/**
 * 4.8 cpu_load_update (NO_HZ_COMMON): cpu_load[0] takes the load directly; the others first
 * decay over the pending_updates - 1 ticks missed in tickless idle, keeping the tickless load
 * recorded in cpu_load[0] at nohz entry (NO_HZ_FULL term), then average in the new load.
 * `ticklessLoad` 0 drops that term (v3.19's __update_cpu_load, updateCpuLoad319).
 */
export function cpuLoadUpdate(
  st: CpuLoadState,
  thisLoad: number,
  pendingUpdates: number,
  ticklessLoad = st.cpuLoad[0],
): void {
  st.nrLoadUpdates++;
  st.cpuLoad[0] = thisLoad;
  for (let i = 1, scale = 2; i < CPU_LOAD_IDX_MAX; i++, scale += scale) {
    let oldLoad = decayLoadMissed(st.cpuLoad[i], pendingUpdates - 1, i);
    if (ticklessLoad) {
      oldLoad -= decayLoadMissed(ticklessLoad, pendingUpdates - 1, i);
      oldLoad += ticklessLoad;
    }
    let newLoad = thisLoad;
    if (newLoad > oldLoad) newLoad += scale - 1;
    st.cpuLoad[i] = Math.floor((oldLoad * (scale - 1) + newLoad) / scale);
  }
}

/**
 * __update_cpu_load of v3.19 (kernel/sched/proc.c): cpu_load[0] takes the load; every other index
 * decays over the pending_updates - 1 ticks missed in tickless idle, then averages in the new
 * load. No tickless_load term: v4.5 (59543275488d) added one for an active NOHZ_FULL CPU only
 * (v4.6.2: "tickless_load = active ? cpu_load[0] : 0"); v4.7's cpu_load_update_nohz_start
 * carries cpu_load[0] into every update (cpuLoadUpdate, as in v4.8).
 */
export function updateCpuLoad319(st: CpuLoadState, thisLoad: number, pendingUpdates: number): void {
  cpuLoadUpdate(st, thisLoad, pendingUpdates, 0);
}

/**
 * update_idle_cpu_load (v3.19, called from nohz_idle_balance): nothing when the CPU has load or
 * is up to date, else catch up the missed ticks with load 0.
 */
export function updateIdleCpuLoad319(st: CpuLoadState, load: number, currJiffies: number): void {
  if (load || currJiffies === st.lastLoadUpdateTick) return;
  const pending = currJiffies - st.lastLoadUpdateTick;
  st.lastLoadUpdateTick = currJiffies;
  updateCpuLoad319(st, load, pending);
}

/**
 * update_cpu_load_nohz (v3.19, from tick_nohz_restart_sched_tick at idle exit): catch up the
 * missed ticks with load 0 ("We were idle, this means load 0"), unless already updated this jiffy.
 */
export function updateCpuLoadNohz319(st: CpuLoadState, currJiffies: number): void {
  if (currJiffies === st.lastLoadUpdateTick) return;
  const pending = currJiffies - st.lastLoadUpdateTick;
  st.lastLoadUpdateTick = currJiffies;
  updateCpuLoad319(st, 0, pending);
}

/** update_cpu_load_active (v3.19, scheduler_tick): one update with the current load. */
export function updateCpuLoadActive319(st: CpuLoadState, load: number, jiffies: number): void {
  st.lastLoadUpdateTick = jiffies;
  updateCpuLoad319(st, load, 1);
}

/** cpu_load_update_nohz: catch up the ticks missed since last_load_update_tick. */
export function cpuLoadUpdateNohz(st: CpuLoadState, currJiffies: number, load: number): void {
  const pending = currJiffies - st.lastLoadUpdateTick;
  if (pending > 0) {
    st.lastLoadUpdateTick = currJiffies;
    cpuLoadUpdate(st, load, pending);
  }
}

/** cpu_load_update_periodic: the regular tick. */
export function cpuLoadUpdatePeriodic(st: CpuLoadState, load: number, jiffies: number): void {
  st.lastLoadUpdateTick = jiffies;
  cpuLoadUpdate(st, load, 1);
}

/** cpu_load_update_active: called from scheduler_tick with weighted_cpuload(rq). */
export function cpuLoadUpdateActive(
  st: CpuLoadState,
  load: number,
  jiffies: number,
  tickStopped: boolean,
): void {
  if (tickStopped) cpuLoadUpdateNohz(st, jiffies, load);
  else cpuLoadUpdatePeriodic(st, load, jiffies);
}

/** cpu_load_update_idle: nohz_idle_balance refreshes an idle CPU before balancing for it. */
export function cpuLoadUpdateIdle(st: CpuLoadState, weightedLoad: number, jiffies: number): void {
  if (weightedLoad) return;
  cpuLoadUpdateNohz(st, jiffies, 0);
}

/** cpu_load_update_nohz_start: remember the load at tick stop. */
export function cpuLoadUpdateNohzStart(st: CpuLoadState, weightedLoad: number): void {
  st.cpuLoad[0] = weightedLoad;
}

/** cpu_load_update_nohz_stop: account the tickless period at tick restart. */
export function cpuLoadUpdateNohzStop(
  st: CpuLoadState,
  weightedLoad: number,
  jiffies: number,
): void {
  if (jiffies === st.lastLoadUpdateTick) return;
  cpuLoadUpdateNohz(st, jiffies, weightedLoad);
}

/** The rq fields weighted_cpuload and source/target_load read. */
export interface CpuLoadView {
  /** rq->load.weight (1024 units): weighted_cpuload in 2.6.x. */
  loadWeight: number;
  /** cfs_rq->runnable_load_avg (PELT, 4.x-5.5): weighted_cpuload in 4.x. */
  runnableLoadAvg: number;
  /** rq->cpu_load[0..4]. */
  cpuLoad: readonly number[];
}

/** weighted_cpuload: rq->load.weight in 2.6.x, cfs.runnable_load_avg in 3.x/4.x. */
export function weightedCpuload(rq: CpuLoadView, era: Era): number {
  return ERA_TRAITS[era].family === "2.6" ? rq.loadWeight : rq.runnableLoadAvg;
}

/** source_load: a low guess for a migration source (min with cpu_load[type-1]). */
export function sourceLoad(
  rq: CpuLoadView,
  type: number,
  era: Era,
  features: Pick<Features, "LB_BIAS">,
): number {
  const total = weightedCpuload(rq, era);
  if (type === 0 || !features.LB_BIAS) return total;
  return Math.min(rq.cpuLoad[type - 1], total);
}

/** target_load: a high guess for a migration target (max with cpu_load[type-1]). */
export function targetLoad(
  rq: CpuLoadView,
  type: number,
  era: Era,
  features: Pick<Features, "LB_BIAS">,
): number {
  const total = weightedCpuload(rq, era);
  if (type === 0 || !features.LB_BIAS) return total;
  return Math.max(rq.cpuLoad[type - 1], total);
}
