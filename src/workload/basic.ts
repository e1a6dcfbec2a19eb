// Small general workloads: CPU hogs with nice values, and pipe ping-pong pairs.
import { recv, run, send, sleep } from "../kernel/ops";
import { repeat } from "../kernel/repeat";
import type { Task, TaskApi } from "../kernel/sched";
import type { Workload, WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireKnownKeys, requireNumber, runLength } from "./workload";
import { parseCpusOption } from "./cpus";

const SEC = 1_000_000_000;

/** Parameters of workload.hogs. */
export interface HogsParams {
  /** Number of hogs. */
  n: number;
  /** A nice value for all, or one per hog. */
  nice?: number | number[];
  /** Pin every hog to these CPUs: a cpulist ("0,2-3") or CPU ids, as `taskset -c` (see CpusOption). */
  cpus?: string | number[];
  /** Simulated seconds per run (default 10). */
  seconds?: number;
  /** Simulated seconds excluded from the metrics (default 0). */
  warmupSeconds?: number;
}

/**
 * N tasks that never sleep. Metrics: `share_hog<i>`, each hog's share of the CPU time measured
 * after warm-up, and `total_work_s`.
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const twoOnOne = workload.hogs({ n: 2, nice: [0, 5], cpus: [0], seconds: 0.5 });
 * const res = await topology("core2-2x2").workload(twoOnOne).run();
 * console.log(res.mean("share_hog0", "baseline").toFixed(3), "(1024 / (1024 + 335) = 0.753)");
 * ```
 * Prints:
 * ```text
 * 0.750 (1024 / (1024 + 335) = 0.753)
 * ```
 */
export function hogs(params: HogsParams): Workload {
  const where = "workload.hogs";
  requireKnownKeys(where, params, ["n", "nice", "cpus", "seconds", "warmupSeconds"]);
  const n = requireInt(where, "n", params.n, 1, 100_000);
  const nices = Array.isArray(params.nice) ? params.nice : new Array(n).fill(params.nice ?? 0);
  if (nices.length !== n)
    throw new Error(`${where}: nice must be one value or ${n} values (got ${nices.length})`);
  nices.forEach((v, i) => {
    requireInt(where, `nice[${i}]`, v, -20, 19);
  });
  const pin = params.cpus === undefined ? undefined : parseCpusOption(where, params.cpus);
  return {
    name: "hogs",
    params: { ...params },
    ...runLength(where, params, 10),
    setup(ctx: WorkloadContext): WorkloadRun {
      if (pin?.some((c) => c >= ctx.ncpus))
        throw new Error(
          `${where}: cpus must be CPUs of this machine, 0-${ctx.ncpus - 1} (got ${params.cpus})`,
        );
      const tasks: Task[] = [];
      for (let i = 0; i < n; i++) {
        tasks.push(
          ctx.spawn({
            comm: `hog${i}`,
            role: "hog",
            nice: nices[i],
            cpus: pin,
            program: function* () {
              yield run(Infinity);
            },
          }),
        );
      }
      const start = new Array<number>(n).fill(0);
      ctx.at(ctx.warmupNs, () => {
        tasks.forEach((t, i) => {
          start[i] = ctx.workDone(t);
        });
      });
      return {
        metrics() {
          const done = tasks.map((t, i) => ctx.workDone(t) - start[i]);
          const total = done.reduce((a, b) => a + b, 0);
          const m: Record<string, number> = { total_work_s: total / SEC };
          done.forEach((d, i) => {
            m[`share_hog${i}`] = total > 0 ? d / total : 0;
          });
          return m;
        },
      };
    },
  };
}

/** Parameters of workload.pingpong. */
export interface PingPongParams {
  /** Number of independent pairs. */
  pairs: number;
  /** Bytes per message (context1 writes one unsigned long). */
  bytes?: number;
  /** Work each side does per message, ns. */
  workNs?: number;
  seconds?: number;
  warmupSeconds?: number;
  /** Pin each pair's two tasks to one CPU (pair i on CPU i mod ncpus). */
  sameCpu?: boolean;
}

/**
 * Pairs of tasks bouncing a message through two pipes, as UnixBench context1 does.
 * Metrics: `round_trips`, `round_trips_per_s` and `round_trip_us` (per pair).
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const res = await topology("core2-2x2").workload(workload.pingpong({ pairs: 1, seconds: 0.05 })).run();
 * console.log(res.mean("round_trip_us", "baseline").toFixed(2), "us per round trip");
 * ```
 * Prints:
 * ```text
 * 7.30 us per round trip
 * ```
 */
