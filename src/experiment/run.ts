// Running one iteration of one variant: build the machine and the kernel, set the workload up,
// advance the clock, and collect everything into a plain IterationResult.
import { getHeapStatistics } from "node:v8";
import type { Machine } from "../machine/types";
import { Kernel } from "../kernel/core/core";
import { snapshotCounters } from "../kernel/counters";
import type { Era } from "../kernel/features";
import { Hooks } from "../kernel/hooks";
import { TASK_DEAD } from "../kernel/sched";
import { cpuDown, cpuUp } from "../kernel/core/hotplug";
import type { Patch } from "../patch/patch";
import { applyPatches } from "../patch/patch";
import type { Workload } from "../workload/workload";
import { makeContext } from "../workload/workload";
import type { CpuStats, IterationResult, TaskStats } from "./types";

/** What bounds a run: trace memory, events, heap. A run past a limit throws RunLimitError. */
export interface RunLimits {
  /** Trace records kept per run, the newest (default 1,000,000; older ones are dropped and counted). */
  traceLimit?: number;
  /** Stop a run that processes more events than this (default: no limit). */
  maxEvents?: number;
  /** Stop a run once its thread's JavaScript heap passes this many MiB (default: no limit). */
  maxHeapMb?: number;
}

/** Everything one iteration needs: the machine and its online CPUs, era, patches, workload, seed, length. */
export interface IterationSpec extends RunLimits {
  machine: Machine;
  /** Online state at boot (CPUs not brought up at boot are false). */
  online: boolean[];
  /** CPUs taken offline (cpu_down) right after boot, before the workload. */
  offlineAfterBoot?: readonly number[];
  era: Era;
  patches: readonly Patch[];
  workload: Workload;
  variant: string;
  iteration: number;
  seed: string;
  durationNs: number;
  warmupNs: number;
  trace: boolean;
  /** Check kernel invariants this often (simulated ns); 0 = only at the end. */
  checkEveryNs?: number;
  /** CPUs going offline/online during the run. */
  hotplug?: readonly HotplugEvent[];
  /** Extra tunable overrides applied after the patches. */
  tunables?: Record<string, number>;
  /** Called with the kernel before the workload is set up (tests and explain use it). */
  onKernel?: (k: Kernel) => void;
  /** Read kernel state every `everyNs` simulated ns into series "sample.<key>" (and "sample.t", in seconds). */
  sample?: KernelSampler;
}

/**
 * A periodic probe: `fn` reads the kernel (it must not change it) and returns named numbers.
 * The run stops the clock at each sample time, as it does for invariant checks, so a sampled
 * run schedules exactly the same events as an unsampled one.
 */
export interface KernelSampler {
  /** Simulated ns between samples. */
  everyNs: number;
  /** Reads the kernel (must not change it); returns named numbers. */
  fn: (k: Kernel) => Record<string, number>;
}

/** A CPU going offline or coming online during a run. */
export interface HotplugEvent {
  atNs: number;
  cpu: number;
  online: boolean;
}

/** A booted kernel for the machine, era and patches (sched domains built, no tasks yet). */
export function buildKernel(
  spec: Pick<
    IterationSpec,
    | "machine"
    | "online"
    | "offlineAfterBoot"
    | "era"
    | "patches"
    | "seed"
    | "trace"
    | "traceLimit"
    | "tunables"
  >,
): Kernel {
  const { tunables, features, replacements } = applyPatches(spec.era, spec.patches);
  Object.assign(tunables, spec.tunables ?? {});
  const k = new Kernel({
    machine: spec.machine,
    era: spec.era,
    tunables,
    features,
    hooks: new Hooks(spec.era, replacements),
    seed: spec.seed,
    online: spec.online,
    trace: spec.trace,
    traceLimit: spec.traceLimit,
  });
  for (const cpu of spec.offlineAfterBoot ?? []) cpuDown(k, cpu);
  return k;
}

/** Runs one iteration: boots the kernel, sets the workload up, advances the clock to the end, and collects the result. */
export function runIteration(spec: IterationSpec): { result: IterationResult; kernel: Kernel } {
  const k = buildKernel(spec);
  spec.onKernel?.(k);
  const end = spec.durationNs;
  const ctx = makeContext(k, spec.warmupNs, end);
  const wl = spec.workload.setup(ctx);
  for (const h of spec.hotplug ?? [])
    k.at(h.atNs, () => (h.online ? cpuUp(k, h.cpu) : cpuDown(k, h.cpu)));
  const step = spec.checkEveryNs ?? 0;
  const limited = (spec.maxEvents ?? 0) > 0 || (spec.maxHeapMb ?? 0) > 0;
  const samples: Record<string, number[]> = {};
  const sampleNs = spec.sample?.everyNs ?? 0;
  if (step > 0 || limited || sampleNs > 0) {
    // with a limit, look every 10 simulated ms (or at each invariant check)
    const dt = step > 0 ? step : limited ? 10_000_000 : Number.POSITIVE_INFINITY;
    let nextCheck = dt;
    let nextSample = sampleNs > 0 ? sampleNs : Number.POSITIVE_INFINITY;
    for (let t = Math.min(nextCheck, nextSample); t < end; t = Math.min(nextCheck, nextSample)) {
      k.runUntil(t);
      if (t === nextCheck) {
        if (step > 0) k.checkInvariants();
        if (limited) checkLimits(spec, k, t);
        nextCheck += dt;
      }
      if (t === nextSample) {
        takeSample(samples, t, spec.sample!.fn(k));
        nextSample += sampleNs;
      }
    }
  }
  k.runUntil(end);
  if (limited) checkLimits(spec, k, end);
  k.flushAccounting();
  k.checkInvariants();
  const series = { ...(wl.series ? wl.series() : {}), ...samples };
  const result = collect(spec, k, end, sortKeys(wl.metrics()), sortKeys(series));
  return { result, kernel: k };
}

