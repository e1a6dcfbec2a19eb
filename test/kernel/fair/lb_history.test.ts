// The balancer changes between 5.6 and 6.19 (docs/balancer-history.md), each on a hand-built
// domain, in the era before and after it, and with its switch turned off.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  SD_PREFER_SIBLING,
  SD_SHARE_CPUCAPACITY,
  SD_SHARE_PKG_RESOURCES,
  type SchedDomain,
  type SchedGroup,
} from "../../../src/kernel/topology/sched_domain";
import type { Era } from "../../../src/kernel/features";
import type { CpuIdleType, LbEnv, LbRq } from "../../../src/kernel/fair/lb/types";
import { findBusiestGroup } from "../../../src/kernel/fair/lb/load_balance";
import { needActiveBalance56, updateSdLbStats56 } from "../../../src/kernel/fair/lb/v5x";
import { siblingImbalance } from "../../../src/kernel/fair/lb/v66";
import { BASE_FLAGS, domain, env, group, hogs, rq } from "./lb_fixtures";

const smt = (cpus: number[]): SchedGroup => ({
  ...group(cpus),
  flags: SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES,
  cores: 1,
});
const plain = (cpus: number[], cores = cpus.length): SchedGroup => ({
  ...group(cpus),
  flags: 0,
  cores,
});

function mkEnv(
  era: Era,
  sd: SchedDomain,
  rqs: LbRq[],
  dstCpu: number,
  idle: CpuIdleType,
  off: ("LB_LLC_SPREAD" | "LB_SMT_BALANCE" | "LB_SIBLING_IMBALANCE")[] = [],
): LbEnv {
  const e = env({ era, sd, dstCpu, idle, rqs });
  for (const f of off) e.features[f] = false;
  return e;
}

/** find_busiest_group's verdict in short: "balanced:<reason>" or "<migration_type> <imbalance>". */
function verdict(e: LbEnv): string {
  const r = findBusiestGroup({ env: e });
  return r.balanced ? `balanced:${r.reason}` : `${r.migrationType} ${r.imbalance}`;
}

// ---------------------------------------------------------------------------------------------
// v5.10 16b0a7a1a0af "sched/fair: Ensure tasks spreading in LLC during LB"

test("5.10: inside an LLC an overloaded busiest is relieved by task count, not migrate_util", () => {
  // cpu0 idle, cpu1 runs 3 hogs: groups of one CPU at MC (an LLC) and at DIE (no LLC flag)
  const rqs = [rq(0, []), rq(1, hogs(3))];
  const at = (level: "MC" | "DIE") =>
    domain({
      level,
      cpu: 0,
      groups: [group([0]), group([1])],
      flags: BASE_FLAGS | (level === "MC" ? SD_SHARE_PKG_RESOURCES : 0),
      imbalancePct: 117,
    });
  assert.equal(verdict(mkEnv("5.6", at("MC"), rqs, 0, "CPU_IDLE")), "migrate_util 1024");
  // (3 - 0) >> 1 tasks
  assert.equal(verdict(mkEnv("5.10", at("MC"), rqs, 0, "CPU_IDLE")), "migrate_task 1");
  assert.equal(verdict(mkEnv("6.19", at("MC"), rqs, 0, "CPU_IDLE")), "migrate_task 1");
  // above the LLC, spare capacity is still what is filled
  assert.equal(verdict(mkEnv("6.19", at("DIE"), rqs, 0, "CPU_IDLE")), "migrate_util 1024");
  // the switch off gives the 5.6 answer back
  assert.equal(
    verdict(mkEnv("6.19", at("MC"), rqs, 0, "CPU_IDLE", ["LB_LLC_SPREAD"])),
    "migrate_util 1024",
  );
});

// ---------------------------------------------------------------------------------------------
// v5.12 e9b9734b7465 "sched/fair: Reduce cases for active balance"

test("5.12+: repeated failures kick active balance only for migrate_task", () => {
  const sd = domain({ level: "MC", cpu: 0, groups: [group([0]), group([1])], cacheNiceTries: 1 });
  sd.nrBalanceFailed = 4; // > cache_nice_tries + 2
  for (const [era, want] of [
    ["5.10", true],
    ["5.19", false],
  ] as const) {
    const e = mkEnv(era, sd, [rq(0, []), rq(1, hogs(2))], 0, "CPU_NOT_IDLE");
    e.srcCpu = 1;
    e.migrationType = "migrate_load";
    assert.equal(needActiveBalance56({ env: e }), want, era);
    e.migrationType = "migrate_task";
    assert.equal(needActiveBalance56({ env: e }), true, era);
  }
});

