// Era details checked against each era's source: boot-time granularity scaling and hotplug,
// sleeper credit, wakeup granularity, idle_cpu(), rq->load.weight with RT tasks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../src/experiment/run";
import { preset } from "../../src/machine/presets";
import { topology } from "../../src/experiment/experiment";
import { workload } from "../../src/index";
import { cpuDown } from "../../src/kernel/core/hotplug";
import { eraDefaults, FEATURES, type Era } from "../../src/kernel/features";
import type { Kernel } from "../../src/kernel/core/core";
import { CFS_POLICY, wakeupGran } from "../../src/kernel/fair/fair";
import { rqLoadWeight2629, RT_LOAD_WEIGHT_2629 } from "../../src/kernel/fair/cpu_load";
import { run, wait } from "../../src/kernel/ops";
import { lbAccountPass } from "../../src/kernel/fair/lb/common";
import { canMigrateTask } from "../../src/kernel/fair/lb/detach";
import { activeLoadBalanceCpuStop } from "../../src/kernel/fair/lb/load_balance";
import { LBF_ACTIVE_LB } from "../../src/kernel/fair/lb/types";
import { domain, env, group, NOW, rq as lbRq, task as lbTask } from "./fair/lb_fixtures";

function kernel(era: Era, opts: { atBoot?: number[]; afterBoot?: number[] } = {}): Kernel {
  const m = preset("core2-2x2");
  const off = opts.atBoot ?? [];
  return buildKernel({
    machine: m,
    online: m.online.map((o, i) => o && !off.includes(i)),
    offlineAfterBoot: opts.afterBoot ?? [],
    era,
    patches: [],
    seed: "t",
    trace: false,
  });
}

const forever = function* () {
  yield run(Infinity);
};
const sleeper = function* () {
  for (;;) yield wait();
};

test("2.6.29 scales latency once at boot: a CPU offlined after boot leaves it at 1 + ilog2(4)", () => {
  const base = eraDefaults("2.6.29").tunables;
  const after = kernel("2.6.29", { afterBoot: [3] });
  assert.equal(after.onlineCount(), 3);
  assert.equal(after.cfsTiming.latency, base.sched_latency_ns * 3);
  assert.equal(after.cfsTiming.minGranularity, base.sched_min_granularity_ns * 3);
  assert.equal(after.cfsTiming.wakeupGranularity, base.sched_wakeup_granularity_ns * 3);
  // not brought up at boot: sched_init_granularity counts 3 CPUs, 1 + ilog2(3) = 2
  const atBoot = kernel("2.6.29", { atBoot: [3] });
  assert.equal(atBoot.cfsTiming.latency, base.sched_latency_ns * 2);
  // a run-time offline does not rescale either
  const k = kernel("2.6.29");
  cpuDown(k, 3);
  cpuDown(k, 2);
  assert.equal(k.cfsTiming.latency, base.sched_latency_ns * 3);
});

test("later eras rescale on hotplug (update_sysctl from rq_offline_fair / rq_online_fair)", () => {
  const base = eraDefaults("4.8").tunables;
  const k = kernel("4.8");
  assert.equal(k.cfsTiming.latency, base.sched_latency_ns * 3);
  cpuDown(k, 3);
  assert.equal(k.cfsTiming.latency, base.sched_latency_ns * 2);
  cpuDown(k, 2);
  assert.equal(k.cfsTiming.latency, base.sched_latency_ns * 2);
  cpuDown(k, 1);
  assert.equal(k.cfsTiming.latency, base.sched_latency_ns * 1);
  assert.equal(kernel("4.8", { afterBoot: [3] }).cfsTiming.latency, base.sched_latency_ns * 2);
});

test("offline(cpu, { atBoot }) is validated and kept apart from offline(cpu)", () => {
  const e = topology("core2-2x2")
    .era("2.6.29")
    .workload(workload.hogs({ n: 1 }));
  const s = e.offline(3).offline(2, { atBoot: true }).spec();
  assert.deepEqual([s.offline, s.offlineAtBoot], [[3], [2]]);
  assert.deepEqual(e.offline(3).domains().online, [0, 1, 2]);
  assert.deepEqual(e.offline(3, { atBoot: true }).domains().online, [0, 1, 2]);
  assert.throws(
    () => e.offline(3, { atBoot: "yes" } as unknown as { atBoot: boolean }),
    /offline: options must be \{ atBoot: true \| false \}/,
  );
  assert.throws(
    () => e.offline(3, { atboot: true } as unknown as { atBoot: boolean }),
    /offline: options must be/,
  );
  assert.throws(() => e.offline(3).offline(3, { atBoot: true }), /already offline after boot/);
});

