// The balancer's shared helpers (src/kernel/fair/lb/common.ts) against fair.c of each era: the
// lb_env setup of load_balance(), cpu_util, check_cpu_capacity, get_sd_load_idx,
// cpu_avg_load_per_task, sched_asym_prefer, should_we_balance, test_sd_parent and the
// nr_balance_failed / balance_interval accounting at the end of load_balance().
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkCpuCapacity,
  cpuAvgLoadPerTask,
  cpuUtil,
  createLbEnv,
  getSdLoadIdx,
  lbAccountPass,
  lbCpusClear,
  lbNoteFailure,
  parentPowersavings,
  schedAsymPrefer,
  shouldWeBalance,
} from "../../../src/kernel/fair/lb/common";
import { SCHED_NR_MIGRATE_BREAK, type LbRq } from "../../../src/kernel/fair/lb/types";
import { eraDefaults, type Era } from "../../../src/kernel/features";
import { SD_POWERSAVINGS_BALANCE } from "../../../src/kernel/topology/sched_domain";
import { BASE_FLAGS, NOW, domain, env, group, hogs, rq } from "./lb_fixtures";

const quad = (cpu = 0) => domain({ level: "MC", cpu, groups: [group([0, 1]), group([2, 3])] });

function init(o: { sd?: ReturnType<typeof quad>; active?: number[]; era?: Era } = {}) {
  const era = o.era ?? "5.6";
  const { tunables, features } = eraDefaults(era);
  const rqs = [rq(0, []), rq(1, []), rq(2, hogs(2)), rq(3, [])];
  return {
    era,
    features,
    tunables,
    sd: o.sd ?? quad(),
    dstCpu: 0,
    idle: "CPU_IDLE" as const,
    now: NOW,
    rq: (c: number) => rqs[c],
    activeCpus: o.active ?? null,
  };
}

test("createLbEnv: env->cpus = span & cpu_active_mask; the rest of lb_env starts zeroed", () => {
  const e = createLbEnv({ ...init(), activeCpus: [0, 2, 3, 7] });
  assert.deepEqual([...e.cpus].sort(), [0, 2, 3]);
  assert.equal(e.cpusShared, false);
  assert.equal(e.srcCpu, -1);
  assert.equal(e.imbalance, 0);
  assert.equal(e.migrationType, "migrate_load");
  assert.equal(e.flags, 0);
  assert.equal(e.loop, 0);
  assert.equal(e.loopBreak, SCHED_NR_MIGRATE_BREAK);
  assert.equal(e.loopMax, 0);
  assert.deepEqual(e.dstGrpmask, [0, 1]); // sched_group_span(sd->groups)
  assert.equal(e.sdLlcSize, 1);
  assert.equal(e.hooks, null);
  assert.equal(e.preemptible, false);
  assert.equal(e.serialize, null);
  const lock = () => true;
  const p = createLbEnv({ ...init(), preemptible: true, serialize: lock, sdLlcSize: 4 });
  assert.equal(p.preemptible, true);
  assert.equal(p.serialize, lock);
  assert.equal(p.sdLlcSize, 4);
  // a domain without groups: dst_grpmask is the destination alone
  const bare = { ...quad(), groups: [] };
  assert.deepEqual(createLbEnv({ ...init(), sd: bare }).dstGrpmask, [0]);
});

test("createLbEnv/lbCpusClear: all-active spans share one set, copied before a CPU is cleared", () => {
  const sd = quad();
  const a = createLbEnv(init({ sd }));
  const b = createLbEnv(init({ sd }));
  assert.equal(a.cpus, b.cpus); // one Set per span
  assert.equal(a.cpusShared, true);
  lbCpusClear(a, 2);
  assert.equal(a.cpus.has(2), false);
  assert.equal(a.cpusShared, false);
  assert.equal(b.cpus.has(2), true); // the shared set is untouched
  assert.equal(createLbEnv(init({ sd })).cpus.has(2), true);
  lbCpusClear(a, 3); // already a private copy
  assert.deepEqual([...a.cpus].sort(), [0, 1]);
});

