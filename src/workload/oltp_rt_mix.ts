// An OLTP-like mix of fair transaction tasks and RT server threads, for seed 004 (Tim Chen's
// equal-priority push patch, 2015). His benchmark is not disclosed ("an OLTP benchmark on a fully
// loaded system"), so every figure here is a stated assumption, chosen from what such servers
// ran, not fitted to his numbers:
//
//  - Transaction tasks (SCHED_OTHER) keep every CPU busy: `txPerCpu` per logical CPU, each
//    looping over transactions of `txUs` CPU time; throughput = transactions completed per second.
//  - Server threads (SCHED_FIFO) at `rtLevels` neighbouring priorities from `rtBasePriority`,
//    by default one: every threaded IRQ handler runs at FIFO MAX_USER_RT_PRIO/2 = 50
//    (kernel/irq/manage.c, v2.6.30 to 4.x), and Oracle puts the background processes it runs in
//    the RT class at one priority (`_os_sched_high_priority`, 1 by default). `rtThreads` of them,
//    dealt round-robin over the levels, each woken by a timer (an I/O completion arriving) at
//    exponential intervals of mean 1/`rtWakeHz` and running an exponential burst of mean
//    `rtBurstUs`.
//  - A few short, more important threads (`hiThreads` at `hiPriority`, waking at `hiWakeHz` for
//    `hiBurstUs`), which preempt the server threads and so make them pushable.
//
// Measured: transactions/s, rq-lock acquisitions and spin time by path (counters.rqLock, from the
// end of warm-up), and each server thread's wake-to-run latency: from its timer's expiry to its
// program running again, split by whether its CPU ran an RT task of the same priority just before
// the timer fired (an "equal-priority wakeup", where `<=` and `<` differ).
import { run, sleep } from "../kernel/ops";
import type { TaskApi } from "../kernel/sched";
import { MAX_RT_PRIO } from "../kernel/sched";
import type { Workload, WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireKnownKeys, requireNumber, runLength } from "./workload";

/** A boolean parameter, or a clear error naming it. */
function requireBool(where: string, name: string, v: unknown): boolean {
  if (typeof v !== "boolean")
    throw new Error(`${where}: ${name} must be true or false (got ${JSON.stringify(v)})`);
  return v;
}

const US = 1000;

/** Parameters of workload.oltpRtMix; every one has a default (see OLTP_RT_MIX_DEFAULTS). */
export interface OltpRtMixParams {
  /** Transaction tasks per logical CPU. */
  txPerCpu?: number;
  /** CPU time of one transaction, usec. */
  txUs?: number;
  /** Working set of a transaction task, KB (refilled when it resumes away from warm caches). */
  txWorkingSetKb?: number;
  /**
   * Bytes per ns (GB/s) at which a transaction re-reads what the tasks that preempted it pushed
   * out of its CPU's private caches (L1/L2), from the LLC; 0 (default): not modelled (only the
   * LLC share of a working set is). See SpawnSpec.privateRefillBytesPerNs.
   */
  txPrivateRefillGBps?: number;
  /** RT server threads in all. */
  rtThreads?: number;
  /** Distinct RT priorities the server threads are dealt over (rtBasePriority, +1, ...). */
  rtLevels?: number;
  /** The lowest server priority (sched_priority, 1..98). */
  rtBasePriority?: number;
  /** Mean wakeups per second of each server thread (exponential intervals). */
  rtWakeHz?: number;
  /** Mean CPU burst of a server thread per wakeup, usec (exponential). */
  rtBurstUs?: number;
  /** Working set of a server thread, KB. */
  rtWorkingSetKb?: number;
  /** Short high-priority threads. */
  hiThreads?: number;
  /** Their sched_priority (above every server level). */
  hiPriority?: number;
  /** Mean wakeups per second of each high-priority thread. */
  hiWakeHz?: number;
  /** Their mean burst, usec. */
  hiBurstUs?: number;
  /** The CPU the first high-priority thread starts on; thread i starts on (hiCpuStart + i * hiCpuStride) mod n. */
  hiCpuStart?: number;
  /** CPUs between two high-priority threads' start CPUs (default 2). */
  hiCpuStride?: number;
  /** Pin each high-priority thread to its start CPU (sched_setaffinity to one CPU; default false). */
  hiPinned?: boolean;
  /** Simulated seconds (default 2). */
  seconds?: number;
  /** Seconds at the start not measured (default 0.2). */
  warmupSeconds?: number;
}

