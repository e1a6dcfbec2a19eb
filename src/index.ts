// schedlab's public surface: everything a notebook or script imports comes from here.
import * as workloadBasic from "./workload/basic";
import { schedFair } from "./workload/sched_fair";
import { withBackground } from "./workload/background";
import { mix } from "./workload/mix";
import { schbench as schbenchFactory } from "./workload/schbench";
import { oltpRtMix as oltpRtMixFactory } from "./workload/oltp_rt_mix";
import { sysbenchCpu } from "./workload/sysbench_cpu";
import { threadBurst } from "./workload/thread_burst";
import { perfBenchPipe } from "./workload/perf_bench_pipe";
import { stressCpu } from "./workload/stress_cpu";
import { cacheHog, stream } from "./workload/stream";
import { replayTaking } from "./workload/replay";
import { rtApp } from "./workload/rt_app";
import { netperfUdpStream as netperfUdpStreamFactory } from "./workload/netperf";
import { unixbenchContext1 as unixbenchContext1Factory } from "./workload/unixbench";
import { hackbench } from "./workload/hackbench";
import { netperfTcpRr } from "./workload/netperf_tcp_rr";
import * as patchSeeds from "./patch/seeds/index";
import { takingCpus, withCpus, type CpusOption } from "./workload/cpus";
import type { BenchmarkWorkload as RtAppWorkload } from "./workload/sysbench_cpu";

// Hooks register themselves when their kernel modules load; load them all here.
import "./kernel/core/core";
import "./kernel/core/ttwu";
import "./kernel/fair/wake/select";
import "./kernel/rt/rt";
import "./kernel/topology/hooks";
import "./reproduce/demo";
import "./reproduce/seed000";
import "./reproduce/seed001";
import "./reproduce/seed002";
import "./reproduce/seed003";
import "./reproduce/seed004";