test("cpu_util: 5.x takes the larger of util_avg and util_est; every era caps at capacity_orig", () => {
  const r = rq(0, hogs(1), { cfsUtilAvg: 300, cfsUtilEst: 500, cpuCapacityOrig: 446 });
  assert.equal(cpuUtil(r, "5.6"), 446);
  assert.equal(cpuUtil({ ...r, cpuCapacityOrig: 1024 }, "5.6"), 500);
  assert.equal(cpuUtil({ ...r, cpuCapacityOrig: 1024 }, "4.8"), 300);
  assert.equal(cpuUtil({ ...r, cpuCapacityOrig: 1024, cfsUtilEst: undefined }, "6.6"), 300);
});

test("check_cpu_capacity: capacity * imbalance_pct < capacity_orig * 100, strictly", () => {
  const sd = { ...quad(), imbalancePct: 128 };
  const cap = (c: number): LbRq => rq(0, [], { cpuCapacity: c, cpuCapacityOrig: 1024 });
  assert.equal(checkCpuCapacity(cap(799), sd), true);
  assert.equal(checkCpuCapacity(cap(800), sd), false); // 800 * 128 == 1024 * 100
  assert.equal(checkCpuCapacity(cap(1024), sd), false);
});

test("get_sd_load_idx: busy_idx when busy, newidle_idx when newly idle, idle_idx otherwise", () => {
  const sd = domain({
    level: "MC",
    cpu: 0,
    groups: [group([0]), group([1])],
    busyIdx: 2,
    newidleIdx: 1,
    idleIdx: 3,
  });
  assert.equal(getSdLoadIdx(sd, "CPU_NOT_IDLE"), 2);
  assert.equal(getSdLoadIdx(sd, "CPU_NEWLY_IDLE"), 1);
  assert.equal(getSdLoadIdx(sd, "CPU_IDLE"), 3);
});

test("cpu_avg_load_per_task: 2.6.29 load.weight / nr_running, 4.x runnable load / h_nr_running", () => {
  const r = rq(0, hogs(3), { loadWeight: 3000, runnableLoadAvg: 2000, cfsHNrRunning: 2 });
  assert.equal(cpuAvgLoadPerTask(r, "2.6.29"), 1000); // 3000 / 3
  assert.equal(cpuAvgLoadPerTask(r, "4.8"), 1000); // 2000 / 2
  assert.equal(cpuAvgLoadPerTask({ ...r, nrRunning: 2 }, "2.6.29"), 1500);
  assert.equal(cpuAvgLoadPerTask({ ...r, cfsHNrRunning: 3 }, "3.19"), 666);
  assert.equal(cpuAvgLoadPerTask({ ...r, nrRunning: 0 }, "2.6.29"), 0);
  assert.equal(cpuAvgLoadPerTask({ ...r, cfsHNrRunning: 0 }, "4.8"), 0);
});

test("sched_asym_prefer with arch_asym_cpu_priority = -cpu: the lower CPU number wins, strictly", () => {
  assert.equal(schedAsymPrefer(1, 2), true);
  assert.equal(schedAsymPrefer(2, 1), false);
  assert.equal(schedAsymPrefer(2, 2), false);
});

