// Shared pieces of select_task_rq_fair across eras: the hook contexts, the per-kernel wakeup
// state the kernel keeps in task_struct / sched_domain / sched_domain_shared (recent_used_cpu,
// avg_scan_cost, has_idle_cores, nr_idle_scan), idle_cpu() per era, cpus_share_cache, the SMT
// masks, and the placement counters. The era paths are v2629.ts, v48.ts and v5x.ts;
// the slow path (find_idlest_group / find_idlest_cpu) is find_idlest.ts.
import { ERA_TRAITS } from "../../features";
import { WF_EXEC, WF_FORK } from "../../sched";
import type { SchedCore } from "../../core/api";
import type { Rq } from "../../sched";
import type { Task } from "../../sched";
import type { SchedDomain, SchedGroup } from "../../topology/sched_domain";
import { SD_BALANCE_EXEC, SD_BALANCE_FORK, SD_BALANCE_WAKE } from "../../topology/sched_domain";
import type { DomainTree } from "../../topology/sched_domain";
import { SHARE_LEVELS } from "../../../machine/types";
import { bump } from "../../counters";
import type { HookTypes } from "../../hooks";
import { seenIdle, seenIdleByte } from "../../core/idle_cpu";
import { type WakerLines, wakerLines } from "./lines";

// Wake flags as ttwu.ts defines them (duplicated to keep this module free of an import cycle).

/** select_task_rq_fair(p, prev_cpu, wake_flags): the CPU a waking, forked or exec'ing task goes to. */
export interface SelectTaskRqCtx {
  k: SchedCore;
  p: Task;
  prevCpu: number;
  /** The waking (or forking) CPU; -1 outside any CPU context. */
  wakerCpu: number;
  wakeFlags: number;
}

/** wake_wide(p): should this wakeup spread rather than pull the wakee to the waker's LLC? */
export interface WakeWideCtx {
  k: SchedCore;
  p: Task;
  /** `current`: the task running on the waking CPU (null: idle or no CPU context). */
  waker: Task | null;
  /** this_cpu_read(sd_llc_size) of the waking CPU. */
  factor: number;
}

/** wake_affine(sd, p, this_cpu, prev_cpu, sync): returns the CPU to wake on (this or prev). */
export interface WakeAffineCtx {
  k: SchedCore;
  p: Task;
  /** The SD_WAKE_AFFINE domain of this_cpu that spans prev_cpu (affine_sd / this_sd). */
  sd: SchedDomain;
  thisCpu: number;
  prevCpu: number;
  sync: boolean;
}

/** select_idle_sibling(p, prev, target): an idle CPU near target, else target. */
export interface SelectIdleSiblingCtx {
  k: SchedCore;
  p: Task;
  prev: number;
  target: number;
  /** smp_processor_id(): the waking CPU (its rq->avg_idle and sd_llc bound the 5.x scan). */
  thisCpu: number;
}

/** find_idlest_group(sd, p, this_cpu[, sd_flag]): the group to push p to, or null to stay. */
export interface FindIdlestGroupCtx {
  k: SchedCore;
  p: Task;
  sd: SchedDomain;
  thisCpu: number;
  /** SD_BALANCE_FORK, SD_BALANCE_EXEC or SD_BALANCE_WAKE. */
  sdFlag: number;
  /**
   * The statistics find_idlest_group gathers for each group of sd that p may run on (5.5+:
   * update_sg_wakeup_stats' struct sg_lb_stats, p's own contribution taken out), in sd's group
   * order; computed at the first call, then cached. The 2.6.29 and 4.x functions read only load,
   * but the figures are given in every era.
   */
  groupStats(): readonly FindIdlestGroupStats[];
}