export { topology, Experiment } from "./experiment/experiment";
export type { OfflineOptions, RunOptions, VariantDef } from "./experiment/experiment";
export { Results } from "./experiment/results";
export { unknown, variant } from "./experiment/declare";
export { spanOf, unknownInfo, UNKNOWN_UNITS } from "./experiment/unknown";
export type { Unknown, UnknownInfo, UnknownOptions, UnknownValue } from "./experiment/unknown";
export { Variant, type VariantOptions } from "./experiment/variant";
export {
  SweepResult,
  metricFigures,
  sweepPoints,
  type SweepDesign,
  type SweepFigure,
  type SweepGrid,
  type SweepOptions,
  type SweepPoint,
  type EnvelopeData,
  type SensitivityData,
} from "./experiment/sweep";
export {
  checkCalibration,
  startDesign,
  type CalibrateOptions,
  type CalibrationRecord,
  type CalibrationTarget,
} from "./experiment/calibrate";
export type { Calibrated } from "./experiment/unknown_steps";
export { envelopePlot, sensitivityPlot } from "./plot/sensitivity";
export type { EnvelopeOptions, SensitivityOptions } from "./plot/sensitivity";
export type {
  ResultsData,
  IterationResult,
  TaskStats,
  CpuStats,
  SchedCounters,
  LagStats,
  ExperimentSpec,
} from "./experiment/types";
export type { TraceRecord, MigrationReason } from "./kernel/trace";
export { TraceBuffer, DEFAULT_TRACE_LIMIT } from "./kernel/trace";
export { RunLimitError, type RunLimits, type KernelSampler } from "./experiment/run";
export { runIteration, buildKernel, type IterationSpec } from "./experiment/run";
export { patch, Patch, applyPatches, type PatchSource } from "./patch/patch";
export { hookNames, hookDescription, type HookName, type HookTypes } from "./kernel/hooks";
/** Per hook: kernel function and file per era, context fields, default, example (docs/hooks.md). */
export { HOOK_DOCS, hookDoc, type HookDoc, type HookEraDoc } from "./kernel/hook_docs";
export { hookHelpText } from "./kernel/hook_docs_text";
export { ERAS, eraDefaults, type Era, type Features, type Tunables } from "./kernel/features";
export { avgVruntime, cfsRqMinSlice, entityEligible } from "./kernel/fair/eevdf";
export { eraModelNote } from "./kernel/era_model";
export {
  preset,
  presetNames,
  presetSpec,
  machineFromSpec,
  machineFromFile,
  machineByName,
} from "./machine/presets";
export { machineSpecSchema } from "./machine/schema";
export {
  importMachine,
  DEFAULT_PROFILE,
  type ImportOptions,
  type ImportResult,
} from "./machine/import";
export {
  readSysfsDir,
  readSysfs,
  readLscpu,
  sysfsFilesOf,
  mapReader,
  dirReader,
  parseCpuList,
  formatCpuList,
  type CpuRecord,
  type CpuTable,
  type FileReader,
} from "./machine/sysfs";
export type { MachineSpec, Sourced } from "./machine/schema";
export { machineBuilder } from "./machine/builder";
export type {
  Arch,
  Machine,
  CpuInfo,
  CostModel,
  ShareLevel,
  IdleState,
  IdleExitDraw,
  ExitTimeDraw,
} from "./machine/types";
export {
  buildSchedDomains,
  describeDomains,
  defaultGroupCapacity,
} from "./kernel/topology/topology";
export type { SchedDomain, SchedGroup, DomainTree } from "./kernel/topology/sched_domain";
/** The sched-domain flags (include/linux/sched/sd_flags.h; the 2.6.x ones where an era has them). */
export {
  SD_LOAD_BALANCE,
  SD_BALANCE_NEWIDLE,
  SD_BALANCE_EXEC,
  SD_BALANCE_FORK,
  SD_BALANCE_WAKE,
  SD_WAKE_AFFINE,
  SD_SHARE_CPUCAPACITY,
  SD_SHARE_PKG_RESOURCES,
  SD_SERIALIZE,
  SD_PREFER_SIBLING,
  SD_NUMA,
  SD_ASYM_PACKING,
  SD_POWERSAVINGS_BALANCE,
  SD_WAKE_IDLE,
  SD_WAKE_BALANCE,
  SD_CLUSTER,
  SD_ASYM_CPUCAPACITY,
  SD_ASYM_CPUCAPACITY_FULL,
  SD_FLAG_NAMES,
  sdFlagNames,
} from "./kernel/topology/sched_domain";
/** Group types in each balancer family's order, migration types, and the balancer's load/util helpers. */
export {
  GROUP_TYPES_48,
  GROUP_TYPES_56,
  MIGRATION_TYPES,
  SCHED_LOAD_SCALE,
  type GroupType48,
  type GroupType56,
} from "./kernel/fair/lb/types";
export { cpuUtil, cpuAvgLoadPerTask } from "./kernel/fair/lb/common";
export { NICE_0_LOAD } from "./kernel/sched";
export { SCHED_CAPACITY_SCALE } from "./machine/builder";
export { Kernel, type SpawnSpec } from "./kernel/core/core";
export {
  run,
  sleep,
  send,
  recv,
  wait,
  wake,
  yieldCpu,
  setNice,
  setPolicy,
  setSlice,
  setAffinity,
  call,
  exit,
  fork,
  Op,
  type Program,
  type TaskApi,
} from "./kernel/ops";
export { repeat, type RepeatOptions } from "./kernel/repeat";
export { Channel } from "./kernel/channel";
export { SCHED_PRIO_TO_WEIGHT, niceToWeight } from "./kernel/prio";
export type { Workload, WorkloadContext, WorkloadRun } from "./workload/workload";
export {
  reproduction,
  reproductionAt,
  reproductionIds,
  runReproduction,
  publishedFor,
  type Reproduction,
} from "./reproduce/registry";
export {
  formatLedger,
  ledgerEntry,
  newLedger,
  type Ledger,
  type LedgerRow,
  type FigureKind,
  type LedgerExperiment,
} from "./reproduce/ledger";
export { WF_SYNC, WF_FORK, WF_TTWU, WF_MIGRATED, WF_ON_CPU, WF_EXEC } from "./kernel/sched";
/** Statistics, comparison tables, data frames and trace views of results. */
export * as analysis from "./analysis/index";
/** Plotly figure builders and notebook display helpers. */
export * as plot from "./plot/index";
export { VERSION } from "./version";

