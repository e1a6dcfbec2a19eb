// The event loop under the kernel model: the event kinds (EV_*, defined in sched.ts) and what
// each does when it fires, callbacks at a given time, sleep timers, and runUntil. Kept apart from
// core.ts so core.ts mirrors kernel/sched/core.c alone.
import type { Task } from "../sched";
import {
  EV_CALLBACK,
  EV_RESCHED_IPI,
  EV_RUN_DONE,
  EV_TICK,
  EV_TICK_FIRE,
  EV_TIMER,
  EV_TIMER_FIRE,
  EV_WAKE_ARRIVE,
} from "../sched";
import type { SchedCore } from "./api";
import { completeSegment, continueTask, stopSegment } from "./exec";
import { exitLatencyNs } from "./idle";
import { idleTick, idleTickFire } from "./idle_call";
import { schedTtwuPending, tryToWakeUp } from "./ttwu";

/** Runs fn at simulated time t (workload samplers, hotplug, IPIs, ...). */
export function at(k: SchedCore, t: number, fn: () => void): void {
  if (!(t >= k.now)) throw new Error(`at: time ${t} is in the past (now ${k.now})`);
  k.callbacks.push(fn);
  k.eq.push(t, EV_CALLBACK, k.callbacks.length - 1, 0);
}

/** Arms a sleep timer for p (an hrtimer; a newer one makes this one stale). */
export function armTimer(k: SchedCore, p: Task, expires: number): void {
  p.timerGen++;
  k.eq.push(expires, EV_TIMER, p.pid, p.timerGen);
}

/** Processes events up to and including time `until`, then stops the clock there. */
export function runUntil(k: SchedCore, until: number): void {
  const eq = k.eq;
  while (eq.popUntil(until)) {
    k.now = eq.popTime;
    k.events++;
    dispatch(k, eq.popKind, eq.popA, eq.popB);
  }
  k.now = until;
}

function dispatch(k: SchedCore, kind: number, a: number, b: number): void {
  switch (kind) {
    case EV_RUN_DONE: {
      const rq = k.rqs[a];
      if (b !== rq.runGen || !rq.curr) return stale(k);
      k.thisCpu = a;
      const p = rq.curr;
      stopSegment(k, rq, p);
      completeSegment(p);
      continueTask(k, rq, p);
      k.finish(rq);
      return;
    }
    case EV_TICK: {
      const rq = k.rqs[a];
      rq.tickEventAt = -1;
      if (!rq.tickRunning) return stale(k);
      if (rq.curr === null) return idleTick(k, rq); // a tick kept in idle (v4.17+, idle_call.ts)
      k.thisCpu = a;
      k.schedulerTick(rq);
      if (rq.tickRunning) {
        rq.tickEventAt = k.now + k.tickNs;
        k.eq.push(rq.tickEventAt, EV_TICK, a, 0);
      }
      k.finish(rq);
      return;
    }
    case EV_TICK_FIRE: {
      const rq = k.rqs[a];
      if (!rq.tickRunning) return stale(k);
      idleTickFire(k, rq);
      return;
    }
    case EV_RESCHED_IPI: {
      const rq = k.rqs[a];
      if (b === 1) {
        rq.reschedIpiPending = false;
        rq.ipisReceived++;
      }
      k.thisCpu = a;
      k.finish(rq);
      return;
    }
    case EV_WAKE_ARRIVE: {
      const rq = k.rqs[a];
      if (b === 1) rq.ipisReceived++;
      k.thisCpu = a;
      schedTtwuPending(k, rq);
      k.finish(rq);
      return;
    }
    case EV_TIMER: {
      const p = k.tasks[a - 1];
      if (b !== p.timerGen) return stale(k);
      // The timer interrupt on an idle CPU first has to bring the CPU out of its idle state.
      const lat = exitLatencyNs(k.machine.idleStates, k.rqs[timerCpu(k, p)], k.now);
      if (lat > 0) k.eq.push(k.now + lat, EV_TIMER_FIRE, a, b);
      else timerFire(k, p);
      return;
    }
    case EV_TIMER_FIRE: {
      const p = k.tasks[a - 1];
      if (b !== p.timerGen) return stale(k);
      timerFire(k, p);
      return;
    }
    case EV_CALLBACK: {
      const fn = k.callbacks[a];
      k.callbacks[a] = null;
      k.thisCpu = -1;
      if (fn) fn();
      // Work charged outside any CPU (setup, samplers) is nobody's CPU time.
      k.chargeNs = 0;
      return;
    }
  }
}

/** A cancelled event popped: it does not count as processed. */
function stale(k: SchedCore): void {
  k.events--;
}

/**
 * The CPU a sleeping task's hrtimer fires on: the one it slept on, or, if that CPU went offline
 * meanwhile, the first online CPU, where the dying CPU's timers were moved (kernel/time/hrtimer.c:
 * hrtimers_cpu_dying, cpumask_any_and(cpu_active_mask, ...), v6.2+; hrtimers_dead_cpu before).
 */
function timerCpu(k: SchedCore, p: Task): number {
  if (k.rqs[p.cpu].online) return p.cpu;
  for (const rq of k.rqs) if (rq.online) return rq.cpu;
  return p.cpu;
}

function timerFire(k: SchedCore, p: Task): void {
  const cpu = timerCpu(k, p);
  const rq = k.rqs[cpu];
  k.thisCpu = cpu;
  tryToWakeUp(k, p, 0, cpu, null);
  k.finish(rq);
}
