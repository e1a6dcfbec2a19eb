// The 5.x balancer's decision rules (src/kernel/fair/lb/v5x.ts) on hand-built statistics and
// runqueues, at their boundaries, against kernel/sched/fair.c after Vincent Guittot's v5.5
// load_balance rework (0b0695f2b34a). calculate_imbalance, find_busiest_group, find_busiest_queue,
// voluntary_active_balance and need_active_balance were read in the 5.x fair.c stored at
// torvalds/linux 000619680c37. group_has_capacity, group_is_overloaded and
// update_sd_pick_busiest are checked against the rules v5x.ts states (not re-read here). Later
// rules as docs/balancer-history.md lists them: 5.7 group_runnable in the classification
// (070f5e860ee2) and a local group at or above busiest pulls nothing (111688ca1c4a), 6.3 nor one
// above the domain average (91dcf1e8068e), 5.12 failures kick active balance only for
// migrate_task (e9b9734b7465).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Era } from "../../../src/kernel/features";
import type {
  CpuIdleType,
  GroupType56,
  LbEnv,
  LbRq,
  MigrationType,
  SdLbStats56,
  SgLbStats56,
} from "../../../src/kernel/fair/lb/types";
import { SD_ASYM_PACKING } from "../../../src/kernel/topology/sched_domain";
import {
  calculateImbalance56,
  findBusiestQueue56,
  groupHasCapacity56,
  groupIsOverloaded56,
  needActiveBalance56,
  updateSdPickBusiest56,
  voluntaryActiveBalance56,
} from "../../../src/kernel/fair/lb/v5x";
import { lbCpusClear } from "../../../src/kernel/fair/lb/common";
import { BASE_FLAGS, domain, env, group, hogs, rq } from "./lb_fixtures";

/** A two-group MC domain of cpu0: local {0,1}, other {2,3}. */
function mkEnv(
  era: Era,
  o: { idle?: CpuIdleType; flags?: number; rqs?: LbRq[]; preferSibling?: boolean } = {},
): LbEnv {
  const sd = domain({
    level: "MC",
    cpu: 0,
    groups: [group([0, 1]), group([2, 3])],
    flags: o.flags ?? BASE_FLAGS,
  });
  return env({
    era,
    sd,
    dstCpu: 0,
    idle: o.idle ?? "CPU_NOT_IDLE",
    rqs: o.rqs ?? [rq(0, []), rq(1, []), rq(2, hogs(2)), rq(3, hogs(2))],
  });
}

function sgs(o: Partial<SgLbStats56> = {}): SgLbStats56 {
  return {
    avgLoad: 0,
    groupLoad: 0,
    groupCapacity: 2048,
    groupUtil: 0,
    groupRunnable: 0,
    sumNrRunning: 0,
    sumHNrRunning: 0,
    idleCpus: 0,
    groupWeight: 2,
    groupType: "group_has_spare",
    groupAsymPacking: false,
    groupMisfitTaskLoad: 0,
    ...o,
  };
}

function sds(local: SgLbStats56, busiest: SgLbStats56, o: Partial<SdLbStats56> = {}): SdLbStats56 {
  return {
    busiest: group([2, 3]),
    local: group([0, 1]),
    totalLoad: local.groupLoad + busiest.groupLoad,
    totalCapacity: local.groupCapacity + busiest.groupCapacity,
    avgLoad: 0,
    preferSibling: false,
    busiestStat: busiest,
    localStat: local,
    ...o,
  };
}

const imb = (e: LbEnv, s: SdLbStats56): string => {
  const r = calculateImbalance56(e, s);
  return `${r.migrationType} ${r.imbalance}`;
};

