// Seed 000: Mike Galbraith, Sep 2016, "sched: Further improve spurious CPU_IDLE active
// migrations" (v2, against 4.8-rc; a 3.18+ regression fix). On a box whose LLC holds only two
// CPUs, select_idle_sibling() keeps a communicating pair on one LLC, so that group shows no idle
// CPU while the others show two. find_busiest_group()'s CPU_IDLE test (`local->idle_cpus <=
// busiest->idle_cpus + 1` -> balanced) then calls it an imbalance; the busiest runqueues each run
// one task, nothing can be pulled, nr_balance_failed climbs past cache_nice_tries + 2 and active
// balance pushes one of the pair away, and the next sync wakeup pulls it back. The patch allows
// a difference of 2 idle CPUs when sd_llc_size is 2.
import { patch } from "../patch";
import { ERA_TRAITS } from "../../kernel/features";
import "../../kernel/fair/lb/load_balance"; // defines the hook this patch replaces

export const idleSlack2016 = patch("idle-slack-2016", {
  title: "sched: Further improve spurious CPU_IDLE active migrations",
  author: "Mike Galbraith",
  date: "2016-09-05",
  messageId: "1473092813.4412.6.camel@gmail.com",
  url: "https://lore.kernel.org/r/1473092813.4412.6.camel@gmail.com",
  baseline: "4.8",
  diff:
    "find_busiest_group(), env->idle == CPU_IDLE: `if ((busiest->group_type != group_overloaded) && " +
    "(local->idle_cpus <= (busiest->idle_cpus + 1)))` goto out_balanced becomes a comparison with " +
    "busiest->idle_cpus + slack, where slack is 2 when per_cpu(sd_llc_size, env->dst_cpu) is 2 and 1 otherwise.",
}).replace("fair.idle_imbalance_slack", (ctx, base) => {
  // The CPU_IDLE idle-CPU test with this form exists in the 4.x balancer (3.16-5.4).
  if (ERA_TRAITS[ctx.env.era].family !== "4.x") return base(ctx);
  return ctx.sdLlcSize === 2 ? 2 : base(ctx);
});
