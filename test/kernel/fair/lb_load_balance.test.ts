// load_balance()'s control flow (src/kernel/fair/lb/load_balance.ts) on hand-built runqueues, with
// find_busiest_group / find_busiest_queue / need_active_balance stubbed so that each test drives
// one path of v5.6-v6.19 / v4.8 fair.c load_balance(): the more_balance loop (LBF_NEED_BREAK,
// loop_max), the LBF_DST_PINNED retarget, the LBF_ALL_PINNED redo and out_all_pinned,
// out_balanced's sgc->imbalance, the one-pinned exit, the active-balance kick, SD_SERIALIZE, and
// active_load_balance_cpu_stop.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Hooks, hookDescription } from "../../../src/kernel/hooks";
import type { Era } from "../../../src/kernel/features";
import {
  LB_HOOK_DEFAULTS,
  activeLoadBalanceCpuStop,
  domainSpanning,
  findBusiestGroup,
  findBusiestQueue,
  loadBalance,
  needActiveBalance,
} from "../../../src/kernel/fair/lb/load_balance";
import {
  LBF_ALL_PINNED,
  MAX_PINNED_INTERVAL,
  type FbgResult,
  type LbEnv,
  type LbHookLookup,
  type LbHookSignatures,
  type LbRq,
  type MigrationType,
} from "../../../src/kernel/fair/lb/types";
import { SD_SERIALIZE, type SchedDomain } from "../../../src/kernel/topology/sched_domain";
import { BASE_FLAGS, NOW, domain, env, group, hogs, rq, task } from "./lb_fixtures";
import type { CpuIdleType } from "../../../src/kernel/fair/lb/types";

interface Stubs {
  fbg?: (e: LbEnv, call: number) => FbgResult;
  fbq?: (e: LbEnv) => LbRq | null;
  need?: boolean;
}

/** The era's defaults with find_busiest_group/queue and need_active_balance replaced. */
function stubbed(s: Stubs): LbHookLookup {
  let calls = 0;
  return {
    get<K extends keyof LbHookSignatures>(name: K): LbHookSignatures[K] {
      if (name === "fair.find_busiest_group" && s.fbg)
        return ((ctx: { env: LbEnv }) =>
          s.fbg!(ctx.env, calls++)) as unknown as LbHookSignatures[K];
      if (name === "fair.find_busiest_queue" && s.fbq)
        return ((ctx: { env: LbEnv }) => s.fbq!(ctx.env)) as unknown as LbHookSignatures[K];
      if (name === "fair.need_active_balance" && s.need !== undefined)
        return (() => s.need) as unknown as LbHookSignatures[K];
      return LB_HOOK_DEFAULTS[name];
    },
  };
}

/** cpus 0-3, local group {0,1}, remote {2,3}; a parent domain whose local group is all four. */
function mc(cpu = 0, o: { flags?: number } = {}): { sd: SchedDomain; parent: SchedDomain } {
  const sd = domain({
    level: "MC",
    cpu,
    groups: [group([0, 1]), group([2, 3])],
    flags: o.flags ?? BASE_FLAGS,
    minInterval: 4,
    maxInterval: 8,
  });
  const parent = domain({ level: "DIE", cpu, groups: [group([0, 1, 2, 3]), group([4, 5, 6, 7])] });
  sd.parent = parent;
  return { sd, parent };
}

const unbalanced =
  (imbalance: number, migrationType: MigrationType = "migrate_task") =>
  (e: LbEnv): FbgResult => ({
    balanced: false,
    busiestGroup: e.sd.groups[1],
    imbalance,
    migrationType,
    forced: false,
  });

/** The first CPU of the remote group still in env->cpus with 2+ tasks (find_busiest_queue stub). */
const firstBusy =
  (rqs: LbRq[]) =>
  (e: LbEnv): LbRq | null =>
    rqs.find((r) => e.sd.groups[1].cpus.includes(r.cpu) && e.cpus.has(r.cpu) && r.nrRunning > 1) ??
    null;

/** Tasks that ran long ago (cache-cold), the first one running. */
const cold = (n: number, cpusAllowed: Set<number> | null = null) =>
  hogs(n, { execStart: 0, cpusAllowed });

