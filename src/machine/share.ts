// How close two CPUs are: the nearest resource they share. The cost model indexes its
// per-level tables (cache-line latency, copy bandwidth, remote rq lock) with this.
import { SHARE_LEVELS, type Machine, type ShareLevel } from "./types";

const IDX: Record<ShareLevel, number> = Object.fromEntries(
  SHARE_LEVELS.map((l, i) => [l, i]),
) as Record<ShareLevel, number>;

function checkCpu(machine: Machine, cpu: number, name: string): void {
  if (!Number.isInteger(cpu) || cpu < 0 || cpu >= machine.cpus.length) {
    throw new Error(
      `shareLevel: ${name} must be a CPU id in 0..${machine.cpus.length - 1} (got ${cpu})`,
    );
  }
}

function levelIndex(machine: Machine, a: number, b: number): number {
  const x = machine.cpus[a];
  const y = machine.cpus[b];
  if (a === b) return IDX.same_cpu;
  if (x.core === y.core) return IDX.same_core;
  if (x.l2 === y.l2) return IDX.shared_l2;
  if (x.llc === y.llc) return IDX.shared_llc;
  if (x.package === y.package) return IDX.same_package;
  if (x.node === y.node) return IDX.same_node;
  return IDX.other_node;
}

/** The nearest sharing level of CPUs a and b (same_cpu ... other_node). */
export function shareLevel(machine: Machine, a: number, b: number): ShareLevel {
  checkCpu(machine, a, "a");
  checkCpu(machine, b, "b");
  return SHARE_LEVELS[levelIndex(machine, a, b)];
}

const matrices = new WeakMap<Machine, Uint8Array>();

/**
 * Precomputed share levels for hot paths: m[a*n+b] is an index into SHARE_LEVELS.
 * Cached per Machine object (machines are not mutated after build).
 */
export function shareMatrix(machine: Machine): Uint8Array {
  let m = matrices.get(machine);
  if (m) return m;
  const n = machine.cpus.length;
  m = new Uint8Array(n * n);
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) m[a * n + b] = levelIndex(machine, a, b);
  matrices.set(machine, m);
  return m;
}

/** cpus_share_cache(): same last-level cache instance. */
export function cpusShareCache(machine: Machine, a: number, b: number): boolean {
  checkCpu(machine, a, "a");
  checkCpu(machine, b, "b");
  return machine.cpus[a].llc === machine.cpus[b].llc;
}
