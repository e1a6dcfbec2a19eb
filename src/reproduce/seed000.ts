// Seed 000: netperf UDP_STREAM over loopback on the Xeon X5472, 4.8 before and after Mike
// Galbraith's "sched: Further improve spurious CPU_IDLE active migrations" (Sep 2016). The
// X5472 has four L2 pairs and no L3, so sd_llc_size is 2: select_idle_sibling keeps netperf and
// netserver on one L2 pair, an idle CPU of another pair sees 2 idle CPUs against 0 and calls it
// an imbalance (slack 1), nothing can be pulled (each runqueue runs its one task), and after
// cache_nice_tries + 2 failures the stopper pushes one of the pair to another L2. The control
// runs the same on a machine whose LLC spans 24 CPUs, where the patch does not apply.
import { topology } from "../experiment/experiment";
import { netperfConfidence, netperfUdpStream } from "../workload/netperf";
import { idleSlack2016 } from "../patch/seeds/idle_slack_2016";
import type { Results } from "../experiment/results";
import { ledgerRow, type LedgerRow } from "./ledger";
import { defineReproduction, publishedFor, publishedValue } from "./registry";
import { boxFromValues } from "../plot/distribution";
import type { Figure } from "../plot/types";
import { unknown } from "../experiment/declare";
import type { Experiment } from "../experiment/experiment";

/**
 * The rate at which a core copies lines the other die of its package holds modified (GB/s =
 * bytes/ns): a datagram written by netperf on one die and read by netserver on the other, while
 * the pair is split. The X5472's two dies share one front-side bus and see each other's caches
 * only through it; no source measures this rate for the part.
 */
export const CROSS_DIE_COPY = unknown("cross_die_copy_gbps", {
  range: [2, 3],
  default: 3,
  unit: "GB/s",
  description:
    "copy rate of lines held modified by the other die of the package (FSB snoops), the X5472's copyBytesPerNs.same_package",
  source:
    "Intel Xeon X5472 specification: a 1600 MT/s front-side bus, 12.8 GB/s peak, shared by both dies of the package; a modified line on the other die is written back across that bus before the reader gets it, and one copying core sustains a fraction of the peak. The range, 2 to 3 GB/s, is a choice around a quarter of the peak (the preset's 3 GB/s, the default); no measurement of Harpertown's cache-to-cache copy rate was found",
  apply: (e: Experiment, v) =>
    e.editMachine(`cross-die copies at ${v} GB/s`, (m) => {
      m.costs.copyBytesPerNs.same_package = Number(v);
    }),
});

/** The mechanism rows: no published value, shown beside the throughput. */
export const SEED000_MECHANISM = [
  "active_balances_per_s",
  "migrations_per_s",
  "pair_shares_l2_fraction",
  "split_episodes_per_s",
  "split_ms_p50",
  "split_ms_p90",
  "recv_throughput_mbps",
  "messages_dropped",
] as const;

/**
 * The iterations netperf's `-i 5,1 -I 95,5` rule keeps for one variant: it stops at the first
 * n >= 3 whose 95% interval of the throughput is within +-2.5%, or at 5 with a warning.
 */
export function netperfKept(res: Results, variant: string): ReturnType<typeof netperfConfidence> {
  return netperfConfidence(res.values("throughput_mbps", variant), {
    max: 5,
    min: 1,
    level: 95,
    widthPct: 5,
  });
}

/** A metric's values over the iterations netperf keeps for this variant. */
export function keptValues(res: Results, metric: string, variant: string): number[] {
  return res.values(metric, variant).slice(0, netperfKept(res, variant).iterations);
}

/** post / pre throughput, one per iteration pair that both variants kept. */
export function throughputRatios(res: Results): number[] {
  const pre = keptValues(res, "throughput_mbps", "pre");
  const post = keptValues(res, "throughput_mbps", "post");
  const n = Math.min(pre.length, post.length);
  return Array.from({ length: n }, (_, i) => post[i] / pre[i]);
}

