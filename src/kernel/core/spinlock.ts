// arch_spinlock_t as the rq locks use it: the queue of CPUs waiting for each lock, and what a
// contended handoff costs with a ticket lock or a queued spinlock (the kind is an arch and era
// fact: features.ts spinlockKind).
import { type Era, type SpinlockKind, spinlockKind } from "../features";
import type { Arch } from "../../machine/types";

/**
 * The queue behind each rq lock: the times at which the holds already granted but not yet
 * started begin (FIFO, as tickets and the MCS queue hand the lock on), so a new waiter can count
 * the CPUs still waiting ahead of it without a list of spinners.
 */
export class RqLocks {
  private readonly starts: number[][];
  private readonly head: Int32Array;

  constructor(
    n: number,
    /** The arch_spinlock_t of the machine's architecture in this era. */
    readonly kind: SpinlockKind,
  ) {
    this.starts = Array.from({ length: n }, () => []);
    this.head = new Int32Array(n);
  }

  /** How many granted holds of `cpu`'s lock have not started by time t (CPUs still spinning). */
  waitingAt(cpu: number, t: number): number {
    const q = this.starts[cpu];
    let h = this.head[cpu];
    while (h < q.length && q[h] <= t) h++;
    if (h === q.length) {
      q.length = 0;
      h = 0;
    }
    this.head[cpu] = h;
    return q.length - h;
  }

  /** A waiter's hold of `cpu`'s lock begins at `start`. */
  queue(cpu: number, start: number): void {
    this.starts[cpu].push(start);
  }
}

/**
 * The handoff of a contended lock: from the release to the moment the next holder owns it. The
 * lock word moves from the CPU that held it last to the waiter, one cache-line transfer
 * (`lineNs`). A queued lock's waiter spins on its own MCS node and the queue head alone re-reads
 * the lock word, so that is the whole handoff, however many wait. A ticket lock's waiters all
 * spin on the lock word: the release invalidates every copy, the waiters' re-reads are served one
 * after another, and the next ticket's read comes on average halfway through them, so a handoff
 * with `waiting` spinners (the next holder included) takes (waiting + 1) / 2 transfers. Choice:
 * the linear growth is the published one (Boyd-Wickizer, Kaashoek, Morris and Zeldovich,
 * "Non-scalable locks are dangerous", Linux Symposium 2012: a ticket lock's handoff time grows
 * with the number of waiting cores), the half-way position is ours.
 */
export function handoffNs(kind: SpinlockKind, lineNs: number, waiting: number): number {
  return kind === "queued" ? lineNs : (lineNs * (waiting + 1)) / 2;
}

/** The rq locks of a kernel of `era` on an `arch` machine with `n` CPUs. */
export function rqLocksFor(arch: Arch, era: Era, n: number): RqLocks {
  return new RqLocks(n, spinlockKind(arch, era));
}
