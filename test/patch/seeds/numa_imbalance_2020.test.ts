import { test } from "node:test";
import assert from "node:assert/strict";
import { Hooks } from "../../../src/kernel/hooks";
import { seeds } from "../../../src/index";
import { findBusiestGroup } from "../../../src/kernel/fair/lb/load_balance";
import type { LbRq, NumaImbalanceCtx } from "../../../src/kernel/fair/lb/types";
import { SD_NUMA } from "../../../src/kernel/topology/sched_domain";
import { env, hogs, numa2, rq } from "../../kernel/fair/lb_fixtures";

/** n spinning tasks on node 0, one per CPU; node 1 idle. */
const onNode0 = (n: number): LbRq[] =>
  [0, 1, 2, 3, 4, 5, 6, 7].map((c) => rq(c, c < n ? hogs(1) : []));

const pre = new Hooks("5.6");
const post = new Hooks("5.6", seeds.numaImbalance2020.replacements);

test("numaImbalance2020: imbalance 0 while the busiest NUMA group runs at most 2 tasks", () => {
  const sd = numa2(4, { childLevel: "MC" });
  const ctx = (busy: number, imbalance: number, flags = sd.flags): NumaImbalanceCtx => ({
    env: env({ era: "5.6", sd, dstCpu: 4, idle: "CPU_IDLE", rqs: onNode0(busy) }),
    sd: { ...sd, flags },
    imbalance,
    halved: true,
    busiestSumNrRunning: busy,
    localSumNrRunning: 0,
    dstRunning: 1,
    imbNumaNr: 0,
  });
  for (const busy of [1, 2, 3]) {
    assert.equal(pre.get("fair.numa_imbalance")(ctx(busy, 1)), 1, `5.5 rule, ${busy} running`);
    assert.equal(
      post.get("fair.numa_imbalance")(ctx(busy, 1)),
      busy <= 2 ? 0 : 1,
      `patched, ${busy} running`,
    );
  }
  // not a NUMA domain: untouched
  assert.equal(post.get("fair.numa_imbalance")(ctx(2, 1, sd.flags & ~SD_NUMA)), 1);
  // later eras keep their own rule (adjust_numa_imbalance): the patch defers to it
  assert.equal(
    new Hooks("6.19", seeds.numaImbalance2020.replacements).get("fair.numa_imbalance")({
      ...ctx(2, 4),
      env: env({ era: "6.19", sd, dstCpu: 4, idle: "CPU_IDLE", rqs: onNode0(2) }),
    }),
    4,
  );
});

test("numaImbalance2020 in find_busiest_group: node 1 leaves 2 busy tasks on node 0, takes from 3", () => {
  const fbg = (busy: number, hooks: Hooks) =>
    findBusiestGroup({
      env: env({
        era: "5.6",
        sd: numa2(4),
        dstCpu: 4,
        idle: "CPU_IDLE",
        rqs: onNode0(busy),
        hooks,
      }),
    });
  // 1 running: balanced either way (local->idle_cpus <= busiest->idle_cpus + 1)
  assert.equal(fbg(1, pre).balanced, true);
  assert.equal(fbg(1, post).balanced, true);
  // 2 running: 5.5 pulls one (idle CPUs 4 vs 2 -> imbalance 1), the patch keeps the pair
  const two = fbg(2, pre);
  assert.equal(two.balanced, false);
  if (!two.balanced) assert.equal(two.imbalance, 1);
  assert.equal(fbg(2, post).balanced, true);
  // 3 running: no longer a small pair, both move one
  assert.equal(fbg(3, pre).balanced, false);
  assert.equal(fbg(3, post).balanced, false);
});

test("numaImbalance2020 is data: its source names the seed message", () => {
  const p = seeds.numaImbalance2020;
  assert.equal(p.source.baseline, "5.6");
  assert.match(p.source.url ?? "", /lore\.kernel\.org\/r\/CAKfTPtBz=/);
  assert.deepEqual(
    p.replacements.map((r) => r.hook),
    ["fair.numa_imbalance"],
  );
});
