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

/**
 * The results of a run: the plain data (`data`, JSON-able) and the ways to look at it:
 * compare tables, data frames, plots, explain() and ftrace text.
 */
export class Results {
  /** Figure builders bound to these results (res.plot.box("metric"), res.plot.timeline(...)). */
  readonly plot: ResultPlots;

  /** Wrap results data (from run(), or saved JSON loaded again). */
  constructor(readonly data: ResultsData) {
    this.plot = plotsFor(data);
  }

  /** Variant names, in the order they were declared. */
  get variants(): string[] {
    return variantNames(this.data);
  }

  /** One iteration's full result: metrics, series, per-task and per-CPU stats, counters, trace. */
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

  /** The mean over a variant's iterations of values(metric, variant). */
  mean(metric: string, variant: string): number {
    return mean(this.values(metric, variant));
  }

  /** mmtests-style comparison rows: per variant mean, stddev, CI, % change and Welch p against the baseline. */
  compare(metric: string, opts?: CompareOptions): CompareRow[] {
    return compareTable(this.data, metric, opts);
  }

  /**
   * The comparison table as text, as a patch posting shows it. The first variant is the baseline
   * unless `opts.baseline` names another; `*` marks a significant change (Welch's t-test, alpha 0.05).
   *
   * @example
   * ```ts
   * import { patch, topology, workload } from "schedlab";
   * const res = await topology("core2-2x2")
   *   .workload(workload.hogs({ n: 2, cpus: [0], seconds: 0.2 }))
   *   .variants({ base: [], long: [patch("slice x4").tunable("sched_min_granularity_ns", 3e6)] })
   *   .run({ iterations: 3 });
   * console.log(res.compareText("sched.contextSwitches"));
   * ```
   * Prints:
   * ```text
   *                                             base               long
   * Amean   sched.contextSwitches  68.000 (   0.00%)  24.000 * -64.71%*
   * Stddev  sched.contextSwitches             0.0000             0.0000
   * CI95±   sched.contextSwitches             0.0000             0.0000
   * p-value sched.contextSwitches                  -            <0.0001
   * n       sched.contextSwitches                  3                  3
   * * significant at the chosen alpha (Welch two-sided t-test vs baseline)
   * ```
   */
  compareText(metric: string, opts?: CompareOptions): string {
    return formatCompareTable(this.compare(metric, opts));
  }

  /** Plain rows, one per variant x iteration: metrics and counters as columns. */
  rows(): FrameRow[] {
    return toRows(this.data);
  }

  /** A danfojs-node DataFrame, one row per variant x iteration (danfo loads on first use). */
  frame(): ReturnType<typeof toFrame> {
    return toFrame(this.data);
  }

  /**
   * Why tasks moved in one iteration: context switches (voluntary, involuntary, out of idle),
   * wakeup preemptions, EEVDF's lag at wakeup, migrations by reason, balance passes per domain
   * level, wakeup paths and placements, IPIs, rq locks and per-CPU busy time.
   *
   * @example
   * ```ts
   * import { topology, workload } from "schedlab";
   * const res = await topology("core2-2x2").workload(workload.hogs({ n: 5, seconds: 0.1 })).run();
   * console.log(res.explain("baseline").split("\n").slice(0, 11).join("\n"));
   * ```
   * Prints:
   * ```text
   * variant baseline, iteration 0, seed 1#0, 0.1 s simulated, 410 events
   * era 6.19: the fair class runs EEVDF (avg_vruntime, lag placement, virtual deadlines, RUN_TO_PARITY to the shortest queued slice, DELAY_DEQUEUE with DELAY_ZERO, per-task slices with PREEMPT_SHORT, lag-keeping reweight); not modelled: HRTICK (off by default in v6.19), cgroups, and the balancer's view of delayed tasks (it counts them as runnable and may move them)
   * era 6.19: fair pick EEVDF; balancer v5.5 rework (group_type, migration_type), 5.7 runnable_avg in group_classify, 5.10 LB_LLC_SPREAD, 5.12 migrate_task-only active balance, 5.13 LBF_ACTIVE_LB, 5.16 LB_NEWIDLE_COST, 5.18 imb_numa_nr, 6.6 LB_SMT_BALANCE, 6.6 LB_SIBLING_IMBALANCE, 6.19 NI_RANDOM, 6.19 LB_SERIALIZE_NEWIDLE; wakeup 5.12+ select_idle_sibling (one select_idle_cpu pass for cores or CPUs, prev's SMT siblings, SIS_UTIL); PELT v4.11 accumulate_sum
   * context switches: 38 (380/s)
   *   voluntary 0 (nvcsw), involuntary 34 (nivcsw), out of idle 4
   * wakeup preemptions: 0 (0.0/s)
   * migrations by reason:
   *   (none)
   * load balance by level:
   *   MC.CPU_NOT_IDLE              passes 8, balanced 7, failed 1, moved 0, active 0
   *   PKG.CPU_NOT_IDLE             passes 4, balanced 3, failed 1, moved 0, active 0
   * ```
   */
  explain(variant: string, i = 0): string {
    return explainIteration(this.iteration(variant, i), this.data.spec.era);
  }

  /** ftrace text (sched_switch, sched_wakeup, sched_migrate_task...) of one iteration; needs run({ trace: true }). */
  trace(variant: string, i = 0): string {
    const it = this.iteration(variant, i);
    if (!it.trace) throw new Error("trace: this run recorded no trace; run with { trace: true }");
    return toFtrace(it.trace);
  }

  /** The plain data, so JSON.stringify(res) saves the results. */
  toJSON(): ResultsData {
    return this.data;
  }
}
