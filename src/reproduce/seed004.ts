// Seed 004: Tim Chen, Jan 2015, "sched-rt: Reduce excessive task push rate by not pushing tasks
// with equal priority as the current task" (`<=` -> `<` in select_task_rq_rt and task_woken_rt),
// on an OLTP-like RT mix (workload.oltpRtMix) on a 2 x 18-core Haswell-EP. Three trees, all on
// the 3.19 baseline: `pre-no-feasibility-fix` (3.19 as released), `pre` (3.19 + his earlier
// v4.0 commit, rt-feasible-target-2015: the tree his mail measured) and `post` (that + the
// equal-priority patch). Published: push-path rq locks pre/post 1.7, throughput post/pre +1.5%,
// and +2.0% against the tree without the earlier fix.
import { topology } from "../experiment/experiment";
import { oltpRtMix } from "../workload/oltp_rt_mix";
import { rtFeasibleTarget2015 } from "../patch/seeds/rt_feasible_target_2015";
import { rtEqualPrio2015 } from "../patch/seeds/rt_equal_prio_2015";
import type { Results } from "../experiment/results";
import { ledgerRow, type LedgerRow } from "./ledger";
import { defineReproduction, publishedFor, publishedValue } from "./registry";
import type { Figure } from "../plot/types";
import { boxFromValues } from "../plot/distribution";
import { cdfFromValues } from "../plot/latency";
import { iterationsOf } from "../analysis/metric";
import { SEED004_UNKNOWNS } from "./seed004_unknowns";

export const SEED004_ID = "004";
/** The variants, oldest tree first. */
export const SEED004_VARIANTS = ["pre-no-feasibility-fix", "pre", "post"] as const;
/** Absolute metrics (the mail gives none; rows without a published value). */
export const SEED004_METRICS = [
  "push_rq_locks_per_s",
  "throughput_tps",
  "rt_wakeup_latency_p99_us",
] as const;

/**
 * The experiment: 3.19 with the three patch stacks, and the unknowns the mail leaves open
 * (seed004_unknowns.ts); `params` are workload parameters the unknowns do not set.
 */
export function seed004Experiment(params: Parameters<typeof oltpRtMix>[0] = {}) {
  return topology("hsw-ep-2x18x2")
    .era("3.19")
    .workload(oltpRtMix(params))
    .variants({
      "pre-no-feasibility-fix": [],
      pre: [rtFeasibleTarget2015],
      post: [rtFeasibleTarget2015, rtEqualPrio2015],
    })
    .unknowns(...SEED004_UNKNOWNS);
}

/** Per-iteration ratios a/b of one metric between two variants (iterations share seeds). */
export function pairedRatios(res: Results, metric: string, a: string, b: string): number[] {
  const va = res.values(metric, a);
  const vb = res.values(metric, b);
  return va.map((x, i) => x / vb[i]);
}

/** The derived rows: the published ratios against the paired per-iteration ratios. */
function rows(res: Results): LedgerRow[] {
  const pub = publishedFor(SEED004_ID);
  const out: LedgerRow[] = [];
  for (const metric of SEED004_METRICS)
    for (const variant of SEED004_VARIANTS) {
      const f = publishedValue(pub, metric, variant);
      out.push(ledgerRow(metric, variant, f.value, res.values(metric, variant), null, f.kind));
    }
  const ratioRows: [string, string, number[]][] = [
    ["push_rq_locks_pre_over_post", "pre", pairedRatios(res, "push_rq_locks_per_s", "pre", "post")],
    // The mail's premise, checked: rq locks on every path, and push + pull, <= over <.
    ["rq_locks_pre_over_post", "pre", pairedRatios(res, "rq_locks_per_s", "pre", "post")],
    [
      "push_pull_rq_locks_pre_over_post",
      "pre",
      (() => {
        const pp = (v: string) =>
          res
            .values("push_rq_locks_per_s", v)
            .map((x, i) => x + res.values("pull_rq_locks_per_s", v)[i]);
        const a = pp("pre");
        const b = pp("post");
        return a.map((x, i) => x / b[i]);
      })(),
    ],
    // Commit 80e3d87b2c55's own figure: the feasibility fix alone (pre over pre-no-feasibility-fix).
    [
      "feasibility_fix_gain_pct",
      "pre",
      pairedRatios(res, "throughput_tps", "pre", "pre-no-feasibility-fix").map(
        (r) => (r - 1) * 100,
      ),
    ],
    [
      "throughput_gain_pct",
      "post",
      pairedRatios(res, "throughput_tps", "post", "pre").map((r) => (r - 1) * 100),
    ],
    [
      "throughput_gain_pct",
      "pre-no-feasibility-fix",
      pairedRatios(res, "throughput_tps", "post", "pre-no-feasibility-fix").map(
        (r) => (r - 1) * 100,
      ),
    ],
  ];
  for (const [metric, variant, values] of ratioRows) {
    const f = pub.figures.find((x) => x.metric === metric && x.variant === variant);
    out.push(ledgerRow(metric, variant, f?.value ?? null, values, f?.band ?? null, f?.kind));
  }
  return out;
}