test("group_has_capacity / group_is_overloaded (5.6): fewer tasks than CPUs, then capacity*100 against util*imbalance_pct, strict; 5.7+ also group_runnable", () => {
  const e56 = mkEnv("5.6");
  const e510 = mkEnv("5.10");
  // fewer tasks than CPUs: capacity whatever the util
  assert.equal(groupHasCapacity56(e56, sgs({ sumNrRunning: 1, groupUtil: 5000 })), true);
  assert.equal(groupIsOverloaded56(e56, sgs({ sumNrRunning: 2, groupUtil: 5000 })), false);
  // 2 tasks on 2 CPUs (sum == weight): 2000*100 > util*125 <=> util < 1600
  const full = (util: number, runnable = 0) =>
    sgs({ sumNrRunning: 2, groupCapacity: 2000, groupUtil: util, groupRunnable: runnable });
  assert.equal(groupHasCapacity56(e56, full(1599)), true);
  assert.equal(groupHasCapacity56(e56, full(1600)), false, "equality has no capacity (strict >)");
  // overloaded needs more tasks than CPUs: 3 on 2, 2000*100 < util*125 <=> util > 1600
  const over = (util: number, runnable = 0) =>
    sgs({ sumNrRunning: 3, groupCapacity: 2000, groupUtil: util, groupRunnable: runnable });
  assert.equal(groupIsOverloaded56(e56, over(1601)), true);
  assert.equal(
    groupIsOverloaded56(e56, over(1600)),
    false,
    "equality is not overloaded (strict <)",
  );
  assert.equal(groupIsOverloaded56(e56, full(5000)), false, "sum_nr_running == weight");
  // 5.7+: capacity*pct < runnable*100 <=> runnable > 2500 (capacity 2000, pct 125)
  assert.equal(groupHasCapacity56(e510, full(0, 2501)), false);
  assert.equal(groupHasCapacity56(e510, full(0, 2500)), true);
  assert.equal(groupHasCapacity56(e56, full(0, 2501)), true, "5.6 ignores runnable");
  assert.equal(groupIsOverloaded56(e510, over(0, 2501)), true);
  assert.equal(groupIsOverloaded56(e510, over(0, 2500)), false);
  assert.equal(groupIsOverloaded56(e56, over(0, 2501)), false, "5.6 ignores runnable");
});

test("calculate_imbalance (5.6): misfit, asym_packing and imbalanced busiest set the type and amount at once", () => {
  const e = mkEnv("5.6", { idle: "CPU_IDLE" });
  const local = sgs({ groupType: "group_has_spare", idleCpus: 2 });
  const b = (t: GroupType56) => sgs({ groupType: t, sumHNrRunning: 3, sumNrRunning: 3 });
  assert.equal(imb(e, sds(local, b("group_misfit_task"))), "migrate_misfit 1");
  assert.equal(imb(e, sds(local, b("group_asym_packing"))), "migrate_task 3");
  assert.equal(imb(e, sds(local, b("group_imbalanced"))), "migrate_task 1");
});

test("calculate_imbalance (5.6): a has-spare local group fills its spare capacity from an overloaded busiest (migrate_util), or takes one task when idle with none left", () => {
  const busiest = sgs({ groupType: "group_overloaded", sumNrRunning: 5, sumHNrRunning: 5 });
  const local = (util: number) => sgs({ groupType: "group_has_spare", groupUtil: util });
  const busy = mkEnv("5.6");
  const idle = mkEnv("5.6", { idle: "CPU_NEWLY_IDLE" });
  assert.equal(imb(busy, sds(local(1500), busiest)), "migrate_util 548");
  assert.equal(
    imb(busy, sds(local(2100), busiest)),
    "migrate_util 0",
    "util above capacity: max()",
  );
  assert.equal(imb(idle, sds(local(2100), busiest)), "migrate_task 1");
  assert.equal(imb(idle, sds(local(2047), busiest)), "migrate_util 1");
  // a fully busy busiest is not filled by util: tasks by idle CPUs instead
  const fb = sgs({ groupType: "group_fully_busy", sumNrRunning: 2, idleCpus: 0 });
  assert.equal(imb(busy, sds(sgs({ groupUtil: 100, idleCpus: 2 }), fb)), "migrate_task 1");
});

test("calculate_imbalance (5.6): has-spare local, busiest not overloaded: half the task difference (one-CPU busiest or prefer_sibling), else half the idle-CPU difference, never negative", () => {
  const e = mkEnv("5.6", { idle: "CPU_IDLE" });
  const local = (nr: number, idle: number) =>
    sgs({ groupType: "group_has_spare", sumNrRunning: nr, idleCpus: idle });
  const one = (nr: number) =>
    sgs({ groupType: "group_fully_busy", groupWeight: 1, sumNrRunning: nr, idleCpus: 0 });
  assert.equal(imb(e, sds(local(1, 1), one(5))), "migrate_task 2");
  assert.equal(imb(e, sds(local(1, 1), one(4))), "migrate_task 1", "(4-1) >> 1");
  assert.equal(imb(e, sds(local(6, 0), one(5))), "migrate_task 0", "lsub_positive: no wrap");
  const two = sgs({ groupType: "group_has_spare", sumNrRunning: 6, idleCpus: 1 });
  // weight 2, no prefer_sibling: (local idle - busiest idle) >> 1
  assert.equal(imb(e, sds(local(0, 5), two)), "migrate_task 2");
  assert.equal(imb(e, sds(local(0, 0), two)), "migrate_task 0", "max(0, ...)");
  // prefer_sibling: the task difference again
  assert.equal(imb(e, sds(local(0, 5), two, { preferSibling: true })), "migrate_task 3");
});

