// The placement hooks in force per era: the 2.6.29 code for 2.6.29, the 3.19/4.8 code for the
// 4.x family (3.19 with its pre-4.3 select_task_rq_fair, v319.ts), the 5.x code from 5.6 on;
// wake_wide absent (always false) in 2.6.29 and in its older form in 3.19 (v48.ts wakeWide312;
// the 4.8 form from 4.3 on).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ERAS, ERA_TRAITS } from "../../../src/kernel/features";
import { Hooks, hookDescription } from "../../../src/kernel/hooks";
import "../../../src/kernel/fair/wake/select";
import {
  selectTaskRqFair2629,
  wakeAffine2629,
  wakeIdle2629,
} from "../../../src/kernel/fair/wake/v2629";
import { selectTaskRqFair319 } from "../../../src/kernel/fair/wake/v319";
import {
  selectIdleSibling48,
  selectTaskRqFair48,
  wakeAffine48,
  wakeWide,
  wakeWide312,
} from "../../../src/kernel/fair/wake/v48";
import {
  selectIdleSibling5x,
  selectTaskRqFair5x,
  wakeAffine5x,
} from "../../../src/kernel/fair/wake/v5x";
import {
  findIdlestGroup2629,
  findIdlestGroup48,
  findIdlestGroup5x,
} from "../../../src/kernel/fair/wake/find_idlest";

const BY_FAMILY = {
  "2.6": [selectTaskRqFair2629, wakeAffine2629, wakeIdle2629, findIdlestGroup2629],
  "4.x": [selectTaskRqFair48, wakeAffine48, selectIdleSibling48, findIdlestGroup48],
  "5.x": [selectTaskRqFair5x, wakeAffine5x, selectIdleSibling5x, findIdlestGroup5x],
} as const;
const HOOKS = [
  "fair.select_task_rq",
  "fair.wake_affine",
  "fair.select_idle_sibling",
  "fair.find_idlest_group",
] as const;

test("each era's placement hooks are its family's code", () => {
  for (const era of ERAS) {
    const h = new Hooks(era);
    const want = BY_FAMILY[ERA_TRAITS[era].family];
    for (const [i, name] of HOOKS.entries()) {
      const fn = era === "3.19" && i === 0 ? selectTaskRqFair319 : want[i];
      assert.equal(h.get(name), fn, `${era} ${name}`);
    }
    const wide = h.get("fair.wake_wide");
    if (era === "2.6.29") assert.equal(wide({} as never), false, "no wake_wide in 2.6.29");
    else assert.equal(wide, era === "3.19" ? wakeWide312 : wakeWide, `${era} wake_wide`);
  }
});

test("each placement hook says which kernel function it stands for", () => {
  for (const [name, fn] of [
    ["fair.select_task_rq", "select_task_rq_fair"],
    ["fair.wake_wide", "wake_wide"],
    ["fair.wake_affine", "wake_affine"],
    ["fair.select_idle_sibling", "select_idle_sibling"],
    ["fair.find_idlest_group", "find_idlest_group"],
  ])
    assert.ok(hookDescription(name)?.startsWith(`${fn}`), name);
});