/**
 * The default assumptions (each a choice, see docs/experiments/004.md): 2 transaction tasks per
 * CPU of 200 us each (a TPC-C-like new-order is a few hundred us of CPU) with 256 KB working sets;
 * one server thread starting on each logical CPU (72 on the 72-CPU box, as a threaded-IRQ or
 * per-CPU I/O completion design has) at one priority, FIFO 50 (that of every threaded IRQ
 * handler), each waking 5000 times a second (360k completions/s in all, a flash-backed OLTP box
 * of 2015) for 20 us, 64 KB working sets (about 9% of the CPUs); 8 threads at FIFO 90 waking
 * 5000 times a second for 5 us, starting on CPUs 1, 3, ..., 15.
 */
export const OLTP_RT_MIX_DEFAULTS = {
  txPerCpu: 2,
  txUs: 200,
  txWorkingSetKb: 256,
  txPrivateRefillGBps: 0,
  rtThreads: 72,
  rtLevels: 1,
  rtBasePriority: 50,
  rtWakeHz: 5000,
  rtBurstUs: 20,
  rtWorkingSetKb: 64,
  hiThreads: 8,
  hiPriority: 90,
  hiWakeHz: 5000,
  hiBurstUs: 5,
  hiCpuStart: 1,
  hiCpuStride: 2,
  hiPinned: false,
  seconds: 2,
  warmupSeconds: 0.2,
} as const;

const ACCEPTED = Object.keys(OLTP_RT_MIX_DEFAULTS);

/** Latency samples, usec, of one class of wakeups. */
class Samples {
  readonly values: number[] = [];
  add(us: number): void {
    this.values.push(us);
  }
  /** The p-th percentile (nearest rank), NaN if empty. */
  percentile(p: number): number {
    const v = this.values;
    if (v.length === 0) return NaN;
    const s = Float64Array.from(v).sort();
    return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  }
}

/** Exponential draw with the given mean from a uniform u in [0,1). */
const expo = (mean: number, u: number) => -mean * Math.log(1 - u);

/**
 * An OLTP-like box: fair transaction tasks on every CPU and RT server threads at a few priority
 * levels waking for short bursts. Metrics: `throughput_tps`, `push_rq_locks_per_s` (rq locks
 * taken on the RT push path: push targets and post_schedule's own lock), `push_target_locks_per_s`,
 * `pull_rq_locks_per_s`, `wakeup_rq_locks_per_s`, `rq_locks_per_s` (every path), `rq_lock_wait_us_per_s` (spin on all paths) and
 * `push_/pull_/wakeup_lock_wait_us_per_s`, `resched_ipis_per_s`, `rt_double_lock_dropped_per_s`,
 * `rt_wakeup_latency_p99_us` (equal-priority wakeups), `rt_wakeup_latency_all_p99_us`,
 * `equal_prio_wakeups_per_s`, `rt_pushes_per_s`, `rt_pulls_per_s`, `context_switches_per_s`,
 * `rt_util`. Series: `lat_equal`, `lat_other` (usec samples).
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const w = workload.oltpRtMix({ rtThreads: 4, hiThreads: 1, seconds: 0.05, warmupSeconds: 0.01 });
 * const res = await topology("core2-2x2").era("3.19").workload(w).run();
 * console.log(res.mean("throughput_tps", "baseline") > 0);
 * ```
 * Prints:
 * ```text
 * true
 * ```
 */