/**
 * Workload factories: workload.hogs({...}), workload.pingpong({...}), ... Each takes `cpus` (a
 * cpulist such as "0,16,32-47", as `taskset -c` runs the tool: CpusOption) and documents its
 * metrics with their units below; docs/metrics.md has them all in one table.
 */
export const workload = {
  /**
   * CPU hogs that never sleep. Metrics: `share_hog<i>` (fraction 0-1 of the hogs' CPU time),
   * `total_work_s` (s of CPU time). `cpus` pins every hog.
   */
  hogs: workloadBasic.hogs,
  /**
   * Pairs of tasks bouncing a message through two pipes (UnixBench context1). Metrics:
   * `round_trips` (count), `round_trips_per_s` (1/s), `round_trip_us` (us per pair).
   */
  pingpong: takingCpus("workload.pingpong", workloadBasic.pingpong),
  /** Tasks alternating random CPU bursts and sleeps. Metrics: `cycles` (count), `cycles_per_s` (1/s). */
  sleepers: takingCpus("workload.sleepers", workloadBasic.sleepers),
  /**
   * Miao Xie's sched-fair loop counter (seed 002). Metrics: `avg_loops` and `stddev_loops`
   * (loops), `cv_loops` (ratio), `intervals` (count).
   */
  schedFair: takingCpus("workload.schedFair", schedFair),
  /** A workload plus per-CPU background kernel threads (off unless asked for); the workload's metrics. */
  withBackground,
  /**
   * schbench (2016-2020): message threads waking workers (seed 003). Metrics: `lat_p<pct>` (us:
   * p50 ... p99.9), `lat_max` (us), `samples` (count), `xnode_wakeups_per_s` and
   * `xnode_migrations_per_s` (1/s), `same_node_frac` and `idle_package_wake_frac` (fraction 0-1).
   */
  schbench: takingCpus("workload.schbench", schbenchFactory),
  /** Several workloads at once; the first keeps its metric names, the others are prefixed. Each part takes its own `cpus`. */
  mix,
  /**
   * OLTP-like mix: fair transaction tasks on every CPU, RT server threads at a few levels (seed
   * 004). Metrics: `throughput_tps`, `push_rq_locks_per_s`, `push_target_locks_per_s`,
   * `pull_rq_locks_per_s`, `wakeup_rq_locks_per_s`, `rq_locks_per_s`, `resched_ipis_per_s`,
   * `rt_double_lock_dropped_per_s`, `equal_prio_wakeups_per_s`, `rt_pushes_per_s`,
   * `rt_pulls_per_s`, `context_switches_per_s`, `rq_locks_per_s` (all 1/s); `rq_lock_wait_us_per_s`,
   * `push_lock_wait_us_per_s`, `pull_lock_wait_us_per_s`, `wakeup_lock_wait_us_per_s` (us of
   * spin per s); `rt_wakeup_latency_p50_us`, `rt_wakeup_latency_p99_us`,
   * `rt_wakeup_latency_all_p99_us` (us); `rt_util` (fraction 0-1).
   */
  oltpRtMix: takingCpus("workload.oltpRtMix", oltpRtMixFactory),
  /**
   * sysbench 1.0 `cpu`: threads computing primes; `.format()` prints sysbench's report. Metrics:
   * `events_per_s` (1/s), `total_time_s` (s), `events` (count), `lat_min_ms`, `lat_avg_ms`,
   * `lat_max_ms`, `lat_p<percentile>_ms`, `lat_sum_ms` (ms), `fairness_events_avg` and
   * `fairness_events_stddev` (events), `fairness_time_avg_s` and `fairness_time_stddev_s` (s),
   * `finished` (0 or 1).
   */
  sysbenchCpu: takingCpus("workload.sysbenchCpu", sysbenchCpu),
  /**
   * `perf bench sched pipe`: two tasks ping-ponging over two pipes; `.format()` prints perf's
   * report. Metrics: `total_time_s` (s), `usecs_per_op` (us), `ops_per_sec` (1/s), `loops` and
   * `loops_done` (count), `finished` (0 or 1).
   */
  perfBenchPipe: takingCpus("workload.perfBenchPipe", perfBenchPipe),
  /**
   * stress-ng `--cpu N --cpu-load P`: duty-cycled CPU hogs; `.format()` prints stress-ng's
   * metrics. Metrics: `bogo_ops` (bogo ops), `real_time_s`, `usr_time_s`, `sys_time_s` (s),
   * `bogo_ops_per_s_real` and `bogo_ops_per_s_cpu` (bogo ops/s), `cpu_used_per_instance_pct` (%),
   * `instances` (count), `load_w<i>` (% of instance i's wall time on a CPU), `finished` (0 or 1).
   */
  stressCpu: takingCpus("workload.stressCpu", stressCpu),
  /**
   * rt-app: a LISA-style JSON description (phases of run/runtime/sleep/timer/lock, policies,
   * affinities), zod-validated; `.format()` prints its logs; `cpus` as a second argument. Metrics:
   * per thread instance `<thread>-<i>.loops` (count), `<thread>-<i>.wu_lat_avg_us`,
   * `<thread>-<i>.wu_lat_max_us`, `<thread>-<i>.slack_min_us`, `<thread>-<i>.period_avg_us` (us);
   * `wu_lat_avg_us`, `wu_lat_max_us` (us), `missed_timers` (count).
   */
  rtApp: (json: unknown, opts: CpusOption = {}): RtAppWorkload =>
    withCpus("workload.rtApp", rtApp(json), opts.cpus) as RtAppWorkload,
  /**
   * netperf UDP_STREAM over loopback (seed 000). Metrics: `throughput_mbps` and
   * `recv_throughput_mbps` (Mbit/s, 10^6 bit/s), `messages_ok`, `messages_received`,
   * `messages_dropped`, `send_errors` (count), `active_balances_per_s`, `migrations_per_s` (1/s),
   * `pair_shares_l2_fraction` (fraction 0-1), `split_episodes_per_s` (1/s), `split_ms_p50`,
   * `split_ms_p90` (ms: how long the pair stays on CPUs that share no cache).
   */
  netperfUdpStream: takingCpus("workload.netperfUdpStream", netperfUdpStreamFactory),
  /**
   * netperf TCP_RR over loopback, `pairs` concurrent pairs (mmtests' NETPERF_NR_PAIRS); `.format()`
   * prints netperf's report. Metrics: `trans_per_s` (1/s, summed over the pairs), `transactions`
   * (count), `elapsed_s` (s), `round_trip_us` (us, mean per pair), `migrations_per_s` (1/s),
   * `same_cpu_fraction` (fraction 0-1), `send_socket_bytes` and `recv_socket_bytes` (bytes),
   * `pairs` (count, when more than one).
   */
  netperfTcpRr: takingCpus("workload.netperfTcpRr", netperfTcpRr),
  /**
   * UnixBench context1 (pipe ping-pong copies), passes combined as UnixBench does (seed 001).
   * Metrics: `score` (index), `lps` (loops/s), `round_trip_us` (us), `wakelist_wakeups_per_s`,
   * `ipis_per_s`, `remote_rq_lock_waits_per_s`, `on_cpu_spins_per_s` (1/s); `local_wakeup_share`,
   * `rq_lock_spin_share`, `idle_share` (fractions 0-1).
   */
  unixbenchContext1: takingCpus("workload.unixbenchContext1", unixbenchContext1Factory),
  /**
   * `perf bench sched messaging` (hackbench): groups of senders and receivers over sockets or
   * pipes; `.format()` prints perf's report. Metrics: `total_time_s` (s), `finished` (0 or 1),
   * `messages`, `tasks`, `writer_sleeps`, `writer_wakeups`, `writer_spurious_wakeups` (count),
   * `context_switches_per_s`, `wakeup_preemptions_per_s` (1/s).
   */
  hackbench: takingCpus("workload.hackbench", hackbench),
  /**
   * Threads created, then released together. Metrics: `cpu_w<i>` (CPU), `cpus_at_release`,
   * `max_stacked`, `migrations_after_release` (count), `spread_ms` (ms, -1: never). */
  threadBurst: takingCpus("workload.threadBurst", threadBurst),
  /** STREAM (McCalpin): threads running one kernel. Metrics: `<kernel>_mb_s`, `mb_s_thread<i>` (MB/s as STREAM prints it), `threads`. */
  stream: takingCpus("workload.stream", stream),
  /** An mcf-like rate workload (copies over their own working sets). Metrics: `runs_per_s` (1/s), `run_time_s` (s), `runs` (count). */
  cacheHog: takingCpus("workload.cacheHog", cacheHog),
  /**
   * A recorded kernel trace (importTraceFile) run again on the model, closed or open (ReplayParams).
   * Metrics: `replay_tasks`, `replay_unfinished` (count), `trace_span_ms`, `replay_span_ms`,
   * `replay_cpu_ms` (ms), `replay_stretch` (ratio); series `replay_pids` for analysis.compareTrace.
   */
  replay: replayTaking,
};