function rows(id: string) {
  return (res: Results): LedgerRow[] => {
    const pub = publishedFor(id);
    const out: LedgerRow[] = [];
    const row = (metric: string, variant: string, values: number[]) => {
      const f = pub.figures.find((x) => x.metric === metric && x.variant === variant);
      out.push(ledgerRow(metric, variant, f?.value ?? null, values, f?.band ?? null, f?.kind));
    };
    for (const variant of ["pre", "post"])
      row("throughput_mbps", variant, keptValues(res, "throughput_mbps", variant));
    row("throughput_ratio", "post", throughputRatios(res));
    for (const metric of SEED000_MECHANISM)
      for (const variant of ["pre", "post"]) row(metric, variant, keptValues(res, metric, variant));
    for (const variant of ["pre", "post"])
      row("netperf_iterations", variant, [netperfKept(res, variant).iterations]);
    return out;
  };
}

function figures(id: string) {
  return (res: Results): Figure[] => {
    const pub = publishedFor(id);
    const published = Object.fromEntries(
      ["pre", "post"].map((v) => [v, publishedValue(pub, "throughput_mbps", v).value]),
    );
    return [
      boxFromValues(
        ["pre", "post"].map((v) => ({ variant: v, values: keptValues(res, "throughput_mbps", v) })),
        {
          title: `${id}: netperf UDP_STREAM send line per iteration, 10^6 bit/s (published marked)`,
          yTitle: "throughput_mbps",
          published,
        },
      ),
      boxFromValues(
        ["pre", "post"].map((v) => ({
          variant: v,
          values: keptValues(res, "active_balances_per_s", v),
        })),
        { title: `${id}: active balances per second`, yTitle: "active_balances_per_s" },
      ),
    ];
  };
}

const NOTES =
  "netperf -t UDP_STREAM -l 60 -i 5,1 -I 95,5 over loopback, modelled with 4 s iterations after 0.2 s of warm-up (60 s iterations would take ~45 s of wall time each); the ledger keeps the iterations netperf's confidence rule keeps. " +
  "The 4.8 era runs at its default HZ 1000 (the box's CONFIG_HZ is not published). " +
  "The absolute throughput rests on the machine's copy figures (data/machines/xeon-x5472.json) and two per-datagram stack estimates (NETPERF_TX_STACK_NS, NETPERF_RX_STACK_NS); none is derived from the published throughput.";

const TODAY_NOTE =
  'Never merged: the patch was rejected upstream (SUSE carried it for old hardware; its kernel-source copy is marked "Patch-mainline: Never, submitted and rejected", bnc#986383). ' +
  "The test it relaxed is still in today's find_busiest_group (kernel/sched/fair.c): a busiest group that is not overloaded is balanced when `busiest->group_weight > 1 && local->idle_cpus <= (busiest->idle_cpus + 1)`, with no sd_llc_size special case (the form since the v5.5 load_balance rework, 0b0695f2b34a); the other exit it has, `busiest->sum_h_nr_running == 1` -> balanced, does not cover a pair on two CPUs of one group. " +
  "So the hazard's test is present on 6.19; the today rows show whether 6.19's balancer (and EEVDF) still bounces the pair across L2 pairs (active_balances_per_s) and what netperf gets.";

for (const [id, machine, title] of [
  [
    "000",
    "xeon-x5472",
    "netperf UDP_STREAM, Xeon X5472 (spurious CPU_IDLE active migrations, 2016)",
  ],
  [
    "000-llc",
    "numa-2x12x2",
    "netperf UDP_STREAM, control with a 24-CPU LLC (the 2016 idle slack does not apply)",
  ],
] as const) {
  defineReproduction({
    id,
    title,
    machine,
    source: publishedFor(id).source,
    experiment: () => {
      const e = topology(machine)
        .era("4.8")
        .workload(netperfUdpStream({ seconds: 4.2, warmupSeconds: 0.2 }))
        .variants({ pre: [], post: [idleSlack2016] });
      // the control's machine has no second die in a package: the unknown is the X5472's
      return id === "000" ? e.unknowns(CROSS_DIE_COPY) : e;
    },
    full: { iterations: 5, duration: 4.2, warmup: 0.2 },
    // shorter runs for the band tests
    quick: { iterations: 3, duration: 1.2, warmup: 0.2 },
    rows: rows(id),
    figures: figures(id),
    notes: NOTES,
    today: {
      note: TODAY_NOTE,
      metrics: [
        "throughput_mbps",
        "active_balances_per_s",
        "migrations_per_s",
        "pair_shares_l2_fraction",
      ],
      values: keptValues,
    },
  });
}