test("2.6.29 credits a sleeper a full latency period; GENTLE_FAIR_SLEEPERS (2.6.32+) half", () => {
  assert.equal(eraDefaults("2.6.29").features.GENTLE_FAIR_SLEEPERS, false);
  for (const era of ["2.6.29", "4.8"] as const) {
    const k = kernel(era);
    const p = k.spawn({ comm: "s", cpu: 1, cpus: [1], program: sleeper });
    const cfs = k.rqs[1].cfs;
    cfs.minVruntime = 1e9;
    p.se.vruntime = 0;
    CFS_POLICY.placeEntity(k, cfs, p, false);
    const credit = 1e9 - p.se.vruntime;
    const lat = k.cfsTiming.latency;
    assert.equal(credit, era === "2.6.29" ? lat : lat / 2, `${era}: credit ${credit}`);
  }
});

test("2.6.29 wakeup_gran (ASYM_GRAN): curr's weight, only when heavier than nice 0", () => {
  const k = kernel("2.6.29");
  const nice0 = k.spawn({ comm: "a", cpu: 1, cpus: [1], program: forever, nice: 0 });
  const nice5 = k.spawn({ comm: "b", cpu: 1, cpus: [1], program: forever, nice: 5 });
  const neg5 = k.spawn({ comm: "c", cpu: 1, cpus: [1], program: forever, nice: -5 });
  const g = k.cfsTiming.wakeupGranularity;
  // a light wakee does not get a larger granularity, a light curr neither
  assert.equal(wakeupGran(k, nice0, nice5), g);
  assert.equal(wakeupGran(k, nice5, nice0), g);
  // a heavy curr: the granularity in its (slower) virtual time
  assert.equal(wakeupGran(k, neg5, nice0), Math.floor((g * 1024) / neg5.se.weight));
  // 4.8: always the wakee's weight
  const k48 = kernel("4.8");
  const a = k48.spawn({ comm: "a", cpu: 1, cpus: [1], program: forever, nice: 0 });
  const b = k48.spawn({ comm: "b", cpu: 1, cpus: [1], program: forever, nice: 5 });
  const g48 = k48.cfsTiming.wakeupGranularity;
  assert.equal(wakeupGran(k48, a, b), Math.floor((g48 * 1024) / b.se.weight));
  assert.ok(wakeupGran(k48, a, b) > g48);
});

test("idle_cpu(): 2.6.29 looks at curr only; 3.19 also at nr_running and the wakelist", () => {
  for (const era of ["2.6.29", "3.19"] as const) {
    const k = kernel(era);
    const rq = k.rqs[2];
    assert.equal(rq.isIdle(), true);
    rq.ttwuPending = 1; // a wakeup queued on the wakelist, not yet activated
    assert.equal(rq.isIdle(), era === "2.6.29", `${era} with a pending wakeup`);
    rq.ttwuPending = 0;
    rq.nrRunning = 1; // enqueued, the idle task still current (resched not yet taken)
    assert.equal(rq.isIdle(), era === "2.6.29", `${era} with a queued task`);
  }
});

test("2.6.29 rq->load.weight counts RT tasks (inc_cpu_load in enqueue_task_rt)", () => {
  const fake = { cfs: { loadWeight: 1024 }, rt: { rtNrRunning: 2 } };
  assert.equal(rqLoadWeight2629(fake), 1024 + 2 * 177522);
  assert.equal(RT_LOAD_WEIGHT_2629, 177522);
  const k = kernel("2.6.29");
  k.spawn({ comm: "rt", cpu: 1, cpus: [1], program: forever, policy: "fifo", rtPriority: 10 });
  k.runUntil(1_000_000);
  assert.equal(k.lbRq(1).loadWeight, RT_LOAD_WEIGHT_2629);
  // PELT eras: weighted_cpuload is the fair signal only
  const k48 = kernel("4.8");
  k48.spawn({ comm: "rt", cpu: 1, cpus: [1], program: forever, policy: "fifo", rtPriority: 10 });
  k48.runUntil(1_000_000);
  assert.equal(k48.lbRq(1).loadWeight, 0);
});

test("RT_PUSH_IPI is on by default from 4.1 (4.8 on), off in 3.19", () => {
  assert.deepEqual(FEATURES.RT_PUSH_IPI.default, ["4.8", "5.6", "5.10", "5.19", "6.6", "6.19"]);
  assert.equal(eraDefaults("3.19").features.RT_PUSH_IPI, false);
});

