// select_task_rq_fair of v3.19 (kernel/sched/fair.c; the same text through v4.2.8), before
// 63b0e9edceec "sched/fair: Beef up wake_wide()" (Mike Galbraith, v4.3) restructured it into the
// form of v48.ts. What 3.19 does differently:
//   - want_affine is only "p may run on this CPU"; wake_wide (the v3.12 form, wakeWide312) is
//     asked inside wake_affine, which then returns 0 and leaves prev_cpu as the target;
//   - the domain walk skips (continue) a domain without SD_LOAD_BALANCE instead of stopping, and
//     does not stop at a domain lacking sd_flag: sd is the highest domain that has it;
//   - a wakeup always ends in select_idle_sibling(p, prev_cpu or this cpu), even when a domain
//     carries SD_BALANCE_WAKE ("goto unlock"); only forks and execs take find_idlest_group;
//   - new_cpu starts at this CPU (smp_processor_id()), not at prev_cpu.
// select_idle_sibling is the same code in v3.19 and v4.8 (selectIdleSibling48): target if idle,
// a cache-affine idle prev, else the first all-idle group of sd_llc or a lower domain; v4.9
// replaced it (10e2f1acd010 "sched/core: Rewrite and improve select_idle_siblings()").
import { WF_SYNC } from "../../sched";
import {
  SD_BALANCE_WAKE,
  SD_LOAD_BALANCE,
  SD_WAKE_AFFINE,
  type SchedDomain,
} from "../../topology/sched_domain";
import {
  countIdlestPlacement,
  countWakePlacement,
  currentOn,
  sdFlagOf,
  spanHas,
  wakeState,
  type SelectTaskRqCtx,
} from "./common";
import { idlestLoop } from "./find_idlest";
import { LINE } from "./lines";

/** select_task_rq_fair (v3.19 ... v4.2). */
export function selectTaskRqFair319(ctx: SelectTaskRqCtx): number {
  const { k, p, wakeFlags } = ctx;
  const st = wakeState(k);
  st.lines.begin();
  const cpu = ctx.wakerCpu >= 0 ? ctx.wakerCpu : ctx.prevCpu;
  let prevCpu = ctx.prevCpu;
  const sdFlag = sdFlagOf(wakeFlags);
  // task_waking_fair (v2.6.33 ... v4.5), called by try_to_wake_up before select_task_rq:
  // se->vruntime -= cfs_rq->min_vruntime reads the head of prev's cfs_rq (lines.ts). The model
  // renormalises at the migration instead (same result); the read is paid here, on every wakeup
  // of a task that may run elsewhere.
  if (sdFlag & SD_BALANCE_WAKE) st.lines.charge(ctx.wakerCpu, prevCpu, LINE.CFS_HEAD);
  const sync = (wakeFlags & WF_SYNC) !== 0;
  const wantAffine = (sdFlag & SD_BALANCE_WAKE) !== 0 && p.cpusAllowed[cpu] === 1;
  let affineSd: SchedDomain | null = null;
  let sd: SchedDomain | null = null;
  for (const tmp of k.domains.domains[cpu]) {
    if (!(tmp.flags & SD_LOAD_BALANCE)) continue;
    // If both cpu and prev_cpu are part of this domain, cpu is a valid SD_WAKE_AFFINE target.
    if (wantAffine && tmp.flags & SD_WAKE_AFFINE && spanHas(tmp.span, prevCpu)) {
      affineSd = tmp;
      break;
    }
    if (tmp.flags & sdFlag) sd = tmp;
  }
  // wake_affine() begins with "if (wake_wide(p)) return 0;" in v3.12 ... v4.2.
  if (
    affineSd &&
    cpu !== prevCpu &&
    !st.wakeWide({ k, p, waker: currentOn(k, ctx.wakerCpu), factor: k.domains.sdLlcSize[cpu] }) &&
    st.wakeAffine({ k, p, sd: affineSd, thisCpu: cpu, prevCpu, sync }) === cpu
  )
    prevCpu = cpu;
  if (sdFlag & SD_BALANCE_WAKE) {
    st.sisReason = null;
    const newCpu = st.selectIdleSibling({ k, p, prev: ctx.prevCpu, target: prevCpu, thisCpu: cpu });
    countWakePlacement(k, st, newCpu, ctx.prevCpu, cpu);
    return newCpu;
  }
  // Forks and execs: new_cpu = cpu unless find_idlest_group / find_idlest_cpu move it.
  const newCpu = idlestLoop(k, p, sd, cpu, sdFlag);
  countIdlestPlacement(k, sdFlag, newCpu, cpu);
  return newCpu;
}
