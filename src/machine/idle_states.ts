// Validation of a machine's idle states (cpuidle driver tables), for the builder and files.
import type { IdleState } from "./types";

function fmt(x: unknown): string {
  return typeof x === "string" || Array.isArray(x) ? JSON.stringify(x) : String(x);
}

/** Throws naming the state and field unless `states` is a valid shallow-to-deep table. */
export function checkIdleStates(states: unknown): void {
  if (!Array.isArray(states))
    throw new Error(
      `idleStates: must be an array of {name, exitLatencyNs, targetResidencyNs, polling} (got ${fmt(states)})`,
    );
  const seen = new Set<string>();
  let prevExit = -1;
  states.forEach((s: IdleState, i) => {
    const where = `idleStates[${i}]`;
    if (!s || typeof s.name !== "string" || s.name.length === 0)
      throw new Error(`${where}: name must be a non-empty string (got ${fmt(s?.name)})`);
    if (seen.has(s.name))
      throw new Error(`${where}: name must be unique (got duplicate "${s.name}")`);
    seen.add(s.name);
    for (const k of ["exitLatencyNs", "targetResidencyNs"] as const) {
      if (typeof s[k] !== "number" || !Number.isFinite(s[k]) || s[k] < 0) {
        throw new Error(`${where}: ${k} must be a non-negative number of ns (got ${fmt(s[k])})`);
      }
    }
    if (typeof s.polling !== "boolean")
      throw new Error(`${where}: polling must be true or false (got ${fmt(s.polling)})`);
    checkCoreExit(s, where);
    // cpuidle drivers list states shallow to deep; the governor relies on that order.
    if (s.exitLatencyNs < prevExit) {
      throw new Error(
        `${where}: exitLatencyNs must not be below the previous state's (${prevExit}); list states shallow to deep`,
      );
    }
    prevExit = s.exitLatencyNs;
  });
}

/** The optional core-only exit: at most the table's figure, and with the package state's scope. */
function checkCoreExit(s: IdleState, where: string): void {
  const core = s.coreExitLatencyNs;
  if (core === undefined) {
    if (s.packageScope !== undefined)
      throw new Error(`${where}: packageScope is only meaningful with coreExitLatencyNs`);
    return;
  }
  if (typeof core !== "number" || !Number.isFinite(core) || core < 0 || core > s.exitLatencyNs)
    throw new Error(
      `${where}: coreExitLatencyNs must be a number of ns from 0 to exitLatencyNs (${s.exitLatencyNs}) (got ${fmt(core)})`,
    );
  if (s.packageScope !== "package" && s.packageScope !== "system")
    throw new Error(
      `${where}: packageScope must be "package" or "system" with coreExitLatencyNs (got ${fmt(s.packageScope)})`,
    );
}
