// Tim Chen's earlier RT patch, merged for v4.0: "sched/rt: Reduce rq lock contention by
// eliminating locking of non-feasible target". select_task_rq_rt uses find_lowest_rq's CPU only
// if the wakee outranks that rq's highest_prio.curr, and find_lock_lowest_rq gives up at once
// (no double_lock_balance, no retry) when the target already holds a task at least as
// important. The 4.0+ lines (kernel/sched/rt.c, find_lock_lowest_rq): "if
// (lowest_rq->rt.highest_prio.curr <= task->prio) { /* Target rq has tasks of equal or higher
// priority, retrying does not release any lock and is unlikely to yield a different result. */
// lowest_rq = NULL; break; }"; select_task_rq_rt: "if (target != -1 && p->prio <
// cpu_rq(target)->rt.highest_prio.curr) cpu = target;". v3.19 has "if (target != -1) cpu =
// target;" and no bail-out. Seed 004's equal-priority patch was measured on a tree that had this.
import { patch } from "../patch";
import { eraAtLeast } from "../../kernel/features";
import { targetFeasible40 } from "../../kernel/rt/select";

export const rtFeasibleTarget2015 = patch("rt-feasible-target-2015", {
  title: "sched/rt: Reduce rq lock contention by eliminating locking of non-feasible target",
  author: "Tim Chen",
  date: "2015-01",
  url: "https://lore.kernel.org/patchwork/patch/539137/",
  baseline: "3.19",
  diff:
    "select_task_rq_rt(): `if (target != -1) cpu = target;` becomes `if (target != -1 && p->prio < " +
    "cpu_rq(target)->rt.highest_prio.curr) cpu = target;`. find_lock_lowest_rq(): after `lowest_rq = " +
    "cpu_rq(cpu);` add `if (lowest_rq->rt.highest_prio.curr <= task->prio) { lowest_rq = NULL; break; }` " +
    "before double_lock_balance.",
}).replace("rt.target_feasible", (ctx, base) =>
  // 4.0+ eras already run this rule as their baseline.
  eraAtLeast(ctx.k.era, "4.0") ? base(ctx) : targetFeasible40(ctx),
);
