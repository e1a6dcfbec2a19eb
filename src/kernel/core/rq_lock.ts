// The runqueue lock (raw_spin_rq_lock / raw_spin_rq_unlock / raw_spin_rq_trylock, kernel/sched/core.c
// and sched.h): who holds each rq's lock and until when, what a CPU that finds it held spins for,
// and what the handoff to it costs with the era's spinlock (spinlock.ts).
import type { SchedCore } from "./api";
import type { Rq } from "../sched";
import { bump, type RqLockPath, rqLockStat } from "../counters";
import { ERA_TRAITS } from "../features";
import { handoffNs } from "./spinlock";

/**
 * raw_spin_rq_lock(rq) from `fromCpu`. This context's clock is now + chargeNs (the kernel work
 * it has done so far in this event). If another CPU holds the lock past that time we spin until
 * it is free and then for the handoff (handoffNs): from the CPU that took the lock last, with
 * the CPUs still queued ahead of us when we arrive counted as waiting beside us. (Those queued
 * behind us are not known yet in event order; in a steady queue the count seen on arrival has the
 * same mean, and it gives a herd of N the same total handoff time, 1 + 2 + ... + N halves.) The
 * spin is charged as CPU time and counted as rqLock[path].waitNs. A CPU never waits for its own
 * earlier hold (that time is already on its own timeline). The hold lasts the acquisition,
 * extended by unlockRq to cover the work charged under the lock.
 */
export function lockRq(k: SchedCore, rq: Rq, fromCpu: number, path: RqLockPath): void {
  const c = k.machine.costs;
  const s = rqLockStat(k.counters, path);
  s.acquisitions++;
  let cost = c.rqLockLocalNs;
  if (fromCpu >= 0 && fromCpu !== rq.cpu) cost += k.cache.rqLockRemoteNs(fromCpu, rq.cpu);
  const t = k.now + k.chargeNs;
  const last = k.rqLockHolder[rq.cpu];
  if (rq.lockFreeAt > t && (fromCpu < 0 || last !== fromCpu)) {
    let wait = rq.lockFreeAt - t;
    if (fromCpu >= 0) {
      const locks = k.rqLocks;
      const waiting = locks.waitingAt(rq.cpu, t) + 1;
      const line = k.cache.cacheLineNs(last >= 0 ? last : rq.cpu, fromCpu);
      wait += handoffNs(locks.kind, line, waiting);
      locks.queue(rq.cpu, t + wait);
    }
    s.waitNs += wait;
    // The count of waits (not only their time), for seed 001's ledger; v5.8+ eras only.
    if (path === "ttwu_remote" && ERA_TRAITS[k.era].ttwuOnCpu)
      bump(k.counters.other, "ttwu_remote_lock_waits");
    cost += wait;
  }
  k.chargeNs += cost;
  k.rqLockHolder[rq.cpu] = fromCpu;
  if (k.now + k.chargeNs > rq.lockFreeAt) rq.lockFreeAt = k.now + k.chargeNs;
}

/** raw_spin_rq_unlock(rq): the hold ends at this context's clock (now + chargeNs). */
export function unlockRq(k: SchedCore, rq: Rq): void {
  if (k.now + k.chargeNs > rq.lockFreeAt) rq.lockFreeAt = k.now + k.chargeNs;
}

/** Whether `fromCpu` would find rq's lock held by another CPU at this context's clock (trylock fails). */
export function rqLockBusy(k: SchedCore, rq: Rq, fromCpu: number): boolean {
  return rq.lockFreeAt > k.now + k.chargeNs && (fromCpu < 0 || k.rqLockHolder[rq.cpu] !== fromCpu);
}
