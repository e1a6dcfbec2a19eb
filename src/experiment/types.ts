// The data a run produces: plain JSON-able records, so a result can be saved, diffed and reloaded.
import type { TraceRecord } from "../kernel/trace";
import type { SchedCounters } from "../kernel/counters";

export type { BalanceLevelStats, LagStats, SchedCounters } from "../kernel/counters";

/** What one task did in an iteration (its /proc/<pid>/sched figures, roughly). */
export interface TaskStats {
  pid: number;
  comm: string;
  /** Workload-defined role ("hog", "netperf", "netserver", "worker"...). */
  role: string;
  policy: "normal" | "fifo" | "rr" | "batch" | "idle";
  nice: number;
  rtPriority: number;
  runtimeNs: number; // sum_exec_runtime
  waitNs: number; // runnable but not running
  sleepNs: number;
  switches: number; // nvcsw + nivcsw
  voluntarySwitches: number;
  involuntarySwitches: number;
  migrations: number;
  wakeups: number;
  lastCpu: number;
  /** Workload counters (loop counts, messages sent...). */
  counters: Record<string, number>;
}

/** What one CPU did in an iteration. */
export interface CpuStats {
  cpu: number;
  online: boolean;
  idleNs: number;
  /** Time not idle and not offline: task runtime plus overheadNs. */
  busyNs: number;
  /** Kernel work charged to no task (interrupts and balancing on a CPU that stays idle), ns. */
  overheadNs: number;
  /** Time the CPU spent offline. */
  offlineNs: number;
  contextSwitches: number;
  ipisReceived: number;
}

/** Everything one (variant, iteration) produced, as plain JSON-able data. */
export interface IterationResult {
  variant: string;
  iteration: number;
  seed: string;
  durationNs: number;
  /** The workload's figures, under the benchmark's own names. */
  metrics: Record<string, number>;
  /**
   * Distributions and time series (latency samples, per-interval values...), each in the unit
   * its workload documents; "sample.t" (RunOptions.sample) is in simulated seconds.
   */
  series: Record<string, number[]>;
  tasks: TaskStats[];
  cpus: CpuStats[];
  sched: SchedCounters;
  /** Number of simulation events processed. */
  events: number;
  trace?: TraceRecord[];
  /** Older trace records overwritten because the run passed its trace limit. */
  traceDropped?: number;
}

/** A JSON description of what was run, enough to run it again. */
export interface ExperimentSpec {
  machine: string | Record<string, unknown>;
  /** CPUs taken offline right after boot. */
  offline: number[];
  /** CPUs not brought up at boot. */
  offlineAtBoot?: number[];
  era: string;
  workload: { name: string; params: Record<string, unknown> };
  /** variant -> its patch names, or what a variant({...}) changes (machine, era, patches). */
  variants: Record<string, string[] | Record<string, unknown>>;
  iterations: number;
  seed: string;
  durationNs: number;
  warmupNs: number;
  tunables: Record<string, number>;
  /** CPUs taken offline or brought online during each run. */
  hotplug: Array<{ atNs: number; cpu: number; online: boolean }>;
  /** Changes made to the machine's figures (costs() on a preset, editMachine()), by label. */
  machineEdits?: string[];
  /** The value of each declared unknown in this run (assumed, calibrated or its default). */
  unknowns?: Record<string, number | string>;
}

/** A whole run: the spec that produced it, the schedlab version, and every iteration. */
export interface ResultsData {
  schedlab: string; // version
  spec: ExperimentSpec;
  iterations: IterationResult[];
}