// ---------------------------------------------------------------------------------------------
// v6.6 fee1759e4f04 + 450e749707bc: group_smt_balance; v6.5 5fd6d7f43958 (SMT tie rule)

test("6.6: an idle lone thread pulls from an SMT core running two tasks (group_smt_balance)", () => {
  // cpu0's sibling is offline: its group is not SMT; cpus 2,3 are one core running a hog each
  const sd = domain({ level: "MC", cpu: 0, groups: [plain([0]), smt([2, 3])] });
  const rqs = [rq(0, []), rq(2, hogs(1)), rq(3, hogs(1))];
  const stats = updateSdLbStats56(mkEnv("6.6", sd, rqs, 0, "CPU_IDLE"));
  assert.equal(stats.busiestStat.groupType, "group_smt_balance");
  assert.equal(verdict(mkEnv("6.6", sd, rqs, 0, "CPU_IDLE")), "migrate_task 1");
  // 5.19: a fully busy pair whose idle CPU count is within one of ours is balanced
  assert.equal(
    updateSdLbStats56(mkEnv("5.19", sd, rqs, 0, "CPU_IDLE")).busiestStat.groupType,
    "group_fully_busy",
  );
  assert.equal(verdict(mkEnv("5.19", sd, rqs, 0, "CPU_IDLE")), "balanced:idle_cpus");
  assert.equal(
    verdict(mkEnv("6.6", sd, rqs, 0, "CPU_IDLE", ["LB_SMT_BALANCE"])),
    "balanced:idle_cpus",
  );
  // smt_balance is for an idle destination only
  assert.equal(
    updateSdLbStats56(mkEnv("6.6", sd, rqs, 0, "CPU_NOT_IDLE")).busiestStat.groupType,
    "group_fully_busy",
  );
});

test("6.6: a has-spare SMT core with one task is not picked over a non-SMT group", () => {
  // local cpu0 idle; {2,3} one SMT core with one task; {4,5} two plain cores with one task
  const sd = domain({
    level: "MC",
    cpu: 0,
    groups: [plain([0]), smt([2, 3]), plain([4, 5])],
  });
  const rqs = [rq(0, []), rq(2, hogs(1)), rq(3, []), rq(4, hogs(1)), rq(5, [])];
  const busiest = (era: Era, off: "LB_SMT_BALANCE"[] = []) =>
    updateSdLbStats56(mkEnv(era, sd, rqs, 0, "CPU_IDLE", off)).busiest?.cpus;
  assert.deepEqual(busiest("5.19"), [2, 3]); // the first of two equal has_spare groups
  assert.deepEqual(busiest("6.6"), [4, 5]);
  assert.deepEqual(busiest("6.6", ["LB_SMT_BALANCE"]), [2, 3]);
});

test("6.5+: among fully busy groups a later one replaces a non-SMT busiest, never an SMT one", () => {
  const rqs = [rq(0, hogs(1)), rq(2, hogs(1)), rq(3, hogs(1)), rq(4, hogs(1)), rq(5, hogs(1))];
  const pick = (era: Era, groups: SchedGroup[]) =>
    updateSdLbStats56(mkEnv(era, domain({ level: "MC", cpu: 0, groups }), rqs, 0, "CPU_NOT_IDLE"))
      .busiest?.cpus;
  const groups = [plain([0]), plain([2, 3]), smt([4, 5])];
  assert.deepEqual(pick("5.19", groups), [2, 3]); // the first fully busy group
  assert.deepEqual(pick("6.6", groups), [4, 5]);
  const smtFirst = [plain([0]), smt([4, 5]), plain([2, 3])];
  assert.deepEqual(pick("6.6", smtFirst), [4, 5]); // SMT groups need more help
});

// ---------------------------------------------------------------------------------------------
// v6.6 7ff1693236f5 + 450e749707bc: sibling_imbalance

function preferSibling(cpu: number, groups: SchedGroup[]): SchedDomain {
  const child = domain({
    level: "MC",
    cpu,
    groups: [group([cpu])],
    flags: BASE_FLAGS | SD_PREFER_SIBLING,
  });
  return domain({ level: "DIE", cpu, groups, child, imbalancePct: 117 });
}

test("6.6: a busy CPU no longer forces prefer-sibling spreading (sibling_imbalance is 0)", () => {
  // local {0,1}: cpu0 busy, cpu1 idle; busiest {2,3}: three short tasks on cpu2, not overloaded
  const sd = preferSibling(0, [plain([0, 1]), plain([2, 3])]);
  const rqs = [rq(0, hogs(1)), rq(1, []), rq(2, hogs(3), { cfsRunnableAvg: 1024 }), rq(3, [])];
  assert.equal(verdict(mkEnv("5.19", sd, rqs, 0, "CPU_NOT_IDLE")), "migrate_task 1");
  assert.equal(
    verdict(mkEnv("6.6", sd, rqs, 0, "CPU_NOT_IDLE")),
    "balanced:busy_dst_not_overloaded",
  );
  assert.equal(
    verdict(mkEnv("6.6", sd, rqs, 0, "CPU_NOT_IDLE", ["LB_SIBLING_IMBALANCE"])),
    "migrate_task 1",
  );
});