/** The published patches, as data. */
export const seeds = { ...patchSeeds };

// Types the exported API refers to, so the reference documents them too.
export type { IterationJob } from "./experiment/experiment";
export type { ResultPlots } from "./experiment/plots";
export type { HotplugEvent } from "./experiment/run";
export type { BalanceLevelStats } from "./experiment/types";
export type { SelectIdleCpuStats } from "./kernel/counters";
export type { CacheSizes, SharedBandwidth } from "./machine/types";
export type { Footprint } from "./kernel/contention";
export type { StreamParams, CacheHogParams, StreamKernel } from "./workload/stream";
export type { ReplayParams, ReplaySource, ReplayMode } from "./workload/replay";
export { replayRecording, readRecording, recordingAt, nearestEra } from "./experiment/replay_run";
export { shippedRecording, shippedRecordings } from "./experiment/replay_run";
export type { ReplayRun, ReplayRunOptions, Recording } from "./experiment/replay_run";
export type { MachineBuilder, CostOverrides, LlcSpan, Numbering } from "./machine/builder";
export type { IdleLimit } from "./machine/idle_states";
export type { RunProfile, PublishedFile, PublishedFigure } from "./reproduce/registry";
export type { LedgerSource } from "./reproduce/ledger";
export {
  TODAY_ERA,
  TODAY_VARIANT,
  TODAY_MEANING,
  todayExperiment,
  runToday,
  todayRows,
  withToday,
} from "./reproduce/today";
export type { TodaySpec, FigureRole, Verdict } from "./reproduce/types";
export {
  judgeRow,
  verdictCounts,
  verdictContext,
  type VerdictContext,
  type VerdictCounts,
} from "./reproduce/verdict";
export {
  calibrateReproduction,
  calibrationTargets,
  reproductionUnknowns,
  sweepReproduction,
  type CalibrateReproductionOptions,
  type SweepReproductionOptions,
  type UnknownEntry,
} from "./reproduce/unknowns";
export {
  frozenCalibration,
  calibrationFileSchema,
  type CalibrationFile,
} from "./reproduce/calibration_file";
export type { SweepJobTarget, VariantSpec } from "./reproduce/sweep_job";
export type { PoolTask, WorkerJob } from "./reproduce/parallel";
export { loadSweepSpec, parseSweepSpec, planSweep, sweepSpecSchema } from "./sweeps/spec";
export type { PlannedJob, SweepPlan, SweepSpec } from "./sweeps/spec";
export { runSweep, type FailedJob, type RunSweepOptions, type SweepRunSummary } from "./sweeps/run";
export { openSweep, SweepDb, type SweepRecord } from "./sweeps/open";
export { runQueueWorker, type QueueWorkerOptions } from "./sweeps/worker";
export { redisTarget, type RedisTarget } from "./sweeps/redis";
export { identity as schedlabIdentity, type Identity } from "./sweeps/identity";
export type { HogsParams, PingPongParams, SleepersParams } from "./workload/basic";
export type { SchedFairParams } from "./workload/sched_fair";
export { FORK_NS_2009 } from "./workload/sched_fair";
export {
  KTHREADS_2009,
  KTHREADS_GUEST_6_18,
  startBackground,
  type BackgroundParams,
  type BackgroundRun,
} from "./workload/background";
export type { RandomSource, RandomStream } from "./sim/random";
export type { EventQueue } from "./sim/event_queue";
/** Notebook output: display.table(), display.ledger(), display.figure(), display.fmt(). */
export * as display from "./notebook/display";