/** One group as find_idlest_group sees it (struct sg_lb_stats from update_sg_wakeup_stats). */
export interface FindIdlestGroupStats {
  group: SchedGroup;
  /** The group holding thisCpu. */
  local: boolean;
  /** idle_cpus: CPUs with nothing running or queued (p not counted where it last ran). */
  idleCpus: number;
  /** sum_nr_running (all classes) and sum_h_nr_running (fair tasks), p left out. */
  sumNrRunning: number;
  sumHNrRunning: number;
  /** group_load, group_util (util_est included, capped per CPU), group_runnable: PELT, p left out. */
  groupLoad: number;
  groupUtil: number;
  groupRunnable: number;
  /** group_capacity (SCHED_CAPACITY_SCALE units) and group_weight (CPUs). */
  groupCapacity: number;
  groupWeight: number;
  /** group_classify's verdict, as the 5.x wakeup path computes it. */
  groupType:
    | "group_has_spare"
    | "group_fully_busy"
    | "group_misfit_task"
    | "group_imbalanced"
    | "group_overloaded";
  /** avg_load = group_load * SCHED_CAPACITY_SCALE / group_capacity where the era computes it, else 0. */
  avgLoad: number;
}

declare module "../../hooks" {
  interface HookTypes {
    /** select_task_rq_fair: the CPU a waking, forked or exec'ing fair task is placed on. */
    "fair.select_task_rq": (ctx: SelectTaskRqCtx) => number;
    /** wake_wide(p): true spreads a 1:N waker's wakees (no affine pull); false before 3.x had it. */
    "fair.wake_wide": (ctx: WakeWideCtx) => boolean;
    /** wake_affine(): the CPU a wakeup targets, the waking CPU (affine) or prev_cpu. */
    "fair.wake_affine": (ctx: WakeAffineCtx) => number;
    /** select_idle_sibling(p, prev, target): an idle CPU near target, else target (2.6.29: wake_idle). */
    "fair.select_idle_sibling": (ctx: SelectIdleSiblingCtx) => number;
    /** find_idlest_group(): the sched group a fork/exec (or SD_BALANCE_WAKE wakeup) is pushed to, or null to go down a level. */
    "fair.find_idlest_group": (ctx: FindIdlestGroupCtx) => SchedGroup | null;
  }
}

/** The SD_BALANCE_* flag a wakeup kind balances on (sd_flag of select_task_rq_fair). */
export function sdFlagOf(wakeFlags: number): number {
  if (wakeFlags & WF_FORK) return SD_BALANCE_FORK;
  if (wakeFlags & WF_EXEC) return SD_BALANCE_EXEC;
  return SD_BALANCE_WAKE;
}

/** `current` on a CPU: the task it runs (null = the idle task, or no CPU context). */
export function currentOn(k: SchedCore, cpu: number): Task | null {
  return cpu >= 0 ? k.rqs[cpu].curr : null;
}

/**
 * idle_cpu(cpu) as the wakeup path reads it, without the target's lock. 2.6.29: the idle task is
 * current. 3.2+: also nothing queued and no pending wakelist entry (llist_empty(&rq->wake_list),
 * rq->ttwu_pending from 5.8): a CPU the waker has just queued a wakee on is not idle, so a second
 * wakeup does not stack on it, once that enqueue or store is visible to the reader.
 */
export function idleCpu(k: SchedCore, cpu: number): boolean {
  // Rq.isIdle: the same rule, with rq->curr the idle task only once __schedule's pick is done,
  // the queued/pending tests from the era's trait, and a claimed CPU seen idle until the claim
  // is visible at the reader's clock (core/idle_cpu.ts).
  return seenIdle(k, cpu);
}

/**
 * select_idle_core(p, core, cpus, &idle_cpu) (5.12+): `core` when every SMT sibling is idle.
 * Otherwise -1; the first idle allowed sibling (or, without one yet, a SCHED_IDLE one) goes to
 * st.idleCpuSeen while it holds none, and the core leaves the scan (st.seen = gen).
 */
