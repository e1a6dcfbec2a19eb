// The balancing flag: one global flag that lets a single CPU at a time balance a domain with
// SD_SERIALIZE (the NUMA levels). Since 2.6.19 (08c183f31bdb, the `balancing` spinlock; an atomic
// sched_balance_running from 2024) rebalance_domains takes it with a trylock before the due check,
// and a CPU that finds it held skips the level (goto out) without retrying or updating
// last_balance (feature LB_SERIALIZE). v6.19 takes it in sched_balance_rq after should_we_balance
// instead (3324b2180c17), and, from 522fb20fbdbe ("sched/fair: Have SD_SERIALIZE affect newidle
// balancing"), for newly-idle passes too (LB_SERIALIZE_NEWIDLE); a CPU that finds it held goes to
// out_balanced. The flag is a cache line every attempt writes, so each attempt, and a release
// after another CPU's attempt, costs a line transfer from its last writer.
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
