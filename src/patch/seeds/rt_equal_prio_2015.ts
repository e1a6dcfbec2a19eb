// Seed 004: Tim Chen, Jan 2015, "sched-rt: Reduce excessive task push rate by not pushing tasks
// with equal priority as the current task". In select_task_rq_rt and task_woken_rt the wakee is
// moved away from (or pushed off) an RT curr only if curr is pinned or strictly more important:
// `curr->prio <= p->prio` becomes `curr->prio < p->prio`. An equal-priority wakee then waits
// behind curr (or is pulled by a CPU that lowers its priority) instead of being placed on or
// pushed to another CPU. Mainline kept `<=` (still in kernel/sched/rt.c select_task_rq_rt).
import { patch } from "../patch";
import "../../kernel/rt/select"; // defines the hook this patch replaces

export const rtEqualPrio2015 = patch("rt-equal-prio-2015", {
  title:
    "sched-rt: Reduce excessive task push rate by not pushing tasks with equal priority as the current task",
  author: "Tim Chen",
  date: "2015-01",
  baseline: "3.19",
  diff:
    "select_task_rq_rt(): `(curr->nr_cpus_allowed < 2 || curr->prio <= p->prio)` becomes " +
    "`(curr->nr_cpus_allowed < 2 || curr->prio < p->prio)`; task_woken_rt(): `(rq->curr->nr_cpus_allowed < 2 " +
    "|| rq->curr->prio <= p->prio)` becomes `... rq->curr->prio < p->prio)`. Measured on a tree with " +
    "rt-feasible-target-2015.",
}).replace("rt.wakeup_push_cond", (ctx) => ctx.curr.prio < ctx.p.prio);
