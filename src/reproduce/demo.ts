// The built-in demo: two hogs, nice 0 and nice 5, pinned to one CPU. CFS should split the CPU
// by the weight table (1024 : 335). Small and quick: it shows the ledger format end to end.
import { topology } from "../experiment/experiment";
import { unknown } from "../experiment/declare";
import { hogs } from "../workload/basic";
import { ledgerRow } from "./ledger";
import { defineReproduction, publishedFor, publishedValue } from "./registry";
import { box } from "../plot/distribution";

// What the weight table leaves open: the demo names no kernel configuration and no measured
// machine. At their defaults both leave the experiment as it was (the 6.19 baseline's HZ, the
// preset's own switch cost), so the ledger does not move; `examples/sweeps/small.json` sweeps them.
const hz = unknown("hz", {
  range: [100, 1000],
  integer: true,
  default: 1000,
  unit: "Hz",
  source:
    "choice: the weight table names no kernel configuration; CONFIG_HZ is one of 100, 250, 300 or 1000 (kernel/Kconfig.hz; the Kconfig default is 250); default 1000, what the 6.19 baseline runs",
  description: "CONFIG_HZ: how often the tick notices that a slice has run out",
  apply: (e, v) => e.tunables({ hz: Number(v) }),
});
const switchScale = unknown("context_switch_scale", {
  range: [0.5, 3],
  default: 1,
  unit: "x",
  source:
    "choice: core2-2x2's contextSwitchNs (1.7 us) is itself scaled from another machine's measurement; half to three times it",
  description: "the preset's context-switch cost times this factor",
  apply: (e, v) =>
    Number(v) === 1
      ? e
      : e.editMachine(`contextSwitchNs x${v}`, (m) => {
          m.costs.contextSwitchNs *= Number(v);
        }),
});

export const demo = defineReproduction({
  id: "demo",
  title: "Demo: nice 0 vs nice 5 CPU hogs sharing one CPU",
  machine: "core2-2x2",
  source: "kernel/sched/core.c, v6.19, sched_prio_to_weight[]",
  experiment: () =>
    topology("core2-2x2")
      .era("6.19")
      .workload(hogs({ n: 2, nice: [0, 5], cpus: [0], seconds: 2, warmupSeconds: 0.2 }))
      .unknowns(hz, switchScale),
  full: { iterations: 3, duration: 4, warmup: 0.2 },
  quick: { iterations: 2, duration: 2, warmup: 0.2 },
  rows(res) {
    const pub = publishedFor("demo");
    return ["share_hog0", "share_hog1"].map((m) => {
      const f = publishedValue(pub, m, "baseline");
      return ledgerRow(m, "baseline", f.value, res.values(m, "baseline"), f.band ?? null, f.kind);
    });
  },
  today: {
    note: "The demo already runs 6.19 with no patch: its today rows are the baseline's values (EEVDF shares CPU time by weight, as CFS did).",
    metrics: ["share_hog0", "share_hog1"],
    fromVariant: "baseline",
  },
  figures: (res) => [
    box(res.data, "share_hog0", {
      title: "CPU share of the nice-0 hog (weight-table value marked)",
      published: publishedValue(publishedFor("demo"), "share_hog0", "baseline").value ?? undefined,
    }),
  ],
});
