// Seed 002: nice-unfairness with a CPU offline (Miao Xie, 2009). 8 sqrt-loop hogs on a
// 2 x 2-core box with cpu3 offline, and on an HT box; 2.6.29 before and after the group-power
// patch. The 2:1 split before the patch comes from both package-level groups being worth 1024
// (init_sched_groups_power), so find_busiest_group equalises 4 tasks per group.
import { topology } from "../experiment/experiment";
import { schedFair } from "../workload/sched_fair";
import { groupPower2009 } from "../patch/seeds/group_power_2009";
import type { Results } from "../experiment/results";
import { ledgerRow, type LedgerRow } from "./ledger";
import { defineReproduction, publishedFor, publishedValue } from "./registry";
import { box } from "../plot/distribution";
import type { Figure } from "../plot/types";
import { preset } from "../machine/presets";

/** Lone-thread CPUs the box delivers with all its online CPUs busy: a thread whose core has
 *  another online thread runs at costs.smtSiblingSpeed (3 on core2-2x2, 1 + 2 x s on the HT box). */
function busyThroughput(machine: string, offline: number[]): number {
  const m = preset(machine);
  const on = m.cpus.filter((c) => !offline.includes(c.id));
  const shared = (c: (typeof on)[number]) => on.some((o) => o.core === c.core && o.id !== c.id);
  return on.reduce(
    (t, c) => t + (c.capacity / 1024) * (shared(c) ? m.costs.smtSiblingSpeed : 1),
    0,
  );
}

/** One loop's CPU cost per box: calibrated from each box's published average (the box's busy
 *  throughput shared by 8 hogs for 5 s, per hog per interval), because the loop body is unknown.
 *  Only the spread (stddev, cv) is a result of the model. */
const cpuSecondsPerHog = (machine: string) => (5 * busyThroughput(machine, [3])) / 8;
const LOOP_NS = {
  "core2-2x2": (cpuSecondsPerHog("core2-2x2") * 1e9) / 1297.5,
  "ht-2x1x2": (cpuSecondsPerHog("ht-2x1x2") * 1e9) / 536.75,
};

function rows(id: string) {
  return (res: Results): LedgerRow[] => {
    const pub = publishedFor(id);
    const out: LedgerRow[] = [];
    for (const metric of ["avg_loops", "stddev_loops", "cv_loops"]) {
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

function figures(id: string) {
  return (res: Results): Figure[] => {
    const pub = publishedFor(id);
    const of = (metric: string) =>
      Object.fromEntries(["pre", "post"].map((v) => [v, publishedValue(pub, metric, v).value]));
    const cv = of("cv_loops");
    const sd = of("stddev_loops");
    return [
      box(res.data, "cv_loops", {
        title: `${id}: stddev / average of per-interval loop counts (published marked)`,
        published: cv,
      }),
      box(res.data, "stddev_loops", {
        title: `${id}: stddev of loop counts per 5 s interval`,
        published: sd,
      }),
    ];
  };
}

const NOTES =
  "Loop cost is calibrated per box from the published average (the sched-fair attachment is lost); the spread is the result. " +
  "HT box: 2 sockets x 1 core x 2 threads with siblings (0,2), (1,3), a stated choice; two busy SMT siblings each run at costs.smtSiblingSpeed (an estimate), which the loop-cost calibration counts. " +
  "Runs vary by tick phase, fork timing (100 us +-50% per fork, a choice) and per-CPU kernel threads (nice -5, 2 wakeups/s x 20 us, a choice).";

const TODAY_NOTE =
  "Merged in another form: the flat group power went with the sched-domain rework (by 2.6.32 init_sched_groups_power sums the child's power above the bottom level), and today's update_group_capacity (kernel/sched/fair.c) sums the child groups' capacities at every level above the CPU, so a package with two online CPUs is worth twice the lone CPU's package and the 2:1 split cannot come back. " +
  "The today rows run 6.19's balancer and EEVDF on the same 8 hogs with cpu3 offline: the hazard is gone, and cv_loops shows how evenly 6.19 shares the 3 CPUs (the loop cost is the one calibrated for pre).";

for (const [id, machine, title] of [
  ["002", "core2-2x2", "nice-fairness with cpu3 offline, 2 x 2 cores (group __cpu_power, 2009)"],
  ["002-ht", "ht-2x1x2", "nice-fairness with cpu3 offline, HT box (group __cpu_power, 2009)"],
] as const) {
  defineReproduction({
    id,
    title,
    machine,
    source: publishedFor(id).source,
    experiment: () =>
      topology(machine)
        .era("2.6.29")
        .offline(3)
        .workload(schedFair({ children: 8, interval: 5, loopNs: LOOP_NS[machine], intervals: 12 }))
        .variants({ pre: [], post: [groupPower2009] }),
    // 12 (or 6) intervals of 5 s plus room for the start offset (< 1 jiffy) and the 8 forks
    // (< 150 us each) so the last sample lands
    full: { iterations: 10, duration: 60.01 },
    quick: { iterations: 3, duration: 30.01 },
    rows: rows(id),
    figures: figures(id),
    notes: NOTES,
    today: { note: TODAY_NOTE, metrics: ["avg_loops", "stddev_loops", "cv_loops"] },
  });
}