function run(o: {
  era?: Era;
  sd: SchedDomain;
  rqs: LbRq[];
  idle?: CpuIdleType;
  dstCpu?: number;
  stubs: Stubs;
  tune?: (e: LbEnv) => void;
}) {
  const e = env({
    era: o.era ?? "5.6",
    sd: o.sd,
    dstCpu: o.dstCpu ?? 0,
    idle: o.idle ?? "CPU_NOT_IDLE",
    rqs: o.rqs,
    hooks: stubbed(o.stubs),
  });
  o.tune?.(e);
  return { e, res: loadBalance(e) };
}

test("load_balance: LBF_NEED_BREAK returns to more_balance, loop_max = min(sched_nr_migrate, nr_running)", () => {
  // 40 tasks, imbalance 36 tasks, sysctl_sched_nr_migrate 64: 32 tasks, a breather, 4 more
  const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, cold(40)), rq(3, [])];
  const { sd } = mc();
  const { res } = run({
    sd,
    rqs,
    stubs: { fbg: unbalanced(36), fbq: firstBusy(rqs) },
    tune: (e) => {
      e.tunables.sched_nr_migrate = 64;
    },
  });
  assert.equal(res.ldMoved, 36);
  assert.equal(res.migrations.length, 36);
  assert.equal(res.flags & 0x02, 0); // LBF_NEED_BREAK cleared
  assert.equal(res.outcome.kind, "moved");
  assert.equal(res.continueBalancing, true);
  // sched_nr_migrate 8 below nr_running 10: at most 8 tasks examined, so at most 8 moved
  const rqs2 = [rq(0, []), rq(1, hogs(1)), rq(2, cold(10)), rq(3, [])];
  const small = run({
    sd: mc().sd,
    rqs: rqs2,
    stubs: { fbg: unbalanced(10), fbq: firstBusy(rqs2) },
    tune: (e) => {
      e.tunables.sched_nr_migrate = 8;
    },
  });
  assert.equal(small.res.migrations.length, 8); // 8 examined from the tail, none the running one
  assert.equal(small.e.loopMax, 8);
});

test("load_balance: LBF_DST_PINNED moves the pass to another CPU of the local group", () => {
  // cpu2's waiting tasks may run on cpu1 and cpu2 only: cpu0 cannot take them, cpu1 can
  const pinned = new Set([1, 2]);
  const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, cold(3, pinned)), rq(3, [])];
  const { sd, parent } = mc();
  const { e, res } = run({
    sd,
    rqs,
    idle: "CPU_IDLE",
    stubs: { fbg: unbalanced(2), fbq: firstBusy(rqs) },
  });
  assert.equal(res.migrations.length, 2);
  assert.ok(res.migrations.every((m) => m.srcCpu === 2 && m.dstCpu === 1));
  assert.equal(e.dstCpu, 1);
  assert.equal(e.cpus.has(0), false); // __cpumask_clear_cpu(env.dst_cpu, env.cpus)
  assert.equal(e.cpus.has(1), true);
  assert.equal(res.flags & 0x04, 0); // LBF_DST_PINNED cleared
  // the imbalance was met: the parent's group is not marked imbalanced
  assert.equal(parent.groups[0].imbalance, false);
  // the shared span set of the domain is not touched by the clear
  assert.equal(sd.span.includes(0), true);
  const again = env({ era: "5.6", sd, dstCpu: 0, idle: "CPU_IDLE", rqs });
  assert.equal(again.cpus.has(0), true);
});

test("load_balance: no retarget and no parent sgc->imbalance once the imbalance is used up", () => {
  // 5.x walks cfs_tasks from the tail: the pinned task first (LBF_SOME_PINNED, LBF_DST_PINNED),
  // then a free task meets the imbalance of one task
  const pinned = task({ execStart: 0, cpusAllowed: new Set([1, 2]) });
  const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, [...cold(2), pinned]), rq(3, [])];
  const { sd, parent } = mc();
  const { e, res } = run({ sd, rqs, stubs: { fbg: unbalanced(1), fbq: firstBusy(rqs) } });
  assert.equal(res.migrations.length, 1);
  assert.notEqual(res.migrations[0].task.pid, pinned.pid);
  assert.equal(res.migrations[0].dstCpu, 0);
  assert.equal(e.dstCpu, 0);
  assert.equal(e.cpus.has(0), true);
  assert.equal(parent.groups[0].imbalance, false);
});