test("calculate_imbalance: a fully busy local group gets avg_load computed and moves min(busiest above average, local below average) of load", () => {
  // three groups' worth of totals: the two terms differ
  const local = () =>
    sgs({ groupType: "group_fully_busy", groupLoad: 512, groupCapacity: 1024, sumNrRunning: 1 });
  const busiest = () =>
    sgs({ groupType: "group_overloaded", avgLoad: 2048, groupLoad: 4096, sumNrRunning: 4 });
  const totals = { totalLoad: 8192, totalCapacity: 6144 };
  // avg = 8192*1024/6144 = 1365; local avg 512; min(683*2048, 853*1024) / 1024 = 853
  assert.equal(imb(mkEnv("5.6"), sds(local(), busiest(), totals)), "migrate_load 853");
  const s = sds(local(), busiest(), totals);
  calculateImbalance56(mkEnv("5.6"), s);
  assert.equal(s.localStat.avgLoad, 512);
  assert.equal(s.avgLoad, 1365);
  // busiest the smaller term: avg 1365, busiest avg 1400 -> 35*2048/1024 = 70
  const near = sgs({ groupType: "group_overloaded", avgLoad: 1400, groupLoad: 2800 });
  assert.equal(imb(mkEnv("5.6"), sds(local(), near, totals)), "migrate_load 70");
  // an overloaded local keeps the avg_load it has and the domain's as given (not recomputed)
  const ol = sgs({ groupType: "group_overloaded", avgLoad: 1000, groupLoad: 9999 });
  const given = sds(ol, busiest(), { ...totals, avgLoad: 1200 });
  // min((2048-1200)*2048, (1200-1000)*2048) / 1024
  assert.equal(imb(mkEnv("5.6"), given), "migrate_load 400");
  assert.equal(given.localStat.avgLoad, 1000);
});

test("calculate_imbalance 5.7+: a fully busy local at or above busiest's avg_load pulls nothing; 6.3+ nor at or above the domain average", () => {
  const local = (load: number) =>
    sgs({ groupType: "group_fully_busy", groupLoad: load, groupCapacity: 1024 });
  const busiest = sgs({ groupType: "group_overloaded", avgLoad: 2048, groupLoad: 4096 });
  const totals = { totalLoad: 8192, totalCapacity: 6144 }; // average 1365
  // local avg == busiest avg: 5.10 returns 0 (>=)
  assert.equal(imb(mkEnv("5.10"), sds(local(2048), busiest, totals)), "migrate_load 0");
  // local avg 1400: below busiest, above the average: 5.10 goes on (the unsigned difference
  // wraps and min() takes busiest's term), 6.6 returns 0
  assert.equal(imb(mkEnv("5.10"), sds(local(1400), busiest, totals)), "migrate_load 1366");
  assert.equal(imb(mkEnv("6.6"), sds(local(1400), busiest, totals)), "migrate_load 0");
  // exactly the average (1365): 6.6 returns 0 (>=), 5.10 moves min(683*2048, 0)/1024 = 0 too,
  // so one below the average: 6.6 moves (1365-1364)*1024/1024 = 1
  assert.equal(imb(mkEnv("6.6"), sds(local(1364), busiest, totals)), "migrate_load 1");
});

