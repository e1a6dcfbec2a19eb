// The recordings in data/traces share one box (the project's 2-CPU Linux 6.18 guest, which has no
// cpuidle driver and halts when idle). The two figures sysfs lacks, the HLT state's exit latency
// while the host still polls for the halted vCPU and after it has stopped, are calibrated on
// perf-bench-pipe, each on one figure named here: the median latency of its wakeups to an idle
// CPU, and the median of those whose CPU had been idle longer than the host's polling window
// (KVM's default ceiling, 200 us: a declared figure, not fitted). Both are written into every
// recording's machine.json (src/experiment/replay_calibrate.ts). Every other figure of
// docs/validation.md is a prediction.
//   node --import tsx scripts/calibrate-recordings.ts          write the machine files
//   node --import tsx scripts/calibrate-recordings.ts --check  exit 1 if one is stale
import * as fs from "node:fs";
import * as path from "node:path";
import {
  calibrateHaltExit,
  calibrateHaltPollExit,
  KVM_HALT_POLL_NS_DEFAULT,
} from "../src/experiment/replay_calibrate";
import { readRecording } from "../src/experiment/replay_run";

export const TRACES_DIR = path.join(__dirname, "..", "data", "traces");
/** The recording whose figure calibrates the box. */
export const CALIBRATION_RECORDING = "perf-bench-pipe";

type Sourced = { value: number; source: string };

/** The HLT state's figures every recording's machine.json should hold. */
export async function haltExitFigures(): Promise<{
  exitLatencyNs: Sourced;
  haltPoll: { pollNs: Sourced; exitNs: Sourced };
}> {
  const rec = await readRecording(path.join(TRACES_DIR, CALIBRATION_RECORDING));
  const c = await calibrateHaltExit(rec);
  const p = await calibrateHaltPollExit(rec, c, KVM_HALT_POLL_NS_DEFAULT);
  const us = (ns: number) => (ns / 1000).toFixed(2);
  const exitLatencyNs = {
    value: c.exitLatencyNs,
    source:
      `calibrated on data/traces/${CALIBRATION_RECORDING} (scripts/calibrate-recordings.ts): the median ` +
      `latency of its ${c.realCount} wakeups from a task on one CPU to the other, idle, CPU is ` +
      `${us(c.realP50Ns)} us; the closed replay gives ${us(c.baseP50Ns)} us with a halted CPU that ` +
      `wakes at once, so the exit is the ${us(c.exitLatencyNs)} us between them (replayed with it: ` +
      `${us(c.checkP50Ns)} us). One of the two figures fitted to these traces`,
  };
  return {
    exitLatencyNs,
    haltPoll: {
      pollNs: {
        value: p.pollNs,
        source:
          "choice: KVM_HALT_POLL_NS_DEFAULT (arch/x86/include/asm/kvm_host.h), the most a KVM host polls for a halted vCPU before it puts the vCPU thread to sleep; the host's own halt_poll_ns is not visible from the guest, and the window adapts per vCPU between 0 and it (virt/kvm/kvm_main.c kvm_vcpu_halt), so this is its ceiling, not fitted",
      },
      exitNs: {
        value: p.exitNs,
        source:
          `calibrated on data/traces/${CALIBRATION_RECORDING} (scripts/calibrate-recordings.ts): the median ` +
          `latency of its ${p.realCount} wakeups to a CPU idle for more than ${us(p.pollNs)} us (idle from ` +
          `its switch to idle) is ${us(p.realP50Ns)} us; less the model's own wake path (${us(c.baseP50Ns)} us, ` +
          `as for the fast exit) the exit is ${us(p.exitNs)} us (the replay's ${p.modelCount} such wakeups: ` +
          `median ${us(p.checkP50Ns)} us). The other figure fitted to these traces`,
      },
    },
  };
}

/** The machine.json files of the recordings, each with the figure written in. */
export async function calibratedMachineFiles(): Promise<Map<string, string>> {
  const fig = await haltExitFigures();
  const out = new Map<string, string>();
  for (const name of fs.readdirSync(TRACES_DIR).sort()) {
    const file = path.join(TRACES_DIR, name, "machine.json");
    if (!fs.existsSync(file)) continue;
    const m = JSON.parse(fs.readFileSync(file, "utf8"));
    const hlt = (
      m.idleStates as Array<{ name: string; exitLatencyNs: unknown; haltPoll?: unknown }>
    ).find((s) => s.name === "HLT");
    if (!hlt) throw new Error(`${file}: no HLT idle state (re-import it: schedlab machine import)`);
    hlt.exitLatencyNs = fig.exitLatencyNs;
    hlt.haltPoll = fig.haltPoll;
    out.set(file, `${JSON.stringify(m, null, 2)}\n`);
  }
  return out;
}

if (require.main === module) {
  calibratedMachineFiles()
    .then((files) => {
      let stale = 0;
      for (const [file, text] of files) {
        if (fs.readFileSync(file, "utf8") === text) continue;
        stale++;
        if (!process.argv.includes("--check")) fs.writeFileSync(file, text);
      }
      if (process.argv.includes("--check") && stale) {
        console.error(
          `${stale} machine.json stale: run node --import tsx scripts/calibrate-recordings.ts`,
        );
        process.exit(1);
      }
      console.log(`${files.size} machine files, ${stale} rewritten`);
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
