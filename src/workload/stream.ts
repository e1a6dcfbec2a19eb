// Memory-bound workloads for the shared-hardware model (kernel/contention.ts): STREAM's kernels
// and an mcf-like cache hog, each task stating its footprint (working set, bytes per unit of
// work). STREAM (John D. McCalpin, stream.c v5.10): arrays a, b, c of STREAM_ARRAY_SIZE doubles
// (default 10,000,000); OpenMP splits each loop statically among the threads; the report counts
// 2 x 8 bytes per element for Copy (c[j] = a[j]) and Scale (b[j] = scalar*c[j]), 3 x 8 for Add
// (c[j] = a[j]+b[j]) and Triad (a[j] = b[j]+scalar*c[j]) and prints MB/s with MB = 1e6 bytes;
// write-allocate traffic is not counted ("bytes[4]" and its comment in stream.c).
import { call, run } from "../kernel/ops";
import type { Task } from "../kernel/sched";
import type { Workload, WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireKnownKeys, requireNumber } from "./workload";

/** One of STREAM's four kernels. */
export type StreamKernel = "copy" | "scale" | "add" | "triad";

/** STREAM's kernels: arrays read and written per element (stream.c's loops). */
export const STREAM_KERNELS: Readonly<Record<StreamKernel, { reads: number; writes: number }>> = {
  copy: { reads: 1, writes: 1 },
  scale: { reads: 1, writes: 1 },
  add: { reads: 2, writes: 1 },
  triad: { reads: 2, writes: 1 },
};

/**
 * choice: work per STREAM element at capacity 1024, ns (a load-add/multiply-store of doubles,
 * vectorised, about one cycle at 3-4 GHz). It only matters where memory is faster than this; on
 * every modelled machine the kernels are bound by bandwidth.
 */
export const STREAM_ELEMENT_NS = 0.3;

/** Parameters of workload.stream. */
export interface StreamParams {
  /** OMP_NUM_THREADS (default 1). */
  threads?: number;
  /** STREAM_ARRAY_SIZE: elements per array (default 10,000,000). */
  arraySize?: number;
  /** The kernel the threads run over and over (default "triad"). */
  kernel?: StreamKernel;
  /** OMP_PLACES-like binding: thread i runs on CPU bind[i] (default: scheduler's placement). */
  bind?: number[];
  /** Work per element at capacity 1024, ns (default STREAM_ELEMENT_NS). */
  elementNs?: number;
}

/** Elements per `run` op of a thread (choice: the loop has no observable boundary). */
const CHUNK_ELEMENTS = 1_000_000;

function bindOf(where: string, bind: unknown, n: number): number[] | undefined {
  if (bind === undefined) return undefined;
  if (
    !Array.isArray(bind) ||
    bind.length !== n ||
    !bind.every((c) => Number.isInteger(c) && c >= 0)
  )
    throw new Error(
      `${where}: bind must be a list of ${n} CPU ids, one per thread (got ${JSON.stringify(bind)})`,
    );
  return bind;
}

/** Work after warm-up of each task, from the snapshots taken at warm-up. */
function windowWork(ctx: WorkloadContext, tasks: Task[], atWarmup: number[]): number[] {
  return tasks.map((t, i) => ctx.workDone(t) - atWarmup[i]);
}

/**
 * STREAM with `threads` threads running one kernel over their share of the arrays, over and
 * over. Metrics: `<kernel>_mb_s` (MB/s as STREAM prints it: bytes it counts / time, MB = 1e6
 * bytes), `mb_s_thread<i>` (each thread's share), `threads` (count).
 */
