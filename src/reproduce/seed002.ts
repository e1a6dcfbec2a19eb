// Seed 002: nice-unfairness with a CPU offline (Miao Xie, 2009). 8 sqrt-loop hogs on a
// 2 x 2-core box with cpu3 offline, and on an HT box; 2.6.29 before and after the group-power
// patch. The 2:1 split before the patch comes from both package-level groups being worth 1024
// (init_sched_groups_power), so find_busiest_group equalises 4 tasks per group.
import { topology, type Experiment } from "../experiment/experiment";
import { unknown } from "../experiment/declare";
import { schedFair } from "../workload/sched_fair";
import { groupPower2009 } from "../patch/seeds/group_power_2009";
import type { Results } from "../experiment/results";
import { ledgerRow, type LedgerRow } from "./ledger";
import { defineReproduction, publishedFor, publishedValue } from "./registry";
import { box } from "../plot/distribution";
import type { Figure } from "../plot/types";
import { preset } from "../machine/presets";
import type { Machine } from "../machine/types";
import { htMachine, smtSiblingSpeed } from "./seed002_ht";

/** Lone-thread CPUs a box delivers with all its online CPUs busy: a thread whose core has
 *  another online thread runs at costs.smtSiblingSpeed (3 on core2-2x2, 1 + 2 x s on the HT
 *  boxes with cpu3 offline). */
export function busyThroughput(m: Machine, offline: number[]): number {
  const on = m.cpus.filter((c) => !offline.includes(c.id));
  const shared = (c: (typeof on)[number]) => on.some((o) => o.core === c.core && o.id !== c.id);
  return on.reduce(
    (t, c) => t + (c.capacity / 1024) * (shared(c) ? m.costs.smtSiblingSpeed : 1),
    0,
  );
}

/**
 * The loop_ns calibration, a closed form: the box's busy throughput (busyThroughput, with cpu3
 * offline) for one 5 s interval shared by the 8 hogs is the CPU time of one hog per interval;
 * divided by the published average loop count before the patch (the calibration target,
 * avg_loops pre) it is one loop's cost. It follows the machine and its sibling speed.
 */
export function loopNsClosedForm(id: string, machine: Machine): number {
  const avg = publishedValue(publishedFor(id), "avg_loops", "pre").value;
  if (avg === null) throw new Error(`data/published/${id}.json: avg_loops pre has no value`);
  const cpuSecondsPerHog = (5 * busyThroughput(machine, [3])) / 8;
  return (cpuSecondsPerHog * 1e9) / avg;
}

/** The sched-fair test as the mail ran it (./sched-fair -p 8 -i 5 -v), 12 intervals. */
const sched = (loopNs: number) => schedFair({ children: 8, interval: 5, loopNs, intervals: 12 });

/**
 * The loop body's CPU cost (the sched-fair.c attachment is lost): calibrated on avg_loops pre
 * by loopNsClosedForm at every run; the default is that value on the box's default machine.
 */
function loopNs(id: string, machine: string) {
  return unknown("loop_ns", {
    range: [1e6, 4e6],
    default: loopNsClosedForm(id, preset(machine)),
    unit: "ns",
    description: "one sched-fair loop's CPU time on a lone thread (the loop body is unknown)",
    source: `choice: the sched-fair.c attachment (its loop body) is lost, so the range is wide: one counted loop costs 1.4 ms on the 2 x 2 box (8 hogs sharing 3 CPUs for 5 s, 1297.5 loops) and 2.3 to 3.5 ms on the HT boxes (1 + 2s CPUs for s in 0.5..1, 536.75 loops). Calibrated on avg_loops pre by the closed form of data/published/${id}.json (calibration.method)`,
    apply: (e: Experiment, v) => e.workload(sched(Number(v))),
  });
}

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

const NOTES: Record<string, string> = {
  "002":
    "loop_ns (one loop's CPU cost; the sched-fair attachment is lost) is calibrated on avg_loops pre by a closed form (3 busy CPUs); the spread is the result. " +
    "Runs vary by tick phase, fork timing (100 us +-50% per fork, a choice) and per-CPU kernel threads (nice -5, 2 wakeups/s x 20 us, a choice).",
  "002-ht":
    "The box is an unknown (ht_machine: six candidate 2009 x86_64 HT boxes, default ht-2x1x2, siblings (0,2), (1,3)), and so is the speed of a thread beside a busy sibling (smt_sibling_speed, 0.5..1, default 0.6); loop_ns is calibrated on avg_loops pre by a closed form that follows both (1 + 2s busy CPUs); the spread is the result. " +
    "Runs vary by tick phase, fork timing (100 us +-50% per fork, a choice) and per-CPU kernel threads (nice -5, 2 wakeups/s x 20 us, a choice).",
};

const TODAY_NOTE =
  "Merged in another form: the flat group power went with the sched-domain rework (by 2.6.32 init_sched_groups_power sums the child's power above the bottom level), and today's update_group_capacity (kernel/sched/fair.c) sums the child groups' capacities at every level above the CPU, so a package with two online CPUs is worth twice the lone CPU's package and the 2:1 split cannot come back. " +
  "The today rows run 6.19's balancer and EEVDF on the same 8 hogs with cpu3 offline: the hazard is gone, and cv_loops shows how evenly 6.19 shares the 3 CPUs (the loop cost is the one calibrated for pre).";

for (const [id, machine, title] of [
  ["002", "core2-2x2", "nice-fairness with cpu3 offline, 2 x 2 cores (group __cpu_power, 2009)"],
  ["002-ht", "ht-2x1x2", "nice-fairness with cpu3 offline, HT box (group __cpu_power, 2009)"],
] as const) {
  // The HT box is a choice among the candidate boxes, and its sibling speed is unknown; both are
  // declared before loop_ns, whose closed form reads the machine they make.
  const boxUnknowns = id === "002-ht" ? [htMachine, smtSiblingSpeed] : [];
  defineReproduction({
    id,
    title,
    machine,
    source: publishedFor(id).source,
    experiment: () =>
      topology(machine)
        .era("2.6.29")
        .offline(3)
        .workload(sched(loopNsClosedForm(id, preset(machine))))
        .variants({ pre: [], post: [groupPower2009] })
        .unknowns(...boxUnknowns, loopNs(id, machine)),
    closedForm: (exp) => ({ loop_ns: loopNsClosedForm(id, exp.machine()) }),
    // 12 (or 6) intervals of 5 s plus room for the start offset (< 1 jiffy) and the 8 forks
    // (< 150 us each) so the last sample lands
    full: { iterations: 10, duration: 60.01 },
    quick: { iterations: 3, duration: 30.01 },
    rows: rows(id),
    figures: figures(id),
    notes: NOTES[id],
    today: { note: TODAY_NOTE, metrics: ["avg_loops", "stddev_loops", "cv_loops"] },
  });
}