test("2.6.29 rebalance_domains keeps the interval computed before the pass for next_balance", () => {
  const k = kernel("2.6.29");
  const hogs = [0, 1].map((i) => k.spawn({ comm: `h${i}`, cpu: 0, cpus: [0], program: forever }));
  k.runUntil(100e6); // cpu_load[] of cpu0 settles on two hogs
  for (const p of hogs) p.setAffinity([0, 1]);
  const rq1 = k.rqs[1];
  for (const sd of k.domains.domains[1]) {
    sd.lastBalance = -10e9; // every level due
    sd.balanceInterval = sd.minInterval; // undo the all-pinned backoff of the first 100 ms
  }
  k.balancer.rebalanceDomains(rq1, "CPU_IDLE");
  assert.equal(rq1.nrRunning, 1, "cpu1 pulled a hog at the MC level");
  // MC's idle interval before the pass: 1 ms -> one jiffy (4 ms at HZ 250). Recomputed after the
  // pull (v3.16+), the busy interval would be 64 jiffies' worth (busy_factor 64).
  assert.equal(rq1.nextBalance - k.now, 4e6);
});

test("3.19 runs the pre-4.3 wake_wide (wakee > llc size, waker > llc size x wakee), 4.8 the 4.3 one", () => {
  const flips = (era: Era, waker: number, wakee: number): boolean => {
    const k = kernel(era);
    const a = k.spawn({ comm: "waker", cpu: 0, cpus: [0], program: forever });
    const b = k.spawn({ comm: "wakee", cpu: 1, cpus: [1], program: sleeper });
    a.wakeeFlips = waker;
    b.wakeeFlips = wakee;
    return k.hooks.get("fair.wake_wide")({ k, p: b, waker: a, factor: 2 });
  };
  // a waker of many, a wakee that flips at llc size: 4.3 spreads, 3.12-4.2 needs wakee > size
  assert.equal(flips("4.8", 10, 2), true);
  assert.equal(flips("3.19", 10, 2), false);
  // the wakee is the one that flips: 4.3 swaps master and slave, 3.19 does not
  assert.equal(flips("4.8", 3, 10), true);
  assert.equal(flips("3.19", 3, 10), false);
  // both agree on a clear 1:N pair
  assert.equal(flips("3.19", 7, 3), true);
  assert.equal(flips("4.8", 7, 3), true);
  assert.equal(flips("2.6.29", 7, 3), false);
});

test("explain() of a 6.19 run says the fair class runs EEVDF and what is not modelled; 5.19 says nothing", () => {
  const run = (era: Era) =>
    topology("core2-2x2")
      .era(era)
      .workload(workload.hogs({ n: 2, seconds: 0.02 }))
      .runSync()
      .explain("baseline");
  assert.match(run("6.19").split("\n")[1], /^era 6\.19: the fair class runs EEVDF .*DELAY_DEQUEUE/);
  assert.doesNotMatch(run("5.19"), /EEVDF/);
});

test("active balance: 4.8 forces hot pulls through nr_balance_failed, 5.19 through LBF_ACTIVE_LB", () => {
  const kicked = {
    kind: "failed",
    needActive: true,
    activeKicked: true,
    voluntary: false,
  } as const;
  const mkSd = () => domain({ level: "MC", cpu: 0, groups: [group([0]), group([1])] });
  const sd48 = mkSd();
  lbAccountPass(sd48, kicked, "CPU_IDLE", "4.8");
  assert.equal(sd48.nrBalanceFailed, sd48.cacheNiceTries + 1);
  const sd519 = mkSd();
  lbAccountPass(sd519, kicked, "CPU_IDLE", "5.19");
  assert.equal(sd519.nrBalanceFailed, 0, "5.13+ leaves the failure count alone");
  // the 5.19 stopper takes a cache-hot task; a regular pass does not
  const hot = lbTask({ execStart: NOW - 100_000 });
  const busiest = lbRq(1, [lbTask(), hot]);
  const mkEnv = (era: Era, sd: typeof sd48) =>
    env({ era, sd, dstCpu: 0, idle: "CPU_IDLE", rqs: [lbRq(0, []), busiest] });
  assert.equal(canMigrateTask({ env: mkEnv("5.19", sd519), task: hot }), false);
  const stopEnv = mkEnv("5.19", sd519);
  assert.equal(activeLoadBalanceCpuStop(stopEnv, busiest)?.task, hot);
  assert.equal(stopEnv.flags & LBF_ACTIVE_LB, LBF_ACTIVE_LB);
  // 4.8: the stopper's env has no LBF_ACTIVE_LB; the kick's nr_balance_failed lets it go
  const stop48 = mkEnv("4.8", sd48);
  assert.equal(activeLoadBalanceCpuStop(stop48, busiest)?.task, hot);
  assert.equal(stop48.flags & LBF_ACTIVE_LB, 0);
});
