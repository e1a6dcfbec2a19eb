// select_task_rq_fair of v3.19 (wake/v319.ts) against the v4.3+ form 4.8 runs (wake/v48.ts):
// hand-built domains on which the two forms place a task differently (fair.c v3.19 and v4.8.17).
import { test } from "node:test";
import assert from "node:assert/strict";
import { boot } from "../boot";
import { wait } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { WF_FORK, WF_TTWU } from "../../../src/kernel/sched";
import {
  SD_BALANCE_FORK,
  SD_BALANCE_WAKE,
  SD_LOAD_BALANCE,
} from "../../../src/kernel/topology/sched_domain";
import { patch } from "../../../src/patch/patch";
import { box, busy } from "./wake_fixtures";

// box(): 2 packages x 4 cores x 2 threads; LLC 0 = {0-3, 8-11}, LLC 1 = {4-7, 12-15}; cpu0's
// domains are SMT {0, 8}, MC (LLC 0) and DIE (all 16).

/** A kernel of `era` with p asleep, last run on cpu4 (allowed on `cpus`, default all). */
function setup(era: Era, cpus?: number[], wide = false): { k: Kernel; p: Task } {
  const patches = wide ? [patch("wide").replace("fair.wake_wide", () => true)] : [];
  const k = boot(box(), era, "t", patches);
  const p = k.spawn({
    comm: "p",
    cpu: 4,
    cpus,
    program: function* () {
      for (;;) yield wait();
    },
  });
  k.runUntil(1_000_000);
  assert.equal(p.cpu, 4);
  return { k, p };
}

const LLC1 = [4, 5, 6, 7, 12, 13, 14, 15];
const select = (k: Kernel, p: Task, wakeFlags: number, wakerCpu = 0) =>
  k.hooks.get("fair.select_task_rq")({ k, p, prevCpu: 4, wakerCpu, wakeFlags });

test("3.19 skips a domain without SD_LOAD_BALANCE and still finds the affine DIE domain; 4.8 stops there", () => {
  for (const era of ["3.19", "4.8"] as const) {
    const { k, p } = setup(era);
    const [smt, mc] = k.domains.domains[0];
    smt.flags &= ~SD_LOAD_BALANCE;
    mc.flags &= ~SD_LOAD_BALANCE;
    busy(k, ...LLC1); // prev's LLC has no idle CPU
    // 3.19: affine_sd = DIE, wake_affine pulls to the idle waking CPU (this_load 0), which
    // select_idle_sibling keeps. 4.8: the walk breaks at SMT, select_idle_sibling(prev) = 4
    assert.equal(select(k, p, WF_TTWU), era === "3.19" ? 0 : 4, era);
  }
});

test("3.19 sends a wakeup to select_idle_sibling even with SD_BALANCE_WAKE domains; 4.8 takes find_idlest_group", () => {
  for (const era of ["3.19", "4.8"] as const) {
    // p may not run on the waking cpu0: no want_affine in either form
    const { k, p } = setup(era, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    const [smt, mc] = k.domains.domains[0];
    smt.flags |= SD_BALANCE_WAKE;
    mc.flags |= SD_BALANCE_WAKE;
    busy(k, ...LLC1, 0, 2, 3, 8, 9, 10, 11); // cpu1 the only idle CPU
    // 3.19: select_idle_sibling(p, 4) finds no idle group in LLC 1: 4. 4.8: sd = MC, the
    // idlest group of cpu0's MC holds the idle cpu1
    assert.equal(select(k, p, WF_TTWU), era === "3.19" ? 4 : 1, era);
  }
});

test("3.19 asks wake_wide inside wake_affine: a wide wakeup keeps prev as select_idle_sibling's target; 4.8 drops want_affine and takes SD_BALANCE_WAKE", () => {
  for (const era of ["3.19", "4.8"] as const) {
    const { k, p } = setup(era, undefined, true);
    const [smt, mc] = k.domains.domains[0];
    smt.flags |= SD_BALANCE_WAKE;
    mc.flags |= SD_BALANCE_WAKE;
    busy(k, ...LLC1, 0, 2, 3, 8, 9, 10, 11);
    assert.equal(select(k, p, WF_TTWU), era === "3.19" ? 4 : 1, era);
  }
  // without wake_wide and SD_BALANCE_WAKE both pull to the affine DIE domain (cpu0 runs nothing
  // that weighs: this_load 0), and select_idle_sibling(p, 0) takes LLC 0's all-idle core {1, 9}
  for (const era of ["3.19", "4.8"] as const) {
    const { k, p } = setup(era);
    busy(k, ...LLC1, 0, 2, 3, 8, 10, 11);
    assert.equal(select(k, p, WF_TTWU), 1, `${era} not wide`);
  }
});

test("3.19 starts a fork's new_cpu at the forking CPU; 4.8 at prev_cpu", () => {
  for (const era of ["3.19", "4.8"] as const) {
    const { k, p } = setup(era);
    for (const sd of k.domains.domains[0]) sd.flags &= ~SD_BALANCE_FORK;
    // no domain to balance the fork on: new_cpu is returned as it started
    assert.equal(select(k, p, WF_FORK), era === "3.19" ? 0 : 4, era);
  }
});
