// Seed 002: Miao Xie, "[RFC][PATCH] sched: fix the nice-unfairness on SMP when offline a CPU".
// 2.6.29's init_sched_groups_power gave a group a flat SCHED_LOAD_SCALE (one CPU's worth)
// whenever its child domain shared CPU power or package resources; the patch keeps the flat
// value only for the bottom level and sums the child's groups everywhere else, so a 2-CPU
// package is worth 2048 against a lone CPU's 1024.
import { patch } from "../patch";
import { ERA_TRAITS } from "../../kernel/features";
import { SCHED_CAPACITY_SCALE } from "../../kernel/sched";
import "../../kernel/topology/hooks"; // defines the hook this patch replaces

export const groupPower2009 = patch("group-power-2009", {
  title: "sched: fix the nice-unfairness on SMP when offline a CPU",
  author: "Miao Xie",
  date: "2009-04-17",
  messageId: "49E8167D.8000005@cn.fujitsu.com",
  url: "https://lore.kernel.org/r/49E8167D.8000005@cn.fujitsu.com",
  baseline: "2.6.29",
  diff:
    "init_sched_groups_power(): `if (!child || (!(sd->flags & SD_POWERSAVINGS_BALANCE) && (child->flags & " +
    "(SD_SHARE_CPUPOWER | SD_SHARE_PKG_RESOURCES))))` becomes `if (!child)`: only a bottom-level group gets a flat " +
    "SCHED_LOAD_SCALE; every other group's __cpu_power is the sum of its child's groups.",
}).replace("topology.group_capacity", (ctx, base) => {
  // init_sched_groups_power() exists only in the 2.6 family; later kernels sum child capacities.
  if (ERA_TRAITS[ctx.era].family !== "2.6") return base(ctx);
  if (!ctx.sd.child || ctx.childGroupCapacities === null) return SCHED_CAPACITY_SCALE;
  return ctx.childGroupCapacities.reduce((a, b) => a + b, 0);
});
