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

/** The optional core-only exit (a constant or drawn): within the table's figure, with a scope. */
function checkCoreExit(s: IdleState, where: string): void {
  const core = s.coreExitLatencyNs;
  const draw = s.exitDraw;
  if (core !== undefined && draw !== undefined)
    throw new Error(
      `${where}: give coreExitLatencyNs (a constant core exit) or exitDraw (drawn exits), not both`,
    );
  if (core === undefined && draw === undefined) {
    if (s.packageScope !== undefined)
      throw new Error(
        `${where}: packageScope is only meaningful with coreExitLatencyNs or exitDraw`,
      );
    return;
  }
  if (core !== undefined) {
    if (typeof core !== "number" || !Number.isFinite(core) || core < 0 || core > s.exitLatencyNs)
      throw new Error(
        `${where}: coreExitLatencyNs must be a number of ns from 0 to exitLatencyNs (${s.exitLatencyNs}) (got ${fmt(core)})`,
      );
  } else checkExitDraw(s, where);
  if (s.packageScope !== "package" && s.packageScope !== "system")
    throw new Error(
      `${where}: packageScope must be "package" or "system" with ${core !== undefined ? "coreExitLatencyNs" : "exitDraw"} (got ${fmt(s.packageScope)})`,
    );
}

/** exitDraw: two lognormal draws, each a median within the table's figure and a log-sd >= 0. */
function checkExitDraw(s: IdleState, where: string): void {
  const d = s.exitDraw as unknown as Record<string, Record<string, unknown>> | null;
  if (!d || typeof d !== "object")
    throw new Error(
      `${where}: exitDraw must be { core: { medianNs, logSd }, packageExtra: { medianNs, logSd } } (got ${fmt(d)})`,
    );
  for (const part of ["core", "packageExtra"] as const) {
    const x = d[part];
    if (!x || typeof x !== "object")
      throw new Error(`${where}: exitDraw.${part} must be { medianNs, logSd } (got ${fmt(x)})`);
    const m = x.medianNs;
    if (typeof m !== "number" || !Number.isFinite(m) || m < 0 || m > s.exitLatencyNs)
      throw new Error(
        `${where}: exitDraw.${part}.medianNs must be a number of ns from 0 to exitLatencyNs (${s.exitLatencyNs}) (got ${fmt(m)})`,
      );
    const sd = x.logSd;
    if (typeof sd !== "number" || !Number.isFinite(sd) || sd < 0 || sd > 3)
      throw new Error(
        `${where}: exitDraw.${part}.logSd must be a number from 0 to 3 (the sd of the exit time's natural log) (got ${fmt(sd)})`,
      );
  }
}