export function selectIdleCore(
  k: SchedCore,
  st: WakeState,
  allowed: Uint8Array,
  core: number,
  gen: number,
  schedIdle: boolean,
): number {
  const m = st.smtMask[core];
  const idleB = st.idle;
  const level = st.scanRow;
  let idle = true;
  for (let i = 0; i < m.length; i++) {
    const c = m[i];
    k.chargeNs += st.lineNs[level[c]]; // the waker reads the sibling's idle state
    if (!seenIdleByte(k, idleB[c], c)) {
      idle = false;
      if (st.idleCpuSeen === -1) {
        if (schedIdle && schedIdleCpu(k.rqs[c]) && allowed[c]) {
          st.idleCpuSeen = c;
          break;
        }
        continue;
      }
      break;
    }
    if (st.idleCpuSeen === -1 && allowed[c]) st.idleCpuSeen = c;
  }
  if (idle) return core;
  for (let i = 0; i < m.length; i++) st.seen[m[i]] = gen;
  return -1;
}

/** sched_idle_cpu (5.4+): the rq runs only SCHED_IDLE tasks. */
export function schedIdleCpu(rq: Rq): boolean {
  if (rq.nrRunning === 0) return false;
  const curr = rq.curr; // counted in nr_running: a non-SCHED_IDLE curr settles it
  if (curr !== null && curr.policy !== "idle") return false;
  if (rq.nrRunning !== rq.cfs.hNrRunning) return false;
  const tasks = rq.cfs.tasks;
  for (let i = 0; i < tasks.length; i++) if (tasks[i].policy !== "idle") return false;
  return true;
}

/** available_idle_cpu(cpu) || sched_idle_cpu(cpu) (no vCPU preemption in the model). */
export function idleOrSchedIdle(k: SchedCore, cpu: number): boolean {
  return idleCpu(k, cpu) || schedIdleCpu(k.rqs[cpu]);
}

/** cpus_share_cache(a, b): same sd_llc. */
export function cpusShareCache(k: SchedCore, a: number, b: number): boolean {
  return k.domains.sdLlcId[a] === k.domains.sdLlcId[b];
}

