// The balancer's capacity rules on SD_ASYM_CPUCAPACITY domains (src/kernel/fair/lb/misfit.ts) and
// the v6.6 SMT helpers (src/kernel/fair/lb/v66.ts), called directly on hand-built groups:
// capacity_greater, sgc->min/max_capacity, update_sd_pick_busiest's two capacity tests,
// find_busiest_queue's single-task skip (5.6 and 5.14+ forms), smt_vs_nonsmt_groups and
// sibling_imbalance (7ff1693236f5 with 450e749707bc, v6.6).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Era } from "../../../src/kernel/features";
import {
  biggerGroupNotBusy,
  capacityGreater,
  groupCapacityRange,
  misfitCannotHelp,
  skipBiggerSingleTaskRq,
} from "../../../src/kernel/fair/lb/misfit";
import { siblingImbalance, smtGroup, smtVsNonsmtGroups } from "../../../src/kernel/fair/lb/v66";
import type { SdLbStats56, SgLbStats56 } from "../../../src/kernel/fair/lb/types";
import {
  SD_ASYM_CPUCAPACITY,
  SD_SHARE_CPUCAPACITY,
} from "../../../src/kernel/topology/sched_domain";
import { BASE_FLAGS, domain, env, group, rq } from "./lb_fixtures";

const LITTLE = 446;
/** cpus 0,1 little (446), 2,3 big (1024), 4 a mid CPU (800); `dst` balances. */
function asym(era: Era, dst: number, flags = BASE_FLAGS | SD_ASYM_CPUCAPACITY) {
  const caps = [LITTLE, LITTLE, 1024, 1024, 800];
  const rqs = caps.map((c, cpu) => rq(cpu, [], { cpuCapacity: c, cpuCapacityOrig: c }));
  const sd = domain({
    level: "DIE",
    cpu: dst,
    groups: [group([0, 1]), group([2, 3]), group([4])],
    flags,
  });
  return env({ era, sd, dstCpu: dst, idle: "CPU_IDLE", rqs });
}

test("capacity_greater: cap1 * 1024 > cap2 * 1078, strictly", () => {
  assert.equal(capacityGreater(1078, 1024), false); // exactly 5.3% more is not greater
  assert.equal(capacityGreater(1079, 1024), true);
  assert.equal(capacityGreater(1024, 1024), false);
});

test("sgc->min_capacity / max_capacity: the smallest and largest capacity_of in the group", () => {
  const e = asym("5.19", 0);
  assert.deepEqual(groupCapacityRange(e, group([0, 2, 4])), { min: LITTLE, max: 1024 });
  assert.deepEqual(groupCapacityRange(e, group([4, 1])), { min: LITTLE, max: 800 });
});

test("update_sd_pick_busiest: a misfit group the destination cannot help (5.6 and 5.14+)", () => {
  // 5.14+: capacity_greater(capacity_of(dst_cpu), sg->sgc->max_capacity)
  assert.equal(misfitCannotHelp(asym("5.19", 2), group([0, 1]), null), false); // big dst, little sg
  assert.equal(misfitCannotHelp(asym("5.19", 1), group([0, 1]), null), true);
  assert.equal(misfitCannotHelp(asym("5.19", 4), group([2, 3]), null), true);
  // 5.6: group_smaller_max_cpu_capacity(sg, local) = fits_capacity(sg max, local max)
  const e = asym("5.6", 2);
  assert.equal(misfitCannotHelp(e, group([0, 1]), group([2, 3])), false);
  assert.equal(misfitCannotHelp(e, group([4]), group([2, 3])), false); // 800 * 1280 < 1024 * 1024
  assert.equal(misfitCannotHelp(e, group([2, 3]), group([4])), true); // big sg, smaller local
  assert.equal(misfitCannotHelp(e, group([0, 1]), group([4])), false); // 446 fits 800
  assert.equal(misfitCannotHelp(e, group([0, 1]), null), true); // no local group
});

test("update_sd_pick_busiest: a not-busy group of bigger CPUs is not picked (asym domains only)", () => {
  // 5.14+: capacity_greater(sg->sgc->min_capacity, capacity_of(dst_cpu))
  assert.equal(biggerGroupNotBusy(asym("5.19", 0), group([2, 3]), null), true);
  assert.equal(biggerGroupNotBusy(asym("5.19", 2), group([0, 1]), null), false);
  assert.equal(biggerGroupNotBusy(asym("5.19", 2), group([3]), null), false); // equal capacity
  // without SD_ASYM_CPUCAPACITY never
  assert.equal(biggerGroupNotBusy(asym("5.19", 0, BASE_FLAGS), group([2, 3]), null), false);
  assert.equal(biggerGroupNotBusy(asym("5.6", 0, BASE_FLAGS), group([2, 3]), group([0, 1])), false);
  // 5.6: group_smaller_min_cpu_capacity(local, sg) = fits_capacity(local min, sg min)
  const e = asym("5.6", 0);
  assert.equal(biggerGroupNotBusy(e, group([2, 3]), group([0, 1])), true);
  assert.equal(biggerGroupNotBusy(e, group([0, 1]), group([2, 3])), false);
  assert.equal(biggerGroupNotBusy(e, group([2, 3]), null), false);
});