/** Values of every variant relative to the same iteration's `post`. */
function relativeToPost(res: Results, metric: string) {
  return SEED004_VARIANTS.map((v) => ({
    variant: v,
    values: pairedRatios(res, metric, v, "post"),
  }));
}

function figures(res: Results): Figure[] {
  const pub = publishedFor(SEED004_ID);
  const val = (m: string, v: string) => publishedValue(pub, m, v).value ?? NaN;
  const gainPre = val("throughput_gain_pct", "post") / 100;
  const gainNoFix = val("throughput_gain_pct", "pre-no-feasibility-fix") / 100;
  const lat = (v: string) => iterationsOf(res.data, v).flatMap((it) => it.series.lat_equal ?? []);
  return [
    boxFromValues(relativeToPost(res, "throughput_tps"), {
      title: "004: transactions/s per iteration relative to post (published marked)",
      yTitle: "throughput / post",
      published: { post: 1, pre: 1 / (1 + gainPre), "pre-no-feasibility-fix": 1 / (1 + gainNoFix) },
    }),
    boxFromValues(relativeToPost(res, "push_rq_locks_per_s"), {
      title: "004: push-path rq locks/s per iteration relative to post (published marked)",
      yTitle: "push-path locks / post",
      published: { post: 1, pre: val("push_rq_locks_pre_over_post", "pre") },
    }),
    cdfFromValues(
      SEED004_VARIANTS.map((v) => ({ variant: v, values: lat(v) })),
      {
        title: "004: wake-to-run latency of equal-priority RT wakeups (all iterations)",
        unit: "us",
      },
    ),
  ];
}

const NOTES =
  "3.19 era on the modelled 2 x 18-core Haswell-EP; the three variants are patch stacks on 3.19 (pre = 3.19 + rt-feasible-target-2015, the tree the mail measured). " +
  "The benchmark is undisclosed: workload.oltpRtMix with its default assumptions (docs/experiments/004.md), not fitted. " +
  "push_rq_locks_per_s counts the rq locks push_rt_task takes (double_lock_balance on the target) plus post_schedule_rt's own; ratios are per iteration, paired by seed. " +
  "Unlocked reads (cpupri, highest_prio, rto_mask) are seen at the writer's clock, so they can be stale; the default servers share one priority (FIFO 50, that of every threaded IRQ handler). See the docs page.";

defineReproduction({
  id: SEED004_ID,
  title: "RT equal-priority push on an OLTP-like RT mix, 2 x 18-core Haswell-EP (Tim Chen, 2015)",
  machine: "hsw-ep-2x18x2",
  source: publishedFor(SEED004_ID).source,
  experiment: () => seed004Experiment(),
  full: { iterations: 5, duration: 1.2, warmup: 0.2 },
  quick: { iterations: 2, duration: 0.5, warmup: 0.1 },
  rows,
  figures,
  notes: NOTES,
  today: {
    note:
      "The earlier feasibility fix was merged for v4.0 (find_lock_lowest_rq's \"Target rq has tasks of equal or higher priority\" bail-out and select_task_rq_rt's `p->prio < cpu_rq(target)->rt.highest_prio.curr` are in today's kernel/sched/rt.c); the equal-priority patch was never merged: select_task_rq_rt and task_woken_rt still test `curr->prio <= p->prio`, so equal-priority wakeups are still placed away from, or pushed off, an RT curr. " +
      "The today rows are therefore the `pre` tree's RT rules on 6.19 (with EEVDF for the fair tasks of the mix); the paired ratios have no today row, since they compare two trees.",
    metrics: SEED004_METRICS,
  },
});
