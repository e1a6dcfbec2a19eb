// Cache warmth and data-transfer costs. A task's working set is warm in the caches of the CPU it
// last ran on and cools as other tasks' working sets pass through those caches; running it
// elsewhere costs a refill at the bandwidth of wherever the data now sits. Messages passed
// between tasks cost a copy whose speed depends on where the producer left the bytes.
import type { Machine, ShareLevel } from "../machine/types";
import type { Task } from "./sched";
import { SHARE_LEVELS } from "../machine/types";
import { Contention } from "./contention";

export class CacheModel {
  private readonly n: number;
  // The costs per share level, indexed like SHARE_LEVELS: a copy or a lock between two CPUs
  // reads share[] and these arrays instead of looking a cost up by the level's name.
  private readonly lineNsByLevel: Float64Array;
  private readonly copyBytesPerNsByLevel: Float64Array;
  private readonly rqLockRemoteNsByLevel: Float64Array;
  /** Shared caches and memory bandwidth under load (task footprints). */
  readonly contention: Contention;
  /** share[a*n+b] = index into SHARE_LEVELS. */
  constructor(
    private readonly machine: Machine,
    private readonly share: Uint8Array,
  ) {
    this.n = machine.cpus.length;
    const c = machine.costs;
    this.lineNsByLevel = Float64Array.from(SHARE_LEVELS, (l) => c.cacheLineNs[l]);
    this.copyBytesPerNsByLevel = Float64Array.from(SHARE_LEVELS, (l) => c.copyBytesPerNs[l]);
    this.rqLockRemoteNsByLevel = Float64Array.from(SHARE_LEVELS, (l) => c.rqLockRemoteNs[l]);
    this.contention = new Contention(machine);
  }

  /** costs.cacheLineNs at the distance between CPUs a and b. */
  cacheLineNs(a: number, b: number): number {
    return this.lineNsByLevel[this.share[a * this.n + b]];
  }

  /** costs.rqLockRemoteNs at the distance between CPUs a and b. */
  rqLockRemoteNs(a: number, b: number): number {
    return this.rqLockRemoteNsByLevel[this.share[a * this.n + b]];
  }

  level(a: number, b: number): ShareLevel {
    return SHARE_LEVELS[this.share[a * this.n + b]];
  }

  levelIndex(a: number, b: number): number {
    return this.share[a * this.n + b];
  }

  /**
   * Time to bring a working set of `bytes` back into `cpu`'s caches. `fromCpu` is where it was
   * warm (-1 = nowhere: memory); `evictedFraction` is how much of it other tasks pushed out.
   */
  refillNs(bytes: number, fromCpu: number, cpu: number, evictedFraction: number): number {
    if (bytes <= 0) return 0;
    const c = this.machine.costs;
    if (fromCpu < 0) return bytes / c.memoryBytesPerNs;
    const i = this.share[fromCpu * this.n + cpu];
    const warm = bytes * (1 - Math.min(1, Math.max(0, evictedFraction)));
    const cold = bytes - warm;
    // Lines still in a cache at this distance come at that level's bandwidth; the rest from memory.
    const warmNs = SHARE_LEVELS[i] === "same_cpu" ? 0 : warm / this.copyBytesPerNsByLevel[i];
    return warmNs + cold / c.memoryBytesPerNs;
  }

  /**
   * What task `p` pays to run on `cpu` (chargeCacheRefill): its working set from where it was
   * warm, less what other tasks' working sets pushed out of that CPU's LLC since it left (the
   * rest from memory); and, back on the same CPU with a private refill rate, the private-cache
   * part (privateRefillNs). `rqs[c].cachePressure` counts the bytes switched in on CPU c.
   */
  resumeRefillNs(p: Task, cpu: number, rqs: readonly { cachePressure: number }[]): number {
    const from = p.lastRanCpu;
    const displaced = from >= 0 ? rqs[from].cachePressure - p.cachePressureAtLeave : 0;
    const ns = this.refillNs(
      p.workingSetBytes,
      from,
      cpu,
      displaced / this.machine.caches.llcBytes,
    );
    if (p.privateRefillBytesPerNs <= 0 || from !== cpu) return ns;
    return ns + this.privateRefillNs(p.workingSetBytes, displaced, p.privateRefillBytesPerNs);
  }

  /**
   * Time for a task back on the CPU it last ran on to re-read the lines of its `workingSet` that
   * `displacedBytes` of other tasks' working sets pushed out of the CPU's private caches (at most
   * one L2), from the LLC at `bytesPerNs` (its code's rate: dependent loads wait a load-to-use
   * latency per line), no faster than the LLC's streaming rate (copyBytesPerNs.shared_llc).
   * SMT siblings' use of a shared L2 is not modelled.
   */
  privateRefillNs(workingSet: number, displacedBytes: number, bytesPerNs: number): number {
    const lost = Math.min(workingSet, this.machine.caches.l2Bytes, Math.max(0, displacedBytes));
    if (lost <= 0 || bytesPerNs <= 0) return 0;
    return lost / Math.min(bytesPerNs, this.machine.costs.copyBytesPerNs.shared_llc);
  }

  /** Copy of `bytes` last written by `writerCpu`, read on `readerCpu`: first-line latency + bandwidth. */
  copyNs(bytes: number, writerCpu: number, readerCpu: number): number {
    const i = this.share[writerCpu * this.n + readerCpu];
    return this.lineNsByLevel[i] + bytes / this.copyBytesPerNsByLevel[i];
  }

  /** Bytes that fit in the cache a CPU evicts from (its LLC). */
  cacheBytes(): number {
    return this.machine.caches.llcBytes;
  }
}
