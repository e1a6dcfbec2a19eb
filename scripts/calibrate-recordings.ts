// The recordings in data/traces share one box (the project's 2-CPU Linux 6.18 guest, which has no
// cpuidle driver and halts when idle). Its one figure sysfs lacks, the HLT state's exit latency,
// is calibrated on perf-bench-pipe's median latency of wakeups to an idle CPU (the target named
// here, src/experiment/replay_calibrate.ts) and written into every recording's machine.json.
// Every other figure of docs/validation.md is a prediction.
//   node --import tsx scripts/calibrate-recordings.ts          write the machine files
//   node --import tsx scripts/calibrate-recordings.ts --check  exit 1 if one is stale
import * as fs from "node:fs";
import * as path from "node:path";
import { calibrateHaltExit } from "../src/experiment/replay_calibrate";

export const TRACES_DIR = path.join(__dirname, "..", "data", "traces");
/** The recording whose figure calibrates the box. */
export const CALIBRATION_RECORDING = "perf-bench-pipe";

/** The HLT state's exitLatencyNs figure every recording's machine.json should hold. */
export async function haltExitFigure(): Promise<{ value: number; source: string }> {
  const c = await calibrateHaltExit(path.join(TRACES_DIR, CALIBRATION_RECORDING));
  const us = (ns: number) => (ns / 1000).toFixed(2);
  return {
    value: c.exitLatencyNs,
    source:
      `calibrated on data/traces/${CALIBRATION_RECORDING} (scripts/calibrate-recordings.ts): the median ` +
      `latency of its ${c.realCount} wakeups from a task on one CPU to the other, idle, CPU is ` +
      `${us(c.realP50Ns)} us; the closed replay gives ${us(c.baseP50Ns)} us with a halted CPU that ` +
      `wakes at once, so the exit is the ${us(c.exitLatencyNs)} us between them (replayed with it: ` +
      `${us(c.checkP50Ns)} us). The only figure fitted to these traces`,
  };
}

/** The machine.json files of the recordings, each with the figure written in. */
export async function calibratedMachineFiles(): Promise<Map<string, string>> {
  const fig = await haltExitFigure();
  const out = new Map<string, string>();
  for (const name of fs.readdirSync(TRACES_DIR).sort()) {
    const file = path.join(TRACES_DIR, name, "machine.json");
    if (!fs.existsSync(file)) continue;
    const m = JSON.parse(fs.readFileSync(file, "utf8"));
    const hlt = (m.idleStates as Array<{ name: string; exitLatencyNs: unknown }>).find(
      (s) => s.name === "HLT",
    );
    if (!hlt) throw new Error(`${file}: no HLT idle state (re-import it: schedlab machine import)`);
    hlt.exitLatencyNs = fig;
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
