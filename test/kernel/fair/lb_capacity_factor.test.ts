// The 3.19 balancer's capacity in tasks (fair.c v3.19: sg_capacity_factor, fix_small_capacity,
// group_has_free_capacity, calculate_imbalance's load_above_capacity and find_busiest_queue's
// capacity_factor), against the 4.8 utilization rules it gave way to in v4.1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SD_SHARE_CPUCAPACITY } from "../../../src/kernel/topology/sched_domain";
import {
  cpuCapacityFactor,
  fixSmallCapacity,
  sgCapacityFactor,
} from "../../../src/kernel/fair/lb/capacity_factor";
import {
  calculateImbalance48,
  findBusiestGroup48,
  findBusiestQueue48,
  updateSgLbStats48,
} from "../../../src/kernel/fair/lb/v48";
import type { SdLbStats48, SgLbStats48 } from "../../../src/kernel/fair/lb/types";
import type { Era } from "../../../src/kernel/features";
import { BASE_FLAGS, domain, env, group, hogs, rq } from "./lb_fixtures";

const SMT = BASE_FLAGS | SD_SHARE_CPUCAPACITY;

test("sg_capacity_factor: cores, not SMT threads; a lone SMT thread counts one through fix_small_capacity", () => {
  const mc = domain({ level: "MC", cpu: 0, groups: [group([0, 1, 2, 3])] });
  const smt = domain({ level: "SMT", cpu: 0, groups: [group([0], 589)], flags: SMT });
  // 4 CPUs of 1024: smt = ceil(4096 / 4096) = 1, 4 cores
  assert.equal(sgCapacityFactor(mc, group([0, 1, 2, 3])), 4);
  // a core of two threads (smt_gain 1178): smt = ceil(2048 / 1178) = 2, one core
  assert.equal(sgCapacityFactor(mc, group([0, 1], 1178)), 1);
  // a socket of 18 such cores: 36 / ceil(36864 / 21204) = 18, below round(21204 / 1024) = 21
  assert.equal(sgCapacityFactor(mc, group([...Array(36).keys()], 18 * 1178)), 18);
  // one thread of 589: 1 / 2 = 0 cores; SD_SHARE_CPUCAPACITY and ~90% of capacity_orig: 1
  assert.equal(sgCapacityFactor(smt, group([0], 589)), 1);
  assert.equal(fixSmallCapacity(mc, group([0], 589)), 0);
  assert.equal(sgCapacityFactor(mc, group([0], 589)), 0);
  // find_busiest_queue's per-CPU factor: DIV_ROUND_CLOSEST(capacity, 1024)
  assert.equal(cpuCapacityFactor(mc, group([0]), 589), 1);
  assert.equal(cpuCapacityFactor(mc, group([0]), 400), 0);
  assert.equal(cpuCapacityFactor(smt, group([0], 400), 400), 1);
});

test("update_sg_lb_stats: 3.19 calls an SMT core with two tasks overloaded (2 > 1 core), 4.8 does not (2 tasks on 2 CPUs)", () => {
  const sd = domain({ level: "MC", cpu: 0, groups: [group([0, 1], 1178), group([2, 3], 1178)] });
  const rqs = [rq(0, []), rq(1, []), rq(2, hogs(1)), rq(3, hogs(1))];
  const stats = (era: Era) =>
    updateSgLbStats48(
      env({ era, sd, dstCpu: 0, idle: "CPU_IDLE", rqs }),
      group([2, 3], 1178),
      0,
      false,
    );
  const s319 = stats("3.19");
  assert.equal(s319.groupCapacityFactor, 1);
  assert.equal(s319.groupType, "group_overloaded");
  assert.equal(s319.groupHasFreeCapacity, false);
  assert.equal(s319.groupUtil, 0, "3.19 sums no utilization");
  const s48 = stats("4.8");
  assert.equal(s48.groupType, "group_other");
  assert.equal(s48.groupCapacityFactor, 0);
  // the idle local core has free capacity in 3.19 (1 > 0 tasks)
  const local = updateSgLbStats48(
    env({ era: "3.19", sd, dstCpu: 0, idle: "CPU_IDLE", rqs }),
    group([0, 1], 1178),
    0,
    true,
  );
  assert.equal(local.groupHasFreeCapacity, true);
});

function sgs(o: Partial<SgLbStats48>): SgLbStats48 {
  return {
    avgLoad: 0,
    groupLoad: 0,
    sumWeightedLoad: 0,
    loadPerTask: 0,
    groupCapacity: 1024,
    groupUtil: 0,
    sumNrRunning: 0,
    idleCpus: 0,
    groupWeight: 1,
    groupType: "group_other",
    groupNoCapacity: false,
    groupCapacityFactor: 0,
    groupHasFreeCapacity: false,
    ...o,
  };
}