test("load_balance: tasks pinned away with imbalance left mark the parent's group imbalanced", () => {
  // every waiting task may run on cpu2 only; CPU_NEWLY_IDLE does not retarget (LBF_SOME_PINNED)
  const only2 = new Set([2]);
  const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, [task(), ...cold(2, only2)]), rq(3, [])];
  const { sd, parent } = mc();
  const { res } = run({
    sd,
    rqs,
    idle: "CPU_NEWLY_IDLE",
    stubs: { fbg: unbalanced(1), fbq: firstBusy(rqs), need: false },
  });
  assert.equal(res.migrations.length, 0);
  assert.equal(parent.groups[0].imbalance, true);
  // the running task could come here: not all pinned, so a plain failure
  assert.equal(res.outcome.kind, "failed");
  assert.equal(sd.nrBalanceFailed, 0); // newidle failures do not count
});

test("load_balance: LBF_ALL_PINNED clears busiest and redoes; out_all_pinned keeps sgc->imbalance", () => {
  const rqs = [
    rq(0, []),
    rq(1, hogs(1)),
    rq(2, cold(3, new Set([2]))),
    rq(3, cold(3, new Set([3]))),
  ];
  const { sd, parent } = mc();
  parent.groups[0].imbalance = true;
  sd.balanceInterval = sd.maxInterval; // only the pinned cap lets it double
  let queues = 0;
  const fbq = firstBusy(rqs);
  const { e, res } = run({
    sd,
    rqs,
    stubs: {
      fbg: unbalanced(2),
      fbq: (x) => {
        queues++;
        return fbq(x);
      },
    },
  });
  assert.equal(queues, 2); // cpu2, then (redo) cpu3
  assert.deepEqual([...e.cpus].sort(), [0, 1]);
  assert.deepEqual(res.decision, { balanced: true, reason: "all_pinned" });
  assert.deepEqual(res.outcome, { kind: "balanced", allPinned: true });
  assert.equal(res.continueBalancing, true);
  assert.equal(parent.groups[0].imbalance, true); // left for the parent level
  assert.equal(sd.balanceInterval, 16); // 8 < MAX_PINNED_INTERVAL: doubled past max_interval
  assert.ok(16 < MAX_PINNED_INTERVAL);
  assert.equal(sd.nrBalanceFailed, 0);
});

test("load_balance: after the redo, the next busiest queue's tasks move (loop counters reset)", () => {
  const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, cold(3, new Set([2]))), rq(3, cold(3))];
  const { sd } = mc();
  const { res } = run({ sd, rqs, stubs: { fbg: unbalanced(2), fbq: firstBusy(rqs) } });
  assert.equal(res.outcome.kind, "moved");
  assert.equal(res.migrations.length, 2);
  assert.ok(res.migrations.every((m) => m.srcCpu === 3 && m.dstCpu === 0));
  if (!res.decision.balanced) assert.equal(res.decision.busiestCpu, 3);
});

test("load_balance 4.8: out_all_pinned skips out_balanced's clearing of the parent's sgc->imbalance", () => {
  const rqs = [
    rq(0, []),
    rq(1, hogs(1)),
    rq(2, cold(3, new Set([2]))),
    rq(3, cold(3, new Set([3]))),
  ];
  const { sd, parent } = mc();
  parent.groups[0].imbalance = true;
  const { res } = run({
    era: "4.8",
    sd,
    rqs,
    stubs: { fbg: unbalanced(2, "migrate_load"), fbq: firstBusy(rqs) },
  });
  assert.deepEqual(res.decision, { balanced: true, reason: "all_pinned" });
  assert.equal(parent.groups[0].imbalance, true);
});

for (const [era, keeps] of [
  ["5.6", true],
  ["4.8", false],
] as const) {
  test(`load_balance ${era}: out_balanced after an all-pinned redo ${keeps ? "keeps" : "clears"} the parent's sgc->imbalance`, () => {
    // f6cad8df6b30 (v5.3): clear it only if other tasks got a chance to move
    const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, cold(3, new Set([2]))), rq(3, [])];
    const { sd, parent } = mc();
    parent.groups[0].imbalance = true;
    const { res } = run({
      era,
      sd,
      rqs,
      stubs: {
        fbg: (e, call) =>
          call === 0 ? unbalanced(2, "migrate_load")(e) : { balanced: true, reason: "no_busiest" },
        fbq: firstBusy(rqs),
      },
    });
    assert.deepEqual(res.decision, { balanced: true, reason: "no_busiest" });
    assert.deepEqual(res.outcome, { kind: "balanced", allPinned: true });
    assert.equal(parent.groups[0].imbalance, keeps);
  });
}

