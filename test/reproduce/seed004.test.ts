import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel, preset, reproduction, runReproduction } from "../../src/index";
import { SEED004_METRICS, SEED004_VARIANTS } from "../../src/reproduce/seed004";

test("hsw-ep-2x18x2 on 3.19: SMT(2) / MC(36) / NUMA(72), one LLC per node", () => {
  const m = preset("hsw-ep-2x18x2");
  assert.equal(m.cpus.length, 72);
  const k = buildKernel({
    machine: m,
    online: m.online,
    era: "3.19",
    patches: [],
    seed: "t",
    trace: false,
  });
  assert.deepEqual(
    k.domains.domains[0].map((d) => [d.level, d.spanWeight]),
    [
      ["SMT", 2],
      ["MC", 36],
      ["NUMA", 72],
    ],
  );
  assert.equal(k.domains.sdLlcSize[0], 36);
  assert.equal(m.costs.syscallNs, 100, "no KPTI in 2015");
});

const r = reproduction("004");
const res = runReproduction(r, r.quick);
const rows = r.rows(res);
const row = (metric: string, variant: string) =>
  rows.find((x) => x.metric === metric && x.variant === variant)!;

/** Variants `pre` and `post` of the reproduction at other values of its unknowns: one short iteration each. */
function prePost(values: Record<string, number | string>) {
  const exp = r.experiment().assume(values);
  const opts = { duration: 0.35, warmup: 0.1, seed: 1 };
  const pre = exp.runJob(opts, { variant: "pre", iteration: 0 });
  const post = exp.runJob(opts, { variant: "post", iteration: 0 });
  return {
    pre,
    post,
    gainPct: (post.metrics.throughput_tps / pre.metrics.throughput_tps - 1) * 100,
  };
}
// The first passes' wake rate (5 000/s per thread), where <= moves many wakeups.
const busy = prePost({ rt_wake_hz: 5000 });

test("004 ledger: the metric and variant names, the ratio rows judged against their bands", () => {
  for (const m of SEED004_METRICS)
    for (const v of SEED004_VARIANTS) assert.ok(row(m, v), `${m}/${v}`);
  assert.deepEqual(row("push_rq_locks_pre_over_post", "pre").band, [1.3, 2.2]);
  assert.deepEqual(row("throughput_gain_pct", "post").band, [0.3, 5]);
  assert.equal(res.data.spec.era, "3.19");
  assert.ok(res.data.spec.unknowns, "the run records the unknowns' values");
});

test("004 trade-off: equal-priority wakeups run sooner with <= than with < (p99, every iteration)", () => {
  const pre = res.values("rt_wakeup_latency_p99_us", "pre");
  const post = res.values("rt_wakeup_latency_p99_us", "post");
  for (const [i, x] of pre.entries())
    assert.ok(x < post[i] * 0.85, `iteration ${i}: ${x} vs ${post[i]}`);
});

test("004 direction: <= takes more push-path rq locks than < (published 1.7x), every iteration", () => {
  const pre = res.values("push_rq_locks_per_s", "pre");
  const post = res.values("push_rq_locks_per_s", "post");
  for (const [i, x] of pre.entries())
    assert.ok(x > 1.2 * post[i], `iteration ${i}: ${x} vs ${post[i]}`);
  const b = busy.pre.metrics.push_rq_locks_per_s / busy.post.metrics.push_rq_locks_per_s;
  assert.ok(b > 1.2, `at 5000/s: ${b}`);
});

test("004 calibration target: at the frozen wake rate the push-lock ratio is in its band (a check of the fit, not a prediction)", () => {
  const v = row("push_rq_locks_pre_over_post", "pre").simulated;
  assert.ok(v >= 1.3 && v <= 2.2, `${v}`);
});

test("004 premise: <= takes more rq locks on the push path only; on every path the two trees take the same, and < takes more push + pull", () => {
  const all = row("rq_locks_pre_over_post", "pre").simulated;
  assert.ok(Math.abs(all - 1) < 0.01, `all paths pre/post ${all}`);
  assert.ok(row("push_pull_rq_locks_pre_over_post", "pre").simulated < 0.8);
  assert.equal(row("rq_locks_pre_over_post", "pre").published, null, "reported, not judged");
});

test("004 mechanism: < sends fewer wakeups through find_lowest_rq and leaves more for pull_rt_task", () => {
  const o = (it: typeof busy.pre, key: string) => it.sched.other[key] ?? 0;
  assert.ok(o(busy.post, "rt_select_find_lowest") < 0.7 * o(busy.pre, "rt_select_find_lowest"));
  assert.ok(o(busy.post, "rt_pull") > 5 * o(busy.pre, "rt_pull"));
  // 3.19's pull walks rto_mask without locks: CPUs pulling together all lock the source, and
  // those behind the winner find nothing (in both trees).
  for (const it of [busy.pre, busy.post]) assert.ok(o(it, "rt_pull_nothing") > 0);
  // the v4.0 bail-out fires only when a stale read raced another placement: rarely, and only
  // on the trees that have it (pre-no-feasibility-fix has none by construction: rt.target_feasible)
  const bail = (it: typeof busy.pre) => o(it, "rt_select_infeasible") + o(it, "rt_push_infeasible");
  assert.ok(bail(busy.pre) < 0.01 * o(busy.pre, "rt_select_find_lowest"));
  // cpupri takes the lowest level first: a moved wakee rarely lands on a CPU with RT queued
  const onto = o(busy.pre, "rt_select_onto_rt");
  const placed = o(busy.pre, "rt_select_find_lowest");
  assert.ok(placed > 1000 && onto < 0.05 * placed, `${onto} of ${placed}`);
});

test("004 mechanism of the gain: < gains only where preempted transactions refill their private caches slowly", () => {
  // Each RT preemption of a CPU with two transactions queued switches CFS to the other one,
  // which finds its L2 state displaced: <= makes more such preemptions (a moved wakee preempts a
  // second CPU) than < (the wakee waits behind the RT task already there).
  const fast = prePost({ rt_wake_hz: 5000, tx_private_refill_gbps: 15 });
  assert.ok(busy.gainPct > fast.gainPct + 0.3, `${busy.gainPct}% vs ${fast.gainPct}%`);
  assert.ok(busy.gainPct > 0.3, `${busy.gainPct}%`);
});

test("004 band: throughput post vs pre +0.3% to +5% (published +1.5%)", {
  todo: "missed: +0.05% at the calibrated 1 406 wakeups/s per thread, where <= moves few wakeups; the gain needs about 3 000/s or more with transactions that refill their private caches at pointer-chasing speed (docs/experiments/004.md, What would have to be true)",
}, () => {
  const v = row("throughput_gain_pct", "post").simulated;
  assert.ok(v >= 0.3 && v <= 5, `${v}%`);
});

test("004: the tree without the feasibility fix loses more throughput than the one with it (published 2.0% vs 1.5%)", {
  todo: "not reproduced: the v4.0 bail-out needs a stale read that loses a race, so it almost never fires and the two trees are within noise",
}, () => {
  const noFix = row("throughput_gain_pct", "pre-no-feasibility-fix").simulated;
  const fix = row("throughput_gain_pct", "post").simulated;
  assert.ok(noFix > fix && fix > 0, `${noFix}% vs ${fix}%`);
});