export function oltpRtMix(params: OltpRtMixParams = {}): Workload {
  const where = "workload.oltpRtMix";
  requireKnownKeys(where, params, ACCEPTED);
  const d = OLTP_RT_MIX_DEFAULTS;
  const p = {
    txPerCpu: requireInt(where, "txPerCpu", params.txPerCpu ?? d.txPerCpu, 1, 64),
    txUs: requireNumber(where, "txUs", params.txUs ?? d.txUs, 0, false),
    txWorkingSetKb: requireNumber(
      where,
      "txWorkingSetKb",
      params.txWorkingSetKb ?? d.txWorkingSetKb,
      0,
    ),
    txPrivateRefillGBps: requireNumber(
      where,
      "txPrivateRefillGBps",
      params.txPrivateRefillGBps ?? d.txPrivateRefillGBps,
      0,
    ),
    rtThreads: requireInt(where, "rtThreads", params.rtThreads ?? d.rtThreads, 0, 4096),
    rtLevels: requireInt(where, "rtLevels", params.rtLevels ?? d.rtLevels, 1, 40),
    rtBasePriority: requireInt(
      where,
      "rtBasePriority",
      params.rtBasePriority ?? d.rtBasePriority,
      1,
      98,
    ),
    rtWakeHz: requireNumber(where, "rtWakeHz", params.rtWakeHz ?? d.rtWakeHz, 0, false),
    rtBurstUs: requireNumber(where, "rtBurstUs", params.rtBurstUs ?? d.rtBurstUs, 0, false),
    rtWorkingSetKb: requireNumber(
      where,
      "rtWorkingSetKb",
      params.rtWorkingSetKb ?? d.rtWorkingSetKb,
      0,
    ),
    hiThreads: requireInt(where, "hiThreads", params.hiThreads ?? d.hiThreads, 0, 4096),
    hiPriority: requireInt(where, "hiPriority", params.hiPriority ?? d.hiPriority, 1, 99),
    hiWakeHz: requireNumber(where, "hiWakeHz", params.hiWakeHz ?? d.hiWakeHz, 0, false),
    hiBurstUs: requireNumber(where, "hiBurstUs", params.hiBurstUs ?? d.hiBurstUs, 0, false),
    hiCpuStart: requireInt(where, "hiCpuStart", params.hiCpuStart ?? d.hiCpuStart, 0, 4095),
    hiCpuStride: requireInt(where, "hiCpuStride", params.hiCpuStride ?? d.hiCpuStride, 1, 4096),
    hiPinned: requireBool(where, "hiPinned", params.hiPinned ?? d.hiPinned),
    seconds: params.seconds ?? d.seconds,
    warmupSeconds: params.warmupSeconds ?? d.warmupSeconds,
  };
  const top = p.rtBasePriority + p.rtLevels - 1;
  if (top > 98)
    throw new Error(
      `${where}: rtBasePriority + rtLevels - 1 must be at most 98 (got ${p.rtBasePriority} + ${p.rtLevels} - 1)`,
    );
  if (p.hiThreads > 0 && p.hiPriority <= top)
    throw new Error(
      `${where}: hiPriority must be above every server level (got ${p.hiPriority}, top server level ${top})`,
    );
  const len = runLength(where, p, d.seconds);
  return {
    name: "oltp-rt-mix",
    params: p,
    ...len,
    setup(ctx: WorkloadContext): WorkloadRun {
      const k = ctx.kernel;
      const n = ctx.ncpus;
      const counting = () => k.now >= ctx.warmupNs;
      let txDone = 0;
      let rtRunNs = 0;
      const latEqual = new Samples();
      const latOther = new Samples();
      // counters at the end of warm-up
      let base = {
        locks: {} as Record<string, { acquisitions: number; waitNs: number }>,
        other: {} as Record<string, number>,
        ipis: {} as Record<string, number>,
        cs: 0,
      };
      ctx.at(ctx.warmupNs, () => {
        base = {
          locks: structuredClone(k.counters.rqLock),
          other: { ...k.counters.other },
          ipis: { ...k.counters.ipis },
          cs: k.counters.contextSwitches,
        };
      });

      function* transaction(_api: TaskApi) {
        for (;;) {
          yield run(p.txUs * US);
          if (counting()) txDone++;
        }
      }

      // A server thread: sleep until the next completion, then a burst. The timer expires at
      // sleep's call + syscallNs + the interval (exec.ts OP_SLEEP); one ns before that we note
      // whether its CPU runs an RT task of its own priority.
      function* server(api: TaskApi, wakeHz: number, burstUs: number, record: boolean) {
        const self = ctx.taskByPid(api.pid)!;
        const sysNs = k.machine.costs.syscallNs;
        for (;;) {
          const interval = Math.max(1, Math.round(expo(1e9 / wakeHz, api.random())));
          const expires = api.now() + Math.round(sysNs + interval);
          let equal = false;
          if (record)
            ctx.at(expires - 1, () => {
              const curr = k.rqs[self.cpu].curr;
              equal = curr !== null && curr !== self && curr.prio === self.prio;
            });
          yield sleep(interval);
          if (record && counting()) {
            const us = (api.now() - expires) / US;
            (equal ? latEqual : latOther).add(us);
          }
          const burst = Math.max(1, Math.round(expo(burstUs * US, api.random())));
          yield run(burst);
          if (counting()) rtRunNs += burst;
        }
      }

      ctx.at(0, () => {
        for (let i = 0; i < n * p.txPerCpu; i++)
          ctx.spawn({
            comm: `oltp-tx${i}`,
            role: "transaction",
            cpu: i % n,
            workingSetBytes: p.txWorkingSetKb * 1024,
            privateRefillBytesPerNs: p.txPrivateRefillGBps,
            program: transaction,
          });
        for (let i = 0; i < p.rtThreads; i++)
          ctx.spawn({
            comm: `oltp-srv${i}`,
            role: "server",
            policy: "fifo",
            rtPriority: p.rtBasePriority + (i % p.rtLevels),
            cpu: i % n,
            workingSetBytes: p.rtWorkingSetKb * 1024,
            program: (api) => server(api, p.rtWakeHz, p.rtBurstUs, true),
          });
        for (let i = 0; i < p.hiThreads; i++) {
          const cpu = (p.hiCpuStart + i * p.hiCpuStride) % n;
          ctx.spawn({
            comm: `oltp-hi${i}`,
            role: "high",
            policy: "fifo",
            rtPriority: p.hiPriority,
            cpu,
            ...(p.hiPinned ? { cpus: [cpu] } : {}),
            workingSetBytes: 16 * 1024,
            program: (api) => server(api, p.hiWakeHz, p.hiBurstUs, false),
          });
        }
      });

      return {
        metrics() {
          const secs = Math.max(1e-9, (ctx.endNs - ctx.warmupNs) / 1e9);
          const locks = k.counters.rqLock;
          const acq = (path: string) =>
            ((locks[path]?.acquisitions ?? 0) - (base.locks[path]?.acquisitions ?? 0)) / secs;
          const other = (key: string) =>
            ((k.counters.other[key] ?? 0) - (base.other[key] ?? 0)) / secs;
          const waitUs = (...paths: string[]) =>
            paths.reduce(
              (sum, path) => sum + (locks[path]?.waitNs ?? 0) - (base.locks[path]?.waitNs ?? 0),
              0,
            ) /
            1000 /
            secs;
          let waitNs = 0;
          let allLocks = 0;
          for (const path of Object.keys(locks)) {
            waitNs += locks[path].waitNs - (base.locks[path]?.waitNs ?? 0);
            allLocks += acq(path);
          }
          const all = new Samples();
          for (const v of latEqual.values) all.add(v);
          for (const v of latOther.values) all.add(v);
          return {
            throughput_tps: txDone / secs,
            push_rq_locks_per_s: acq("rt_push") + acq("rt_push_local"),
            push_target_locks_per_s: acq("rt_push"),
            pull_rq_locks_per_s: acq("rt_pull"),
            wakeup_rq_locks_per_s: acq("ttwu_remote") + acq("ttwu_local") + acq("ttwu_pending"),
            rq_locks_per_s: allLocks,
            rq_lock_wait_us_per_s: waitNs / 1000 / secs,
            push_lock_wait_us_per_s: waitUs("rt_push", "rt_push_local"),
            pull_lock_wait_us_per_s: waitUs("rt_pull"),
            wakeup_lock_wait_us_per_s: waitUs("ttwu_remote", "ttwu_local", "ttwu_pending"),
            resched_ipis_per_s: ((k.counters.ipis.resched ?? 0) - (base.ipis.resched ?? 0)) / secs,
            rt_double_lock_dropped_per_s: other("rt_double_lock_dropped"),
            rt_wakeup_latency_p99_us: latEqual.percentile(99),
            rt_wakeup_latency_p50_us: latEqual.percentile(50),
            rt_wakeup_latency_all_p99_us: all.percentile(99),
            equal_prio_wakeups_per_s: latEqual.values.length / secs,
            rt_pushes_per_s: other("rt_push"),
            rt_pulls_per_s: other("rt_pull"),
            context_switches_per_s: (k.counters.contextSwitches - base.cs) / secs,
            rt_util: rtRunNs / 1e9 / secs / n,
          };
        },
        series() {
          return { lat_equal: latEqual.values, lat_other: latOther.values };
        },
      };
    },
  };
}

/** MAX_RT_PRIO - 1 - sched_priority: the kernel prio of a FIFO task (for tests and notebooks). */
export function rtPrioOf(schedPriority: number): number {
  return MAX_RT_PRIO - 1 - schedPriority;
}