/** One sample: "sample.t" in simulated seconds (the unit of RunOptions.sample.every), then the probe's values. */
function takeSample(
  out: Record<string, number[]>,
  t: number,
  values: Record<string, number>,
): void {
  append(out, "sample.t", t / 1e9);
  for (const [key, v] of Object.entries(values)) {
    if (typeof v !== "number")
      throw new Error(
        `sample: the probe returned ${JSON.stringify(v)} for "${key}"; values must be numbers`,
      );
    append(out, `sample.${key}`, v);
  }
}

function append(out: Record<string, number[]>, key: string, v: number): void {
  const list = out[key];
  if (list) list.push(v);
  else out[key] = [v];
}

/**
 * A run stopped by maxEvents or maxHeapMb. `partial` keeps what the run had when it stopped:
 * per-task and per-CPU statistics, the scheduler counters and the trace up to `stoppedAtNs`
 * (no workload metrics: they are defined over the whole run).
 */
export class RunLimitError extends Error {
  constructor(
    message: string,
    readonly partial: IterationResult,
    readonly stoppedAtNs: number,
  ) {
    super(message);
    this.name = "RunLimitError";
  }
}

function checkLimits(spec: IterationSpec, k: Kernel, atNs: number): void {
  let why = "";
  if (spec.maxEvents && k.events > spec.maxEvents)
    why = `${k.events} events by ${(atNs / 1e9).toFixed(3)} s simulated passed maxEvents = ${spec.maxEvents}`;
  else if (spec.maxHeapMb) {
    const mb = getHeapStatistics().used_heap_size / 2 ** 20;
    if (mb > spec.maxHeapMb)
      why = `heap ${mb.toFixed(0)} MiB by ${(atNs / 1e9).toFixed(3)} s simulated passed maxHeapMb = ${spec.maxHeapMb}`;
  }
  if (!why) return;
  k.flushAccounting();
  throw new RunLimitError(
    `run stopped: ${why}; raise the limit or shorten the run (the error's partial result keeps the tasks, CPUs, counters and trace up to the stop)`,
    collect(spec, k, atNs, {}, {}),
    atNs,
  );
}

/** The plain result of a run that reached `end` (simulated ns). */
function collect(
  spec: IterationSpec,
  k: Kernel,
  end: number,
  metrics: IterationResult["metrics"],
  series: IterationResult["series"],
): IterationResult {
  const result: IterationResult = {
    variant: spec.variant,
    iteration: spec.iteration,
    seed: spec.seed,
    durationNs: end,
    metrics,
    series,
    tasks: k.tasks.map(taskStats(k)),
    cpus: k.rqs.map(
      (rq): CpuStats => ({
        cpu: rq.cpu,
        online: rq.online,
        idleNs: rq.idleNs,
        busyNs: end - rq.offlineNs - rq.idleNs,
        overheadNs: k.overheadNs[rq.cpu],
        offlineNs: rq.offlineNs,
        contextSwitches: rq.contextSwitches,
        ipisReceived: rq.ipisReceived,
      }),
    ),
    sched: snapshotCounters(k.counters),
    events: k.events,
  };
  if (k.trace) {
    result.trace = k.trace.records();
    if (k.trace.dropped > 0) result.traceDropped = k.trace.dropped;
  }
  return result;
}

function taskStats(k: Kernel) {
  return (p: Kernel["tasks"][number]): TaskStats => ({
    pid: p.pid,
    comm: p.comm,
    role: p.role,
    policy: p.policy,
    nice: p.nice,
    rtPriority: p.rtPriority,
    runtimeNs: p.se.sumExecRuntime,
    waitNs:
      p.stats.waitNs +
      (p.state !== TASK_DEAD && p.onRq && !p.onCpu ? k.now - p.lastStateChange : 0),
    sleepNs: p.stats.sleepNs,
    switches: p.stats.nvcsw + p.stats.nivcsw,
    voluntarySwitches: p.stats.nvcsw,
    involuntarySwitches: p.stats.nivcsw,
    migrations: p.stats.migrations,
    wakeups: p.stats.wakeups,
    lastCpu: p.cpu,
    counters: sortKeys(p.counters),
  });
}

function sortKeys<T>(r: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(r).sort()) out[key] = r[key];
  return out;
}