// Kernel types a patch, a program or a Kernel user meets (hook contexts and what they hold).
export type { SchedCore } from "./kernel/core/api";
export type { KernelConfig } from "./kernel/core/core";
export type {
  Task,
  Rq,
  PackageWake,
  CfsRq,
  RtRq,
  SchedEntity,
  SchedAvg,
  RunnableLoad48,
  PeltRemoved,
  Policy,
  ClassName,
  TaskOp,
  TaskProgram,
} from "./kernel/sched";
export type { Hooks, HookReplacement, HookReplacementEntry } from "./kernel/hooks";
export type { FeatureName, FEATURES } from "./kernel/features";
export type { ChannelKind } from "./kernel/channel";
export type { ForkSpec, OpName } from "./kernel/ops";
export type { SdLevel } from "./kernel/topology/sched_domain";
export type { BuildOptions, GroupCapacityCtx, GroupCapacityFn } from "./kernel/topology/topology";
export type { TtwuQueueCondCtx } from "./kernel/core/ttwu";
export type {
  SelectTaskRqCtx,
  WakeWideCtx,
  WakeAffineCtx,
  SelectIdleSiblingCtx,
  FindIdlestGroupCtx,
  FindIdlestGroupStats,
} from "./kernel/fair/wake/common";
export type {
  FindBusiestGroupCtx,
  FbgResult,
  CalculateImbalanceCtx,
  ImbalanceResult,
  FindBusiestQueueCtx,
  CanMigrateTaskCtx,
  TaskHotCtx,
  NeedActiveBalanceCtx,
  IdleImbalanceSlackCtx,
  NumaImbalanceCtx,
  GroupClassifyCtx,
  GetSdBalanceIntervalCtx,
  LbRq,
  LbTask,
  LbEnv,
  LbHookLookup,
  LbHookSignatures,
  LbHookName,
  CpuIdleType,
  MigrationType,
  LbBalancedReason,
  SgLbStats48,
  SgLbStats56,
  SdLbStats48,
  SdLbStats56,
} from "./kernel/fair/lb/types";
export type {
  SelectTaskRqRtCtx,
  WakeupPushCondCtx,
  TargetFeasibleCtx,
  FindLowestRqCtx,
} from "./kernel/rt/select";

