// Seed 001 on a short run (reproduction("001").quick: 4 runs of 4 passes per variant): the
// mechanism in the counters, the published bands (todo where the model misses, with the reason),
// and how ping-pong pairs are placed on the 104-thread box.
import { test } from "node:test";
import assert from "node:assert/strict";
import { reproduction, runReproduction, topology, workload } from "../../src/index";
import { mean, sampleStddev } from "../../src/analysis/stats";

const cv = (xs: number[]) => sampleStddev(xs) / mean(xs);

const r = reproduction("001");
const res = runReproduction(r, r.quick);
const scores = (v: string) => res.values("score", v);
const sum = (v: string, f: (s: (typeof res.data.iterations)[number]["sched"]) => number) =>
  res.data.iterations.filter((it) => it.variant === v).reduce((a, it) => a + f(it.sched), 0);

test("001 ledger: three variants, per-run scores in iterations, every run its own seed", () => {
  const rows = r.rows(res);
  assert.deepEqual(
    [...new Set(rows.map((x) => x.metric))],
    ["score", "wakelist_wakeups_per_s", "ipis_per_s", "remote_rq_lock_waits_per_s"],
  );
  for (const v of ["old", "patch1", "patch1+2"]) {
    const s = scores(v);
    assert.equal(s.length, r.quick.iterations);
    assert.ok(new Set(s).size > 1, `${v}: runs differ (${s})`);
  }
});

test("001 mechanism: patch2 sends wakeups to idle CPUs of the LLC through their wakelist instead of locking their rq", () => {
  const wl = (v: string) =>
    sum(v, (s) => (s.wakePath.wakelist_llc ?? 0) + (s.wakePath.wakelist_on_cpu ?? 0));
  const remote = (v: string) => sum(v, (s) => s.rqLock.ttwu_remote?.acquisitions ?? 0);
  // old queues only WF_ON_CPU wakees (a partner caught in its switch-out window, common since
  // idle CPUs keep their tick and poll in short idles, v4.17+ menu): thousands, against patch2's
  // hundreds of thousands
  assert.ok(wl("patch1+2") > 20 * (wl("old") + 1), `wakelist ${wl("patch1+2")} vs ${wl("old")}`);
  assert.ok(
    remote("patch1+2") < remote("old") / 10,
    `remote locks ${remote("patch1+2")} vs ${remote("old")}`,
  );
  // the target runs sched_ttwu_pending under its own lock
  assert.ok(sum("patch1+2", (s) => s.rqLock.ttwu_pending?.acquisitions ?? 0) > wl("patch1+2") / 2);
});

test("001 mechanism: patch1 sends more on_cpu wakees through the spin + select_task_rq + remote lock", {
  todo: "since a switch to idle holds the rq lock until switch_to is done (finish_lock_switch), a remote waker spins for it and partners rarely catch their wakee switching out: ~450 WF_ON_CPU wakees in old's quick profile (was ~66,000 a second at the full profile), so patch1 reroutes tens of them (55 spins against 0)",
}, () => {
  const spins = (v: string) => sum(v, (s) => s.other.ttwu_on_cpu_spin ?? 0);
  assert.ok(spins("patch1") > spins("old") + 100);
});

test("001 band: patch1+2 / old between 1.05 and 1.30 (published 1.158)", {
  todo: "the model's pairs settle stacked on one CPU each (local wakeups), so most wakeups stay on the waker's CPU and patch2's saving on the rest (no spin on a target's rq lock) is about what its IPIs to CPUs still switching out cost: 1.04 at the full profile and 1.02 on the quick one (0.98 at the full profile while the balancer decayed other CPUs' averages when it read them, 0.95 before a switch to idle held the rq lock through switch_to)",
}, () => {
  const ratio = mean(scores("patch1+2")) / mean(scores("old"));
  assert.ok(ratio >= 1.05 && ratio <= 1.3, `ratio ${ratio}`);
});

// published 7500-8000 against 7825 ('more at 7500'); 1.009 at the full profile, 0.958 on this quick one
test("001 band: patch1's mean within 5% of old", () => {
  const ratio = mean(scores("patch1")) / mean(scores("old"));
  assert.ok(Math.abs(ratio - 1) <= 0.05, `ratio ${ratio}`);
});

test("001 band: patch1's run-to-run spread (cv) larger than old's", {
  todo: "patch1 changes the path of the on_cpu wakees only (tens against hundreds of thousands of wakeups); at the full profile the coefficients of variation are 0.056 (patch1) and 0.042 (old), so it holds there, but on the quick profile's four runs it passes or fails by chance",
}, () => {
  assert.ok(cv(scores("patch1")) > cv(scores("old")));
});

test("001 band: old index within a factor of 2 of 7825", {
  todo: "the model lands ~8x higher (~60,000): pairs stacked ping-pong locally at ~3.6 us per round trip, where 7825 means ~33 us (a split pair in the model: ~25 us)",
}, () => {
  const m = mean(scores("old"));
  assert.ok(m >= 7825 / 2 && m <= 7825 * 2, `old ${m}`);
});

test("x86-104t, 5.19: a lone ping-pong pair on the idle box stays split (prev idle), a pinned one stacks", () => {
  const run = (sameCpu: boolean) =>
    topology("x86-104t")
      .era("5.19")
      .workload(workload.pingpong({ pairs: 1, seconds: 0.01, workNs: 0, sameCpu }))
      .runSync({ iterations: 1, seed: 1 });
  const free = run(false).data.iterations[0].sched.wakePath;
  const pinned = run(true).data.iterations[0].sched.wakePath;
  // select_idle_sibling: the wakee's previous CPU is idle and shares the LLC, so it stays there
  assert.ok((free.remote ?? 0) > 10 * (free.local ?? 0), JSON.stringify(free));
  assert.equal(pinned.remote ?? 0, 0);
});

test("x86-104t, 5.19: context1 pairs stay split while the box has spare CPUs, and stack once there is a pair per CPU", () => {
  // A split pair keeps at least one CPU non-idle at every instant (the running task, or the
  // wakee enqueued on a CPU still leaving idle), plus the waker's tail after each wakeup. With 52
  // pairs on 104 CPUs a wakee's prev is idle at the wakeup: every wakeup is remote.
  const half = topology("x86-104t")
    .era("5.19")
    .workload(workload.unixbenchContext1({ copies: 52, passes: 3, passSeconds: 0.001 }))
    .runSync({ iterations: 1, seed: 1 }).data.iterations[0].sched.wakePath;
  assert.equal(half.local ?? 0, 0, JSON.stringify(half));
  assert.ok((half.remote ?? 0) > 10_000, JSON.stringify(half));
  // With 104 pairs the split arrangement has no idle CPU to offer: prev is busy, SIS_PROP's
  // 3-CPU scan from a CPU that never idles finds none, and the sync rule puts the wakee on the
  // waker's CPU. Stacked pairs never idle their CPU, so most of the box stays stacked: most
  // wakeups are local (64% on this profile since the idle_cpu() window and avg_idle instants of
  // __schedule; 68-73% before), against none at 52 copies.
  const full = sum("old", (s) => s.wakePath.local ?? 0);
  const remote = sum("old", (s) => s.wakePath.remote ?? 0);
  assert.ok(full > remote, `104 copies: local ${full}, remote ${remote}`);
});