export function pingpong(params: PingPongParams): Workload {
  const where = "workload.pingpong";
  requireKnownKeys(where, params, [
    "pairs",
    "bytes",
    "workNs",
    "seconds",
    "warmupSeconds",
    "sameCpu",
  ]);
  const pairs = requireInt(where, "pairs", params.pairs, 1, 100_000);
  const bytes = requireInt(where, "bytes", params.bytes ?? 8, 0);
  const workNs = requireNumber(where, "workNs", params.workNs ?? 200, 0);
  return {
    name: "pingpong",
    params: { ...params },
    ...runLength(where, params, 1),
    setup(ctx: WorkloadContext): WorkloadRun {
      const parents: Task[] = [];
      const ncpu = ctx.ncpus;
      const lap = (t: TaskApi) => t.count("iterations");
      for (let i = 0; i < pairs; i++) {
        const ab = ctx.channel(`pipe${i}a`, "pipe", 65536);
        const ba = ctx.channel(`pipe${i}b`, "pipe", 65536);
        const cpus = params.sameCpu ? [i % ncpu] : undefined;
        parents.push(
          ctx.spawn({
            comm: `ctx1p${i}`,
            role: "parent",
            cpus,
            program: repeat(
              workNs > 0 ? [send(ab, bytes), recv(ba), run(workNs)] : [send(ab, bytes), recv(ba)],
              { lap },
            ),
          }),
        );
        ctx.spawn({
          comm: `ctx1c${i}`,
          role: "child",
          cpus,
          program: repeat(
            workNs > 0 ? [recv(ab), run(workNs), send(ba, bytes)] : [recv(ab), send(ba, bytes)],
            { lap },
          ),
        });
      }
      let startCount = 0;
      const count = () => parents.reduce((s, p) => s + (p.counters.iterations ?? 0), 0);
      ctx.at(ctx.warmupNs, () => (startCount = count()));
      return {
        metrics() {
          const secs = (ctx.endNs - ctx.warmupNs) / SEC;
          const trips = count() - startCount;
          return {
            round_trips: trips,
            round_trips_per_s: trips / secs,
            round_trip_us: trips > 0 ? (secs * 1e6 * pairs) / trips : 0,
          };
        },
      };
    },
  };
}

/** Parameters of workload.sleepers. */
export interface SleepersParams {
  n: number;
  /** Mean CPU burst, ns (exponentially distributed). */
  runNs: number;
  /** Mean sleep, ns (exponentially distributed). */
  sleepNs: number;
  nice?: number;
  seconds?: number;
  warmupSeconds?: number;
}

/**
 * Tasks alternating random CPU bursts and random sleeps: a generic mixed load.
 * Metrics: `cycles` and `cycles_per_s` (bursts plus sleeps completed by all tasks).
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const mixed = workload.sleepers({ n: 8, runNs: 2e6, sleepNs: 2e6, seconds: 0.2 });
 * const res = await topology("core2-2x2").workload(mixed).run();
 * console.log(res.mean("cycles_per_s", "baseline").toFixed(0), "cycles/s");
 * ```
 * Prints:
 * ```text
 * 1635 cycles/s
 * ```
 */
export function sleepers(params: SleepersParams): Workload {
  const where = "workload.sleepers";
  requireKnownKeys(where, params, ["n", "runNs", "sleepNs", "nice", "seconds", "warmupSeconds"]);
  const n = requireInt(where, "n", params.n, 1, 100_000);
  const runNs = requireNumber(where, "runNs", params.runNs, 0, false);
  const sleepNs = requireNumber(where, "sleepNs", params.sleepNs, 0, false);
  const nice = requireInt(where, "nice", params.nice ?? 0, -20, 19);
  return {
    name: "sleepers",
    params: { ...params },
    ...runLength(where, params, 1),
    setup(ctx: WorkloadContext): WorkloadRun {
      const tasks: Task[] = [];
      for (let i = 0; i < n; i++) {
        tasks.push(
          ctx.spawn({
            comm: `sleeper${i}`,
            role: "sleeper",
            nice,
            program: function* (t) {
              for (;;) {
                yield run(Math.max(1, Math.round(-runNs * Math.log(1 - t.random()))));
                yield sleep(Math.max(1, Math.round(-sleepNs * Math.log(1 - t.random()))));
                t.count("cycles");
              }
            },
          }),
        );
      }
      return {
        metrics() {
          const cycles = tasks.reduce((s, p) => s + (p.counters.cycles ?? 0), 0);
          return { cycles, cycles_per_s: cycles / ((ctx.endNs - ctx.warmupNs) / SEC) };
        },
      };
    },
  };
}
