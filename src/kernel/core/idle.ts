// The idle loop and a menu-like cpuidle governor: when a CPU goes idle it picks the deepest
// state whose target residency fits the predicted idle time, by the driver's table figures; a
// wakeup then pays that state's exit, unless the state polls (need_resched is noticed without an
// IPI). Where the table figure is a package state's worst case (intel_idle's C6 is PC6), the
// wakeup pays it only when the package state can be in force; otherwise the core state's own
// measured exit. Where a state gives its exit times as distributions (exitDraw), each exit is
// drawn from the CPU's own seeded stream: the core exit, plus a package wake when the package has
// to leave its package state first.
import type { ExitTimeDraw, IdleExitDraw, IdleState, Machine } from "../../machine/types";
import type { PackageWake, Rq } from "../sched";
import type { RandomSource, RandomStream } from "../../sim/random";
import { bump, type SchedCounters } from "../counters";
import { type Era, eraAtLeastFn } from "../features";
import { menuUpdateIntervals } from "./menu_typical";

const atLeast316 = eraAtLeastFn("3.16");
const atLeast58 = eraAtLeastFn("5.8");

/** Weight of the newest sample in the running prediction (update_avg-style 1/8). */
const PREDICT_SHIFT = 3;

/**
 * The deepest state whose target residency is within `predicted` (menu_select's prediction:
 * menu_typical.ts menuPredictNs; by default the running average alone).
 */
export function selectIdleState(
  states: readonly IdleState[],
  rq: Rq,
  predicted: number = rq.avgIdleNs,
): number {
  if (states.length === 0) return -1;
  let best = 0;
  for (let i = 1; i < states.length; i++) {
    if (states[i].targetResidencyNs <= predicted) best = i;
  }
  return best;
}

/**
 * CPUIDLE_FLAG_POLLING (v6.19: drivers/cpuidle/poll_state.c's "POLL" state, poll_idle, and the
 * powerpc snooze states, which no modelled machine has). The model's `polling` also marks the
 * MWAIT states, which set TIF_POLLING_NRFLAG (no IPI needed) but are physical states to menu.
 */
function cpuidleFlagPolling(s: IdleState): boolean {
  return s.polling && s.name === "POLL";
}

/**
 * menu_select's stop_tick output (drivers/cpuidle/governors/menu.c, v5.6 to v6.19), for the state
 * `rq.idleStateIdx` that selectIdleState chose from the prediction `predictedNs` (menuPredictNs:
 * the typical interval and the running average standing in for the next-timer term; the model
 * keeps no next timer event, so menu's next_timer_ns tests are left out). Returns whether
 * the governor lets the idle loop stop the tick. With the tick kept, a state whose target
 * residency exceeds `deltaTickNs` (the time to the next tick) is replaced by the deepest one
 * that fits, as menu_select does, and rq.idleStateIdx is updated.
 *
 * - A driver with one state: "*stop_tick = !(drv->states[0].flags & CPUIDLE_FLAG_POLLING)".
 * - A deeper state beyond the prediction with the tick running and predicted_ns >= TICK_NSEC:
 *   "predicted_ns = drv->states[idx].target_residency_ns" (retain the tick, shallow state).
 * - Keep the tick when "((drv->states[idx].flags & CPUIDLE_FLAG_POLLING) || predicted_ns <
 *   TICK_NSEC) && !tick_nohz_tick_stopped()".
 */
export function menuStopTick(
  states: readonly IdleState[],
  rq: Rq,
  tickNs: number,
  deltaTickNs: number,
  predictedNs: number = rq.avgIdleNs,
): boolean {
  if (states.length <= 1) return states.length === 0 || !cpuidleFlagPolling(states[0]);
  const tickStopped = !rq.tickRunning;
  let idx = rq.idleStateIdx;
  let predicted = predictedNs;
  if (idx + 1 < states.length && predicted >= tickNs && !tickStopped)
    predicted = states[idx].targetResidencyNs;
  if (!((cpuidleFlagPolling(states[idx]) || predicted < tickNs) && !tickStopped)) return true;
  if (idx > 0 && states[idx].targetResidencyNs > deltaTickNs) {
    for (idx = idx - 1; idx > 0; idx--) if (states[idx].targetResidencyNs <= deltaTickNs) break;
    rq.idleStateIdx = idx;
  }
  return false;
}

