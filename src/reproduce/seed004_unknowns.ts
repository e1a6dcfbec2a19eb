// Seed 004's declared unknowns: what the equal-priority mail does not say about its box and its
// benchmark, each with the range a source supports, a default and how a value enters the
// experiment (docs/experiments/004.md, "What would have to be true"). They apply in declaration
// order: the machine first, since the server count and the FIFO 90 threads' CPUs follow from it.
import type { Experiment } from "../experiment/experiment";
import { unknown } from "../experiment/declare";
import { oltpRtMix, type OltpRtMixParams } from "../workload/oltp_rt_mix";

/** The workload parameters of an experiment running workload.oltpRtMix (every default filled). */
export function oltpParams(e: Experiment): OltpRtMixParams {
  const wl = e.spec().workload;
  if (wl.name !== "oltp-rt-mix")
    throw new Error(`seed 004 unknowns: expected workload oltp-rt-mix (got ${wl.name})`);
  return wl.params as OltpRtMixParams;
}

/** The experiment with some oltpRtMix parameters changed (the others kept). */
export function withOltp(e: Experiment, change: OltpRtMixParams): Experiment {
  return e.workload(oltpRtMix({ ...oltpParams(e), ...change }));
}

/** The machines the mail leaves open: the 2-socket preset (default) and a 4-socket E7 v2 box. */
export const SEED004_MACHINES = ["hsw-ep-2x18x2", "ivb-ex-4x15x2"] as const;

export const machineUnknown = unknown("machine", {
  choices: SEED004_MACHINES,
  default: "hsw-ep-2x18x2",
  unit: "choice",
  description: "the box: 2 x 18-core Haswell-EP (72 CPUs) or 4 x 15-core Ivy Bridge-EX (120 CPUs)",
  source:
    'choice: the mail names no machine. Intel\'s OLTP measurements of 2014-2015 ran on 2-socket E5 v3 and on 4-socket E7 v2 servers alike: the 4-socket Xeon E7-4890 v2 baseline of Intel\'s "Accelerated Operations for Telecom and Financial Services" (OLTP on Linux, two Intel DC P3700 NVMe drives; quoted by Glenn Berry, SQLskills, "Intel Xeon E7 Processor Generational Performance Comparison"), and the 2-way E5-2699 v3 and 4-way E7 v2 TPC-E results of the time (qdpma.com, TPC-E tables). Both presets\' figures are in data/machines/ with their sources; the default is the preset the first passes used. One server thread per logical CPU on either box.',
  apply: (e, v) => {
    const m = e.onMachine(String(v));
    return withOltp(m, { rtThreads: m.machine().cpus.length });
  },
});

export const wakeRateUnknown = unknown("rt_wake_hz", {
  range: [1000, 7500],
  default: 5000,
  unit: "Hz",
  description: "wakeups per second of each RT server thread (I/O completions)",
  source:
    "Intel SSD DC P3700 Series Product Specification (330566-005US): random 4 KB 70/30 read/write up to 265K IOPS per drive; the E7 v2 OLTP setup above ran two such drives: up to 530K completions/s, 7 400 per thread over 72 server threads (the range's top), and a box driving one SATA-class SSD (the DC S3700 class, ~75K IOPS) gives ~1 000 per thread (its bottom). 5 000 (360K completions/s on 72 CPUs) is the first passes' choice",
  apply: (e, v) => withOltp(e, { rtWakeHz: Number(v) }),
});

export const levelsUnknown = unknown("rt_levels", {
  range: [1, 3],
  default: 1,
  integer: true,
  unit: "count",
  description: "distinct SCHED_FIFO priorities the server threads are dealt over",
  source:
    "kernel/irq/manage.c (v2.6.30 irq_thread, 4.x setup_irq_thread): every threaded IRQ handler runs at FIFO MAX_USER_RT_PRIO/2 = 50 (one level); Oracle runs its RT background processes at one priority (_os_sched_high_priority, 1 by default: Maclean Liu quoting Oracle Support); both on one box give two levels, and 4.x's forced-threading secondary handlers at 49 a third. Default 1: the patch's subject is equal-priority tasks",
  apply: (e, v) => withOltp(e, { rtLevels: Number(v) }),
});

/**
 * Where the FIFO 90 threads start, as the mail does not say: "low" on CPUs 1, 3, ..., 15 (the
 * lowest-numbered CPUs of node 0, where 3.19's find_lowest_rq puts moved wakees), "high" on the
 * last odd CPUs, "spread" evenly over all CPUs (every node), "low-pinned" on the low CPUs and
 * pinned there (sched_setaffinity to one CPU, as per-CPU threads are).
 */
export const SEED004_HI_PLACEMENTS = ["low", "high", "spread", "low-pinned"] as const;

export const placementUnknown = unknown("hi_placement", {
  choices: SEED004_HI_PLACEMENTS,
  default: "low",
  unit: "choice",
  description: "where the short FIFO 90 threads run: low CPUs, high CPUs, spread, or pinned low",
  source:
    "choice: the mail names no higher-priority threads. 3.19's find_lowest_rq takes cpumask_first_and of the lowest cpupri level in the wakee's LLC (kernel/sched/rt.c), so moved wakees land on the lowest-numbered CPUs running no RT: threads that preempt them there (low) or elsewhere (high, spread) bracket the cases; per-CPU kernel threads are pinned (low-pinned). Default low: the first passes' placement",
  apply: (e, v) => {
    const n = e.machine().cpus.length;
    const hi = oltpParams(e).hiThreads ?? 8;
    switch (v) {
      case "low":
        return withOltp(e, { hiCpuStart: 1, hiCpuStride: 2, hiPinned: false });
      case "high":
        return withOltp(e, {
          hiCpuStart: Math.max(1, n - 2 * hi + 1),
          hiCpuStride: 2,
          hiPinned: false,
        });
      case "spread":
        return withOltp(e, {
          hiCpuStart: 1,
          hiCpuStride: Math.max(1, Math.floor(n / Math.max(1, hi))),
          hiPinned: false,
        });
      default:
        return withOltp(e, { hiCpuStart: 1, hiCpuStride: 2, hiPinned: true });
    }
  },
});

export const refillUnknown = unknown("tx_private_refill_gbps", {
  range: [3.5, 15],
  default: 3.5,
  unit: "GB/s",
  description:
    "how fast a preempted transaction re-reads the private-cache (L1/L2) lines the RT work displaced, from the L3",
  source:
    "top: the preset's single-core L3 streaming rate (copyBytesPerNs.shared_llc, 15 GB/s); bottom: one 64-byte line per L3 load-to-use latency, as dependent loads (pointer chasing) get them: 40-42 cycles on Westmere-EP (7-cpu.com, Xeon X5650), ~18 ns at 2.3-2.6 GHz, so 64 B / 18 ns = 3.5 GB/s. Default: the bottom, since \"database transaction processing is largely an exercise in serialized pointer-chasing\" (qdpma.com, Memory Latency and TPC-E pages). At most one L2 (256 KB) of a transaction's working set is lost per preemption (kernel/cache.ts privateRefillNs)",
  apply: (e, v) => withOltp(e, { txPrivateRefillGBps: Number(v) }),
});

/** Seed 004's unknowns in the order they apply. */
export const SEED004_UNKNOWNS = [
  machineUnknown,
  wakeRateUnknown,
  levelsUnknown,
  placementUnknown,
  refillUnknown,
] as const;