/** cpumask_test_cpu on a sorted span (binary search, no allocation). */
export function spanHas(span: readonly number[], cpu: number): boolean {
  let lo = 0;
  let hi = span.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = span[mid];
    if (v === cpu) return true;
    if (v < cpu) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Index of the first span entry >= cpu (for_each_cpu_wrap's start), wrapping to 0. */
export function wrapStart(span: readonly number[], cpu: number): number {
  let lo = 0;
  let hi = span.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (span[mid] < cpu) lo = mid + 1;
    else hi = mid;
  }
  return lo === span.length ? 0 : lo;
}

/** cpumask_intersects(group, p->cpus_ptr). */
export function intersectsAllowed(cpus: readonly number[], p: Task): boolean {
  if (p.nrCpusAllowed === p.cpusAllowed.length) return true;
  for (let i = 0; i < cpus.length; i++) if (p.cpusAllowed[cpus[i]]) return true;
  return false;
}

/** update_avg(): avg += (sample - avg) / 8, truncating like the kernel's s64 division. */
export function updateAvg(avg: number, sample: number): number {
  return avg + Math.trunc((sample - avg) / 8);
}

/**
 * What the kernel keeps per task, per domain and per LLC for the wakeup path, kept here per
 * Kernel instance (Task and Rq do not carry these fields). Rebuilt when the domains are.
 */
export class WakeState {
  readonly n: number;
  domains: DomainTree;
  /** cpu_smt_mask(cpu): online SMT siblings, ascending, the CPU included. */
  smtMask: number[][] = [];
  /** The era is 5.19 or later (v5x.ts's select_idle_sibling generation), decided once. */
  readonly late519: boolean;
  /**
   * v5.7+: capacity-aware wakeups ("sched/fair: Add asymmetric CPU capacity wakeup scan") replace
   * wake_cap (000619680c37 "sched/fair: Remove wake_cap()", Morten Rasmussen).
   */
  readonly asymWakeup57: boolean;
  /** select_idle_sibling tests recent_used_cpu against p->cpus_ptr (ae2ad293d6be, v6.5), not prev. */
  readonly recentMaskFixed: boolean;
  /** sched_smt_present: some online core has two threads. */
  smtActive = false;
  /** sd_llc_shared->has_idle_cores, indexed by sd_llc_id. */
  readonly hasIdleCores: Uint8Array;
  /**
   * sd_llc_shared->nr_idle_scan (SIS_UTIL), indexed by sd_llc_id, as the last periodic or idle
   * balance of the LLC wrote it (v5x.ts updateIdleCpuScan). Choice: it starts at the LLC's weight,
   * the value an idle LLC's balance leaves (the kernel's kzalloc'd 0 lasts only until the first
   * balance after boot, long before a workload starts).
   */
  readonly nrIdleScan: Int32Array;
  /** this_sd->avg_scan_cost (ns) of each CPU's sd_llc instance. */
  readonly avgScanCost: Float64Array;
  /** p->recent_used_cpu by pid (-1: never set). */
  private recentUsed = new Int32Array(256).fill(-1);
  /** for_each_cpu_wrap with cpumask_andnot: CPUs marked with the current generation are skipped. */
  readonly seen: Uint32Array;
  gen = 0;
  /** cacheLineNs by share-level index: the modelled cost of reading one remote rq in a scan. */
  readonly lineNs: Float64Array;
  /** levelRow of the waker of the select_idle_sibling in progress: what each scan step costs it. */
  scanRow: Uint8Array;
  /** The runqueue lines the wakeup in progress has read and been charged for (lines.ts). */
  readonly lines: WakerLines;
  private readonly levelRows: (Uint8Array | undefined)[] = [];
  /**
   * idle_cpu() of every CPU as a byte (3.2+ sense), kept by the rqs (Rq.attachIdleFlags): the
   * scans walk the kernel's order over these bytes, as the kernel walks its cpumasks, without
   * reading each rq.
   */
  readonly idle: Uint8Array;
  /**
   * Each CPU's sd_llc span as an Int32Array, one array shared by the CPUs of an LLC (their spans
   * are equal), so the scans of a whole LLC read the same few cache lines.
   */
  llcSpan: Int32Array[] = [];
  /** Each CPU's index in its sd_llc span: where for_each_cpu_wrap(.., target) starts. */
  readonly llcPos: Int32Array;
  /** spanBits[cpu][d]: the span of domains[cpu][d] as a bitmap (see spanHas). */
  private spanBits: (Uint32Array[] | undefined)[] = [];
  /** The reason select_idle_sibling's default gave for its last non-target answer. */
  sisReason: string | null = null;
  sisResult = -1;
  /** select_idle_core's *idle_cpu: the first idle CPU a scan for idle cores saw (-1: none). */
  idleCpuSeen = -1;
  private idleHookInstalled = false;
  /** The hook implementations in force (a kernel's hook table never changes). */
  readonly wakeWide: HookTypes["fair.wake_wide"];
  readonly wakeAffine: HookTypes["fair.wake_affine"];
  readonly selectIdleSibling: HookTypes["fair.select_idle_sibling"];
  readonly findIdlestGroup: HookTypes["fair.find_idlest_group"];

  constructor(readonly k: SchedCore) {
    this.wakeWide = k.hooks.get("fair.wake_wide");
    this.wakeAffine = k.hooks.get("fair.wake_affine");
    this.selectIdleSibling = k.hooks.get("fair.select_idle_sibling");
    this.findIdlestGroup = k.hooks.get("fair.find_idlest_group");
    this.n = k.rqs.length;
    this.lines = wakerLines(k);
    this.scanRow = new Uint8Array(this.n); // until a wakeup sets its waker's row
    // the folded-in changes' switches (features_folded.ts), on from their releases
    this.late519 = k.features.SIS_SINGLE_SCAN;
    this.asymWakeup57 = k.features.SIS_ASYM_CAPACITY;
    this.recentMaskFixed = k.features.SIS_RECENT_ALLOWED;
    this.domains = k.domains;
    this.hasIdleCores = new Uint8Array(this.n);
    this.nrIdleScan = new Int32Array(this.n);
    this.avgScanCost = new Float64Array(this.n);
    this.seen = new Uint32Array(this.n);
    this.llcPos = new Int32Array(this.n);
    this.idle = new Uint8Array(this.n);
    for (const rq of k.rqs) rq.attachIdleFlags(this.idle);
    this.lineNs = new Float64Array(SHARE_LEVELS.length);
    SHARE_LEVELS.forEach((lvl, i) => {
      this.lineNs[i] = k.machine.costs.cacheLineNs[lvl];
    });
    this.rebuild();
    // has_idle_cores is kept up to date from here on (5.x select_idle_sibling reads it).
    if (ERA_TRAITS[k.era].idleCores) this.installIdleCoreTracking();
  }

  /** After a domain rebuild (hotplug): SMT masks and has_idle_cores from the current state. */
  rebuild(): void {
    const k = this.k;
    this.domains = k.domains;
    const cpus = k.machine.cpus;
    const byCore = new Map<number, number[]>();
    for (const c of cpus) {
      if (!k.rqs[c.id].online) continue;
      let l = byCore.get(c.core);
      if (!l) {
        l = [];
        byCore.set(c.core, l);
      }
      l.push(c.id);
    }
    this.smtActive = false;
    this.smtMask = cpus.map((c) => {
      const l = byCore.get(c.core) ?? [c.id];
      if (l.length > 1) this.smtActive = true;
      return l;
    });
    this.spanBits = [];
    const shared = new Map<number, Int32Array>();
    this.llcSpan = [];
    for (let cpu = 0; cpu < this.n; cpu++) {
      const llc = this.domains.sdLlc[cpu];
      this.llcPos[cpu] = llc ? wrapStart(llc.span, cpu) : 0;
      const span = llc ? llc.span : [cpu];
      const id = this.domains.sdLlcId[cpu];
      let a = shared.get(id);
      if (!a || a.length !== span.length || span.some((c, i) => a![i] !== c)) {
        a = Int32Array.from(span);
        if (!shared.has(id)) shared.set(id, a);
      }
      this.llcSpan.push(a);
    }
    this.hasIdleCores.fill(0);
    for (const cpu of this.domains.online) {
      if (this.coreIdle(cpu)) this.hasIdleCores[this.domains.sdLlcId[cpu]] = 1;
    }
    for (let cpu = 0; cpu < this.n; cpu++) {
      const llc = this.domains.sdLlc[cpu];
      if (llc) this.nrIdleScan[this.domains.sdLlcId[cpu]] = llc.spanWeight;
    }
  }

  /**
   * cpumask_test_cpu(prev, sched_domain_span(domains[cpu][d])) as a bitmap per domain (n / 8
   * bytes each, built on first use per CPU), so the wakeup's walk up the domains tests
   * membership with one word read instead of a search of the span.
   */
  spanHas(cpu: number, d: number, prev: number): boolean {
    let bits = this.spanBits[cpu];
    if (bits === undefined) {
      bits = this.domains.domains[cpu].map((sd) => {
        const b = new Uint32Array((this.n + 31) >>> 5);
        for (const c of sd.span) b[c >>> 5] |= 1 << (c & 31);
        return b;
      });
      this.spanBits[cpu] = bits;
    }
    return ((bits[d][prev >>> 5] >>> (prev & 31)) & 1) === 1;
  }

  /** Every SMT sibling of cpu (itself included) is idle. */
  coreIdle(cpu: number): boolean {
    const m = this.smtMask[cpu];
    for (let i = 0; i < m.length; i++) if (!idleCpu(this.k, m[i])) return false;
    return true;
  }

  /**
   * __update_idle_core, called as a CPU goes idle (set_next_task_idle): if every sibling is
   * idle, the LLC has an idle core again. Installed on the core's newly-idle hook list when the
   * state of a 5.x kernel is created (its first wakeup or fork); the core calls those hooks when
   * a CPU is about to go idle, before the task pick, after the newidle balance.
   */
  private installIdleCoreTracking(): void {
    if (this.idleHookInstalled) return;
    this.idleHookInstalled = true;
    this.k.newIdleHooks.push((rq) => {
      if (rq.nrRunning !== 0 || rq.ttwuPending !== 0 || this.domains !== this.k.domains) return;
      const llc = this.domains.sdLlcId[rq.cpu];
      if (this.hasIdleCores[llc]) return;
      const m = this.smtMask[rq.cpu];
      for (let i = 0; i < m.length; i++) if (m[i] !== rq.cpu && !idleCpu(this.k, m[i])) return;
      this.hasIdleCores[llc] = 1;
    });
  }

  recentUsedCpu(p: Task): number {
    return p.pid < this.recentUsed.length ? this.recentUsed[p.pid] : -1;
  }

  setRecentUsedCpu(p: Task, cpu: number): void {
    if (p.pid >= this.recentUsed.length) {
      const a = new Int32Array(Math.max(p.pid + 1, this.recentUsed.length * 2)).fill(-1);
      a.set(this.recentUsed);
      this.recentUsed = a;
    }
    this.recentUsed[p.pid] = cpu;
  }

  /** A fresh generation for a for_each_cpu_wrap scan with removals. */
  nextGen(): number {
    if (++this.gen === 0xffffffff) {
      this.seen.fill(0);
      this.gen = 1;
    }
    return this.gen;
  }

  /**
   * The share level (index into lineNs) from `from` to every CPU, built on first use: a scan
   * step's cost is then lineNs[row[cpu]] (a byte per CPU keeps the rows small in cache).
   * Rows depend on the machine only, so they survive domain rebuilds.
   */
  levelRow(from: number): Uint8Array {
    let row = this.levelRows[from];
    if (row === undefined) {
      row = new Uint8Array(this.n);
      for (let c = 0; c < this.n; c++) row[c] = this.k.cache.levelIndex(from, c);
      this.levelRows[from] = row;
    }
    return row;
  }

  /** Modelled time to look at `cpu`'s runqueue from `from` (one cache-line transfer). */
  probeNs(from: number, cpu: number): number {
    return this.lineNs[this.k.cache.levelIndex(from, cpu)];
  }

  /** select_idle_sibling's default notes why it chose `cpu`. */
  noteSis(reason: string, cpu: number): number {
    this.sisReason = reason;
    this.sisResult = cpu;
    return cpu;
  }
}

const STATES = new WeakMap<SchedCore, WakeState>();

/** The wakeup state of a kernel, created on first use and refreshed after a domain rebuild. */
export function wakeState(k: SchedCore): WakeState {
  let st = STATES.get(k);
  if (!st) {
    st = new WakeState(k);
    STATES.set(k, st);
  } else if (st.domains !== k.domains) {
    st.rebuild();
  }
  return st;
}

/**
 * Counts where a wakeup went (counters.wakePlacement). Placements on prev or on the waking CPU
 * are "prev" / "affine", with "_busy" when that CPU was not idle (the wakee stacks there);
 * select_idle_sibling's own finds carry its reason (idle_sibling, idle_core, idle_smt,
 * recent_used). Other results of a patched select_idle_sibling count as "other".
 */
export function countWakePlacement(
  k: SchedCore,
  st: WakeState,
  cpu: number,
  prev: number,
  thisCpu: number,
): void {
  let key: string;
  if (st.sisReason !== null && st.sisResult === cpu) key = st.sisReason;
  else if (cpu === prev) key = idleCpu(k, cpu) ? "prev" : "prev_busy";
  else if (cpu === thisCpu) key = idleCpu(k, cpu) ? "affine" : "affine_busy";
  else key = idleCpu(k, cpu) ? "other_idle" : "other";
  st.sisReason = null;
  bump(k.counters.wakePlacement, key);
}

/** Counts a slow-path (find_idlest_*) placement: forks as fork_*, wakeups as idlest_*. */
export function countIdlestPlacement(
  k: SchedCore,
  sdFlag: number,
  cpu: number,
  startCpu: number,
): void {
  const moved = cpu !== startCpu;
  const key =
    sdFlag === SD_BALANCE_WAKE
      ? moved
        ? "idlest_group"
        : "idlest_local"
      : sdFlag === SD_BALANCE_FORK
        ? moved
          ? "fork_idlest_group"
          : "fork_local"
        : moved
          ? "exec_idlest_group"
          : "exec_local";
  bump(k.counters.wakePlacement, key);
}
