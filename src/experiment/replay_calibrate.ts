// The one figure a recording's machine lacks that its trace gives: how long a halted CPU takes to
// run a task after the wakeup's IPI. A guest with no cpuidle driver halts (HLT) and sysfs says
// nothing of the time to wake; the trace shows it as the latency of wakeups sent from a task on
// one CPU to the other, idle, CPU. Calibrated in closed form on one figure named in advance (the
// median of that latency), so every other figure of a replay stays a prediction: the model's
// latency at exit 0 is measured, and the exit latency is what the trace adds to it.
import { machineFromFile } from "../machine/presets";
import type { Machine } from "../machine/types";
import { percentile } from "../analysis/stats";
import { traceFigures } from "../analysis/trace_compare";
import { readRecording, replayRecording } from "./replay_run";

/** A recording by its directory, or as readRecording gave it (read once for both calibrations). */
type RecordingSource = string | Awaited<ReturnType<typeof readRecording>>;
const read = (where: RecordingSource) =>
  typeof where === "string" ? readRecording(where) : Promise.resolve(where);

/** What calibrateHaltExit found. */
export interface HaltExitCalibration {
  /** The target: median latency of wakeups to an idle CPU in the trace, ns. */
  realP50Ns: number;
  /** The model's median with a halted CPU that wakes at once, ns. */
  baseP50Ns: number;
  /** The calibrated exit latency of the HLT state, ns (whole ns, >= 0). */
  exitLatencyNs: number;
  /** The model's median with it (the check), ns. */
  checkP50Ns: number;
  /** Wakeups to an idle CPU counted in the trace and in the check replay. */
  realCount: number;
  modelCount: number;
}

function withHaltExit(m: Machine, ns: number): Machine {
  const c = structuredClone(m);
  const hlt = c.idleStates.find((s) => s.name === "HLT" && !s.polling);
  if (!hlt)
    throw new Error(
      `calibrate halt exit: ${m.name} has no non-polling HLT idle state (idle states: ${m.idleStates.map((s) => s.name).join(", ")}); only a machine that halts when idle has this figure`,
    );
  hlt.exitLatencyNs = ns;
  return c;
}

/** Calibrates the HLT exit latency of a recording's machine on its trace (closed replay). */
export async function calibrateHaltExit(where: RecordingSource): Promise<HaltExitCalibration> {
  const rec = await read(where);
  if (!rec.recording.machineFile)
    throw new Error(`calibrate halt exit: no machine.json beside ${rec.recording.traceFile}`);
  const machine = machineFromFile(rec.recording.machineFile);
  const p50 = (xs: number[]) => (xs.length ? percentile(xs, 50) : Number.NaN);
  const base = await replayRecording(rec, { mode: "closed", machine: withHaltExit(machine, 0) });
  const realP50Ns = p50(base.comparison.real.idleWakeLatencyNs);
  const baseP50Ns = p50(base.comparison.simulated.idleWakeLatencyNs);
  if (!Number.isFinite(realP50Ns) || !Number.isFinite(baseP50Ns))
    throw new Error(
      `calibrate halt exit: ${rec.recording.traceFile} has no wakeup of an idle CPU from a task on another CPU (real ${base.comparison.real.idleWakeLatencyNs.length}, model ${base.comparison.simulated.idleWakeLatencyNs.length})`,
    );
  const exitLatencyNs = Math.max(0, Math.round(realP50Ns - baseP50Ns));
  const check = await replayRecording(rec, {
    mode: "closed",
    machine: withHaltExit(machine, exitLatencyNs),
  });
  return {
    realP50Ns,
    baseP50Ns,
    exitLatencyNs,
    checkP50Ns: p50(check.comparison.simulated.idleWakeLatencyNs),
    realCount: base.comparison.real.idleWakeLatencyNs.length,
    modelCount: check.comparison.simulated.idleWakeLatencyNs.length,
  };
}

/**
 * KVM_HALT_POLL_NS_DEFAULT (arch/x86/include/asm/kvm_host.h): the most a KVM host polls for a
 * halted vCPU's wakeup before it puts the vCPU thread to sleep (`halt_poll_ns`; the window adapts
 * per vCPU between 0 and it, growing from 10 us on short halts: virt/kvm/kvm_main.c).
 */
export const KVM_HALT_POLL_NS_DEFAULT = 200_000;

/** What calibrateHaltPollExit found. */
export interface HaltPollCalibration {
  pollNs: number;
  /** The target: median latency of the trace's wakeups to a CPU idle longer than pollNs, ns. */
  realP50Ns: number;
  realCount: number;
  /** The calibrated exit after the host stopped polling, ns. */
  exitNs: number;
  /** The model's median over its own such wakeups with both exits set (the check), ns. */
  checkP50Ns: number;
  modelCount: number;
}

/**
 * The exit of a vCPU halted longer than the host polls for it, calibrated in closed form on one
 * figure named in advance: the median latency of the recording's wakeups to a CPU idle for more
 * than `pollNs` (idle measured from its switch to idle; interrupts in between are not in a sched
 * trace). The model's own wake path at exit 0 is `fast.baseP50Ns`, as for the fast exit.
 */
export async function calibrateHaltPollExit(
  where: RecordingSource,
  fast: HaltExitCalibration,
  pollNs = KVM_HALT_POLL_NS_DEFAULT,
): Promise<HaltPollCalibration> {
  const rec = await read(where);
  if (!rec.recording.machineFile)
    throw new Error(`calibrate halt poll: no machine.json beside ${rec.recording.traceFile}`);
  const machine = withHaltExit(machineFromFile(rec.recording.machineFile), fast.exitLatencyNs);
  const longer = (f: { idleWakeLatencyNs: number[]; idleWakeIdleNs: number[] }) =>
    f.idleWakeLatencyNs.filter((_, i) => f.idleWakeIdleNs[i] > pollNs);
  const p50 = (xs: number[]) => (xs.length ? percentile(xs, 50) : Number.NaN);
  // the target comes from the trace alone: no replay is needed for it
  const real = longer(traceFigures(rec.trace.records, rec.trace.nrCpus));
  if (real.length === 0)
    throw new Error(
      `calibrate halt poll: ${rec.recording.traceFile} has no wakeup of a CPU idle longer than ${pollNs} ns`,
    );
  const realP50Ns = p50(real);
  const exitNs = Math.max(0, Math.round(realP50Ns - fast.baseP50Ns));
  const hlt = machine.idleStates.find((s) => s.name === "HLT")!;
  hlt.haltPoll = { pollNs, exitNs };
  const check = await replayRecording(rec, { mode: "closed", machine });
  const model = longer(check.comparison.simulated);
  return {
    pollNs,
    realP50Ns,
    realCount: real.length,
    exitNs,
    checkP50Ns: p50(model),
    modelCount: model.length,
  };
}
