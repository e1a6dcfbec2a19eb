// What the waker pays for reading other CPUs' runqueues. select_task_rq_fair runs on the waking
// CPU and reads fields that the other CPUs keep writing (rq->curr and nr_running for idle_cpu(),
// cpu_load[], the cfs_rq's load averages); try_to_wake_up's migration then reads and writes the
// old CPU's cfs_rq (migrate_task_rq_fair). Each such line is a modified-line transfer from that
// CPU, at the machine's cacheLineNs for the distance, charged to the waker (k.chargeNs) when it
// reads it. A line read twice in one wakeup is charged once; the waker's own runqueue is in its
// own cache and free. The walks of select_idle_cpu / select_idle_core / the cluster pass charge a
// line per CPU they look at in their own loops (v5x.ts, cluster.ts, common.ts selectIdleCore).
import type { SchedCore } from "../../core/api";
import { type Era, ERA_TRAITS, eraAtLeast } from "../../features";
import { bump } from "../../counters";

/** The runqueue lines a wakeup reads, by what they hold. */
export const LINE = {
  /** rq->curr and rq->idle, nr_running, ttwu_pending (idle_cpu); 2.6.29's rq->clock beside curr. */
  IDLE: 0,
  /** The head of struct rq: nr_running and cpu_load[] ("in the same cacheline", sched.h), source_load. */
  LOAD: 1,
  /** The cfs_rq's load averages: cfs_rq->avg (load_avg, last_update_time; 4.x runnable_load_avg,
   *  3.19 decay_counter); 2.6.29's rq->load, the weight weighted_cpuload reads. */
  CFS_AVG: 2,
  /** The head of struct cfs_rq: nr_running, min_vruntime. */
  CFS_HEAD: 3,
  /** cfs_rq->removed (v4.15+, its own cache line with its lock), 4.x removed_*_avg, 3.19 removed_load. */
  REMOVED: 4,
} as const;

const KINDS = 5;

/** Per kernel: which lines the current wakeup has read, as a generation per (CPU, line). */
export class WakerLines {
  private readonly read: Uint32Array;
  private gen = 1;
  /** migrationLines of the kernel's era. */
  readonly migrate: readonly number[];

  constructor(private readonly k: SchedCore) {
    this.read = new Uint32Array(k.rqs.length * KINDS);
    this.migrate = migrationLines(k.era);
  }

  /** select_task_rq_fair starts a wakeup (or a fork's placement): nothing read yet. */
  begin(): void {
    if (++this.gen === 0xffffffff) {
      this.read.fill(0);
      this.gen = 1;
    }
  }

  /** The waker on `from` reads line `kind` of `cpu`'s runqueue: one transfer, charged to it. */
  charge(from: number, cpu: number, kind: number): void {
    if (from < 0 || from === cpu) return;
    const i = cpu * KINDS + kind;
    if (this.read[i] === this.gen) return;
    this.read[i] = this.gen;
    this.k.chargeNs += this.k.cache.cacheLineNs(from, cpu);
  }
}

const STATES = new WeakMap<SchedCore, WakerLines>();

/** The wakeup-line bookkeeping of a kernel, created on first use. */
export function wakerLines(k: SchedCore): WakerLines {
  let w = STATES.get(k);
  if (!w) {
    w = new WakerLines(k);
    STATES.set(k, w);
  }
  return w;
}

/**
 * The lines of the old CPU's runqueue that moving a waking task reads or writes, per era:
 * - 2.6.29 set_task_cpu (kernel/sched.c): old_rq->clock (beside rq->curr) and
 *   old_cfsrq->min_vruntime (p->se.vruntime -= old - new);
 * - 3.19 migrate_task_rq_fair: __synchronize_entity_decay reads cfs_rq->decay_counter, then
 *   atomic_long_add to cfs_rq->removed_load (its min_vruntime read is task_waking_fair's, on
 *   every wakeup: taskWakingLines);
 * - 4.8 to 6.5 migrate_task_rq_fair: cfs_rq->min_vruntime for a TASK_WAKING task (moved there
 *   from task_waking_fair by 2f950354e6d5 "sched/fair: Fix fairness issue on migration"), then
 *   remove_entity_load_avg: cfs_rq_last_update_time (cfs_rq->avg) and the removed sums (4.8:
 *   atomic_long_add to removed_load_avg / removed_util_avg; v4.15+: under cfs_rq->removed.lock);
 * - 6.6+: no min_vruntime renormalisation (EEVDF keeps the lag), remove_entity_load_avg only.
 */
export function migrationLines(era: Era): readonly number[] {
  const t = ERA_TRAITS[era];
  if (t.family === "2.6") return [LINE.IDLE, LINE.CFS_HEAD];
  if (t.pelt38) return [LINE.CFS_AVG, LINE.REMOVED];
  if (!eraAtLeast(era, "6.6")) return [LINE.CFS_HEAD, LINE.CFS_AVG, LINE.REMOVED];
  return [LINE.CFS_AVG, LINE.REMOVED];
}

/**
 * A waking fair task leaves `fromCpu` (set_task_cpu in try_to_wake_up, on the waker `k.thisCpu`):
 * the waker pays for the old runqueue's lines the era's migrate path touches (migrationLines). A
 * queued task moved by the balancer (`queued`) is not a wakeup: its lines are the balancer's.
 */
export function chargeWakeMigration(k: SchedCore, fromCpu: number, queued: boolean): void {
  if (queued || k.thisCpu < 0) return;
  const w = wakerLines(k);
  const kinds = w.migrate;
  const c0 = k.chargeNs;
  for (let i = 0; i < kinds.length; i++) w.charge(k.thisCpu, fromCpu, kinds[i]);
  if (k.chargeNs > c0) bump(k.counters.other, "wake_migrate_ns", k.chargeNs - c0);
}