test("6.6: groups with different core counts are balanced per core", () => {
  // local {0,1} is one core, idle; busiest {2,3,4,5} is two cores running 4 tasks
  const sd = preferSibling(1, [plain([0, 1], 1), plain([2, 3, 4, 5], 2)]);
  const rqs = [rq(0, []), rq(1, []), ...[2, 3, 4, 5].map((c) => rq(c, hogs(1)))];
  // 5.19: (4 - 0) >> 1 = 2 tasks; 6.6: (2 * (1 * 4 - 2 * 0) + 3) / 3 = 3, >> 1 = 1 task, so
  // that both groups run 2 tasks per core
  assert.equal(verdict(mkEnv("5.19", sd, rqs, 1, "CPU_IDLE")), "migrate_task 2");
  assert.equal(verdict(mkEnv("6.6", sd, rqs, 1, "CPU_IDLE")), "migrate_task 1");
  const stats = updateSdLbStats56(mkEnv("6.6", sd, rqs, 1, "CPU_IDLE"));
  const e = mkEnv("6.6", sd, rqs, 1, "CPU_IDLE");
  assert.equal(siblingImbalance(e, stats, stats.busiestStat, stats.localStat), 3);
  // an empty local group takes at least one task: 2 tasks on 4 cores against 0 on 1 gives
  // (2 * 2 + 5) / 5 = 1, raised to 2 (450e749707bc)
  const wideCpus = [2, 3, 4, 5, 6, 7, 8, 9];
  const wide = preferSibling(1, [plain([0, 1], 1), plain(wideCpus, 4)]);
  const few = [rq(0, []), rq(1, []), ...wideCpus.map((c) => rq(c, hogs(c < 4 ? 1 : 0)))];
  const s2 = updateSdLbStats56(mkEnv("6.6", wide, few, 1, "CPU_IDLE"));
  assert.equal(
    siblingImbalance(mkEnv("6.6", wide, few, 1, "CPU_IDLE"), s2, s2.busiestStat, s2.localStat),
    2,
  );
});

// ---------------------------------------------------------------------------------------------
// v5.7 111688ca1c4a "Fix negative imbalance in imbalance calculation"; v6.3 91dcf1e8068e
// "Fix imbalance overflow"

test("5.7+/6.3+: a fully busy local group above busiest (5.7) or above the domain average (6.3) pulls nothing", () => {
  // local {0,1} has lost half its capacity (RT/IRQ) and runs 2 hogs: avg_load 2048, fully busy;
  // busiest {2,3} runs 3 hogs on full capacity: overloaded, avg_load 1536
  const lower = domain({
    level: "DIE",
    cpu: 0,
    groups: [group([0, 1], 1024), group([2, 3])],
    imbalancePct: 117,
  });
  const rqs = [rq(0, hogs(1)), rq(1, hogs(1)), rq(2, hogs(2)), rq(3, hogs(1))];
  // 5.6: sds avg 1706 - local 2048 wraps, the min of two wrapped products is a huge load
  assert.match(verdict(mkEnv("5.6", lower, rqs, 0, "CPU_IDLE")), /^migrate_load \d{10,}/);
  assert.equal(verdict(mkEnv("5.10", lower, rqs, 0, "CPU_IDLE")), "balanced:zero_imbalance");
  // local {0,1} full capacity, 2 hogs: avg 1024; busiest {2,3} at half capacity with 3 hogs:
  // avg 3072; an idle {4..7} brings the domain average down to 5120 * 1024 / 7168 = 731
  const above = domain({
    level: "DIE",
    cpu: 0,
    groups: [group([0, 1]), group([2, 3], 1024), group([4, 5, 6, 7])],
    imbalancePct: 117,
  });
  const rqs2 = [...rqs, ...[4, 5, 6, 7].map((c) => rq(c, []))];
  // min((3072 - 731) * 1024, wrapped) / 1024
  assert.equal(verdict(mkEnv("5.19", above, rqs2, 0, "CPU_IDLE")), "migrate_load 2341");
  assert.equal(verdict(mkEnv("6.6", above, rqs2, 0, "CPU_IDLE")), "balanced:zero_imbalance");
});