test("load_balance: a balanced domain clears the parent's sgc->imbalance and resets nr_balance_failed", () => {
  for (const era of ["4.8", "5.6", "6.19"] as const) {
    const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, hogs(2)), rq(3, [])];
    const { sd, parent } = mc();
    parent.groups[0].imbalance = true;
    sd.nrBalanceFailed = 3;
    const { res } = run({
      era,
      sd,
      rqs,
      stubs: { fbg: () => ({ balanced: true, reason: "imbalance_pct" }) },
    });
    assert.deepEqual(res.decision, { balanced: true, reason: "imbalance_pct" }, era);
    assert.deepEqual(res.outcome, { kind: "balanced", allPinned: false }, era);
    assert.equal(res.continueBalancing, true, era);
    assert.equal(res.ldMoved, 0, era);
    assert.equal(res.activeBalance, null, era);
    assert.equal(parent.groups[0].imbalance, false, era);
    assert.equal(sd.nrBalanceFailed, 0, era);
    assert.equal(sd.balanceInterval, 8, era); // 4 < max_interval 8: doubled
  }
});

test("load_balance: should_we_balance stops this level and the ones above", () => {
  const rqs = [rq(0, hogs(1)), rq(1, []), rq(2, hogs(2)), rq(3, [])];
  const { sd, parent } = mc();
  parent.groups[0].imbalance = true;
  let asked = 0;
  const { res } = run({
    sd,
    rqs,
    stubs: {
      fbg: (e) => {
        asked++;
        return unbalanced(1)(e);
      },
    },
  });
  // cpu1 is idle: it balances the group, not cpu0
  assert.deepEqual(res.decision, { balanced: true, reason: "should_we_balance" });
  assert.equal(res.continueBalancing, false);
  assert.equal(asked, 0);
  assert.equal(parent.groups[0].imbalance, false); // out_balanced
});

test("load_balance: no busiest queue is balanced; a lone task moves nothing and counts a failure", () => {
  const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, hogs(1)), rq(3, [])];
  const m0 = mc();
  m0.parent.groups[0].imbalance = true;
  const none = run({ sd: m0.sd, rqs, stubs: { fbg: unbalanced(1), fbq: () => null } });
  assert.deepEqual(none.res.decision, { balanced: true, reason: "no_busiest_queue" });
  assert.equal(none.res.continueBalancing, true);
  assert.equal(m0.parent.groups[0].imbalance, false); // goto out_balanced
  const { sd } = mc();
  const lone = run({
    sd,
    rqs,
    stubs: { fbg: unbalanced(1), fbq: () => rqs[2], need: false },
  });
  assert.equal(lone.res.outcome.kind, "failed");
  assert.equal(lone.res.decision.balanced, false);
  if (!lone.res.decision.balanced) {
    assert.equal(lone.res.decision.busiestCpu, 2);
    assert.equal(lone.res.decision.imbalance, 1);
    assert.equal(lone.res.decision.migrationType, "migrate_task");
  }
  assert.equal(lone.e.srcCpu, 2);
  assert.equal(lone.res.flags & LBF_ALL_PINNED, 0); // detach_tasks never ran
  assert.equal(sd.nrBalanceFailed, 1);
  assert.equal(sd.balanceInterval, sd.minInterval);
});

test("load_balance: need_active_balance with busiest's current task pinned away: out_one_pinned", () => {
  const curr = task({ cpusAllowed: new Set([2]) });
  const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, [curr]), rq(3, [])];
  const { sd } = mc();
  const { res } = run({ sd, rqs, stubs: { fbg: unbalanced(1), fbq: () => rqs[2], need: true } });
  assert.deepEqual(res.outcome, { kind: "one_pinned" });
  assert.equal(res.activeBalance, null);
  assert.ok(res.flags & LBF_ALL_PINNED);
  assert.equal(res.continueBalancing, true);
  assert.equal(sd.nrBalanceFailed, 1);
  assert.equal(sd.balanceInterval, 8); // tuned up
});

