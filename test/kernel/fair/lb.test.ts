// Balancer decisions on hand-built runqueue states, one scenario per published experiment.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  SD_PREFER_SIBLING,
  SD_SHARE_PKG_RESOURCES,
  type SchedDomain,
} from "../../../src/kernel/topology/sched_domain";
import { Hooks } from "../../../src/kernel/hooks";
import {
  LB_HOOK_DEFAULTS,
  activeLoadBalanceCpuStop,
  findBusiestGroup,
  loadBalance,
} from "../../../src/kernel/fair/lb/load_balance";
import { findBusiestGroup2629 } from "../../../src/kernel/fair/lb/v2629";
import { numaImbalanceSmallPair56 } from "../../../src/kernel/fair/lb/v5x";
import {
  LB_HOOKS,
  type LbHookLookup,
  type LbHookSignatures,
  type LbRq,
} from "../../../src/kernel/fair/lb/types";
import { BASE_FLAGS, domain, env, group, hogs, numa2, rq } from "./lb_fixtures";

/** A hook table with some replacements, each given the default as `base` (as src/kernel/hooks.ts does). */
function withHooks(
  repl: {
    [K in keyof LbHookSignatures]?: (
      ctx: Parameters<LbHookSignatures[K]>[0],
      base: LbHookSignatures[K],
    ) => ReturnType<LbHookSignatures[K]>;
  },
): LbHookLookup {
  return {
    get<K extends keyof LbHookSignatures>(name: K): LbHookSignatures[K] {
      const r = repl[name] as ((ctx: unknown, base: unknown) => unknown) | undefined;
      const base = LB_HOOK_DEFAULTS[name];
      return (r ? (ctx: unknown) => r(ctx, base) : base) as LbHookSignatures[K];
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Seed 002: 2.6.29 core2-2x2 with cpu3 offline. CPU level: groups {0,1} (socket 0) and {2}.

function cpuLevel2629(cpu: number, caps: [number, number]): SchedDomain {
  const s0 = group([0, 1], caps[0]);
  const s1 = group([2], caps[1]);
  const mc = domain({
    level: "MC",
    cpu,
    groups: cpu === 2 ? [group([2])] : [group([cpu]), group([cpu ^ 1])],
    flags: BASE_FLAGS | SD_SHARE_PKG_RESOURCES,
  });
  return domain({
    level: "CPU",
    cpu,
    groups: cpu === 2 ? [s1, s0] : [s0, s1],
    minInterval: 1,
    maxInterval: 4,
    busyFactor: 64,
    imbalancePct: 125,
    cacheNiceTries: 1,
    busyIdx: 2,
    idleIdx: 1,
    newidleIdx: 2,
    child: mc,
  });
}

test("2.6.29: 3+3 hogs on socket 0 and 2 on cpu2 with flat power: cpu2 pulls toward 4/4", () => {
  const rqs = [rq(0, hogs(3)), rq(1, hogs(3)), rq(2, hogs(2))];
  const sd = cpuLevel2629(2, [1024, 1024]);
  const e = env({ era: "2.6.29", sd, dstCpu: 2, idle: "CPU_NOT_IDLE", rqs, lbBias: true });
  const fbg = findBusiestGroup2629({ env: e });
  assert.equal(fbg.balanced, false);
  if (fbg.balanced) return;
  assert.deepEqual(fbg.busiestGroup.cpus, [0, 1]);
  // socket 0: 6144 per 1024 of power, cpu2: 2048, domain average 4096: two tasks' load
  assert.equal(fbg.imbalance, 2048);
  const res = loadBalance(
    env({ era: "2.6.29", sd, dstCpu: 2, idle: "CPU_NOT_IDLE", rqs, lbBias: true }),
  );
  assert.equal(res.decision.balanced, false);
  if (!res.decision.balanced) assert.equal(res.decision.busiestCpu, 0);
  assert.equal(res.migrations.length, 2); // 3/3/2 -> 1/3/4: sockets at 4 and 4
  assert.ok(res.migrations.every((m) => m.srcCpu === 0 && m.dstCpu === 2 && !m.task.running));
  assert.equal(sd.nrBalanceFailed, 0);
  assert.equal(sd.balanceInterval, sd.minInterval);
});

test("2.6.29: 4+4 is balanced under flat 1024/1024 power, but not when socket 0 is worth 2048", () => {
  const rqs = [rq(0, hogs(2)), rq(1, hogs(2)), rq(2, hogs(4))];
  for (const cpu of [0, 2]) {
    const e = env({
      era: "2.6.29",
      sd: cpuLevel2629(cpu, [1024, 1024]),
      dstCpu: cpu,
      idle: "CPU_NOT_IDLE",
      rqs,
    });
    const fbg = findBusiestGroup2629({ env: e });
    assert.equal(fbg.balanced, true, `cpu${cpu}`);
    if (fbg.balanced) assert.equal(fbg.reason, "local_ge_busiest");
  }
  // Miao's fix: socket 0 sums its CPUs' power
  const sd0 = cpuLevel2629(0, [2048, 1024]);
  const fbg = findBusiestGroup2629({
    env: env({ era: "2.6.29", sd: sd0, dstCpu: 0, idle: "CPU_NOT_IDLE", rqs }),
  });
  assert.equal(fbg.balanced, false);
  if (!fbg.balanced) {
    assert.deepEqual(fbg.busiestGroup.cpus, [2]);
    assert.equal(fbg.imbalance, 1364); // min(4096-2730, (2730-2048)*2) per 1024
  }
  const res = loadBalance(env({ era: "2.6.29", sd: sd0, dstCpu: 0, idle: "CPU_NOT_IDLE", rqs }));
  assert.equal(res.migrations.length, 1);
  assert.deepEqual([res.migrations[0].srcCpu, res.migrations[0].dstCpu], [2, 0]);
  // cpu1 is not the group's balance CPU (no idle CPU, first CPU balances): it stops here
  const res1 = loadBalance(
    env({ era: "2.6.29", sd: cpuLevel2629(1, [2048, 1024]), dstCpu: 1, idle: "CPU_NOT_IDLE", rqs }),
  );
  assert.equal(res1.continueBalancing, false);
  assert.equal(res1.migrations.length, 0);
});

test("2.6.29: a lone running task heavier than the imbalance is not a source", () => {
  const rqs = [rq(0, hogs(1)), rq(1, hogs(0)), rq(2, hogs(0))];
  const sd = cpuLevel2629(2, [1024, 1024]);
  const res = loadBalance(env({ era: "2.6.29", sd, dstCpu: 2, idle: "CPU_IDLE", rqs }));
  assert.equal(res.decision.balanced, true); // sum_nr_running 1 <= group capacity 1
});

// ---------------------------------------------------------------------------------------------
// Seed 000: 4.8 on the Xeon X5472, DIE level of 4 L2-pair groups, idle balancer in pair {2,3}.

function dieX5472(cpu: number): SchedDomain {
  const pairs = [
    [0, 1],
    [2, 3],
    [4, 5],
    [6, 7],
  ];
  const mine = pairs.find((p) => p.includes(cpu))!;
  const groups = [group(mine), ...pairs.filter((p) => p !== mine).map((p) => group(p))];
  const mc = domain({
    level: "MC",
    cpu,
    groups: mine.map((c) => group([c])),
    flags: BASE_FLAGS | SD_SHARE_PKG_RESOURCES,
    imbalancePct: 117,
    busyIdx: 2,
  });
  const die = domain({
    level: "DIE",
    cpu,
    groups,
    flags: BASE_FLAGS | SD_PREFER_SIBLING,
    imbalancePct: 125,
    cacheNiceTries: 1,
    busyIdx: 2,
    idleIdx: 1,
    child: mc,
  });
  mc.parent = die;
  return die;
}

function buddyRqs(): LbRq[] {
  return [rq(0, hogs(1)), rq(1, hogs(1)), ...[2, 3, 4, 5, 6, 7].map((c) => rq(c, []))];
}

test("4.8 X5472: an idle pair sees the buddy pair as imbalanced (slack 1), balanced with slack 2", () => {
  const rqs = buddyRqs();
  const pre = env({ era: "4.8", sd: dieX5472(2), dstCpu: 2, idle: "CPU_IDLE", rqs, sdLlcSize: 2 });
  const fbg = findBusiestGroup({ env: pre });
  assert.equal(fbg.balanced, false);
  if (!fbg.balanced) {
    assert.deepEqual(fbg.busiestGroup.cpus, [0, 1]);
    assert.equal(fbg.imbalance, 1024); // fix_small_imbalance: one task's load
    assert.equal(fbg.migrationType, "migrate_load");
  }
  const seed000 = new Hooks("4.8", [
    {
      hook: "fair.idle_imbalance_slack",
      patch: "seed 000",
      fn: ((ctx: { sdLlcSize: number }, base: (c: unknown) => number) =>
        ctx.sdLlcSize === 2 ? 2 : base(ctx)) as never,
    },
  ]);
  const post = env({
    era: "4.8",
    sd: dieX5472(2),
    dstCpu: 2,
    idle: "CPU_IDLE",
    rqs,
    sdLlcSize: 2,
    hooks: seed000,
  });
  const fbgPost = findBusiestGroup({ env: post });
  assert.equal(fbgPost.balanced, true);
  if (fbgPost.balanced) assert.equal(fbgPost.reason, "idle_cpus");
  // machines with a bigger LLC keep the +1
  const big = env({
    era: "4.8",
    sd: dieX5472(2),
    dstCpu: 2,
    idle: "CPU_IDLE",
    rqs,
    sdLlcSize: 4,
    hooks: seed000,
  });
  assert.equal(findBusiestGroup({ env: big }).balanced, false);
  // a pair split over two groups was already balanced: 2 <= 1 + 1
  const split = [
    rq(0, hogs(1)),
    rq(1, []),
    rq(2, []),
    rq(3, []),
    rq(4, hogs(1)),
    rq(5, []),
    rq(6, []),
    rq(7, []),
  ];
  assert.equal(
    findBusiestGroup({
      env: env({ era: "4.8", sd: dieX5472(2), dstCpu: 2, idle: "CPU_IDLE", rqs: split }),
    }).balanced,
    true,
  );
});

test("4.8 X5472: failed passes kick active balance after cache_nice_tries+3 failures, then every 2", () => {
  const rqs = buddyRqs();
  const sd = dieX5472(2);
  const kicks: number[] = [];
  for (let pass = 1; pass <= 8; pass++) {
    const res = loadBalance(
      env({ era: "4.8", sd, dstCpu: 2, idle: "CPU_IDLE", rqs, sdLlcSize: 2 }),
    );
    assert.equal(res.migrations.length, 0); // the only task is running
    assert.equal(res.decision.balanced, false);
    if (!res.decision.balanced) assert.equal(res.decision.busiestCpu, 0); // wl 1024 is not > imbalance 1024
    if (res.activeBalance) {
      kicks.push(pass);
      assert.deepEqual(res.activeBalance, { busiestCpu: 0, pushCpu: 2 });
      assert.equal(sd.nrBalanceFailed, sd.cacheNiceTries + 1);
    }
  }
  assert.deepEqual(kicks, [4, 6, 8]);
  // the kick backs the interval off; a plain failure resets it
  assert.equal(sd.balanceInterval, 16);
  // with the patch the same state is balanced: counters reset, interval backs off
  const seed000 = withHooks({
    "fair.idle_imbalance_slack": (ctx, base) => (ctx.sdLlcSize === 2 ? 2 : base(ctx)),
  });
  sd.balanceInterval = sd.minInterval;
  const res = loadBalance(
    env({ era: "4.8", sd, dstCpu: 2, idle: "CPU_IDLE", rqs, sdLlcSize: 2, hooks: seed000 }),
  );
  assert.equal(res.decision.balanced, true);
  assert.equal(sd.nrBalanceFailed, 0);
  assert.equal(sd.balanceInterval, 16);
});

test("4.8: the stopper moves the preempted buddy to the idle CPU and resets the failures", () => {
  const sd = dieX5472(2);
  sd.nrBalanceFailed = 2;
  const buddy = { ...hogs(1)[0], running: false }; // the stopper preempted it
  const busiest = rq(0, [], { nrRunning: 2, cfsHNrRunning: 1, cfsTasks: [buddy], idle: false });
  const e = env({
    era: "4.8",
    sd,
    dstCpu: 2,
    idle: "CPU_IDLE",
    rqs: [busiest, ...buddyRqs().slice(1)],
  });
  const m = activeLoadBalanceCpuStop(e, busiest);
  assert.ok(m);
  assert.equal(m!.task.pid, buddy.pid);
  assert.equal(m!.dstCpu, 2);
  assert.equal(sd.nrBalanceFailed, 0);
});

// ---------------------------------------------------------------------------------------------
// Seed 003: 5.6 NUMA level of a 2-node box, 2 tasks on node 0, node 1 idle.

const pairOnNode0 = (): LbRq[] => [
  rq(0, hogs(1)),
  rq(1, hogs(1)),
  ...[2, 3, 4, 5, 6, 7].map((c) => rq(c, [])),
];

test("5.6 NUMA: a pair on node 0 gives migrate_task 1 before, balanced with seed 003's rule", () => {
  const pre = env({ era: "5.6", sd: numa2(4), dstCpu: 4, idle: "CPU_IDLE", rqs: pairOnNode0() });
  const fbg = findBusiestGroup({ env: pre });
  assert.equal(fbg.balanced, false);
  if (!fbg.balanced) {
    assert.deepEqual(fbg.busiestGroup.cpus, [0, 1, 2, 3]);
    assert.equal(fbg.migrationType, "migrate_task");
    assert.equal(fbg.imbalance, 1);
    assert.equal(fbg.forced, true); // prefer_sibling: 2 > 0 + 1
  }
  const seed003 = withHooks({ "fair.numa_imbalance": (ctx) => numaImbalanceSmallPair56(ctx) });
  const post = findBusiestGroup({
    env: env({
      era: "5.6",
      sd: numa2(4),
      dstCpu: 4,
      idle: "CPU_IDLE",
      rqs: pairOnNode0(),
      hooks: seed003,
    }),
  });
  assert.equal(post.balanced, true);
  if (post.balanced) assert.equal(post.reason, "zero_imbalance");
  // three tasks are no longer a "small pair"
  const three = [
    rq(0, hogs(1)),
    rq(1, hogs(1)),
    rq(2, hogs(1)),
    ...[3, 4, 5, 6, 7].map((c) => rq(c, [])),
  ];
  const post3 = findBusiestGroup({
    env: env({ era: "5.6", sd: numa2(4), dstCpu: 4, idle: "CPU_IDLE", rqs: three, hooks: seed003 }),
  });
  assert.equal(post3.balanced, false);
});

test("5.6 NUMA: load_balance fails on a single-task source and counts towards active balance", () => {
  const sd = numa2(4);
  const res = loadBalance(env({ era: "5.6", sd, dstCpu: 4, idle: "CPU_IDLE", rqs: pairOnNode0() }));
  assert.equal(res.decision.balanced, false);
  if (!res.decision.balanced) assert.equal(res.decision.busiestCpu, 0);
  assert.equal(res.migrations.length, 0);
  assert.equal(sd.nrBalanceFailed, 1);
  // the same with two tasks queued on cpu0: one migrates
  const sd2 = numa2(4);
  const rqs = [rq(0, hogs(2)), ...[1, 2, 3, 4, 5, 6, 7].map((c) => rq(c, []))];
  const moved = loadBalance(env({ era: "5.6", sd: sd2, dstCpu: 4, idle: "CPU_IDLE", rqs }));
  assert.equal(moved.migrations.length, 1);
  assert.equal(moved.migrations[0].task.running, false);
});

test("6.19: adjust_numa_imbalance keeps the pair local while node 1 runs <= imb_numa_nr tasks", () => {
  const fbg = findBusiestGroup({
    env: env({
      era: "6.19",
      sd: numa2(4, { imbNumaNr: 3 }),
      dstCpu: 4,
      idle: "CPU_IDLE",
      rqs: pairOnNode0(),
    }),
  });
  assert.equal(fbg.balanced, true);
  const fbg1 = findBusiestGroup({
    env: env({
      era: "6.19",
      sd: numa2(4, { imbNumaNr: 0 }),
      dstCpu: 4,
      idle: "CPU_IDLE",
      rqs: pairOnNode0(),
    }),
  });
  assert.equal(fbg1.balanced, false);
  if (!fbg1.balanced) assert.equal(fbg1.imbalance, 1);
});

test("hook names: every balancer hook has a default and is registered", () => {
  assert.deepEqual([...LB_HOOKS].sort(), Object.keys(LB_HOOK_DEFAULTS).sort());
  const h = new Hooks("5.6");
  for (const name of LB_HOOKS) assert.equal(typeof h.get(name), "function");
});