test("find_busiest_queue (5.x): per migration type, the first of equals kept; a lone task heavier than the imbalance stays unless its CPU lost capacity", () => {
  const g = group([2, 3]);
  const pick = (type: MigrationType, rqs: LbRq[], imbalance = 1000, skip?: number): string => {
    const e = mkEnv("5.10", { rqs: [rq(0, []), rq(1, []), ...rqs] });
    e.migrationType = type;
    e.imbalance = imbalance;
    if (skip !== undefined) lbCpusClear(e, skip);
    const r = findBusiestQueue56({ env: e, group: g });
    return r === null ? "none" : `cpu${r.cpu}`;
  };
  const load = (cpu: number, n: number, w: number, o: Partial<LbRq> = {}) =>
    rq(cpu, hogs(n, { weight: w, loadAvg: w }), o);
  // migrate_load: a single task of load 2000 > imbalance 1000 on a full-capacity CPU is skipped
  assert.equal(pick("migrate_load", [load(2, 1, 2000), load(3, 2, 700)]), "cpu3");
  assert.equal(pick("migrate_load", [load(2, 1, 2000), load(3, 2, 700)], 2000), "cpu2");
  // ... unless check_cpu_capacity (capacity 700*125 < 1024*100)
  assert.equal(
    pick("migrate_load", [load(2, 1, 2000, { cpuCapacity: 700 }), load(3, 2, 500)]),
    "cpu2",
  );
  // load / capacity: 1000/512 beats 1500/1024; equal ratios keep the first
  assert.equal(
    pick("migrate_load", [
      load(2, 2, 750, { cpuCapacity: 1024 }),
      load(3, 2, 500, { cpuCapacity: 512 }),
    ]),
    "cpu3",
  );
  assert.equal(pick("migrate_load", [load(2, 2, 500), load(3, 2, 500)]), "cpu2");
  assert.equal(pick("migrate_load", [load(2, 2, 500), load(3, 2, 500)], 1000, 2), "cpu3");
  // migrate_util: the larger util, the first on a tie, none without util
  assert.equal(
    pick("migrate_util", [
      rq(2, hogs(1), { cfsUtilAvg: 500 }),
      rq(3, hogs(1), { cfsUtilAvg: 800 }),
    ]),
    "cpu3",
  );
  assert.equal(
    pick("migrate_util", [
      rq(2, hogs(1), { cfsUtilAvg: 800 }),
      rq(3, hogs(1), { cfsUtilAvg: 800 }),
    ]),
    "cpu2",
  );
  assert.equal(pick("migrate_util", [rq(2, []), rq(3, [])]), "none");
  // migrate_task: the most CFS tasks, the first on a tie
  assert.equal(pick("migrate_task", [rq(2, hogs(2)), rq(3, hogs(3))]), "cpu3");
  assert.equal(pick("migrate_task", [rq(2, hogs(3)), rq(3, hogs(3))]), "cpu2");
  assert.equal(pick("migrate_task", [rq(2, []), rq(3, [])]), "none");
  // migrate_misfit: the biggest misfit load, none when no CPU has one
  assert.equal(
    pick("migrate_misfit", [
      rq(2, hogs(1), { misfitTaskLoad: 300 }),
      rq(3, hogs(1), { misfitTaskLoad: 600 }),
    ]),
    "cpu3",
  );
  assert.equal(
    pick("migrate_misfit", [
      rq(2, hogs(1), { misfitTaskLoad: 600 }),
      rq(3, hogs(1), { misfitTaskLoad: 600 }),
    ]),
    "cpu2",
  );
  assert.equal(pick("migrate_misfit", [rq(2, hogs(1)), rq(3, hogs(1))]), "none");
});

