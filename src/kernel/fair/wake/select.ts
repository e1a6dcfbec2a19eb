import { ERA_TRAITS, eraAtLeast, type Era, type Family } from "../../features";
import { defineHook } from "../../hooks";
import { selectTaskRqFair2629, wakeAffine2629, wakeIdle2629 } from "./v2629";
import { selectTaskRqFair319 } from "./v319";
import {
  selectIdleSibling48,
  selectTaskRqFair48,
  wakeAffine48,
  wakeWide,
  wakeWide312,
} from "./v48";
import { selectIdleSibling5x, selectTaskRqFair5x, wakeAffine5x } from "./v5x";
import { findIdlestGroup2629, findIdlestGroup48, findIdlestGroup5x } from "./find_idlest";

export type {
  FindIdlestGroupCtx,
  SelectIdleSiblingCtx,
  SelectTaskRqCtx,
  WakeAffineCtx,
  WakeWideCtx,
} from "./common";
export { idleCpu, wakeState } from "./common";

const family = (era: Era): Family => ERA_TRAITS[era].family;

defineHook(
  "fair.select_task_rq",
  "select_task_rq_fair: the CPU a waking, forked or exec'ing fair task is placed on",
  (era) => {
    switch (family(era)) {
      case "2.6":
        return selectTaskRqFair2629;
      case "4.x":
        // v4.3 restructured it (63b0e9edceec "sched/fair: Beef up wake_wide()")
        return eraAtLeast(era, "4.3") ? selectTaskRqFair48 : selectTaskRqFair319;
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
