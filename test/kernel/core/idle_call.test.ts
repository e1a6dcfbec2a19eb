// The idle loop's tick decision (kernel/sched/idle.c cpuidle_idle_call): from v4.17 (554c8aa8ecad)
// the menu governor's stop_tick decides whether an idle CPU keeps its tick. A CPU that goes idle
// for a short predicted time keeps it, is woken by it (paying its state's exit), balances from it
// and selects again; a long prediction stops the tick at once; v4.8 stops it at every idle entry;
// only CPUs whose tick is stopped are in nohz.idle_cpus_mask.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Era } from "../../../src/kernel/features";
import { menuStopTick, TICK_WAKEUP_SAMPLE_NS } from "../../../src/kernel/core/idle";
import { inNohzIdleMask } from "../../../src/kernel/fair/nohz_blocked";
import { getTypicalInterval, NO_TYPICAL_INTERVAL } from "../../../src/kernel/core/menu_typical";
import { primeThenSleep, STATES, twoCores } from "./idle_fixture";

/**
 * Two cores with STATES (HZ 1000: a 1 ms tick on an aligned grid). A task on cpu0 runs 0.5 ms,
 * then sets cpu0's predicted idle time to `predicted` (the running average, and menu's ring of
 * recent intervals: `ring` in us, by default all `predicted`) and sleeps 5 ms.
 */
function sleeper(era: Era, predicted: number, ring?: readonly number[]): Kernel {
  const k = twoCores(era, STATES);
  assert.equal(k.tickNs, 1_000_000);
  primeThenSleep(
    k,
    () => {
      k.rqs[0].avgIdleNs = predicted;
      k.rqs[0].idleIntervalsUs.set(ring ?? new Array(8).fill(predicted / 1000));
    },
    true,
  );
  return k;
}

test("5.19: a CPU idle for a short predicted time keeps its tick, runs it in idle, then stops it", () => {
  // A spread ring: no typical interval before or after the tick's sample (the average decides).
  const spread = [10, 100, 1000, 10000, 20, 200, 2000, 20000];
  assert.equal(getTypicalInterval("v4.6", spread), NO_TYPICAL_INTERVAL);
  const k = sleeper("5.19", 50_000, spread);
  const rq = k.rqs[0];
  k.runUntil(700_000); // idle since ~0.5 ms
  assert.equal(rq.curr, null);
  assert.equal(rq.tickRunning, true, "predicted 50 us < TICK_NSEC: tick_nohz_idle_retain_tick");
  assert.equal(rq.idleStateIdx, 1, "C1: the deepest state within 50 us");
  assert.equal(inNohzIdleMask(rq), false, "not in nohz.idle_cpus_mask with the tick running");
  assert.equal(inNohzIdleMask(k.rqs[1]), true, "cpu1 idles tickless since boot");
  assert.equal(k.counters.other.idle_tick_retained, 1);
  assert.equal(k.counters.other.idle_tick ?? 0, 0);
  // The tick at 1 ms wakes cpu0 out of C1 (2 us exit), runs scheduler_tick with no task, and
  // menu_update's tick-wakeup sample (45 ms) lengthens the prediction past the tick: stopped.
  k.runUntil(1_001_000);
  assert.equal(rq.tickRunning, true, "the handler waits for C1's exit latency");
  k.runUntil(1_500_000);
  assert.equal(k.counters.other.idle_tick, 1);
  assert.equal(rq.avgIdleNs, 50_000 + (TICK_WAKEUP_SAMPLE_NS - 50_000) / 8);
  assert.ok(rq.idleIntervalsUs.includes(45_000), "the tick's sample in menu's ring");
  assert.equal(getTypicalInterval("v4.6", rq.idleIntervalsUs), NO_TYPICAL_INTERVAL);
  assert.equal(rq.tickRunning, false, "reselected with a long prediction: tick stopped");
  assert.equal(rq.idleStateIdx, 3, "and the deepest state");
  assert.equal(inNohzIdleMask(rq), true, "nohz_balance_enter_idle with the stop");
  k.runUntil(5_000_000);
  assert.equal(k.counters.other.idle_tick, 1, "no tick after the stop");
  assert.equal(k.counters.other.idle_exit_C1, 1, "the tick's exit from C1 is counted");
});