test("find_busiest_queue: skip a one-task CPU not smaller than dst (5.6: <, 5.14+: capacity_greater)", () => {
  // 5.6: capacity_of(dst) < capacity
  const e56 = asym("5.6", 4); // dst 800
  assert.equal(skipBiggerSingleTaskRq(e56, 1024, 1), true);
  assert.equal(skipBiggerSingleTaskRq(e56, 800, 1), false); // equal: not bigger
  assert.equal(skipBiggerSingleTaskRq(e56, LITTLE, 1), false);
  assert.equal(skipBiggerSingleTaskRq(e56, 1024, 2), false); // more than one task
  assert.equal(skipBiggerSingleTaskRq(asym("5.6", 4, BASE_FLAGS), 1024, 1), false); // not asym
  // 5.14+: !capacity_greater(capacity_of(dst), capacity)
  const e519 = asym("5.19", 4);
  assert.equal(skipBiggerSingleTaskRq(e519, 800, 1), true); // equal: skipped
  assert.equal(skipBiggerSingleTaskRq(e519, 770, 1), true); // within 5%
  assert.equal(skipBiggerSingleTaskRq(e519, LITTLE, 1), false);
  assert.equal(skipBiggerSingleTaskRq(e519, 800, 3), false);
});

const smt = (cpus: number[], cores?: number) => ({
  ...group(cpus),
  flags: SD_SHARE_CPUCAPACITY,
  cores,
});

test("smt_vs_nonsmt_groups: one group SMT and the other not; no group, no answer", () => {
  assert.equal(smtGroup(null), false);
  assert.equal(smtGroup(smt([0, 1])), true);
  assert.equal(smtGroup(group([0, 1])), false);
  assert.equal(smtVsNonsmtGroups(smt([0, 1]), group([2])), true);
  assert.equal(smtVsNonsmtGroups(group([2]), smt([0, 1])), true);
  assert.equal(smtVsNonsmtGroups(smt([0, 1]), smt([2, 3])), false);
  assert.equal(smtVsNonsmtGroups(group([0]), group([2])), false);
  assert.equal(smtVsNonsmtGroups(null, smt([0, 1])), false);
  assert.equal(smtVsNonsmtGroups(smt([0, 1]), null), false);
});

const stats = (sumNrRunning: number, groupWeight = 2) =>
  ({ sumNrRunning, groupWeight }) as SgLbStats56;

function sibling(
  busy: number,
  local: number,
  coresBusiest: number | undefined,
  coresLocal: number | undefined,
  idle: "CPU_IDLE" | "CPU_NOT_IDLE" = "CPU_IDLE",
  weights: [number, number] = [2, 2],
): number {
  const e = asym("6.6", 0);
  e.idle = idle;
  const sds = {
    busiest: coresBusiest === undefined ? null : { ...group([2, 3]), cores: coresBusiest },
    local: coresLocal === undefined ? null : { ...group([0, 1]), cores: coresLocal },
  } as SdLbStats56;
  return siblingImbalance(e, sds, stats(busy, weights[0]), stats(local, weights[1]));
}

test("sibling_imbalance: equal cores, the difference; else per-core ratio, rounded, an empty local takes 2", () => {
  assert.equal(sibling(3, 1, 2, 2), 2);
  assert.equal(sibling(1, 3, 2, 2), 0); // lsub_positive
  assert.equal(sibling(3, 1, 2, 2, "CPU_NOT_IDLE"), 0);
  assert.equal(sibling(0, 0, 1, 2), 0); // busiest runs nothing
  // 1 busiest core with 3 tasks, 2 local cores with 1: (2 * (2*3 - 1*1) + 3) / 3 = 4
  assert.equal(sibling(3, 1, 1, 2), 4);
  // 2 busiest cores with 3, 1 local core with 1: 1*3 - 2*1 = 1, (2 + 3) / 3 = 1
  assert.equal(sibling(3, 1, 2, 1), 1);
  // empty local: 4 tasks on 2 cores against 1 core: (8 + 3) / 3 = 3, kept
  assert.equal(sibling(4, 0, 2, 1), 3);
  // empty local, 1 task on 4 cores: (2 + 5) / 5 = 1, kept (busiest runs one task only)
  assert.equal(sibling(1, 0, 4, 1), 1);
  // empty local, 2 tasks on 4 cores: (4 + 5) / 5 = 1, raised to 2
  assert.equal(sibling(2, 0, 4, 1), 2);
  // no sg->cores recorded: the group weights stand in
  assert.equal(sibling(3, 1, undefined, undefined, "CPU_IDLE", [1, 2]), 4);
  assert.equal(sibling(3, 1, undefined, undefined, "CPU_IDLE", [2, 2]), 2);
});