export function stream(params: StreamParams = {}): Workload {
  const where = "workload.stream";
  requireKnownKeys(where, params, ["threads", "arraySize", "kernel", "bind", "elementNs"]);
  const threads = requireInt(where, "threads", params.threads ?? 1, 1, 4096);
  const arraySize = requireInt(where, "arraySize", params.arraySize ?? 10_000_000, threads);
  const kernel = params.kernel ?? "triad";
  if (!(kernel in STREAM_KERNELS))
    throw new Error(
      `${where}: kernel must be one of ${Object.keys(STREAM_KERNELS).join(", ")} (got ${JSON.stringify(kernel)})`,
    );
  const elementNs = requireNumber(
    where,
    "elementNs",
    params.elementNs ?? STREAM_ELEMENT_NS,
    0,
    false,
  );
  const bind = bindOf(where, params.bind, threads);
  const { reads, writes } = STREAM_KERNELS[kernel];
  const countedBytes = 8 * (reads + writes); // per element, as stream.c's bytes[] counts
  const footprint = {
    // each thread's slice of the arrays the kernel touches (static schedule)
    workingSetBytes: Math.ceil(arraySize / threads) * countedBytes,
    bytesPerWorkNs: countedBytes / elementNs,
    writeFraction: writes / (reads + writes),
    access: "sweep" as const,
  };
  return {
    name: "stream",
    params: { threads, arraySize, kernel, elementNs, ...(bind ? { bind } : {}) },
    defaultDurationNs: 300_000_000,
    defaultWarmupNs: 50_000_000,
    setup(ctx: WorkloadContext): WorkloadRun {
      const tasks: Task[] = [];
      for (let i = 0; i < threads; i++) {
        tasks.push(
          ctx.spawn({
            comm: `stream${i}`,
            role: "stream",
            ...(bind ? { cpu: bind[i], cpus: [bind[i]] } : {}),
            footprint,
            program: function* () {
              for (;;) yield run(CHUNK_ELEMENTS * elementNs);
            },
          }),
        );
      }
      let atWarmup: number[] = tasks.map(() => 0);
      ctx.at(ctx.warmupNs, () => {
        atWarmup = tasks.map((t) => ctx.workDone(t));
      });
      return {
        metrics() {
          const windowNs = ctx.endNs - ctx.warmupNs;
          // bytes per ns = 1e9 B/s = 1000 MB/s
          const mbs = windowWork(ctx, tasks, atWarmup).map(
            (w) => ((w / elementNs) * countedBytes * 1000) / windowNs,
          );
          const out: Record<string, number> = { threads };
          out[`${kernel}_mb_s`] = mbs.reduce((a, b) => a + b, 0);
          mbs.forEach((v, i) => {
            out[`mb_s_thread${i}`] = v;
          });
          return out;
        },
      };
    },
  };
}

/** Parameters of workload.cacheHog. */
export interface CacheHogParams {
  /** Copies run at once (SPEC rate copies; default 1). */
  copies?: number;
  /** Working set of each copy, bytes (default 2 MiB). */
  workingSet?: number;
  /** Work of one run at capacity 1024 with its working set in its L2, ns (default 100 ms). */
  runWorkNs?: number;
  /** Bytes each copy loads per ns of work (default 4). */
  bytesPerWorkNs?: number;
  /** Copy i runs on CPU bind[i] (default: scheduler's placement). */
  bind?: number[];
}

/**
 * An mcf-like rate workload: `copies` copies each running a pointer-chasing loop over its own
 * working set, run after run. Metrics: `runs_per_s` (runs of all copies per simulated second
 * after warm-up), `run_time_s` (mean time of one run of one copy), `runs` (count).
 * Defaults are choices (a 2 MiB set: larger than an L2 of 1 MiB or less, smaller than an LLC
 * share; 4 B/ns of loads: a dependent 64-byte line about every 16 ns), not a SPEC measurement.
 */
export function cacheHog(params: CacheHogParams = {}): Workload {
  const where = "workload.cacheHog";
  requireKnownKeys(where, params, ["copies", "workingSet", "runWorkNs", "bytesPerWorkNs", "bind"]);
  const copies = requireInt(where, "copies", params.copies ?? 1, 1, 4096);
  const workingSet = requireNumber(where, "workingSet", params.workingSet ?? 2 << 20, 0);
  const runWorkNs = requireNumber(where, "runWorkNs", params.runWorkNs ?? 100e6, 0, false);
  const bytesPerWorkNs = requireNumber(where, "bytesPerWorkNs", params.bytesPerWorkNs ?? 4, 0);
  const bind = bindOf(where, params.bind, copies);
  return {
    name: "cache-hog",
    params: { copies, workingSet, runWorkNs, bytesPerWorkNs, ...(bind ? { bind } : {}) },
    defaultDurationNs: 2_000_000_000,
    defaultWarmupNs: 0,
    setup(ctx: WorkloadContext): WorkloadRun {
      const starts: number[] = [];
      let runs = 0;
      let runNs = 0;
      for (let i = 0; i < copies; i++) {
        ctx.spawn({
          comm: `hog${i}`,
          role: "cache-hog",
          ...(bind ? { cpu: bind[i], cpus: [bind[i]] } : {}),
          footprint: { workingSetBytes: workingSet, bytesPerWorkNs },
          program: function* () {
            for (;;) {
              yield call(() => {
                starts[i] = ctx.kernel.now;
              });
              yield run(runWorkNs);
              yield call(() => {
                const now = ctx.kernel.now;
                if (starts[i] < ctx.warmupNs || now > ctx.endNs) return;
                runs++;
                runNs += now - starts[i];
              });
            }
          },
        });
      }
      return {
        metrics() {
          const windowS = (ctx.endNs - ctx.warmupNs) / 1e9;
          return { runs, runs_per_s: runs / windowS, run_time_s: runs ? runNs / runs / 1e9 : 0 };
        },
      };
    },
  };
}
