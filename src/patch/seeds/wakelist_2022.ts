// Seed 001: Tianchen Ding / Valentin Schneider, "sched: Queue task on wakelist in the same llc if
// the wakee cpu is idle" (May-Jun 2022), tested on 5.19-rc as two steps on ttwu_queue_cond:
// patch1 "use !cpu_rq(cpu)->nr_running instead of cpu_rq(cpu)->nr_running <= 1" (with the
// explicit cpu == smp_processor_id() check; merged for 6.0 as 28156108fecb) and patch2 "ignore
// WF_ON_CPU check" (merged for 6.0 as f3dd3f674555). Both are already in the 6.0+ default
// (core/ttwu.ts ttwuQueueCond60), so on those eras they change nothing.
import { patch } from "../patch";
import { eraAtLeast } from "../../kernel/features";
import { WF_ON_CPU } from "../../kernel/sched";
import "../../kernel/core/ttwu"; // defines the hook these patches replace

const THREAD_URL = "https://lore.kernel.org/r/xhsmhczfs8xav.mognet@vschneid.remote.csb";

/** patch1: an on_cpu wakee is queued on its CPU's wakelist only if nothing else runs there. */
export const wakelistPatch1 = patch("wakelist-patch1", {
  title: "sched: Fix the check of nr_running at queue wakelist",
  author: "Tianchen Ding (from Valentin Schneider's suggestion)",
  date: "2022-06-01",
  messageId: "xhsmhczfs8xav.mognet@vschneid.remote.csb",
  url: THREAD_URL,
  baseline: "5.19",
  diff:
    "ttwu_queue_cond(): after the cpus_share_cache test add `if (cpu == smp_processor_id()) " +
    "return false;`, and `(wake_flags & WF_ON_CPU) && cpu_rq(cpu)->nr_running <= 1` becomes " +
    "`(wake_flags & WF_ON_CPU) && !cpu_rq(cpu)->nr_running` (the wakee is already dequeued, so " +
    "a lone descheduling wakee leaves nr_running at 0).",
}).replace("core.ttwu_queue_cond", (ctx, base) => {
  if (eraAtLeast(ctx.k.era, "6.0")) return base(ctx); // merged: the era default has it
  const { k, cpu, thisCpu, wakeFlags } = ctx;
  if (!k.rqs[cpu].online || thisCpu < 0) return false;
  if (k.domains.sdLlcId[thisCpu] !== k.domains.sdLlcId[cpu]) return true;
  if (cpu === thisCpu) return false;
  return (wakeFlags & WF_ON_CPU) !== 0 && k.rqs[cpu].nrRunning === 0;
});

/**
 * patch2: drop the WF_ON_CPU requirement, so any wakeup to an idle CPU of the same LLC goes
 * through its wakelist. Written as "the condition below, asked as if WF_ON_CPU were set", so it
 * composes on whatever ttwu_queue_cond is in force (on patch1: `!nr_running`).
 */
export const wakelistPatch2 = patch("wakelist-patch2", {
  title: "sched: Remove the limitation of WF_ON_CPU on wakelist if wakee cpu is idle",
  author: "Tianchen Ding",
  date: "2022-06-01",
  messageId: "xhsmhczfs8xav.mognet@vschneid.remote.csb",
  url: THREAD_URL,
  baseline: "5.19",
  diff:
    "ttwu_queue_cond(): `if ((wake_flags & WF_ON_CPU) && !cpu_rq(cpu)->nr_running)` becomes " +
    "`if (!cpu_rq(cpu)->nr_running)` (applied on patch1).",
}).replace("core.ttwu_queue_cond", (ctx, base) => {
  if (eraAtLeast(ctx.k.era, "6.0")) return base(ctx);
  return base({ ...ctx, wakeFlags: ctx.wakeFlags | WF_ON_CPU });
});