test("load_balance: need_active_balance kicks the stopper once; a voluntary kick resets the interval", () => {
  const { sd } = mc();
  sd.balanceInterval = 4;
  const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, hogs(1)), rq(3, [])];
  const kick = run({ sd, rqs, stubs: { fbg: unbalanced(1), fbq: () => rqs[2], need: true } });
  assert.deepEqual(kick.res.activeBalance, { busiestCpu: 2, pushCpu: 0 });
  assert.equal(kick.res.outcome.kind, "failed");
  if (kick.res.outcome.kind === "failed") {
    assert.equal(kick.res.outcome.needActive, true);
    assert.equal(kick.res.outcome.activeKicked, true);
    assert.equal(kick.res.outcome.voluntary, false);
  }
  assert.equal(sd.balanceInterval, 8); // a kick for failures backs off
  // the stopper is already queued on cpu2: no second kick, and the interval resets
  const busy = [rqs[0], rqs[1], { ...rqs[2], activeBalance: true }, rqs[3]];
  const again = run({
    sd,
    rqs: busy,
    stubs: { fbg: unbalanced(1), fbq: () => busy[2], need: true },
  });
  assert.equal(again.res.activeBalance, null);
  assert.equal(sd.balanceInterval, sd.minInterval);
  // migrate_misfit is a voluntary active balance (5.x): the kick does not back off
  sd.balanceInterval = 4;
  const misfit = run({
    sd,
    rqs,
    stubs: { fbg: unbalanced(1, "migrate_misfit"), fbq: () => rqs[2], need: true },
  });
  assert.notEqual(misfit.res.activeBalance, null);
  if (misfit.res.outcome.kind === "failed") assert.equal(misfit.res.outcome.voluntary, true);
  assert.equal(sd.balanceInterval, sd.minInterval);
  // without need_active_balance nothing is voluntary
  const plain = run({
    sd,
    rqs,
    stubs: { fbg: unbalanced(1, "migrate_misfit"), fbq: () => rqs[2], need: false },
  });
  assert.equal(plain.res.outcome.kind, "failed");
  if (plain.res.outcome.kind === "failed") assert.equal(plain.res.outcome.voluntary, false);
});

test("load_balance v6.19: SD_SERIALIZE takes sched_balance_running once per pass, redo included", () => {
  const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, cold(3, new Set([2]))), rq(3, cold(3))];
  let tries = 0;
  const ser = run({
    era: "6.19",
    sd: mc(0, { flags: BASE_FLAGS | SD_SERIALIZE }).sd,
    rqs,
    stubs: { fbg: unbalanced(2), fbq: firstBusy(rqs) },
    tune: (e) => {
      e.serialize = () => {
        tries++;
        return true;
      };
    },
  });
  assert.equal(ser.res.outcome.kind, "moved"); // after an all-pinned redo
  assert.equal(tries, 1);
  // held by another CPU: balanced, and the levels above still balance
  const mh = mc(0, { flags: BASE_FLAGS | SD_SERIALIZE });
  mh.parent.groups[0].imbalance = true;
  const held = run({
    era: "6.19",
    sd: mh.sd,
    rqs,
    stubs: { fbg: unbalanced(2), fbq: firstBusy(rqs) },
    tune: (e) => {
      e.serialize = () => false;
    },
  });
  assert.deepEqual(held.res.decision, { balanced: true, reason: "sched_balance_running" });
  assert.equal(held.res.continueBalancing, true);
  assert.equal(mh.parent.groups[0].imbalance, false); // goto out_balanced
  assert.equal(held.res.migrations.length, 0);
  // a domain without SD_SERIALIZE does not ask
  let asked = 0;
  const free = run({
    era: "6.19",
    sd: mc().sd,
    rqs,
    stubs: { fbg: unbalanced(2), fbq: firstBusy(rqs) },
    tune: (e) => {
      e.serialize = () => {
        asked++;
        return false;
      };
    },
  });
  assert.equal(asked, 0);
  assert.equal(free.res.outcome.kind, "moved");
});

