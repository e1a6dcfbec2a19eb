// The one figure a recording's machine lacks that its trace gives: how long a halted CPU takes to
// run a task after the wakeup's IPI. A guest with no cpuidle driver halts (HLT) and sysfs says
// nothing of the time to wake; the trace shows it as the latency of wakeups sent from a task on
// one CPU to the other, idle, CPU. Calibrated in closed form on one figure named in advance (the
// median of that latency), so every other figure of a replay stays a prediction: the model's
// latency at exit 0 is measured, and the exit latency is what the trace adds to it.
import { machineFromFile } from "../machine/presets";
import type { Machine } from "../machine/types";
import { percentile } from "../analysis/stats";
import { readRecording, replayRecording } from "./replay_run";

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
export async function calibrateHaltExit(where: string): Promise<HaltExitCalibration> {
  const rec = await readRecording(where);
  if (!rec.recording.machineFile)
    throw new Error(`calibrate halt exit: no machine.json beside ${rec.recording.traceFile}`);
  const machine = machineFromFile(rec.recording.machineFile);
  const p50 = (xs: number[]) => (xs.length ? percentile(xs, 50) : Number.NaN);
  const base = await replayRecording(rec, { mode: "closed", machine: withHaltExit(machine, 0) });
  const realP50Ns = p50(base.comparison.real.idleWakeLatencyNs);
  const baseP50Ns = p50(base.comparison.simulated.idleWakeLatencyNs);
  if (!Number.isFinite(realP50Ns) || !Number.isFinite(baseP50Ns))
    throw new Error(
      `calibrate halt exit: ${where} has no wakeup of an idle CPU from a task on another CPU (real ${base.comparison.real.idleWakeLatencyNs.length}, model ${base.comparison.simulated.idleWakeLatencyNs.length})`,
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