// seed 003
export { SCHBENCH_WORKING_SET_BYTES, type SchbenchParams } from "./workload/schbench";
export { OLTP_RT_MIX_DEFAULTS, rtPrioOf, type OltpRtMixParams } from "./workload/oltp_rt_mix";
export {
  netperfConfidence,
  UDP_LENGTH_MAX,
  SOCKET_BUFFER_DEFAULT,
  NETPERF_TX_STACK_NS,
  NETPERF_RX_STACK_NS,
  type NetperfUdpStreamParams,
  type NetperfConfidence,
} from "./workload/netperf";
export {
  LatencyHistogram,
  SCHBENCH_PERCENTILES,
  HISTOGRAM_RELATIVE_ERROR,
  percentileMetricName,
} from "./analysis/histogram";
export {
  mmtestsCompare,
  formatMmtests,
  type MmtestsRow,
  type MmtestsCell,
  type MmtestsRowInput,
  type MmtestsOptions,
} from "./analysis/mmtests";
export { SEED003_METRICS, publishedPercentiles, mergedHistogram } from "./reproduce/seed003";
export {
  SEED004_METRICS,
  SEED004_VARIANTS,
  pairedRatios,
  seed004Experiment,
} from "./reproduce/seed004";
export {
  SEED004_UNKNOWNS,
  SEED004_MACHINES,
  SEED004_HI_PLACEMENTS,
} from "./reproduce/seed004_unknowns";
export {
  envelopeOfRows,
  readSweepRows,
  sensitivityOfRows,
  sweepRowsPath,
  type SweepFigureRow,
} from "./reproduce/sweep_rows";
export {
  formatSysbenchCpu,
  trialDivisions,
  SYSBENCH_CPU_DIVISION_NS,
} from "./workload/sysbench_cpu";
export type { SysbenchCpuParams, BenchmarkWorkload } from "./workload/sysbench_cpu";
export type { ThreadBurstParams } from "./workload/thread_burst";
export { formatPerfBenchPipe, type PerfBenchPipeParams } from "./workload/perf_bench_pipe";
export { formatStressCpu, type StressCpuParams } from "./workload/stress_cpu";
export {
  formatNetperfTcpRr,
  tcpRmemDefault,
  TCP_WMEM_DEFAULT,
  TCP_RR_TX_NS,
  TCP_RR_RX_NS,
  type NetperfTcpRrParams,
} from "./workload/netperf_tcp_rr";
export {
  formatHackbench,
  unixSkbTruesize,
  HACKBENCH_DATASIZE,
  HACKBENCH_FDS,
  UNIX_STREAM_SEND_NS,
  UNIX_STREAM_RECV_NS,
  type HackbenchParams,
} from "./workload/hackbench";
export { STRESS_CPU_METHOD_RATES } from "./workload/stress_cpu_methods";
export { formatRtApp } from "./workload/rt_app";
export {
  rtAppSchema,
  RT_APP_EVENTS,
  RT_APP_POLICIES,
  type RtAppJson,
} from "./workload/rt_app_schema";
export { SEED000_MECHANISM, keptValues, netperfKept, throughputRatios } from "./reproduce/seed000";

