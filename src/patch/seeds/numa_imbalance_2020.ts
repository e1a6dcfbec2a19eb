// Seed 003: Mel Gorman, "sched, fair: Allow a small load imbalance between low utilisation
// SD_NUMA domains" v4 (Jan 2020, merged for 5.6 as b396f52326de). In calculate_imbalance's
// group_has_spare branch, after the task imbalance has been halved, a domain with SD_NUMA keeps
// imbalance 0 while the busiest group runs at most 2 tasks ("a simple pair of communicating
// tasks that should remain local"), so an almost idle node is not emptied into the other.
import { patch } from "../patch";
import { eraAtLeast, ERA_TRAITS } from "../../kernel/features";
import { numaImbalanceSmallPair56 } from "../../kernel/fair/lb/v5x";
import "../../kernel/fair/lb/load_balance"; // defines the hook this patch replaces

export const numaImbalance2020 = patch("numa-imbalance-2020", {
  title: "sched, fair: Allow a small load imbalance between low utilisation SD_NUMA domains v4",
  author: "Mel Gorman",
  date: "2020-01-17",
  messageId: "CAKfTPtBz=DtstPOUF63N1SJRhTpgFxyH2DpApznH_Cd1og0CVg@mail.gmail.com",
  url: "https://lore.kernel.org/r/CAKfTPtBz=DtstPOUF63N1SJRhTpgFxyH2DpApznH_Cd1og0CVg@mail.gmail.com",
  baseline: "5.6",
  diff:
    "calculate_imbalance(), local group_has_spare: after `env->imbalance = nr_diff >> 1` or " +
    "`(local->idle_cpus - busiest->idle_cpus) >> 1`, add `if (env->sd->flags & SD_NUMA) { " +
    "imbalance_min = 2; if (busiest->sum_nr_running <= imbalance_min) env->imbalance = 0; }`.",
}).replace("fair.numa_imbalance", (ctx, base) => {
  // The rule exists in the 5.x balancer of 5.6-5.17; 5.18+ has adjust_numa_imbalance already.
  if (ERA_TRAITS[ctx.env.era].family !== "5.x" || eraAtLeast(ctx.env.era, "5.18")) return base(ctx);
  return numaImbalanceSmallPair56(ctx);
});
