// The periodic scheduler tick (kernel/sched/core.c scheduler_tick, with the per-CPU tick timer
// of kernel/time/tick-sched.c): started when a CPU leaves idle, stopped under NOHZ when it
// enters idle, each CPU on its own grid (aligned, or staggered by skew_tick).
import { EV_TICK, type Rq } from "../sched";
import type { SchedCore } from "./api";
import { lockRq, unlockRq } from "./rq_lock";

/**
 * Start rq's tick on its grid (a tick still pending from before a short idle simply fires).
 * tick_nohz_restart_sched_tick runs the scheduler's catch-up first (tickRestartHooks: v3.19
 * update_cpu_load_nohz, v4.8 cpu_load_update_nohz_stop; kernel/time/tick-sched.c).
 */
export function startTick(k: SchedCore, rq: Rq): void {
  if (rq.tickRunning) return;
  rq.tickRunning = true;
  for (const h of k.tickRestartHooks) h(rq);
  if (rq.tickEventAt > k.now) return;
  const off = tickOffset(k, rq.cpu);
  const next = (Math.floor((k.now - off) / k.tickNs) + 1) * k.tickNs + off;
  rq.tickEventAt = next;
  k.eq.push(next, EV_TICK, rq.cpu, 0);
}

/**
 * NOHZ idle: the tick stops while the CPU idles (a pending tick event is dropped when it fires).
 * The first stop runs tickStopHooks (v4.8 tick_nohz_stop_sched_tick: cpu_load_update_nohz_start).
 */
export function stopTick(k: SchedCore, rq: Rq): void {
  if (!rq.tickRunning) return;
  rq.tickRunning = false;
  for (const h of k.tickStopHooks) h(rq);
}

/** tick_setup_sched_timer's per-CPU offset: cpu x (TICK_NSEC / 2) / nr_possible_cpus with skew_tick. */
export function tickOffset(k: SchedCore, cpu: number): number {
  if (!k.tunables.skew_tick) return 0;
  return Math.floor(k.tickNs / 2 / k.rqs.length) * cpu;
}

/** scheduler_tick: task_tick under the rq lock, then trigger_load_balance (v2.6.29, v6.19). */
export function schedulerTick(k: SchedCore, rq: Rq): void {
  const curr = rq.curr;
  lockRq(k, rq, rq.cpu, "tick");
  if (curr) k.classFor(curr).taskTick(rq, curr);
  unlockRq(k, rq);
  for (const h of k.tickHooks) h(rq);
}
