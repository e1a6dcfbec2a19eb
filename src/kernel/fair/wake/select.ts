// Wakeup and fork placement of the fair class: select_task_rq_fair as the kernel of each era
// does it, behind the hook "fair.select_task_rq" (the whole decision), with finer hooks where
// published patches change it:
//   fair.wake_wide            wake_wide(p): 1:N wakers spread instead of pulling (4.x, 5.x, 6.x)
//   fair.wake_affine          wake_affine(): waking CPU or prev_cpu (2.6.29, 4.8, 5.x forms)
//   fair.select_idle_sibling  select_idle_sibling() (4.8, 5.x); 2.6.29's wake_idle()
//   fair.find_idlest_group    the fork/exec slow path's group choice (2.6.29, 4.8, 5.5+ forms)
// The era code: v2629.ts, v48.ts (also 3.19), v5x.ts (5.6, 5.19, 6.19), the slow path
// find_idlest.ts, shared state and helpers common.ts.
// Every decision is counted in counters.wakePlacement (see countWakePlacement).
import { WF_FORK } from "../../sched";
import { ERA_TRAITS, eraAtLeast, type Era, type Family } from "../../features";
import { defineHook } from "../../hooks";
import { selectTaskRqFair2629, wakeAffine2629, wakeIdle2629 } from "./v2629";
import {
  selectIdleSibling48,
  selectTaskRqFair48,
  wakeAffine48,
  wakeWide,
  wakeWide312,
} from "./v48";
import { selectIdleSibling5x, selectTaskRqFair5x, wakeAffine5x } from "./v5x";
import { findIdlestGroup2629, findIdlestGroup48, findIdlestGroup5x } from "./find_idlest";
import type { SelectTaskRqCtx } from "./common";

export type {
  FindIdlestGroupCtx,
  SelectIdleSiblingCtx,
  SelectTaskRqCtx,
  WakeAffineCtx,
  WakeWideCtx,
} from "./common";
export { idleCpu, wakeState } from "./common";

const family = (era: Era): Family => ERA_TRAITS[era].family;

/**
 * The placement the project started with (prev if idle, else an idle CPU of prev's LLC, else
 * prev; forks on the least loaded CPU). Not an era default; kept for comparisons.
 */
export function simpleSelectTaskRqFair(ctx: SelectTaskRqCtx): number {
  const { k, p, prevCpu, wakeFlags } = ctx;
  if (wakeFlags & WF_FORK) {
    let best = -1;
    let bestNr = Infinity;
    let bestLoad = Infinity;
    for (const rq of k.rqs) {
      if (!rq.online || !p.cpusAllowed[rq.cpu]) continue;
      const nr = rq.nrRunning + rq.ttwuPending;
      const load = rq.cfs.loadWeight;
      if (nr < bestNr || (nr === bestNr && load < bestLoad)) {
        best = rq.cpu;
        bestNr = nr;
        bestLoad = load;
      }
    }
    return best;
  }
  if (p.cpusAllowed[prevCpu] && k.rqs[prevCpu].online && k.rqs[prevCpu].isIdle()) return prevCpu;
  const llc = k.domains.sdLlc[prevCpu];
  if (llc) for (const cpu of llc.span) if (p.cpusAllowed[cpu] && k.rqs[cpu].isIdle()) return cpu;
  return prevCpu;
}

defineHook(
  "fair.select_task_rq",
  "select_task_rq_fair: the CPU a waking, forked or exec'ing fair task is placed on",
  (era) => {
    switch (family(era)) {
      case "2.6":
        return selectTaskRqFair2629;
      case "4.x":
        return selectTaskRqFair48;
      case "5.x":
        return selectTaskRqFair5x;
    }
  },
);

defineHook(
  "fair.wake_wide",
  "wake_wide(p): true spreads a 1:N waker's wakees (no affine pull); false before 3.x had it",
  (era) => (family(era) === "2.6" ? () => false : eraAtLeast(era, "4.3") ? wakeWide : wakeWide312),
);

defineHook(
  "fair.wake_affine",
  "wake_affine(): the CPU a wakeup targets, the waking CPU (affine) or prev_cpu",
  (era) => {
    switch (family(era)) {
      case "2.6":
        return wakeAffine2629;
      case "4.x":
        return wakeAffine48;
      case "5.x":
        return wakeAffine5x;
    }
  },
);

defineHook(
  "fair.select_idle_sibling",
  "select_idle_sibling(p, prev, target): an idle CPU near target, else target (2.6.29: wake_idle)",
  (era) => {
    switch (family(era)) {
      case "2.6":
        return wakeIdle2629;
      case "4.x":
        return selectIdleSibling48;
      case "5.x":
        return selectIdleSibling5x;
    }
  },
);

defineHook(
  "fair.find_idlest_group",
  "find_idlest_group(): the sched group a fork/exec (or SD_BALANCE_WAKE wakeup) is pushed to, or null to go down a level",
  (era) => {
    switch (family(era)) {
      case "2.6":
        return findIdlestGroup2629;
      case "4.x":
        return findIdlestGroup48;
      case "5.x":
        return findIdlestGroup5x;
    }
  },
);