test("era dispatch: each family's find_busiest_group/queue and need_active_balance", () => {
  const { sd } = mc();
  sd.cacheNiceTries = 1;
  const rqs = [rq(0, []), rq(1, []), rq(2, hogs(2)), rq(3, hogs(1))];
  const e = env({ era: "2.6.29", sd, dstCpu: 0, idle: "CPU_IDLE", rqs });
  // 2.6.29 need_active_balance: nr_balance_failed > cache_nice_tries + 2
  sd.nrBalanceFailed = 3;
  assert.equal(needActiveBalance({ env: e }), false);
  sd.nrBalanceFailed = 4;
  assert.equal(needActiveBalance({ env: e }), true);
  // 2.6.29: max_pull = min(1536 - 768, 1536 - 1024) = 512 per 1024 of power; imbalance =
  // min(512 * 2048, 768 * 2048) / 1024 = 1024 (4.8's calculate_imbalance gives 1536 here)
  const fbg = findBusiestGroup({ env: e });
  assert.equal(fbg.balanced, false);
  if (!fbg.balanced) {
    assert.deepEqual(fbg.busiestGroup.cpus, [2, 3]);
    assert.equal(fbg.imbalance, 1024);
  }
  // find_busiest_queue: 2.6.29 takes the largest load, 4.8 the largest runnable load per
  // capacity, 5.7+ the largest cfs load_avg per capacity ("sched/fair: Replace runnable_load_avg
  // by load_avg", v5.7; 5.6 is left out: it still read cpu_runnable_load, see docs/mutation.md)
  const q = [
    rq(0, []),
    rq(1, []),
    rq(2, hogs(2), { cpuCapacity: 512, runnableLoadAvg: 2048, cfsLoadAvg: 100 }),
    rq(3, hogs(3), { runnableLoadAvg: 3072, cfsLoadAvg: 3072 }),
  ];
  const fbq = (era: Era) => {
    const x = env({ era, sd, dstCpu: 0, idle: "CPU_IDLE", rqs: q });
    x.imbalance = 1024;
    return findBusiestQueue({ env: x, group: sd.groups[1] })?.cpu;
  };
  assert.equal(fbq("2.6.29"), 3);
  assert.equal(fbq("4.8"), 2);
  assert.equal(fbq("5.19"), 3);
  // migrate_misfit is a reason for an active balance from 5.x only
  sd.nrBalanceFailed = 0;
  for (const [era, want] of [
    ["4.8", false],
    ["5.6", true],
  ] as const) {
    const x = env({ era, sd, dstCpu: 0, idle: "CPU_IDLE", rqs: q });
    x.srcCpu = 2;
    x.migrationType = "migrate_misfit";
    assert.equal(needActiveBalance({ env: x }), want, era);
  }
});

test("domainSpanning: the first domain of the target whose span holds the busiest CPU", () => {
  const { sd, parent } = mc();
  assert.equal(domainSpanning([sd, parent], 3), sd);
  assert.equal(domainSpanning([sd, parent], 6), parent);
  assert.equal(domainSpanning([sd, parent], 9), null);
});

test("active_load_balance_cpu_stop: nothing with one task; the first movable task; failures reset only on a move", () => {
  const { sd } = mc();
  // nr_running 1: the stopper alone would count 1 more; nothing to push
  const waiting = { ...hogs(1)[0], running: false };
  const one = rq(2, [], { nrRunning: 1, cfsHNrRunning: 1, cfsTasks: [waiting], idle: false });
  sd.nrBalanceFailed = 5;
  const rqs = [rq(0, []), rq(1, hogs(1)), one, rq(3, [])];
  assert.equal(
    activeLoadBalanceCpuStop(env({ era: "4.8", sd, dstCpu: 0, idle: "CPU_IDLE", rqs }), one),
    null,
  );
  // 4.8: every task pinned away: no move and nr_balance_failed kept
  const pinned = { ...task({ cpusAllowed: new Set([2]) }), running: false };
  const stuck = rq(2, [], { nrRunning: 2, cfsHNrRunning: 1, cfsTasks: [pinned], idle: false });
  assert.equal(
    activeLoadBalanceCpuStop(
      env({ era: "4.8", sd, dstCpu: 0, idle: "CPU_IDLE", rqs: [rqs[0], rqs[1], stuck, rqs[3]] }),
      stuck,
    ),
    null,
  );
  assert.equal(sd.nrBalanceFailed, 5);
  // 2.6.29: the first task can_migrate_task accepts; nr_balance_failed is not reset there
  const free = { ...task(), running: false };
  const two = rq(2, [], { nrRunning: 3, cfsHNrRunning: 2, cfsTasks: [pinned, free], idle: false });
  const e = env({ era: "2.6.29", sd, dstCpu: 0, idle: "CPU_NOT_IDLE", rqs: [rqs[0], rqs[1], two] });
  const m = activeLoadBalanceCpuStop(e, two);
  assert.ok(m);
  assert.equal(m!.task.pid, free.pid);
  assert.deepEqual([m!.srcCpu, m!.dstCpu], [2, 0]);
  assert.equal(e.idle, "CPU_IDLE");
  assert.equal(e.srcCpu, 2);
  assert.equal(sd.nrBalanceFailed, 5);
  // 4.8 moves the same task and resets the failures
  const e48 = env({ era: "4.8", sd, dstCpu: 0, idle: "CPU_NOT_IDLE", rqs: [rqs[0], rqs[1], two] });
  assert.equal(activeLoadBalanceCpuStop(e48, two)?.task.pid, free.pid);
  assert.equal(sd.nrBalanceFailed, 0);
});

