// Shared by the idle-loop tests (idle_call, menu_typical): a two-core box with four idle states,
// and a task on cpu0 that runs, sets cpu0's idle prediction, then sleeps, so cpu0 goes idle
// with that prediction.
import { machineBuilder } from "../../../src/machine/builder";
import { call, run, sleep } from "../../../src/kernel/ops";
import type { IdleState } from "../../../src/machine/types";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Era } from "../../../src/kernel/features";
import { boot } from "../boot";

export const STATES: IdleState[] = [
  { name: "POLL", exitLatencyNs: 0, targetResidencyNs: 0, polling: true },
  { name: "C1", exitLatencyNs: 2_000, targetResidencyNs: 2_000, polling: false },
  { name: "C3", exitLatencyNs: 30_000, targetResidencyNs: 100_000, polling: false },
  { name: "C6", exitLatencyNs: 120_000, targetResidencyNs: 400_000, polling: false },
];

/** One socket of two cores, with `states` (default: the machine builder's own), booted on `era`. */
export function twoCores(era: Era, states?: IdleState[]): Kernel {
  const b = machineBuilder().sockets(1).cores(2);
  return boot((states ? b.idleStates(states) : b).build(), era);
}

/**
 * Spawns on cpu0 a task that runs 0.5 ms, calls `prime` (which sets cpu0's prediction), sleeps
 * 5 ms, and then, with `thenSpin`, runs for ever.
 */
export function primeThenSleep(k: Kernel, prime: () => void, thenSpin = false): void {
  k.spawn({
    comm: "s",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(500_000);
      yield call(prime);
      yield sleep(5_000_000);
      if (thenSpin) yield run(Infinity);
    },
  });
}
