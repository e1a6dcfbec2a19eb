// Results of a run: the plain data plus the ways to look at it (compare, frame, plot, explain,
// trace). Analysis and plotting live in their own layers; this class only binds them to the data.
import type { ResultsData, IterationResult } from "./types";
import {
  compareTable,
  formatCompareTable,
  type CompareOptions,
  type CompareRow,
} from "../analysis/compare";
import { metricValue, variantNames } from "../analysis/metric";
import { toFrame, toRows, type FrameRow } from "../analysis/frame";
import { mean } from "../analysis/stats";
import { toFtrace } from "../report/trace";
import { explainIteration } from "./explain";
import { plotsFor, type ResultPlots } from "./plots";

export class Results {
  readonly plot: ResultPlots;

  constructor(readonly data: ResultsData) {
    this.plot = plotsFor(data);
  }

  get variants(): string[] {
    return variantNames(this.data);
  }

  iteration(variant: string, i: number): IterationResult {
    const it = this.data.iterations.find((x) => x.variant === variant && x.iteration === i);
    if (!it) {
      throw new Error(
        `no iteration ${i} of variant "${variant}" (variants: ${this.variants.join(", ")}; iterations 0..${this.data.spec.iterations - 1})`,
      );
    }
    return it;
  }

  /** One value per iteration of a variant: a workload metric or a counter path like "sched.contextSwitches". */
  values(metric: string, variant: string): number[] {
    const its = this.data.iterations.filter((x) => x.variant === variant);
    if (its.length === 0)
      throw new Error(`unknown variant "${variant}" (variants: ${this.variants.join(", ")})`);
    return its.map((it) => metricValue(it, metric));
  }

  mean(metric: string, variant: string): number {
    return mean(this.values(metric, variant));
  }

  /** mmtests-style comparison table rows (printable with String(res.compareText(metric))). */
  compare(metric: string, opts?: CompareOptions): CompareRow[] {
    return compareTable(this.data, metric, opts);
  }

  compareText(metric: string, opts?: CompareOptions): string {
    return formatCompareTable(this.compare(metric, opts));
  }

  rows(): FrameRow[] {
    return toRows(this.data);
  }

  /** A danfojs-node DataFrame, one row per variant x iteration (danfo loads on first use). */
  frame(): ReturnType<typeof toFrame> {
    return toFrame(this.data);
  }

  /** Why tasks moved in one iteration: migrations, balance passes, wake placements, IPIs. */
  explain(variant: string, i = 0): string {
    return explainIteration(this.iteration(variant, i));
  }

  /** ftrace text (needs run({ trace: true })). */
  trace(variant: string, i = 0): string {
    const it = this.iteration(variant, i);
    if (!it.trace) throw new Error("trace: this run recorded no trace; run with { trace: true }");
    return toFtrace(it.trace);
  }

  toJSON(): ResultsData {
    return this.data;
  }
}
