// sched_balance_running: the one global flag that lets a single CPU at a time balance a domain
// with SD_SERIALIZE (the NUMA levels). v6.19 sched_balance_rq takes it with
// atomic_try_cmpxchg_acquire after should_we_balance (3324b2180c17) and, from 522fb20fbdbe
// ("sched/fair: Have SD_SERIALIZE affect newidle balancing"), for newly-idle passes too; a CPU
// that finds it held goes to out_balanced and does not retry. The model serialises newidle
// passes only (feature LB_SERIALIZE_NEWIDLE): periodic and idle passes do not take the flag in
// any era (docs/balancer-history.md). The flag is a cache line every attempt writes, so each
// attempt, and a release after another CPU's attempt, costs a line transfer from its last writer.
import type { SchedCore } from "../core/api";

/** The flag, held from a CPU's acquisition until the clock of its release. */
export class SchedBalanceRunning {
  /** ns: the clock at which the holder released it (the flag is free from then on). */
  private freeAt = 0;
  private lastWriter = -1;

  private touch(k: SchedCore, cpu: number): void {
    if (this.lastWriter >= 0 && this.lastWriter !== cpu)
      k.chargeNs += k.cache.cacheLineNs(this.lastWriter, cpu);
    this.lastWriter = cpu;
  }

  /** atomic_try_cmpxchg_acquire(&sched_balance_running, 0, 1) at this context's clock. */
  tryAcquire(k: SchedCore, cpu: number): boolean {
    this.touch(k, cpu);
    if (this.freeAt > k.now + k.chargeNs) return false;
    // Held while this step runs: no other CPU's step comes in between, and release() sets the end.
    this.freeAt = Number.POSITIVE_INFINITY;
    return true;
  }

  /** atomic_set_release(&sched_balance_running, 0): free from this context's clock on. */
  release(k: SchedCore, cpu: number): void {
    this.touch(k, cpu);
    this.freeAt = k.now + k.chargeNs;
  }

  /** Whether the flag is held at time `t` (ns). */
  heldAt(t: number): boolean {
    return this.freeAt > t;
  }
}