test("calculate_imbalance: 3.19 caps the pull by the tasks above the capacity factor, (nr - factor) x 1024 x 1024 / capacity", () => {
  const sd = domain({
    level: "MC",
    cpu: 0,
    groups: [group([0, 1, 2, 3], 2356), group([4, 5, 6, 7], 2356)],
  });
  const calc = (era: Era) => {
    const e = env({ era, sd, dstCpu: 0, idle: "CPU_NOT_IDLE", rqs: [] });
    const sds: SdLbStats48 = {
      busiest: sd.groups[1],
      local: sd.groups[0],
      totalRunning: 0,
      totalLoad: 0,
      totalCapacity: 0,
      avgLoad: 2500,
      busiestStat: sgs({
        avgLoad: 4000,
        loadPerTask: 500,
        groupCapacity: 2356,
        sumNrRunning: 3,
        groupCapacityFactor: 2,
        groupType: "group_overloaded",
      }),
      localStat: sgs({
        avgLoad: 1000,
        loadPerTask: 500,
        groupCapacity: 2356,
        sumNrRunning: 3,
        groupCapacityFactor: 2,
        groupType: "group_overloaded",
      }),
    };
    return calculateImbalance48(e, sds).imbalance;
  };
  // 3.19: load_above_capacity = (3 - 2) x 1048576 / 2356 = 445; max_pull = min(1500, 445);
  // imbalance = 445 x 2356 / 1024 = 1023
  assert.equal(calc("3.19"), 1023);
  // 4.8: (3 x 1024 - 2356) x 1024 / 2356 = 311; 311 x 2356 / 1024 = 715
  assert.equal(calc("4.8"), 715);
});

test("find_busiest_group (newidle): 3.19 forces a pull when local has free capacity and busiest has none; 4.8 sees no overload", () => {
  const sd = domain({ level: "MC", cpu: 0, groups: [group([0, 1]), group([2, 3])] });
  // local: one task of 1024 on cpu0; busiest: two of 600: avg loads 512 and 600, within 125%
  const rqs = [
    rq(0, hogs(1)),
    rq(1, []),
    rq(2, hogs(1, { weight: 600, loadAvg: 600 })),
    rq(3, hogs(1, { weight: 600, loadAvg: 600 })),
  ];
  const fbg = (era: Era) =>
    findBusiestGroup48({ env: env({ era, sd, dstCpu: 1, idle: "CPU_NEWLY_IDLE", rqs }) });
  const r319 = fbg("3.19");
  assert.equal(r319.balanced, false);
  assert.ok(!r319.balanced && r319.forced);
  const r48 = fbg("4.8");
  assert.ok(r48.balanced && r48.reason === "imbalance_pct", JSON.stringify(r48.balanced));
});

test("find_busiest_queue: 3.19 skips a single heavy task only on a CPU with a capacity factor; 4.8 unless its capacity is reduced", () => {
  const sd = domain({ level: "MC", cpu: 0, groups: [group([0, 1]), group([2, 3], 1424)] });
  // cpu2: capacity 400 (capacity_orig 400, not reduced), one task of 2048; cpu3: two of 512
  const rqs = [
    rq(0, []),
    rq(1, []),
    rq(2, hogs(1, { weight: 2048, loadAvg: 2048 }), { cpuCapacity: 400, cpuCapacityOrig: 400 }),
    rq(3, hogs(2, { weight: 512, loadAvg: 512 })),
  ];
  const fbq = (era: Era, flags = BASE_FLAGS) => {
    const e = env({ era, sd: { ...sd, flags }, dstCpu: 0, idle: "CPU_NOT_IDLE", rqs });
    e.imbalance = 1000;
    return findBusiestQueue48({ env: e, group: sd.groups[1] })?.cpu;
  };
  // 3.19: round(400 / 1024) = 0 and no SD_SHARE_CPUCAPACITY: no factor, cpu2 stays a candidate
  // and its 2048 / 400 beats cpu3's 1024 / 1024
  assert.equal(fbq("3.19"), 2);
  // at an SMT level fix_small_capacity gives it a factor: skipped
  assert.equal(fbq("3.19", SMT), 3);
  // 4.8: capacity_of equals capacity_orig, so check_cpu_capacity is false: skipped
  assert.equal(fbq("4.8"), 3);
});
