// The machine-builder steps of the fluent API (sockets, cores, threads, costs, ...), kept apart
// from Experiment so that experiment.ts holds what an experiment is and how it runs. Each step
// returns a new object of the subclass (Experiment), which records the step.
import type { MachineBuilder } from "../machine/builder";
import { costProfile } from "../machine/profiles";
import type { Machine } from "../machine/types";
import { sourceOf, type BuilderStep, type MachineEdit, type MachineSource } from "./machine_source";

/** The machine-builder steps every Experiment has; see Experiment. */
export abstract class MachineSteps {
  /** Records one builder step and returns the new experiment. */
  protected abstract builderStep(step: BuilderStep): this;
  /** Records a cpuidle limit and returns the new experiment. */
  protected abstract idleStep(limit: unknown): this;
  /** Records a machine edit and returns the new experiment. */
  protected abstract editStep(edit: MachineEdit): this;
  /** Replaces the machine source and returns the new experiment. */
  protected abstract sourceStep(source: MachineSource): this;

  /**
   * Change the machine's figures with a function (a preset's idle states, a cost, a cache size):
   * it gets a fresh copy and returns it (or changes it in place). `label` names the change in
   * the spec. Edits run in order, after the preset or builder made the machine.
   *
   * @example
   * ```ts
   * import { topology } from "schedlab";
   * const exp = topology("core2-2x2").editMachine("C1 only", (m) => {
   *   m.idleStates = m.idleStates.slice(0, 1);
   * });
   * console.log(exp.machine().idleStates.map((s) => s.name));
   * ```
   * Prints:
   * ```text
   * [ 'C1' ]
   * ```
   */
  editMachine(label: string, fn: (m: Machine) => unknown): this {
    if (typeof label !== "string" || !label)
      throw new Error("editMachine: label must be a non-empty string naming the change");
    if (typeof fn !== "function")
      throw new Error("editMachine: fn must be a function (machine) => machine");
    return this.editStep(Object.freeze({ label, fn }));
  }

  /**
   * The same experiment on another machine (a preset name, a machine file or a Machine): era,
   * workload, variants and unknowns are kept; machine edits made so far are dropped.
   */
  onMachine(machine: string | Machine): this {
    return this.sourceStep(sourceOf(machine));
  }

  /**
   * Packages of a machine built step by step (topology() without a preset).
   *
   * @example
   * ```ts
   * import { topology } from "schedlab";
   * const m = topology().sockets(2).cores(4).threads(2).machine();
   * const sibling = m.cpus.find((c) => c.id !== 0 && c.core === m.cpus[0].core);
   * console.log(m.cpus.length, "CPUs; cpu0's SMT sibling is cpu" + sibling?.id);
   * ```
   * Prints:
   * ```text
   * 16 CPUs; cpu0's SMT sibling is cpu8
   * ```
   */
  sockets(n: number): this {
    return this.builderStep(["sockets", [n]]);
  }
  /** Dies per package (multi-chip modules such as the Core 2 Quad have 2). */
  diesPerSocket(n: number): this {
    return this.builderStep(["diesPerSocket", [n]]);
  }
  /** Cores per package. */
  cores(n: number): this {
    return this.builderStep(["cores", [n]]);
  }
  /** SMT threads per core. */
  threads(n: number): this {
    return this.builderStep(["threads", [n]]);
  }
  /** Cores sharing one L2 instance. */
  l2SharedBy(n: number): this {
    return this.builderStep(["l2SharedBy", [n]]);
  }
  /** What the last-level cache spans: "die", "package" or "l2". */
  llc(span: Parameters<MachineBuilder["llc"]>[0]): this {
    return this.builderStep(["llc", [span]]);
  }
  /** NUMA nodes; the packages are split evenly across them. */
  nodes(n: number): this {
    return this.builderStep(["nodes", [n]]);
  }
  /** The node x node SLIT distance table. */
  distance(m: number[][]): this {
    return this.builderStep(["distance", [m]]);
  }
  /** Cost figures (context switch, IPI, cache line...) that differ from the builder's defaults. */
  costs(c: Parameters<MachineBuilder["costs"]>[0]): this {
    return this.builderStep(["costs", [c]]);
  }
  /**
   * Start from a cost profile's figures, idle states and cache sizes (x86-server-2008/2015/2019,
   * arm64-a53-2016, or any preset name; costProfileNames()); costs() still overrides them.
   */
  profile(name: string): this {
    return this.builderStep(["profile", [costProfile(name)]]);
  }
  /** Arch capacity per CPU in Linux numbering (asymmetric machines such as big.LITTLE). */
  capacities(perCpu: number[]): this {
    return this.builderStep(["capacities", [perCpu]]);
  }
  /** Limit any machine's idle states: "poll" (idle=poll) or { maxState: N } (intel_idle.max_cstate=N). */
  idle(limit: Parameters<MachineBuilder["idle"]>[0]): this {
    return this.idleStep(limit);
  }
  /** The built machine's name. */
  name(s: string): this {
    return this.builderStep(["name", [s]]);
  }
}
