// The built-in demo: two hogs, nice 0 and nice 5, pinned to one CPU. CFS should split the CPU
// by the weight table (1024 : 335). Small and quick: it shows the ledger format end to end.
import { topology } from "../experiment/experiment";
import { hogs } from "../workload/basic";
import { ledgerRow } from "./ledger";
import { defineReproduction, publishedFor, publishedValue } from "./registry";
import { box } from "../plot/distribution";

export const demo = defineReproduction({
  id: "demo",
  title: "Demo: nice 0 vs nice 5 CPU hogs sharing one CPU",
  machine: "core2-2x2",
  source: "kernel/sched/core.c, v6.19, sched_prio_to_weight[]",
  experiment: () =>
    topology("core2-2x2")
      .era("6.19")
      .workload(hogs({ n: 2, nice: [0, 5], cpus: [0], seconds: 2, warmupSeconds: 0.2 })),
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