test("5.19: a CPU idle for a long predicted time stops its tick at idle entry", () => {
  const k = sleeper("5.19", 10_000_000);
  const rq = k.rqs[0];
  k.runUntil(700_000);
  assert.equal(rq.curr, null);
  assert.equal(rq.tickRunning, false);
  assert.equal(rq.idleStateIdx, 3);
  assert.equal(inNohzIdleMask(rq), true);
  k.runUntil(5_000_000);
  assert.equal(k.counters.other.idle_tick ?? 0, 0);
  assert.equal(k.counters.other.idle_tick_retained ?? 0, 0);
});

test("4.8: the tick stops at idle entry whatever the prediction (tick_nohz_idle_enter)", () => {
  const k = sleeper("4.8", 50_000);
  const rq = k.rqs[0];
  k.runUntil(700_000);
  assert.equal(rq.curr, null);
  assert.equal(rq.tickRunning, false);
  assert.equal(rq.idleStateIdx, 1, "the same state choice");
  assert.equal(inNohzIdleMask(rq), true);
  k.runUntil(5_000_000);
  assert.equal(k.counters.other.idle_tick ?? 0, 0);
});

test("5.6 and 6.19 keep the tick for a short prediction too; the one-state default machine stops it", () => {
  for (const era of ["5.6", "6.6", "6.19"] as const) {
    const k = sleeper(era, 50_000);
    k.runUntil(700_000);
    assert.equal(k.rqs[0].tickRunning, true, era);
  }
  // menu_select: "drv->state_count <= 1" returns state 0 with stop_tick = !POLLING.
  const k = twoCores("5.19");
  assert.equal(k.machine.idleStates.length, 1);
  primeThenSleep(k, () => {
    k.rqs[0].avgIdleNs = 50_000;
  });
  k.runUntil(700_000);
  assert.equal(k.rqs[0].tickRunning, false);
});

test("menuStopTick: polling and short predictions keep the tick; a kept tick caps the state at the next tick", () => {
  const k = twoCores("5.19", STATES);
  const rq = k.rqs[0];
  rq.tickRunning = true;
  const tick = 1_000_000;
  const decide = (predicted: number, idx: number, deltaTick = tick) => {
    rq.avgIdleNs = predicted;
    rq.idleStateIdx = idx;
    return menuStopTick(STATES, rq, tick, deltaTick);
  };
  assert.equal(decide(1_000_000, 3), true, "predicted_ns == TICK_NSEC: stop");
  assert.equal(decide(999_999, 3), false, "predicted_ns < TICK_NSEC: keep");
  assert.equal(rq.idleStateIdx, 3);
  assert.equal(decide(5_000_000, 0), false, "POLL selected: keep");
  // C6 (400 us) with 300 us to the next tick: the deepest state within it, C3.
  assert.equal(decide(500_000, 3, 300_000), false);
  assert.equal(rq.idleStateIdx, 2);
  assert.equal(decide(500_000, 3, 1_000), false);
  assert.equal(rq.idleStateIdx, 0, "none within 1 us but POLL");
  // A deeper state beyond a prediction >= TICK_NSEC with the tick running: predicted_ns becomes
  // the selected state's target residency, so the tick is kept.
  assert.equal(decide(2_000_000, 2), false);
  // The tick already stopped: never restarted here (tick_nohz_tick_stopped()).
  rq.tickRunning = false;
  assert.equal(decide(50_000, 1), true);
  assert.equal(menuStopTick([], rq, tick, tick), true, "no cpuidle driver: stop");
  // An MWAIT state sets TIF_POLLING_NRFLAG (polling: true) but not CPUIDLE_FLAG_POLLING.
  rq.tickRunning = true;
  const mwait = STATES.map((s) => ({ ...s, polling: true }));
  rq.avgIdleNs = 5_000_000;
  rq.idleStateIdx = 3;
  assert.equal(menuStopTick(mwait, rq, tick, tick), true, "MWAIT C6 with a long prediction: stop");
});
