// kernel/sched/cpupri.c: each CPU is filed under the priority level of what it runs, so the RT
// push/wakeup paths find "a CPU running something less important than p" with a scan over at most
// ~100 levels instead of looking at every runqueue.
//
// Two numberings, selected by era:
//   "3.19" (2.6.25 .. 5.10): INVALID -1, IDLE 0, NORMAL 1, RT prio 99..0 -> 2..101 (101 - prio).
//     IDLE is defined but nothing has filed a CPU under it since 2.6.34 ("sched: Fix task
//     priority bug" dropped the idle-class cpupri_set): idle CPUs sit in NORMAL with CFS ones.
//   "6.19" (5.11+, "Remap CPUPRI_NORMAL to MAX_RT_PRIO-1"): INVALID -1, NORMAL 0 (idle or CFS;
//     rq prio MAX_RT_PRIO-1), RT prio 98..0 -> 1..99 (99 - prio), HIGHER 100 (rq prio MAX_RT_PRIO).
import type { Era } from "../features";
import { ERAS } from "../features";
import { MAX_RT_PRIO } from "../sched";

export const MAX_PRIO = 140;
export const CPUPRI_INVALID = -1;
/** 3.19 numbering */
export const CPUPRI_IDLE = 0;
export const CPUPRI_NORMAL = 1;
/** 6.19 numbering */
export const CPUPRI_NORMAL_619 = 0;
export const CPUPRI_HIGHER = 100;

export type CpupriNumbering = "3.19" | "6.19";

/** The remap landed in 5.11: eras from 5.19 on use the new numbering. */
export function cpupriNumbering(era: Era): CpupriNumbering {
  return ERAS.indexOf(era) >= ERAS.indexOf("5.19") ? "6.19" : "3.19";
}

/** CPUPRI_NR_PRIORITIES */
export function cpupriNrPriorities(n: CpupriNumbering): number {
  return n === "3.19" ? MAX_RT_PRIO + 2 : MAX_RT_PRIO + 1;
}

/** convert_prio: a task/rq priority (or CPUPRI_INVALID) to a cpupri level. */
export function convertPrio(n: CpupriNumbering, prio: number): number {
  if (prio === CPUPRI_INVALID) return CPUPRI_INVALID;
  if (n === "3.19") {
    if (prio === MAX_PRIO) return CPUPRI_IDLE;
    if (prio >= MAX_RT_PRIO) return CPUPRI_NORMAL;
    return MAX_RT_PRIO - prio + 1;
  }
  if (prio <= MAX_RT_PRIO - 2) return MAX_RT_PRIO - 1 - prio;
  if (prio === MAX_RT_PRIO - 1) return CPUPRI_NORMAL_619;
  if (prio === MAX_RT_PRIO) return CPUPRI_HIGHER;
  // A CFS prio never reaches cpupri in 6.x; file it with the CFS CPUs.
  return CPUPRI_NORMAL_619;
}

/**
 * The priority cpupri_set is given for a runqueue whose best queued RT prio is `highestPrio`
 * (MAX_RT_PRIO = none in our RtRq). 6.x keeps MAX_RT_PRIO-1 as "none" so it maps to NORMAL.
 */
export function rqCpupriPrio(n: CpupriNumbering, highestPrio: number): number {
  if (highestPrio < MAX_RT_PRIO) return highestPrio;
  return n === "3.19" ? MAX_RT_PRIO : MAX_RT_PRIO - 1;
}

/** What cpupri_find reads of a task. */
export interface CpupriTask {
  prio: number;
  cpusAllowed: Uint8Array;
}

/** struct cpupri: pri_to_cpu[level] = {count, mask}, cpu_to_pri[cpu]. */
export class CpuPri {
  readonly nrPriorities: number;
  readonly cpuToPri: Int32Array;
  readonly vecCount: Int32Array;
  readonly vecMask: Uint8Array[];

  constructor(
    readonly numbering: CpupriNumbering,
    readonly nrCpus: number,
  ) {
    this.nrPriorities = cpupriNrPriorities(numbering);
    this.cpuToPri = new Int32Array(nrCpus).fill(CPUPRI_INVALID);
    this.vecCount = new Int32Array(this.nrPriorities);
    this.vecMask = Array.from({ length: this.nrPriorities }, () => new Uint8Array(nrCpus));
  }

  /** cpupri_set(cp, cpu, newpri): refile `cpu` under the level of priority `prio`. */
  set(cpu: number, prio: number): void {
    const newpri = convertPrio(this.numbering, prio);
    if (newpri >= this.nrPriorities)
      throw new Error(`cpupri_set: prio ${prio} maps outside the ${this.nrPriorities} levels`);
    const oldpri = this.cpuToPri[cpu];
    if (newpri === oldpri) return;
    // Add to the new level before leaving the old one, so a concurrent find never misses it.
    if (newpri !== CPUPRI_INVALID) {
      this.vecMask[newpri][cpu] = 1;
      this.vecCount[newpri]++;
    }
    if (oldpri !== CPUPRI_INVALID) {
      this.vecCount[oldpri]--;
      this.vecMask[oldpri][cpu] = 0;
    }
    this.cpuToPri[cpu] = newpri;
  }

  /** The level `cpu` is filed under (CPUPRI_INVALID if none). */
  level(cpu: number): number {
    return this.cpuToPri[cpu];
  }

  /**
   * cpupri_find(cp, p, lowest_mask): scan levels from the lowest up to, but excluding, p's own,
   * and return true at the first one holding a CPU in p's affinity. `lowestMask` (if given) is
   * filled with that level's CPUs in p's affinity. `active` drops CPUs that are going away
   * (the cpu_active_mask filter; an offline CPU is normally INVALID already).
   */
  find(p: CpupriTask, lowestMask: Uint8Array | null, active?: (cpu: number) => boolean): boolean {
    const taskPri = convertPrio(this.numbering, p.prio);
    const n = this.nrCpus;
    for (let idx = 0; idx < taskPri; idx++) {
      if (this.vecCount[idx] === 0) continue;
      const mask = this.vecMask[idx];
      let any = false;
      for (let cpu = 0; cpu < n; cpu++) {
        const hit = mask[cpu] === 1 && p.cpusAllowed[cpu] === 1 && (!active || active(cpu));
        if (lowestMask) lowestMask[cpu] = hit ? 1 : 0;
        if (hit) {
          any = true;
          if (!lowestMask) break;
        }
      }
      if (any) return true;
    }
    return false;
  }
}
