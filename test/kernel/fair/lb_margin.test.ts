// find_busiest_group (2.6.29, kernel/sched.c): "if (100 * max_load <= sd->imbalance_pct *
// this_load) goto out_balanced" -- a busier group is left alone unless it exceeds the local
// group's load by more than imbalance_pct (125 = 25%). Two one-CPU groups, cpu0 balancing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { findBusiestGroup2629 } from "../../../src/kernel/fair/lb/v2629";
import { domain, env, group, rq, task } from "./lb_fixtures";

/** cpu0 runs one nice-0 task (load 1024); cpu1 runs two tasks whose weights sum to `busy`. */
function decide(busy: number, imbalancePct = 125) {
  const a = Math.floor(busy / 2);
  const rqs = [rq(0, [task()]), rq(1, [task({ weight: a }), task({ weight: busy - a })])];
  const sd = domain({ level: "MC", cpu: 0, groups: [group([0]), group([1])], imbalancePct });
  return findBusiestGroup2629({
    env: env({ era: "2.6.29", sd, dstCpu: 0, idle: "CPU_NOT_IDLE", rqs }),
  });
}

test("2.6.29 find_busiest_group: the imbalance_pct margin, below, at and above 125%", () => {
  for (const [busy, balanced] of [
    [1100, true],
    [1279, true],
    [1280, true], // 100 * 1280 == 125 * 1024: still balanced (<=)
    [1281, false],
    [1500, false],
  ] as const) {
    const r = decide(busy);
    assert.equal(r.balanced, balanced, `busiest load ${busy} vs local 1024`);
    if (r.balanced) assert.equal(r.reason, "imbalance_pct", `busy ${busy}`);
    else assert.deepEqual(r.busiestGroup.cpus, [1]);
  }
  // The margin is the domain's: 110% lets 1200 through, 125% does not.
  assert.equal(decide(1200, 110).balanced, false);
  assert.equal(decide(1200, 125).balanced, true);
});