test("should_we_balance: the first idle CPU of the local group, else its balance CPU; newidle always", () => {
  const rqs = (idle: number[]) => [0, 1, 2, 3].map((c) => rq(c, idle.includes(c) ? [] : hogs(1)));
  const sd = quad();
  const at = (dst: number, idle: number[], how: "CPU_IDLE" | "CPU_NOT_IDLE" | "CPU_NEWLY_IDLE") =>
    env({ era: "5.6", sd, dstCpu: dst, idle: how, rqs: rqs(idle) });
  assert.equal(shouldWeBalance(at(1, [1], "CPU_IDLE")), true); // the only idle CPU
  assert.equal(shouldWeBalance(at(0, [1], "CPU_NOT_IDLE")), false); // cpu1 is idle: it balances
  assert.equal(shouldWeBalance(at(1, [0, 1], "CPU_IDLE")), false); // cpu0 is the first idle
  assert.equal(shouldWeBalance(at(0, [], "CPU_NOT_IDLE")), true); // none idle: group_balance_cpu
  assert.equal(shouldWeBalance(at(1, [], "CPU_NOT_IDLE")), false);
  assert.equal(shouldWeBalance(at(1, [0], "CPU_NEWLY_IDLE")), true);
  // an idle CPU out of env->cpus does not count
  const e = at(1, [0, 1], "CPU_IDLE");
  lbCpusClear(e, 0);
  assert.equal(shouldWeBalance(e), true);
  // the destination itself cleared from env->cpus: never (not even newidle)
  const gone = at(1, [1], "CPU_NEWLY_IDLE");
  lbCpusClear(gone, 1);
  assert.equal(shouldWeBalance(gone), false);
  // the balance CPU need not be the first CPU of the group
  const sd2 = domain({
    level: "MC",
    cpu: 1,
    groups: [{ ...group([0, 1]), balanceCpu: 1 }, group([2, 3])],
  });
  assert.equal(
    shouldWeBalance(env({ era: "5.6", sd: sd2, dstCpu: 1, idle: "CPU_NOT_IDLE", rqs: rqs([]) })),
    true,
  );
});

test("test_sd_parent(sd, SD_POWERSAVINGS_BALANCE) (2.6.x)", () => {
  const sd = quad();
  assert.equal(parentPowersavings(sd), false); // no parent
  sd.parent = domain({ level: "DIE", cpu: 0, groups: [group([0, 1, 2, 3])] });
  assert.equal(parentPowersavings(sd), false);
  sd.parent.flags = BASE_FLAGS | SD_POWERSAVINGS_BALANCE;
  assert.equal(parentPowersavings(sd), true);
});

test("nr_balance_failed: periodic failures count; newidle ones only in 2.6.29", () => {
  const sd = quad();
  lbNoteFailure(sd, "CPU_NEWLY_IDLE", "4.8");
  lbNoteFailure(sd, "CPU_NEWLY_IDLE", "6.6");
  assert.equal(sd.nrBalanceFailed, 0);
  lbNoteFailure(sd, "CPU_IDLE", "5.6");
  lbNoteFailure(sd, "CPU_NOT_IDLE", "4.8");
  assert.equal(sd.nrBalanceFailed, 2);
  lbNoteFailure(sd, "CPU_NEWLY_IDLE", "2.6.29");
  assert.equal(sd.nrBalanceFailed, 3);
});

/** A domain with min_interval 4, max_interval 8, the given interval and failure count. */
function acct(interval: number, failed = 2) {
  const sd = domain({
    level: "MC",
    cpu: 0,
    groups: [group([0, 1]), group([2, 3])],
    minInterval: 4,
    maxInterval: 8,
  });
  sd.balanceInterval = interval;
  sd.nrBalanceFailed = failed;
  sd.cacheNiceTries = 1;
  return sd;
}

test("lbAccountPass: a move resets the failures and the interval", () => {
  const sd = acct(8, 3);
  lbAccountPass(sd, { kind: "moved" }, "CPU_IDLE", "5.6");
  assert.equal(sd.nrBalanceFailed, 0);
  assert.equal(sd.balanceInterval, 4);
});

