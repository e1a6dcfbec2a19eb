// What a workload is: a setup that spawns tasks on the kernel model, and the figures it reports
// at the end under the benchmark's own names.
import type { Kernel, SpawnSpec } from "../kernel/core/core";
import { Channel, type ChannelKind } from "../kernel/channel";
import type { Task } from "../kernel/sched";
import type { RandomStream } from "../sim/random";

/**
 * What a workload's setup gets: the kernel model, the run's time frame, and ways to spawn tasks,
 * make channels, schedule callbacks and draw random numbers.
 */
export interface WorkloadContext {
  readonly kernel: Kernel;
  /** Simulated time at which measurement starts (after warm-up), ns. */
  readonly warmupNs: number;
  /** Simulated time at which the run ends, ns. */
  readonly endNs: number;
  /** Create a task running `spec.program` (like fork + exec from outside the workload). */
  spawn(spec: SpawnSpec): Task;
  /** A pipe or socket-like channel that tasks send() to and recv() from. */
  channel(name: string, kind: ChannelKind, capacityBytes: number): Channel;
  /** Runs fn at simulated time t. */
  at(t: number, fn: () => void): void;
  /** A random stream of this run, stable under the name (adding a stream never perturbs another). */
  random(name: string): RandomStream;
  /** Number of CPUs of the machine (online or not). */
  readonly ncpus: number;
  /** The scheduler tick period, ns (1e9 / HZ). */
  readonly tickNs: number;
  /** The CPUs online now, ascending. */
  onlineCpus(): number[];
  /** Work a task has done so far (ns of `run` at capacity 1024), including its running segment. */
  workDone(task: Task): number;
  /** The task with this pid, if spawned. */
  taskByPid(pid: number): Task | undefined;
}

/** What a workload's setup returns: how to read its figures at the end of the run. */
export interface WorkloadRun {
  /** The benchmark's figures for this iteration. */
  metrics(): Record<string, number>;
  /** Distributions and time series (latency samples, per-interval values...). */
  series?(): Record<string, number[]>;
}

/**
 * A workload: a setup that spawns tasks on the kernel model, and the figures it reports under the
 * benchmark's own names. The `workload` factories make the built-in ones; write your own by
 * returning this shape.
 *
 * @example
 * ```ts
 * import { run, sleep, topology, type Workload } from "schedlab";
 * const ticker: Workload = {
 *   name: "ticker",
 *   params: {},
 *   defaultDurationNs: 50e6,
 *   defaultWarmupNs: 0,
 *   setup(ctx) {
 *     const t = ctx.spawn({
 *       comm: "ticker",
 *       program: function* (api) {
 *         for (;;) {
 *           yield run(1e6);
 *           yield sleep(4e6);
 *           api.count("ticks");
 *         }
 *       },
 *     });
 *     return { metrics: () => ({ ticks: t.counters.ticks ?? 0 }) };
 *   },
 * };
 * const res = await topology("core2-2x2").workload(ticker).run();
 * console.log(res.mean("ticks", "baseline"));
 * ```
 * Prints:
 * ```text
 * 9
 * ```
 */
export interface Workload {
  readonly name: string;
  /** JSON-able parameters, recorded in the experiment spec. */
  readonly params: Record<string, unknown>;
  /** Simulated duration when run() is not given one, ns. */
  readonly defaultDurationNs: number;
  /** Warm-up excluded from the metrics, ns. */
  readonly defaultWarmupNs: number;
  /** Spawn the tasks of one run; called once per iteration on a fresh kernel. */
  setup(ctx: WorkloadContext): WorkloadRun;
}

/** The WorkloadContext of one run on kernel `k`. */
export function makeContext(k: Kernel, warmupNs: number, endNs: number): WorkloadContext {
  return {
    kernel: k,
    warmupNs,
    endNs,
    spawn: (spec) => k.spawn(spec),
    channel: (name, kind, cap) => new Channel(name, kind, cap),
    at: (t, fn) => k.at(t, fn),
    random: (name) => k.random.stream(`workload/${name}`),
    ncpus: k.rqs.length,
    tickNs: k.tickNs,
    onlineCpus: () => k.rqs.filter((rq) => rq.online).map((rq) => rq.cpu),
    workDone: (task) => k.workDone(task),
    taskByPid: (pid) => k.taskByPid(pid),
  };
}

/** Throws, naming `where`, if `params` is not an object or has a key outside `accepted` (a typo). */
export function requireKnownKeys(
  where: string,
  params: unknown,
  accepted: readonly string[],
): void {
  if (typeof params !== "object" || params === null || Array.isArray(params))
    throw new Error(`${where}: expected an options object (got ${JSON.stringify(params)})`);
  for (const key of Object.keys(params)) {
    if (!accepted.includes(key))
      throw new Error(`${where}: unknown option "${key}" (accepted: ${accepted.join(", ")})`);
  }
}

/** Field checks shared by the workload factories: errors name the field and what is accepted. */
export function requireInt(
  where: string,
  field: string,
  v: unknown,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
    throw new Error(`${where}: ${field} must be ${range} (got ${JSON.stringify(v)})`);
  }
  return v;
}

export function requireNumber(
  where: string,
  field: string,
  v: unknown,
  min: number,
  inclusive = true,
): number {
  if (typeof v !== "number" || !Number.isFinite(v) || (inclusive ? v < min : v <= min)) {
    throw new Error(
      `${where}: ${field} must be a finite number ${inclusive ? ">=" : ">"} ${min} (got ${JSON.stringify(v)})`,
    );
  }
  return v;
}

/** The run length every workload factory accepts: `seconds` and `warmupSeconds`, validated. */
export function runLength(
  where: string,
  params: { seconds?: number; warmupSeconds?: number },
  defaultSeconds: number,
): { defaultDurationNs: number; defaultWarmupNs: number } {
  const seconds = requireNumber(where, "seconds", params.seconds ?? defaultSeconds, 0, false);
  const warm = requireNumber(where, "warmupSeconds", params.warmupSeconds ?? 0, 0);
  return { defaultDurationNs: Math.round(seconds * 1e9), defaultWarmupNs: Math.round(warm * 1e9) };
}
