// Where an experiment's machine comes from: a preset name, a Machine value, or the steps of a
// machine builder. Builder steps are kept as a list and replayed on a fresh builder, because a
// MachineBuilder mutates itself and an Experiment must not change once made.
import type { Machine } from "../machine/types";
import { machineFromFile, preset } from "../machine/presets";
import { machineBuilder, type MachineBuilder } from "../machine/builder";
import { applyIdleLimit, checkIdleLimit, type IdleLimit } from "../machine/idle_states";

/** The builder methods an Experiment forwards, with their argument lists. */
export type BuilderStep = {
  [K in Exclude<keyof MachineBuilder, "build">]: [K, Parameters<MachineBuilder[K]>];
}[Exclude<keyof MachineBuilder, "build">];

/** Where the machine comes from, and the cpuidle limit (Experiment.idle) applied to it. */
export type MachineSource = (
  | { readonly kind: "preset"; readonly name: string }
  | { readonly kind: "machine"; readonly machine: Machine }
  | { readonly kind: "builder"; readonly steps: readonly BuilderStep[] }
) & { readonly idle?: IdleLimit };

/** The machine a source describes, as a fresh object each call (callers may change it). */
export function buildMachine(source: MachineSource): Machine {
  const m = buildBase(source);
  return source.idle ? applyIdleLimit(m, source.idle) : m;
}

/** The source with a cpuidle limit (replacing an earlier one); checked against the machine now. */
export function withIdle(source: MachineSource, limit: unknown): MachineSource {
  const next = Object.freeze({ ...source, idle: checkIdleLimit(limit) });
  buildMachine(next); // a state index beyond the machine's table fails here, naming it
  return next;
}

function buildBase(source: MachineSource): Machine {
  switch (source.kind) {
    case "preset":
      return preset(source.name);
    case "machine":
      return structuredClone(source.machine);
    case "builder": {
      const b = machineBuilder();
      for (const [method, args] of source.steps)
        (b[method] as (...a: unknown[]) => MachineBuilder)(...args);
      return b.build();
    }
  }
}

/** The source with one more builder step; fails for a preset or a Machine value. */
export function withBuilderStep(source: MachineSource, step: BuilderStep): MachineSource {
  if (source.kind !== "builder") {
    throw new Error(
      "topology: machine-builder steps (sockets, cores, ...) apply to topology() without a preset",
    );
  }
  // each method checks its argument when called: a bad value fails at this step, not at run()
  const [method, args] = step;
  (machineBuilder()[method] as (...a: unknown[]) => MachineBuilder)(...args);
  return Object.freeze({ ...source, steps: Object.freeze([...source.steps, step]) });
}

/**
 * The source topology(machine) starts from: a preset name (checked now, listing the accepted
 * names), a machine file (read now, so the spec records the machine itself), a Machine (copied),
 * or nothing (a builder).
 */
export function sourceOf(machine?: string | Machine): MachineSource {
  if (machine === undefined) return { kind: "builder", steps: [] };
  if (typeof machine === "string") {
    if (machine.endsWith(".json")) return { kind: "machine", machine: machineFromFile(machine) };
    preset(machine);
    return { kind: "preset", name: machine };
  }
  if (typeof machine === "object" && Array.isArray((machine as Machine).cpus))
    return { kind: "machine", machine: structuredClone(machine) };
  throw new Error(
    `topology: expected a preset name, a Machine or nothing (got ${JSON.stringify(machine)})`,
  );
}

/** One change to a machine's figures: a label for the spec, and the change. */
export interface MachineEdit {
  readonly label: string;
  /** Returns the changed machine, or changes it in place (any other return is ignored). */
  readonly fn: (m: Machine) => unknown;
}

/** The machine after each edit in turn (an edit returns the changed machine or changes it). */
export function applyEdits(m: Machine, edits: readonly MachineEdit[]): Machine {
  for (const e of edits) {
    const out = e.fn(m);
    if (out && typeof out === "object" && Array.isArray((out as Machine).cpus)) m = out as Machine;
  }
  return m;
}
