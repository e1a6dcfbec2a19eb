// The idle loop's entry into an idle state and the tick (kernel/sched/idle.c cpuidle_idle_call,
// kernel/time/tick-sched.c). Up to v4.16 tick_nohz_idle_enter stops the tick at every idle entry.
// From v4.17 (554c8aa8ecad "sched: idle: Select idle state before stopping the tick",
// ed98c3491998 "sched: idle: Do not stop the tick before cpuidle_idle_call()") the governor
// chooses the state first and says whether to stop the tick:
//
//     next_state = cpuidle_select(drv, dev, &stop_tick);
//     if (stop_tick || tick_nohz_tick_stopped())      (v4.17: "if (stop_tick)")
//             tick_nohz_idle_stop_tick();
//     else
//             tick_nohz_idle_retain_tick();
//
// and with no cpuidle driver (cpuidle_not_available) it stops the tick before default_idle_call
// (v4.17 to v6.19). A CPU idling with its tick is woken by every tick (idleTickFire): it leaves
// its state, runs scheduler_tick with no task, and the idle loop selects again, which may stop the
// tick then. nohz_balance_enter_idle runs only where the tick stops (tick_nohz_idle_stop_tick),
// so such a CPU is not in nohz.idle_cpus_mask (fair/nohz_blocked.ts inNohzIdleMask).
import { EV_TICK, EV_TICK_FIRE, type Rq } from "../sched";
import { bump } from "../counters";
import { ERA_TRAITS, eraAtLeastFn } from "../features";
import type { SchedCore } from "./api";
import { splitIdle } from "./cputime";
import {
  exitLatencyNs,
  menuStopTick,
  recordIdle,
  selectIdleState,
  TICK_WAKEUP_SAMPLE_NS,
} from "./idle";
import { menuPredictNs } from "./menu_typical";
import { stopTick } from "./tick";

const atLeast519 = eraAtLeastFn("5.19");

/** cpuidle_idle_call's selection and tick decision for an idle `rq` (its state and tick). */
export function cpuidleIdleCall(k: SchedCore, rq: Rq): void {
  const states = k.machine.idleStates;
  const traits = ERA_TRAITS[k.era];
  const predicted = menuPredictNs(traits, rq); // menu_select's prediction (menu_typical.ts)
  rq.idleStateIdx = selectIdleState(states, rq, predicted);
  rq.idleExitEndsAt = -1; // a new idle period: its exit has not started
  if (!traits.idleGovernorStopsTick || !rq.tickRunning) {
    stopTick(k, rq);
    return;
  }
  const deltaTick = rq.tickEventAt > k.now ? rq.tickEventAt - k.now : k.tickNs;
  if (menuStopTick(states, rq, k.tickNs, deltaTick, predicted)) stopTick(k, rq);
  else bump(k.counters.other, "idle_tick_retained");
}

/**
 * The tick of an idle CPU that kept it (EV_TICK with no current task): the tick timer re-arms on
 * its grid (tick_sched_timer forwards by one period), and the handler runs once the CPU has left
 * its idle state (its exit latency, as for a timer interrupt in events.ts EV_TIMER).
 */
export function idleTick(k: SchedCore, rq: Rq): void {
  rq.tickEventAt = k.now + k.tickNs;
  k.eq.push(rq.tickEventAt, EV_TICK, rq.cpu, 0);
  const lat = exitLatencyNs(k.machine.idleStates, rq, k.now);
  if (lat > 0) k.eq.push(k.now + lat, EV_TICK_FIRE, rq.cpu, 0);
  else idleTickFire(k, rq);
}

/**
 * The idle tick's handler: the governor records a wakeup by the tick (menu_reflect's
 * tick_nohz_idle_got_tick, then menu_update's long sample), scheduler_tick runs with no task
 * (trigger_load_balance: rebalance_domains as CPU_IDLE when due), and if the CPU stays idle the
 * idle loop selects again (cpuidleIdleCall), which may stop the tick now.
 */
export function idleTickFire(k: SchedCore, rq: Rq): void {
  k.thisCpu = rq.cpu;
  if (rq.curr === null && rq.idleStateIdx >= 0) {
    splitIdle(k, rq); // the idle time so far stays idle; the governor's next sample starts here
    recordIdle(rq, TICK_WAKEUP_SAMPLE_NS, atLeast519(k.era) ? k : null);
    rq.idleStateIdx = -1;
    bump(k.counters.other, "idle_tick");
  }
  k.schedulerTick(rq);
  k.finish(rq);
  if (rq.curr === null && rq.online && rq.idleStateIdx < 0) cpuidleIdleCall(k, rq);
}