/**
 * menu_update's sample for a wakeup by the tick (tick_wakeup) when the next timer lay beyond the
 * tick: "measured_ns = 9 * MAX_INTERESTING / 10" with MAX_INTERESTING 50 ms (v4.17 in us, v5.6+
 * in ns). The model's timers all wake tasks, so a tick that finds its CPU still idle is taken to
 * have had no timer within the tick.
 */
export const TICK_WAKEUP_SAMPLE_NS = (9 * 50_000_000) / 10;

/**
 * Records an observed idle period into the governor's running average and its ring of recent
 * intervals (menu_typical.ts menuUpdateIntervals); with `exits` (eras 5.19+, so older
 * experiments' counters are unchanged) also counts the exit by state (idle_exit_<state>).
 */
export function recordIdle(
  rq: Rq,
  observedNs: number,
  exits: { counters: SchedCounters; machine: { idleStates: readonly IdleState[] } } | null = null,
): void {
  rq.avgIdleNs += (observedNs - rq.avgIdleNs) / (1 << PREDICT_SHIFT);
  menuUpdateIntervals(rq, observedNs);
  if (exits) countIdleExit(exits.counters, exits.machine.idleStates, rq);
}

/**
 * The exit an idle `rq` pays when woken, for a wakeup that reaches it at `at` (the flag write,
 * the IPI's arrival, the timer). The table figure (what the governor planned with) when the state
 * has no separate core figure, or when every CPU of its package scope is offline or idle in this
 * state or deeper (a package C-state request is the shallowest core request of its cores; a
 * Xeon's PC6 needs every CPU of every socket in CC6); otherwise the core-only exit. A state with
 * `exitDraw` draws its exits instead (drawnExitNs). A virtual CPU's halt (`haltPoll`) pays the
 * slower exit once it has been halted longer than the host polls for it.
 */
export function exitLatencyNs(states: readonly IdleState[], rq: Rq, at = 0): number {
  if (rq.curr !== null || rq.idleStateIdx < 0) return 0;
  const s = states[rq.idleStateIdx];
  if (s.haltPoll !== undefined && at - rq.idleSince > s.haltPoll.pollNs) return s.haltPoll.exitNs;
  if (s.exitDraw !== undefined) return drawnExitNs(s, s.exitDraw, rq, at);
  if (s.coreExitLatencyNs === undefined) return s.exitLatencyNs;
  const peers = s.packageScope === "system" ? rq.idleSystem : rq.idlePackage;
  return packageInState(peers, rq.idleStateIdx) ? s.exitLatencyNs : s.coreExitLatencyNs;
}

/** When an idle `rq` that a wakeup reaches at `at` is out of its state: at + exitLatencyNs. */
export function exitDoneAt(states: readonly IdleState[], rq: Rq, at: number): number {
  return at + exitLatencyNs(states, rq, at);
}

function packageInState(peers: readonly Rq[], idx: number): boolean {
  for (const r of peers) {
    if (r.online && (r.curr !== null || r.idleStateIdx < idx)) return false;
  }
  return true;
}

/**
 * The exit of a state with drawn exit times, for a wakeup reaching `rq` at `at`. A CPU leaves
 * its state once: a second wakeup while it is leaving waits for the rest of that exit. Otherwise
 * the core exit is drawn from the CPU's stream, and the package decides what comes before it.
 * The package is in its package state when every online CPU of the scope is idle in this state
 * or deeper and none is already leaving it (Intel Xeon E5-1600/2600/4600 datasheet, Vol. One,
 * "Package C-States": "A package C-state request is determined by the lowest numerical core
 * C-state amongst all cores"; Xeon E7 v2 datasheet, "Package C6 State": entered when at least one
 * core is in C6 and the others in C6 or lower power, with the platform's permission). Then this
 * wakeup wakes the package and pays a drawn package extra too; a wakeup that finds the package
 * already waking (another CPU's wakeup started it) waits for the rest of that wake; one that finds
 * any CPU of the scope awake pays the core exit only. The table figure caps the result: intel_idle
 * gives the package state's worst case (commits a138b56800f4, 64233338499126c5).
 */
