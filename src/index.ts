// schedlab's public surface: everything a notebook or script imports comes from here.
import * as workloadBasic from "./workload/basic";
import { schedFair } from "./workload/sched_fair";
import * as patchSeeds from "./patch/seeds/index";

// Hooks register themselves when their kernel modules load; load them all here.
import "./kernel/core/core";
import "./kernel/core/ttwu";
import "./kernel/fair/wake/select";
import "./kernel/rt/rt";
import "./kernel/topology/hooks";
import "./reproduce/demo";
import "./reproduce/seed002";

export { topology, Experiment, type RunOptions } from "./experiment/experiment";
export { Results } from "./experiment/results";
export type {
  ResultsData,
  IterationResult,
  TaskStats,
  CpuStats,
  SchedCounters,
  ExperimentSpec,
} from "./experiment/types";
export type { TraceRecord, MigrationReason } from "./kernel/trace";
export { runIteration, buildKernel, type IterationSpec } from "./experiment/run";
export { patch, Patch, applyPatches, type PatchSource } from "./patch/patch";
export { hookNames, hookDescription, type HookName, type HookTypes } from "./kernel/hooks";
export { ERAS, eraDefaults, type Era, type Features, type Tunables } from "./kernel/features";
export { preset, presetNames } from "./machine/presets";
export { machineBuilder } from "./machine/builder";
export type { Machine, CpuInfo, CostModel, ShareLevel, IdleState } from "./machine/types";
export {
  buildSchedDomains,
  describeDomains,
  defaultGroupCapacity,
} from "./kernel/topology/topology";
export type { SchedDomain, SchedGroup, DomainTree } from "./kernel/topology/sched_domain";
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
  setAffinity,
  call,
  exit,
  Op,
  type Program,
  type TaskApi,
} from "./kernel/ops";
export { Channel } from "./kernel/channel";
export { SCHED_PRIO_TO_WEIGHT, niceToWeight } from "./kernel/prio";
export type { Workload, WorkloadContext, WorkloadRun } from "./workload/workload";
export {
  reproduction,
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
  type LedgerExperiment,
} from "./reproduce/ledger";
export { WF_SYNC, WF_FORK, WF_TTWU, WF_MIGRATED, WF_ON_CPU, WF_EXEC } from "./kernel/sched";
export * as analysis from "./analysis/index";
export * as plot from "./plot/index";
export { VERSION } from "./version";

/** Workload factories: workload.hogs({...}), workload.pingpong({...}), ... */
export const workload = {
  hogs: workloadBasic.hogs,
  pingpong: workloadBasic.pingpong,
  sleepers: workloadBasic.sleepers,
  schedFair,
};

/** The published patches, as data. */
export const seeds = { ...patchSeeds };
