import { test } from "node:test";
import assert from "node:assert/strict";
import { Hooks } from "../../../src/kernel/hooks";
import { seeds, topology, workload } from "../../../src/index";
import { findBusiestGroup } from "../../../src/kernel/fair/lb/load_balance";
import type { IdleImbalanceSlackCtx, LbRq } from "../../../src/kernel/fair/lb/types";
import {
  SD_PREFER_SIBLING,
  SD_SHARE_PKG_RESOURCES,
  type SchedDomain,
} from "../../../src/kernel/topology/sched_domain";
import { BASE_FLAGS, domain, env, group, hogs, rq } from "../../kernel/fair/lb_fixtures";

// The X5472's 4.8 DIE level: 4 groups of an L2 pair; `cpu` balances it.
function die(cpu: number): SchedDomain {
  const pairs = [
    [0, 1],
    [2, 3],
    [4, 5],
    [6, 7],
  ];
  const mine = pairs.find((p) => p.includes(cpu))!;
  const mc = domain({
    level: "MC",
    cpu,
    groups: mine.map((c) => group([c])),
    flags: BASE_FLAGS | SD_SHARE_PKG_RESOURCES,
    imbalancePct: 117,
  });
  const sd = domain({
    level: "DIE",
    cpu,
    groups: [group(mine), ...pairs.filter((p) => p !== mine).map((p) => group(p))],
    flags: BASE_FLAGS | SD_PREFER_SIBLING,
    imbalancePct: 125,
    cacheNiceTries: 1,
    busyIdx: 2,
    idleIdx: 1,
    child: mc,
  });
  mc.parent = sd;
  return sd;
}

/** The buddy pair on cpus 0 and 1, everything else idle. */
const pair = (): LbRq[] => [
  rq(0, hogs(1)),
  rq(1, hogs(1)),
  ...[2, 3, 4, 5, 6, 7].map((c) => rq(c, [])),
];

const pre = new Hooks("4.8");
const post = new Hooks("4.8", seeds.idleSlack2016.replacements);

test("idleSlack2016: the seed carries its source and replaces only the idle-CPU slack", () => {
  const s = seeds.idleSlack2016;
  assert.equal(s.name, "idle-slack-2016");
  assert.equal(s.source?.author, "Mike Galbraith");
  assert.equal(s.source?.baseline, "4.8");
  assert.equal(s.source?.messageId, "1473092813.4412.6.camel@gmail.com");
  assert.deepEqual(
    s.replacements.map((r) => r.hook),
    ["fair.idle_imbalance_slack"],
  );
});

test("idleSlack2016: slack 2 when sd_llc_size is 2, the kernel's 1 otherwise and in other eras", () => {
  const sd = die(2);
  const ctx = (sdLlcSize: number, era: "4.8" | "5.6" = "4.8"): IdleImbalanceSlackCtx => ({
    env: env({ era, sd, dstCpu: 2, idle: "CPU_IDLE", rqs: pair(), sdLlcSize }),
    sdLlcSize,
    localIdleCpus: 2,
    busiestIdleCpus: 0,
    busiestGroupWeight: 2,
  });
  assert.equal(pre.get("fair.idle_imbalance_slack")(ctx(2)), 1);
  assert.equal(post.get("fair.idle_imbalance_slack")(ctx(2)), 2);
  assert.equal(post.get("fair.idle_imbalance_slack")(ctx(4)), 1);
  assert.equal(post.get("fair.idle_imbalance_slack")(ctx(24)), 1);
  assert.equal(
    new Hooks("5.6", seeds.idleSlack2016.replacements).get("fair.idle_imbalance_slack")(
      ctx(2, "5.6"),
    ),
    1,
  );
});