// seed 001
export {
  unixbenchCombine,
  context1Index,
  CONTEXT1_BASELINE_LPS,
  CONTEXT1_COPY_START_US,
  CONTEXT1_WORKING_SET_BYTES,
  type UnixbenchContext1Params,
} from "./workload/unixbench";
export {
  seed001Experiment,
  seed001Duration,
  SEED001_METRICS,
  SEED001_VARIANTS,
  SEED001_PASS_SECONDS,
} from "./reproduce/seed001";

// clusters, asymmetric capacities and cost profiles
export {
  COST_PROFILES,
  costProfile,
  costProfileNames,
  figureValue,
  isGuess,
  machineFigures,
  type CostProfileInfo,
} from "./machine/profiles";
export type { CostProfile } from "./machine/types";
export { hasClusterLevel, clusterFlags } from "./kernel/topology/levels";
export { asymCpuCapacityClassify } from "./kernel/topology/asym";
export { fitsCapacity, taskFitsCapacity, selectIdleCapacity } from "./kernel/fair/wake/capacity";
export { updateMisfitStatus, maxAllowedCapacity, checkMisfitStatus } from "./kernel/fair/misfit";
export { capacityGreater } from "./kernel/fair/lb/misfit";
export { archScaleCpuCapacity, peltScaleCpu, rqClockPeltOf } from "./kernel/fair/pelt_clock";

// The factories the seeds use, also exported by name: the same functions as workload.<name>.
/** workload.schbench. */ export const schbench = workload.schbench;
/** workload.oltpRtMix. */ export const oltpRtMix = workload.oltpRtMix;
/** workload.netperfUdpStream. */ export const netperfUdpStream = workload.netperfUdpStream;
/** workload.unixbenchContext1. */ export const unixbenchContext1 = workload.unixbenchContext1;
export { WORKLOAD_METRICS, type MetricDoc } from "./workload/metrics";
export type { CpusOption, WithCpus } from "./workload/cpus";
