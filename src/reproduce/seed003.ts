// Seed 003: schbench on a 2-node Haswell-EP box, 5.5 -> 5.6 "Allow a small load imbalance
// between low utilisation SD_NUMA domains" (Mel Gorman, 2020). One message thread per node and
// 1 or 2 workers per message thread (mmtests' configuration), 30 s per run. Before the patch an
// idle node's balancer evens out idle CPUs across the NUMA level and (through active balance)
// pulls a spinning worker away from its message thread's node; with the patch a busiest node
// running at most 2 tasks is left alone, so each message thread and its worker stay on one node.
import { topology } from "../experiment/experiment";
import { schbench } from "../workload/schbench";
import { numaImbalance2020 } from "../patch/seeds/numa_imbalance_2020";
import type { Results } from "../experiment/results";
import { ledgerRow, type LedgerRow } from "./ledger";
import { defineReproduction, publishedFor, publishedValue } from "./registry";
import type { Figure } from "../plot/types";
import { LatencyHistogram, SCHBENCH_PERCENTILES } from "../analysis/histogram";
import { percentileCurveFromValues } from "../plot/latency";
import { box } from "../plot/distribution";
import { iterationsOf } from "../analysis/metric";
import { SEED003_UNKNOWNS } from "./seed003_unknowns";

/** The ledger's metric names: lat_p50 ... lat_p99.9 (usec). */
export const SEED003_METRICS: readonly string[] = SCHBENCH_PERCENTILES.map((p) => `lat_p${p}`);

/** The published percentiles of one experiment and variant, keyed by percentile. */
export function publishedPercentiles(id: string, variant: string): Record<number, number> {
  const pub = publishedFor(id);
  return Object.fromEntries(
    SCHBENCH_PERCENTILES.map((p) => [p, publishedValue(pub, `lat_p${p}`, variant).value ?? NaN]),
  );
}

/** One histogram per variant: every iteration's samples merged (series lat_hist). */
export function mergedHistogram(res: Results, variant: string): LatencyHistogram {
  return LatencyHistogram.merged(
    iterationsOf(res.data, variant).map((it) =>
      LatencyHistogram.fromSeries(it.series.lat_hist ?? []),
    ),
  );
}

function rows(id: string) {
  return (res: Results): LedgerRow[] => {
    const pub = publishedFor(id);
    const out: LedgerRow[] = [];
    for (const metric of SEED003_METRICS) {
      for (const variant of ["pre", "post"]) {
        const f = publishedValue(pub, metric, variant);
        out.push(
          ledgerRow(metric, variant, f.value, res.values(metric, variant), f.band ?? null, f.kind),
        );
      }
    }
    return out;
  };
}

/** Samples of a merged histogram as plain values (bounded by the run's sample count). */
function expand(h: LatencyHistogram): number[] {
  const pairs = h.toSeries();
  const out: number[] = [];
  for (let i = 0; i < pairs.length; i += 2)
    for (let c = 0; c < pairs[i + 1]; c++) out.push(pairs[i]);
  return out;
}

function figures(id: string) {
  return (res: Results): Figure[] => {
    const groups = ["pre", "post"].map((v) => ({
      variant: v,
      values: expand(mergedHistogram(res, v)),
    }));
    return [
      percentileCurveFromValues(groups, {
        title: `${id}: schbench wakeup latency percentiles, all iterations (published marked)`,
        unit: "us",
        published: { pre: publishedPercentiles(id, "pre"), post: publishedPercentiles(id, "post") },
      }),
      box(res.data, "lat_p99", {
        title: `${id}: p99 per iteration (published marked)`,
        published: {
          pre: publishedPercentiles(id, "pre")[99],
          post: publishedPercentiles(id, "post")[99],
        },
      }),
    ];
  };
}

const NOTES =
  "Runs of 30 s as mmtests' schbench (-r 30), 5 iterations; latencies in whole usec as schbench's gettimeofday gives them, per-iteration percentiles from an HdrHistogram. " +
  "The 5.6 era without the patch stands for 5.5 (the era's numa_imbalance hook has no allowance before 5.18). " +
  "NUMA balancing (task_numa_fault/task_numa_migrate) is not modelled: schbench's threads touch a few KB, so NUMA hinting faults would find no memory to pull them toward. " +
  "A wakeup out of C6 pays a drawn core C6 exit, plus a drawn package C6 wake when every CPU of the woken CPU's socket was in C6 (per-socket scope); the four exit-time unknowns are fitted on the 1-worker p50 and p90 of both variants (data/calibration/003-1w.json), every other figure is a prediction. " +
  "Bands: +-2 sd of one run from the v3/v4 replicate of the patched runs (+-2 us at p50-p95, +-3 us at p99-p99.9); the ledger value is the mean of per-run (30 s) percentiles, a single run's expected value.";

const TODAY_NOTE =
  "Merged for 5.6 (b396f52326de) and later replaced: since 5.18 (e496132ebedd) calculate_imbalance calls adjust_numa_imbalance (kernel/sched/fair.c), which drops an imbalance of at most NUMA_IMBALANCE_MIN (2) tasks while the destination runs no more than sd->imb_numa_nr tasks (derived from the LLCs an SD_NUMA domain spans), instead of 5.6's fixed `busiest->sum_nr_running <= 2`. " +
  "So the hazard (an idle node pulling a message thread's worker away) stays covered, in another form; the today rows are schbench's latencies on 6.19 with EEVDF.";

for (const [id, workers, title] of [
  ["003-1w", 1, "schbench, 1 worker per message thread, 2-node Haswell (NUMA imbalance, 2020)"],
  ["003-2w", 2, "schbench, 2 workers per message thread, 2-node Haswell (NUMA imbalance, 2020)"],
] as const) {
  defineReproduction({
    id,
    title,
    machine: "numa-2x12x2",
    source: publishedFor(id).source,
    experiment: () =>
      topology("numa-2x12x2")
        .era("5.6")
        .workload(schbench({ messageThreads: 2, workers, runtime: 30 }))
        .variants({ pre: [], post: [numaImbalance2020] })
        .unknowns(...SEED003_UNKNOWNS),
    full: { iterations: 5, duration: 30 },
    // shorter runs for the band tests: the placement settles within the first second
    quick: { iterations: 3, duration: 8 },
    rows: rows(id),
    figures: figures(id),
    notes: NOTES,
    today: { note: TODAY_NOTE, metrics: SEED003_METRICS },
  });
}
