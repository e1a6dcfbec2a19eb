// Seed 001: UnixBench context1 with 104 copies on a 104-thread x86 box, 5.19, and the two
// ttwu_queue_cond steps of Tianchen Ding / Valentin Schneider (2022): patch1 (!nr_running for
// an on_cpu wakee) and patch1+patch2 (any wakeup to an idle CPU of the LLC goes through its
// wakelist). Published: index 7825.4 (old), 7500-8000 "not stable, more at 7500" (patch1),
// 9061.6 (patch1+2).
import { SEED001_UNKNOWNS } from "./seed001_unknowns";
import { topology } from "../experiment/experiment";
import { unixbenchContext1 } from "../workload/unixbench";
import { wakelistPatch1, wakelistPatch2 } from "../patch/seeds/wakelist_2022";
import type { Results } from "../experiment/results";
import { ledgerRow, type LedgerRow } from "./ledger";
import { defineReproduction, publishedFor, publishedValue } from "./registry";
import { box } from "../plot/distribution";
import type { Figure } from "../plot/types";

export const SEED001_ID = "001";
/** The ledger's variants, in the thread's order. */
export const SEED001_VARIANTS = ["old", "patch1", "patch1+2"] as const;
/** The ledger's metrics. */
export const SEED001_METRICS = [
  "score",
  "wakelist_wakeups_per_s",
  "ipis_per_s",
  "remote_rq_lock_waits_per_s",
  "local_wakeup_share",
  "rq_lock_spin_share",
  "idle_share",
] as const;
/**
 * Model shortening (stated in the notes): passes of 1 ms instead of UnixBench's 10 s, so that
 * 3 variants x 10 runs of 10 passes with 208 tasks fit in about a minute on 2 cores.
 */
export const SEED001_PASS_SECONDS = 0.001;
const COPIES = 104;

/**
 * The experiment: x86-104t at 5.19, context1 with 104 copies (or `copies`, for the 52- and
 * 78-copy points the notebook and 001.md report), the three variants.
 */
export function seed001Experiment(passSeconds = SEED001_PASS_SECONDS, copies = COPIES) {
  return topology("x86-104t")
    .era("5.19")
    .workload(unixbenchContext1({ copies, passes: 10, passSeconds }))
    .variants({
      old: [],
      patch1: [wakelistPatch1],
      "patch1+2": [wakelistPatch1, wakelistPatch2],
    });
}

/** Run length of `passes` passes of `passSeconds` after the copies' staggered start. */
export function seed001Duration(passSeconds: number, passes = 10, copies = COPIES): number {
  const w = unixbenchContext1({ copies, passes, passSeconds });
  return w.defaultDurationNs / 1e9;
}

function rows(res: Results): LedgerRow[] {
  const pub = publishedFor(SEED001_ID);
  const out: LedgerRow[] = [];
  for (const metric of SEED001_METRICS) {
    for (const variant of SEED001_VARIANTS) {
      const f = publishedValue(pub, metric, variant);
      out.push(
        ledgerRow(metric, variant, f.value, res.values(metric, variant), f.band ?? null, f.kind),
      );
    }
  }
  // patch1 and patch1+2 over old, run by run (each run of a variant has its own seed stream)
  const old = res.values("score", "old");
  for (const variant of ["patch1", "patch1+2"]) {
    const f = publishedValue(pub, "score_ratio_to_old", variant);
    const v = res.values("score", variant);
    const ratios = v.slice(0, old.length).map((x, i) => x / old[i]);
    out.push(ledgerRow("score_ratio_to_old", variant, f.value, ratios, f.band ?? null, f.kind));
  }
  return out;
}

function figures(res: Results): Figure[] {
  const pub = publishedFor(SEED001_ID);
  const published = Object.fromEntries(
    SEED001_VARIANTS.map((v) => [v, publishedValue(pub, "score", v).value]),
  );
  return [
    box(res.data, "score", {
      title: "001: UnixBench context1 index per run, 104 copies (published marked)",
      published,
    }),
  ];
}

const NOTES =
  "Passes of 1 ms of simulated time (UnixBench: 10 s), 10 per run, counted once all 104 copies run (copies started 100 us apart, a choice); the worst third dropped and the geometric mean of the rest kept, index = lps / 4000 x 10 as UnixBench prints it. " +
  "Declared unknowns: idle_mode (hlt by default: a guest whose idle CPUs halt, each wakeup of one an IPI; mwait: the preset's polling intel_idle states) and hlt_wake_us (2-133 us), fitted on old's index at 24.9 us (data/calibration/001.json); patch1 and patch1+2 over old are the predictions. " +
  "With the visibility windows (a CPU a waker has claimed still looks idle to other wakers until the enqueue or ttwu_pending store is visible) the pairs stay split. At the fitted wake patch1+2 / old is 0.78 (published 1.158): patch2 sends every wakeup to an idle CPU, and each pays the wake; no wake time gives both the index and the gain (2 us: ratio ~1.16, index ~2.1x); see docs/experiments/001.md.";

defineReproduction({
  id: SEED001_ID,
  title: "UnixBench context1, 104 copies on 104 threads (ttwu_queue_cond wakelist, 2022)",
  machine: "x86-104t",
  source: publishedFor(SEED001_ID).source,
  experiment: () => seed001Experiment().unknowns(...SEED001_UNKNOWNS),
  full: { iterations: 10, duration: seed001Duration(SEED001_PASS_SECONDS) },
  quick: { iterations: 4, duration: seed001Duration(SEED001_PASS_SECONDS, 4) },
  rows,
  figures,
  notes: NOTES,
  today: {
    note:
      "Merged as posted for 6.0 (patch1 28156108fecb, patch2 f3dd3f674555): today's ttwu_queue_cond (kernel/sched/core.c) queues a wakeup on the target's wakelist whenever `!cpu_rq(cpu)->nr_running` in the same LLC, with no WF_ON_CPU test. " +
      "The today rows are patch1+2's rule on 6.19 with EEVDF and 6.19's wake_affine and select_idle_sibling: compare them with patch1+2 of the model, not with the published index (the model's index is far above the published one on every variant, see the note above).",
    metrics: SEED001_METRICS,
  },
});