test("voluntary_active_balance (5.6): asym packing to a preferred idle dst, a lone task on a CPU that lost capacity to a roomier dst, a misfit; need_active_balance's failure count", () => {
  const e = (o: {
    idle?: CpuIdleType;
    flags?: number;
    src?: LbRq;
    dstCap?: number;
    type?: MigrationType;
    era?: Era;
  }): LbEnv => {
    const x = mkEnv(o.era ?? "5.6", {
      idle: o.idle ?? "CPU_IDLE",
      flags: o.flags,
      rqs: [
        rq(0, [], { cpuCapacity: o.dstCap ?? 1024 }),
        rq(1, []),
        o.src ?? rq(2, hogs(2)),
        rq(3, []),
      ],
    });
    x.srcCpu = 2;
    x.migrationType = o.type ?? "migrate_load";
    return x;
  };
  const asym = BASE_FLAGS | SD_ASYM_PACKING;
  assert.equal(voluntaryActiveBalance56(e({ flags: asym })), true, "cpu0 preferred over cpu2");
  assert.equal(voluntaryActiveBalance56(e({ flags: asym, idle: "CPU_NOT_IDLE" })), false);
  assert.equal(voluntaryActiveBalance56(e({})), false, "no SD_ASYM_PACKING");
  const asymFromLow = e({ flags: asym });
  asymFromLow.dstCpu = 3; // cpu3 is not preferred over cpu2
  assert.equal(voluntaryActiveBalance56(asymFromLow), false);
  // lone task, src capacity 800 (800*125 < 1024*100: reduced): dst must have 800*125 < cap*100
  const lone = (cap: number, orig = 1024) =>
    rq(2, hogs(1), { cpuCapacity: cap, cpuCapacityOrig: orig });
  assert.equal(voluntaryActiveBalance56(e({ src: lone(800), dstCap: 1001 })), true);
  assert.equal(voluntaryActiveBalance56(e({ src: lone(800), dstCap: 1000 })), false, "strict <");
  assert.equal(voluntaryActiveBalance56(e({ src: lone(800), idle: "CPU_NOT_IDLE" })), false);
  assert.equal(voluntaryActiveBalance56(e({ src: lone(820) })), false, "820*125 >= 102400");
  const two = rq(2, hogs(2), { cpuCapacity: 500 });
  assert.equal(voluntaryActiveBalance56(e({ src: two })), false, "two CFS tasks");
  assert.equal(voluntaryActiveBalance56(e({ type: "migrate_misfit", idle: "CPU_NOT_IDLE" })), true);

  // need_active_balance: nr_balance_failed > cache_nice_tries + 2 (cache_nice_tries 1 here)
  const failed = (n: number, era: Era, type: MigrationType): boolean => {
    const x = e({ era, type, idle: "CPU_NOT_IDLE" });
    x.sd.nrBalanceFailed = n;
    return needActiveBalance56({ env: x });
  };
  assert.equal(failed(3, "5.6", "migrate_load"), false);
  assert.equal(failed(4, "5.6", "migrate_load"), true);
  assert.equal(failed(4, "5.10", "migrate_util"), true, "before 5.12 any type");
  assert.equal(failed(4, "5.19", "migrate_load"), false, "5.12+: migrate_task only");
  assert.equal(failed(4, "5.19", "migrate_task"), true);
  assert.equal(failed(3, "5.19", "migrate_task"), false);
  assert.equal(failed(0, "5.19", "migrate_misfit"), true, "voluntary first");
});

test("update_sd_pick_busiest (5.6): no CFS task, higher and lower group types, and the tie rules per type", () => {
  const e = mkEnv("5.6", { idle: "CPU_IDLE" });
  const sg = group([2, 3]);
  const cur = (o: Partial<SgLbStats56>) => {
    const s = sds(sgs({ groupType: "group_has_spare", idleCpus: 2 }), sgs(o));
    s.busiest = group([4, 5]);
    return s;
  };
  const pick = (busiest: Partial<SgLbStats56>, cand: Partial<SgLbStats56>) =>
    updateSdPickBusiest56(e, cur(busiest), sg, sgs({ sumHNrRunning: 1, ...cand }));
  // no CFS task: never picked, even of a higher type
  assert.equal(
    pick({ groupType: "group_has_spare" }, { groupType: "group_overloaded", sumHNrRunning: 0 }),
    false,
  );
  assert.equal(pick({ groupType: "group_fully_busy" }, { groupType: "group_overloaded" }), true);
  assert.equal(pick({ groupType: "group_overloaded" }, { groupType: "group_fully_busy" }), false);
  // overloaded: the higher avg_load, not an equal one
  const ol = (avg: number): Partial<SgLbStats56> => ({
    groupType: "group_overloaded",
    avgLoad: avg,
  });
  assert.equal(pick(ol(1000), ol(1001)), true);
  assert.equal(pick(ol(1000), ol(1000)), false);
  // imbalanced: the first stays
  assert.equal(pick({ groupType: "group_imbalanced" }, { groupType: "group_imbalanced" }), false);
  // asym_packing: the candidate wins unless it is preferred (lower CPU) to busiest's (cpu4)
  assert.equal(
    pick({ groupType: "group_asym_packing" }, { groupType: "group_asym_packing" }),
    false,
    "cpu2 is preferred over cpu4: busiest stays",
  );
  // has_spare: fewer idle CPUs, then more running tasks
  const hs = (idle: number, nr: number): Partial<SgLbStats56> => ({
    groupType: "group_has_spare",
    idleCpus: idle,
    sumNrRunning: nr,
  });
  assert.equal(pick(hs(1, 1), hs(0, 1)), true);
  assert.equal(pick(hs(0, 1), hs(1, 5)), false);
  assert.equal(pick(hs(1, 1), hs(1, 2)), true);
  assert.equal(pick(hs(1, 2), hs(1, 2)), false);
  // fully busy (5.6, no SMT rule): avg_load is not computed, so the first stays
  const fb: Partial<SgLbStats56> = { groupType: "group_fully_busy", sumNrRunning: 2 };
  assert.equal(pick(fb, fb), false);
});