test("idleSlack2016 in find_busiest_group: 2 idle vs 0 idle is an imbalance with slack 1, balanced with 2", () => {
  const fbg = (hooks: Hooks, rqs: LbRq[], sdLlcSize = 2) =>
    findBusiestGroup({
      env: env({ era: "4.8", sd: die(2), dstCpu: 2, idle: "CPU_IDLE", rqs, sdLlcSize, hooks }),
    });
  const a = fbg(pre, pair());
  assert.equal(a.balanced, false); // 2 <= 0 + 1 fails
  const b = fbg(post, pair());
  assert.equal(b.balanced, true); // 2 <= 0 + 2
  if (b.balanced) assert.equal(b.reason, "idle_cpus");
  // three busy CPUs in one group (1 idle... none): 2 <= 0 + 2 still balanced with the patch,
  // but an overloaded busiest group is never excused by the idle-CPU test
  const over = [rq(0, hogs(2)), rq(1, hogs(1)), ...[2, 3, 4, 5, 6, 7].map((c) => rq(c, []))];
  assert.equal(fbg(post, over).balanced, false);
  // a bigger LLC keeps the kernel's slack
  assert.equal(fbg(post, pair(), 4).balanced, false);
});

test("idleSlack2016 on the X5472 (short run): the active-balance sequence before, none after", () => {
  const res = topology("xeon-x5472")
    .era("4.8")
    .workload(workload.netperfUdpStream({ seconds: 0.4, warmupSeconds: 0.05 }))
    .variants({ pre: [], post: [seeds.idleSlack2016] })
    .runSync({ iterations: 1, seed: 1, trace: true });
  const it = (v: string) => res.iteration(v, 0);
  // before: the DIE level fails at CPU_IDLE until nr_balance_failed > cache_nice_tries + 2
  const preIt = it("pre");
  const failed = preIt.series.nr_balance_failed;
  let peak = 0;
  for (let i = 2; i < failed.length; i += 3) peak = Math.max(peak, failed[i]);
  // sampled every ms it is seen up to cache_nice_tries + 2 (= 3): the pass that takes it past
  // that kicks the stopper and sets it back to cache_nice_tries + 1 in the same balance
  assert.equal(peak, 1 + 2, `nr_balance_failed peaked at ${peak}`);
  assert.ok(preIt.sched.balance["DIE.CPU_IDLE"].activeBalances > 0);
  // the stopper pushes one of the pair to another L2; the partner's next sync wakeup pulls the
  // pushed task (or follows the pushed one) back into one L2
  const tr = preIt.trace!;
  const pushes = tr.filter((r) => r.type === "sched_migrate_task" && r.reason === "active_balance");
  assert.ok(pushes.length >= 3, `${pushes.length} active-balance pushes`);
  const die = (c: number) => Math.floor(c / 2);
  let pulledBack = 0;
  for (const p of pushes) {
    if (p.type !== "sched_migrate_task") continue;
    assert.notEqual(die(p.origCpu), die(p.destCpu)); // to another L2
    const next = tr.find(
      (r) => r.t > p.t && r.type === "sched_migrate_task" && r.reason === "wakeup",
    );
    if (next && next.type === "sched_migrate_task") {
      // the waker (the partner) runs on the CPU of the sched_waking record of this wakeup
      const i = tr.indexOf(next);
      let waker = -1;
      for (let j = i; j >= 0 && waker < 0; j--) {
        const r = tr[j];
        if (r.type === "sched_waking" && r.pid === next.pid) waker = r.cpu;
      }
      if (waker >= 0 && die(waker) === die(next.destCpu)) pulledBack++;
    }
  }
  assert.ok(pulledBack >= pushes.length / 2, `${pulledBack} of ${pushes.length} pulled back`);
  // after: no active balance at all, the pair stays in one L2
  const postIt = it("post");
  assert.equal(postIt.sched.balance["DIE.CPU_IDLE"]?.activeBalances ?? 0, 0);
  assert.equal(postIt.metrics.active_balances_per_s, 0);
  assert.equal(postIt.metrics.pair_shares_l2_fraction, 1);
});