test("lbAccountPass: a failure resets the interval unless it kicked the stopper (5.x: for failures)", () => {
  const failed = (needActive: boolean, activeKicked: boolean, voluntary: boolean) => ({
    kind: "failed" as const,
    needActive,
    activeKicked,
    voluntary,
  });
  let sd = acct(8);
  lbAccountPass(sd, failed(false, false, false), "CPU_IDLE", "5.6");
  assert.equal(sd.balanceInterval, 4);
  assert.equal(sd.nrBalanceFailed, 2); // kept
  // a kick: nr_balance_failed = cache_nice_tries + 1 before v5.13, and the interval doubles to max
  sd = acct(4);
  lbAccountPass(sd, failed(true, true, false), "CPU_IDLE", "5.10");
  assert.equal(sd.nrBalanceFailed, 2);
  assert.equal(sd.balanceInterval, 8);
  lbAccountPass(sd, failed(true, true, false), "CPU_IDLE", "5.10");
  assert.equal(sd.balanceInterval, 8); // not past max_interval
  sd = acct(4, 0);
  lbAccountPass(sd, failed(true, false, false), "CPU_IDLE", "4.8");
  assert.equal(sd.nrBalanceFailed, 2); // need_active_balance without a kick (already queued)
  assert.equal(sd.balanceInterval, 4);
  // v5.13+: the stopper alone takes hot tasks; the count is left alone
  sd = acct(4, 0);
  lbAccountPass(sd, failed(true, true, false), "CPU_IDLE", "5.19");
  assert.equal(sd.nrBalanceFailed, 0);
  // a voluntary kick (5.x) resets the interval; 4.x has no such rule
  sd = acct(4);
  lbAccountPass(sd, failed(true, true, true), "CPU_IDLE", "5.6");
  assert.equal(sd.balanceInterval, 4);
  sd = acct(4);
  lbAccountPass(sd, failed(true, true, true), "CPU_IDLE", "4.8");
  assert.equal(sd.balanceInterval, 8);
});

test("lbAccountPass: balanced/pinned passes double the interval, pinned ones up to MAX_PINNED_INTERVAL", () => {
  let sd = acct(8, 3);
  lbAccountPass(sd, { kind: "balanced", allPinned: false }, "CPU_IDLE", "5.6");
  assert.equal(sd.nrBalanceFailed, 0);
  assert.equal(sd.balanceInterval, 8); // at max_interval
  sd = acct(4, 3);
  lbAccountPass(sd, { kind: "balanced", allPinned: false }, "CPU_NOT_IDLE", "4.8");
  assert.equal(sd.balanceInterval, 8);
  sd = acct(8, 3);
  lbAccountPass(sd, { kind: "balanced", allPinned: true }, "CPU_IDLE", "5.6");
  assert.equal(sd.balanceInterval, 16);
  sd = acct(512, 3);
  lbAccountPass(sd, { kind: "balanced", allPinned: true }, "CPU_IDLE", "5.6");
  assert.equal(sd.balanceInterval, 512);
  // out_one_pinned: LBF_ALL_PINNED is set on that path; nr_balance_failed is not reset
  sd = acct(8, 3);
  lbAccountPass(sd, { kind: "one_pinned" }, "CPU_IDLE", "4.8");
  assert.equal(sd.balanceInterval, 16);
  assert.equal(sd.nrBalanceFailed, 3);
  // 5.x: newidle passes do not tune the interval up; 4.x ones do
  sd = acct(4, 3);
  lbAccountPass(sd, { kind: "balanced", allPinned: true }, "CPU_NEWLY_IDLE", "5.10");
  assert.equal(sd.balanceInterval, 4);
  assert.equal(sd.nrBalanceFailed, 0);
  sd = acct(4, 3);
  lbAccountPass(sd, { kind: "one_pinned" }, "CPU_NEWLY_IDLE", "6.19");
  assert.equal(sd.balanceInterval, 4);
  sd = acct(4, 3);
  lbAccountPass(sd, { kind: "balanced", allPinned: false }, "CPU_NEWLY_IDLE", "4.8");
  assert.equal(sd.balanceInterval, 8);
});
