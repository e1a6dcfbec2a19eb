// The declared-unknowns steps of the fluent API: declare unknowns, assume values, sweep their
// ranges, calibrate them on published figures. Kept apart from Experiment (which resolves the
// values into a concrete experiment when it runs); generic in the experiment type so that this
// module does not import experiment.ts.
import { MachineSteps } from "./machine_steps";
import { checkUnknownValue, type Unknown, type UnknownValue } from "./unknown";
import { sweepSync, type SweepGrid, type SweepOptions, type SweepResult } from "./sweep";
import { calibrateSync, type CalibrateOptions, type CalibrationRecord } from "./calibrate";
import type { Results } from "./results";
import type { RunOptions } from "./options";

/** The unknowns an experiment declares and the values assumed for some of them. */
export interface UnknownState<E> {
  readonly unknowns: readonly Unknown<E>[];
  readonly assumed: Readonly<Record<string, UnknownValue>>;
}

/** A calibrated experiment (the fitted values assumed) and the calibration's record. */
export interface Calibrated<T> {
  experiment: T;
  record: CalibrationRecord;
}

/** The declared-unknowns steps every Experiment has; see Experiment. */
export abstract class UnknownSteps<E> extends MachineSteps {
  /** The declared unknowns and assumed values. */
  protected abstract unknownState(): UnknownState<E>;
  /** A new experiment with these unknowns and assumed values. */
  protected abstract withUnknownState(
    unknowns: readonly Unknown<E>[],
    assumed: Readonly<Record<string, UnknownValue>>,
  ): this;
  /** Runs every variant x iteration in this thread (Experiment's). */
  abstract runSync(opts?: RunOptions): Results;

  /**
   * Declare the unknowns of this experiment: figures no source gives, each with its range, a
   * default and how a value enters the experiment (see `unknown()`). Runs use each unknown's
   * assumed value, else its default; `sweep()` walks their ranges and `calibrate()` fits them.
   */
  unknowns(...us: Unknown<E>[]): this {
    const all = [...this.unknownState().unknowns];
    for (const u of us) {
      if (!u || typeof u.apply !== "function" || typeof u.name !== "string")
        throw new Error("unknowns: expected unknowns made with unknown(name, {...})");
      if (all.some((x) => x.name === u.name))
        throw new Error(`unknowns: "${u.name}" is declared twice`);
      all.push(u);
    }
    return this.withUnknownState(Object.freeze(all), this.unknownState().assumed);
  }

  /** The declared unknowns, in declaration order. */
  declaredUnknowns(): readonly Unknown<E>[] {
    return this.unknownState().unknowns;
  }

  /**
   * Assume values for declared unknowns (the others keep theirs); each must lie in its range or
   * be one of its choices. Calibration freezes its fit with this.
   */
  assume(values: Record<string, UnknownValue>): this {
    if (!values || typeof values !== "object")
      throw new Error("assume: expected an object of unknown name -> value");
    const next = { ...this.unknownState().assumed };
    for (const [name, v] of Object.entries(values)) {
      const u = this.unknownState().unknowns.find((x) => x.name === name);
      if (!u) {
        const names = this.unknownState().unknowns.map((x) => x.name);
        throw new Error(
          `assume: "${name}" is not a declared unknown (declared: ${names.join(", ") || "none; declare them with .unknowns(...)"})`,
        );
      }
      next[name] = checkUnknownValue(u, v, "assumed value");
    }
    return this.withUnknownState(this.unknownState().unknowns, Object.freeze(next));
  }

  /** Each declared unknown's value in this experiment: assumed, else its default. */
  unknownValues(): Record<string, UnknownValue> {
    return Object.fromEntries(
      this.unknownState().unknowns.map((u) => [
        u.name,
        this.unknownState().assumed[u.name] ?? u.default,
      ]),
    );
  }

  /**
   * Run the experiment at each point of a grid over declared unknowns (every combination, or
   * `design: "one-at-a-time"`): one row per point x variant x iteration in `rows()`/`frame()`,
   * figures per point, and `plot.sensitivity()` / `plot.envelope(unknown, figure)`.
   *
   * @example
   * ```ts
   * import { topology, unknown, workload } from "schedlab";
   * const switchNs = unknown("context_switch_ns", {
   *   range: [1000, 4000], default: 2000, unit: "ns", source: "choice: 1-4 us on x86 parts",
   *   apply: (exp, v) => exp.costs({ contextSwitchNs: Number(v) }),
   * });
   * const sw = await topology("core2-2x2")
   *   .workload(workload.pingpong({ pairs: 1, seconds: 0.05 }))
   *   .unknowns(switchNs)
   *   .sweep({ context_switch_ns: [1000, 4000] }, { iterations: 2 });
   * console.log(sw.points.length, "points,", sw.rows().length, "rows");
   * const env = sw.envelope("context_switch_ns", "round_trips_per_s/baseline");
   * console.log(env.points[0].mean > env.points[1].mean);
   * ```
   * Prints:
   * ```text
   * 2 points, 4 rows
   * true
   * ```
   */
  async sweep(grid: SweepGrid, opts: SweepOptions = {}): Promise<SweepResult> {
    return sweepSync(this, grid, opts);
  }

  /** sweep() in one synchronous call. */
  sweepSync(grid: SweepGrid, opts: SweepOptions = {}): SweepResult {
    return sweepSync(this, grid, opts);
  }

  /**
   * Fit declared unknowns on published figures named in advance (never more unknowns than
   * targets; a target is never also a prediction), then freeze them: `experiment` is this one
   * with the fitted values assumed, `record` the values, targets, residuals, held-out check and
   * method (common random numbers, a space-filling start, then Nelder-Mead; see calibrate.ts).
   */
  async calibrate(opts: CalibrateOptions): Promise<Calibrated<this>> {
    return this.calibrateSync(opts);
  }

  /** calibrate() in one synchronous call. */
  calibrateSync(opts: CalibrateOptions): Calibrated<this> {
    const record = calibrateSync(this, opts);
    return { experiment: this.assume(record.values), record };
  }
}