test("the balancer's hooks are registered with their defaults and the descriptions docs/hooks.md shows", () => {
  const page = fs.readFileSync(path.join(__dirname, "..", "..", "..", "docs", "hooks.md"), "utf8");
  const names = Object.keys(LB_HOOK_DEFAULTS) as (keyof LbHookSignatures)[];
  assert.equal(names.length, 10);
  for (const name of names) {
    const desc = hookDescription(name);
    assert.ok(desc && desc.length > 20, name);
    assert.ok(page.includes(`## ${name}\n\n${desc}.`), name);
    assert.equal(new Hooks("6.19").get(name), LB_HOOK_DEFAULTS[name], name);
  }
});

test("2.6.29 load_balance_newidle: a balanced pass resets nr_balance_failed and leaves the interval to its caller", () => {
  const { sd } = mc();
  sd.nrBalanceFailed = 2;
  sd.balanceInterval = 4;
  const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, hogs(1)), rq(3, [])];
  const res = loadBalance(env({ era: "2.6.29", sd, dstCpu: 0, idle: "CPU_NEWLY_IDLE", rqs }));
  assert.equal(res.decision.balanced, true);
  assert.equal(sd.nrBalanceFailed, 0);
  assert.equal(sd.balanceInterval, 4);
});

test("load_balance: a failed pass keeps balancing the levels above; the 2.6.29 stopper asks the hook table", () => {
  const rqs = [rq(0, []), rq(1, hogs(1)), rq(2, hogs(1)), rq(3, [])];
  const failed = run({
    sd: mc().sd,
    rqs,
    stubs: { fbg: unbalanced(1), fbq: () => rqs[2], need: false },
  });
  assert.equal(failed.res.outcome.kind, "failed");
  assert.equal(failed.res.continueBalancing, true);
  // the stopper's can_migrate_task is the hook in force (here: refuse everything)
  const { sd } = mc();
  const free = { ...task(), running: false };
  const two = rq(2, [], { nrRunning: 2, cfsHNrRunning: 1, cfsTasks: [free], idle: false });
  const refuse: LbHookLookup = {
    get: <K extends keyof LbHookSignatures>(name: K) =>
      (name === "fair.can_migrate_task"
        ? () => false
        : LB_HOOK_DEFAULTS[name]) as LbHookSignatures[K],
  };
  const e = env({
    era: "2.6.29",
    sd,
    dstCpu: 0,
    idle: "CPU_IDLE",
    rqs: [rqs[0], rqs[1], two],
    hooks: refuse,
  });
  assert.equal(activeLoadBalanceCpuStop(e, two), null);
});

test("active_load_balance_cpu_stop: a cache-hot task goes from v5.13 (LBF_ACTIVE_LB), not before without failures", () => {
  for (const [era, moves] of [
    ["4.8", false],
    ["5.10", false],
    ["5.19", true],
  ] as const) {
    const { sd } = mc();
    sd.nrBalanceFailed = 0;
    const hot = { ...task({ execStart: NOW - 1000 }), running: false };
    const busiest = rq(2, [], { nrRunning: 2, cfsHNrRunning: 1, cfsTasks: [hot], idle: false });
    const e = env({
      era,
      sd,
      dstCpu: 0,
      idle: "CPU_NOT_IDLE",
      rqs: [rq(0, []), rq(1, []), busiest, rq(3, [])],
    });
    assert.equal(activeLoadBalanceCpuStop(e, busiest)?.task.pid === hot.pid, moves, era);
  }
});
