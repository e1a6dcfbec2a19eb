// Validation of a machine's idle states (cpuidle driver tables), for the builder and files.
import type { IdleState, Machine } from "./types";

function fmt(x: unknown): string {
  if (typeof x === "string" || Array.isArray(x)) return JSON.stringify(x);
  return x !== null && typeof x === "object" ? JSON.stringify(x) : String(x);
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

/**
 * The state `idle("poll")` leaves: the idle loop spins with TIF_POLLING_NRFLAG set (idle=poll on
 * x86, nohlt elsewhere: cpu_idle_force_poll, kernel/sched/idle.c do_idle -> cpu_idle_poll), so a
 * wakeup needs no IPI and costs no exit latency; cpuidle is not called.
 */
export const POLL_IDLE_STATE: IdleState = {
  name: "POLL",
  exitLatencyNs: 0,
  targetResidencyNs: 0,
  polling: true,
};

/**
 * `machine` with its cpuidle states limited: "poll" keeps only POLL_IDLE_STATE (idle=poll);
 * { maxState: N } keeps states 0..N of the table, what disabling the deeper ones does
 * (/sys/devices/system/cpu/cpu*\/cpuidle/stateK/disable) and, on intel_idle machines, whose
 * state 0 is POLL, intel_idle.max_cstate=N (intel_idle_cpuidle_driver_init registers table
 * entries 0..max_cstate-1 as states 1..max_cstate). The sources say which limit was applied.
 */
export function applyIdleLimit(machine: Machine, limit: IdleLimit): Machine {
  const sources: Record<string, string> = {};
  for (const [k, v] of Object.entries(machine.sources)) if (!k.startsWith("idle.")) sources[k] = v;
  let idleStates: IdleState[];
  if (limit === "poll") {
    idleStates = [{ ...POLL_IDLE_STATE }];
    const src =
      'idle("poll"): idle=poll (nohlt), kernel/sched/idle.c do_idle -> cpu_idle_poll: spins with TIF_POLLING_NRFLAG set, no exit latency';
    for (const f of ["exitLatencyNs", "targetResidencyNs", "polling"])
      sources[`idle.POLL.${f}`] = src;
  } else {
    const n = machine.idleStates.length;
    if (limit.maxState > n - 1)
      throw new Error(
        `topology: idle.maxState must be a cpuidle state index from 0 to ${n - 1} on ${machine.name} (${machine.idleStates.map((s, i) => `${i} ${s.name}`).join(", ")}) (got ${limit.maxState})`,
      );
    idleStates = machine.idleStates.slice(0, limit.maxState + 1).map((s) => ({ ...s }));
    const kept = new Set(idleStates.map((s) => s.name));
    for (const [k, v] of Object.entries(machine.sources))
      if (k.startsWith("idle.") && kept.has(k.split(".")[1])) sources[k] = v;
  }
  sources.cpuidle =
    limit === "poll"
      ? 'idle("poll"): the idle loop polls (idle=poll)'
      : `idle({ maxState: ${limit.maxState} }): cpuidle states 0..${limit.maxState} of the table (intel_idle.max_cstate=${limit.maxState} where state 0 is POLL)`;
  return { ...structuredClone(machine), idleStates, sources };
}

/** The cpuidle limit of MachineBuilder.idle and Experiment.idle. */
export type IdleLimit = "poll" | { maxState: number };

/** Checks an idle limit's form; the state index is checked against the table by applyIdleLimit. */
export function checkIdleLimit(limit: unknown): IdleLimit {
  const accepted =
    '"poll" (idle=poll: the CPUs spin, no cpuidle state) or { maxState: N } (cpuidle states 0..N only, as intel_idle.max_cstate=N)';
  if (limit === "poll") return limit;
  const keys = limit !== null && typeof limit === "object" ? Object.keys(limit) : [];
  if (Array.isArray(limit) || keys.length !== 1 || keys[0] !== "maxState")
    throw new Error(`topology: idle must be ${accepted} (got ${fmt(limit)})`);
  const n = (limit as { maxState: unknown }).maxState;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0)
    throw new Error(
      `topology: idle.maxState must be an integer >= 0 (a cpuidle state index) (got ${fmt(n)})`,
    );
  return { maxState: n };
}
