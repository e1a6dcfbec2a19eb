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
const other = (variant: string, key: string) =>
  res.data.iterations
    .filter((it) => it.variant === variant)
    .reduce((s, it) => s + (it.sched.other[key] ?? 0), 0);

test("004 ledger: the issue's metric and variant names, the ratio rows judged against their bands", () => {
  for (const m of SEED004_METRICS)
    for (const v of SEED004_VARIANTS) assert.ok(row(m, v), `${m}/${v}`);
  assert.deepEqual(row("push_rq_locks_pre_over_post", "pre").band, [1.3, 2.2]);
  assert.deepEqual(row("throughput_gain_pct", "post").band, [0.3, 5]);
  assert.equal(res.data.spec.era, "3.19");
});

test("004 trade-off: equal-priority wakeups run sooner with <= than with < (p99, every iteration)", () => {
  const pre = res.values("rt_wakeup_latency_p99_us", "pre");
  const post = res.values("rt_wakeup_latency_p99_us", "post");
  for (const [i, x] of pre.entries())
    assert.ok(x < post[i] * 0.85, `iteration ${i}: ${x} vs ${post[i]}`);
});

test("004 mechanism: < sends fewer wakeups through find_lowest_rq and leaves more for pull_rt_task", () => {
  assert.ok(other("post", "rt_select_find_lowest") < 0.7 * other("pre", "rt_select_find_lowest"));
  assert.ok(other("post", "rt_pull") > 5 * other("pre", "rt_pull"));
  // 3.19's pull walks rto_mask without locks: CPUs pulling together all lock the source, and
  // those behind the winner find nothing (in every tree).
  for (const v of SEED004_VARIANTS) assert.ok(other(v, "rt_pull_nothing") > 0, v);
  // the v4.0 bail-out (in select_task_rq_rt or find_lock_lowest_rq) fires only on the trees
  // that have it, and only when a stale read raced another placement: rarely
  const bail = (v: string) => other(v, "rt_select_infeasible") + other(v, "rt_push_infeasible");
  assert.equal(bail("pre-no-feasibility-fix"), 0);
  assert.ok(bail("pre") > 0);
});

test("004 direction: <= takes more push-path rq locks than < (published 1.7x), every iteration", () => {
  const pre = res.values("push_rq_locks_per_s", "pre");
  const post = res.values("push_rq_locks_per_s", "post");
  for (const [i, x] of pre.entries())
    assert.ok(x > 1.3 * post[i], `iteration ${i}: ${x} vs ${post[i]}`);
});

test("004 mechanism: find_lowest_rq places a wakee on a CPU with RT queued only rarely (cpupri's lowest level first)", () => {
  // With transactions on every CPU, some CPU is nearly always at CPUPRI_NORMAL, so a wakee moved
  // by select_task_rq_rt does not displace a lower RT task (no push cascade from the placement).
  const onto = other("pre", "rt_select_onto_rt");
  const placed = other("pre", "rt_select_find_lowest");
  assert.ok(placed > 1000 && onto < 0.05 * placed, `${onto} of ${placed}`);
});

test("004 band: push-path rq locks pre/post within 1.3-2.2 (published 1.7)", {
  todo: "the model misses above the band: ~2.5 with the default assumptions (one server level). What <= adds are post_schedule_rt pushes: 3.19's find_lowest_rq puts equal-priority wakees on the lowest-numbered CPU of the LLC that runs no RT, where the FIFO 90 threads (CPUs 1-15) preempt them and push them on; with those threads on CPUs 57-71 instead the ratio is ~1.1; see docs/experiments/004.md",
}, () => {
  const v = row("push_rq_locks_pre_over_post", "pre").simulated;
  assert.ok(v >= 1.3 && v <= 2.2, `${v}`);
});

test("004 band: throughput post vs pre +0.3% to +5% (published +1.5%)", {
  todo: "the model misses: about -0.03% with the default 7% RT share; a 1.5% gain is about one of 72 CPUs, i.e. ~210 us per equal-priority wakeup that <= moves (a few thousand a second), where the model charges a few us (locks, line transfers, IPI, two switches, refills); only a box about half in RT reaches +1.3%, and there the model box collapses to 22k tx/s (notebook section 6b); see docs/experiments/004.md",
}, () => {
  const v = row("throughput_gain_pct", "post").simulated;
  assert.ok(v >= 0.3 && v <= 5, `${v}%`);
});

test("004: the tree without the feasibility fix loses more throughput than the one with it (published 2.0% vs 1.5%)", {
  todo: "the model misses: the three trees are within noise of each other in throughput",
}, () => {
  const noFix = row("throughput_gain_pct", "pre-no-feasibility-fix").simulated;
  const fix = row("throughput_gain_pct", "post").simulated;
  assert.ok(noFix > fix && fix > 0, `${noFix}% vs ${fix}%`);
});