function drawnExitNs(s: IdleState, d: IdleExitDraw, rq: Rq, at: number): number {
  if (rq.idleExitEndsAt > at) return rq.idleExitEndsAt - at;
  const rng = rq.idleExitRng;
  if (!rng) throw new Error(`cpu${rq.cpu}: idle state ${s.name} draws its exits but has no stream`);
  let lat = lognormal(rng, d.core);
  const wake = s.packageScope === "system" ? rq.idleSystemWake : rq.idlePackageWake;
  if (wake.readyAt > at) lat += wake.readyAt - at;
  else if (packageAsleep(s.packageScope === "system" ? rq.idleSystem : rq.idlePackage, rq, at)) {
    const extra = lognormal(rng, d.packageExtra);
    wake.readyAt = at + extra;
    lat += extra;
  }
  lat = Math.min(Math.round(lat), s.exitLatencyNs);
  rq.idleExitEndsAt = at + lat;
  return lat;
}

/** Every online CPU of the scope idle in `rq`'s state or deeper, none of them already leaving it. */
function packageAsleep(peers: readonly Rq[], rq: Rq, at: number): boolean {
  const idx = rq.idleStateIdx;
  for (const r of peers) {
    if (!r.online) continue;
    if (r.curr !== null || r.idleStateIdx < idx || r.idleExitEndsAt > at) return false;
  }
  return true;
}

/** A lognormal draw: median x exp(logSd x a standard normal). */
function lognormal(rng: RandomStream, t: ExitTimeDraw): number {
  return t.logSd === 0 ? t.medianNs : t.medianNs * Math.exp(rng.normal(0, t.logSd));
}

/**
 * Gives each rq its package's rqs and the machine's (the scopes of package C-states), the wake
 * state each scope shares, and, on machines whose states draw their exits, its own stream of
 * draws (`idle_exit/<cpu>`, so no other consumer's stream moves).
 */
export function attachIdleScopes(
  rqs: readonly Rq[],
  machine: Machine,
  random: RandomSource | null = null,
): void {
  const byPkg = new Map<number, Rq[]>();
  const wakes = new Map<number, PackageWake>();
  for (const rq of rqs) {
    const pkg = machine.cpus[rq.cpu].package;
    const list = byPkg.get(pkg) ?? [];
    list.push(rq);
    byPkg.set(pkg, list);
    if (!wakes.has(pkg)) wakes.set(pkg, { readyAt: -1 });
  }
  const system: PackageWake = { readyAt: -1 };
  const draws = random !== null && machine.idleStates.some((s) => s.exitDraw !== undefined);
  for (const rq of rqs) {
    const pkg = machine.cpus[rq.cpu].package;
    rq.idlePackage = byPkg.get(pkg)!;
    rq.idleSystem = rqs;
    rq.idlePackageWake = wakes.get(pkg)!;
    rq.idleSystemWake = system;
    rq.idleExitRng = draws ? random!.stream(`idle_exit/${rq.cpu}`) : null;
  }
}

export function isPolling(states: readonly IdleState[], rq: Rq): boolean {
  return rq.curr === null && rq.idleStateIdx >= 0 && states[rq.idleStateIdx].polling;
}

/**
 * Whether a notification reaches an idle `rq` without an IPI: its state polls (TIF_POLLING_NRFLAG)
 * and the sender's path tests for it. resched_task's tsk_is_polling (2.6.29 sched.c; later
 * set_nr_and_not_polling), ttwu_queue_remote's set_nr_if_polling (v3.16, e3baac47f0e8) and
 * send_call_function_single_ipi's (v5.8: every smp_call_function_single / irq_work_queue_on).
 */
export function wakesWithoutIpi(
  era: Era,
  states: readonly IdleState[],
  rq: Rq,
  kind: "resched" | "call_function_single" | "smp_call",
): boolean {
  if (!isPolling(states, rq)) return false;
  if (kind === "resched") return true;
  return kind === "call_function_single" ? atLeast316(era) : atLeast58(era);
}

/** counters.ipis keys of notifications a polling CPU took without an IPI (constants: no string built per notification). */
export const IPI_AVOIDED = {
  resched: "resched_avoided_polling",
  call_function_single: "call_function_single_avoided_polling",
} as const;

/** counters.other keys of idle exits per state name (constants: no string built per exit). */
const IDLE_EXIT_KEYS: Record<string, string> = {};
for (const n of ["POLL", "C1", "C1E", "C3", "C6", "HLT"]) IDLE_EXIT_KEYS[n] = `idle_exit_${n}`;

/** Counts an idle exit by the state left (counters.other idle_exit_<state>). */
export function countIdleExit(c: SchedCounters, states: readonly IdleState[], rq: Rq): void {
  if (rq.idleStateIdx >= 0)
    bump(c.other, IDLE_EXIT_KEYS[states[rq.idleStateIdx].name] ?? "idle_exit");
}
