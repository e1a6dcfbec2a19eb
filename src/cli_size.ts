// `schedlab reproduce` estimates the size of what it was asked to run before it runs anything:
// runs (variants x iterations, the today variant included) and simulated seconds. Above
// RUN_SIZE_BOUND times what the experiments run by default it refuses, naming the estimate,
// unless --yes is given: `--iterations 1e9` is a typo far more often than an intent.
import type { Reproduction, RunProfile } from "./reproduce/registry";

/** How many times its default size a `reproduce` may run without --yes. */
export const RUN_SIZE_BOUND = 1000;

/** Runs (variant x iteration) and simulated seconds of one experiment under `profile`. */
export interface RunSize {
  runs: number;
  simulatedSeconds: number;
}

/** The size of `r` run with `profile` (its today variant included when it runs one). */
export function runSize(r: Reproduction, profile: RunProfile): RunSize {
  const variants = Object.keys(r.experiment().spec({ ...profile, iterations: 1 }).variants).length;
  const perIteration = variants + (r.today && !r.today.fromVariant ? 1 : 0);
  const runs = perIteration * profile.iterations;
  return { runs, simulatedSeconds: runs * profile.duration };
}

const fmt = (x: number) => (x >= 1e6 ? x.toExponential(2) : String(Math.round(x * 100) / 100));

/**
 * Throws (unless `yes`) when the runs asked for are more than RUN_SIZE_BOUND times the size of
 * the experiments' own `which` profile; the message names the estimate and the bound.
 */
export function checkRunSize(
  repros: readonly Reproduction[],
  which: "full" | "quick",
  over: { iterations?: number; duration?: number },
  yes: boolean,
): void {
  let asked = 0;
  let usual = 0;
  let runs = 0;
  for (const r of repros) {
    const base = r[which];
    const size = runSize(r, {
      ...base,
      iterations: over.iterations ?? base.iterations,
      duration: over.duration ?? base.duration,
    });
    asked += size.simulatedSeconds;
    runs += size.runs;
    usual += runSize(r, base).simulatedSeconds;
  }
  if (yes || asked <= RUN_SIZE_BOUND * usual) return;
  throw new Error(
    `reproduce: the run asked for is estimated at ${fmt(runs)} runs, ${fmt(asked)} simulated seconds: ` +
      `${fmt(asked / usual)} times the experiments' own ${which} size (${fmt(usual)} simulated seconds), ` +
      `above the bound of ${RUN_SIZE_BOUND} times; lower --iterations or --duration, or pass --yes to run it anyway`,
  );
}
