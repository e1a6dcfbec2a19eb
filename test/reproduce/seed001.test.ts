// Seed 001 on a short run (reproduction("001").quick: 4 runs of 4 passes per variant): the
// mechanism in the counters, the published bands (todo where the model misses, with the reason),
// and how ping-pong pairs are placed on the 104-thread box.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  calibrationTargets,
  patch,
  reproduction,
  runReproduction,
  topology,
  workload,
} from "../../src/index";
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
    [
      "score",
      "wakelist_wakeups_per_s",
      "ipis_per_s",
      "remote_rq_lock_waits_per_s",
      "local_wakeup_share",
      "rq_lock_spin_share",
      "idle_share",
      "score_ratio_to_old",
    ],
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
  const llc = (v: string) => sum(v, (s) => s.wakePath.wakelist_llc ?? 0);
  const remote = (v: string) => sum(v, (s) => s.rqLock.ttwu_remote?.acquisitions ?? 0);
  // old queues only WF_ON_CPU wakees on a wakelist of its LLC (a partner caught in its
  // switch-out window); patch2 queues every wakeup to an idle CPU of the LLC there
  assert.equal(llc("old"), 0);
  // (old's split pairs catch many partners still switching out, so old's on_cpu entries are
  // a third of patch1+2's LLC entries on the quick profile with halting idle, an eighth with MWAIT)
  assert.ok(llc("patch1+2") > 2 * wl("old"), `wakelist ${wl("patch1+2")} vs ${wl("old")}`);
  assert.ok(
    remote("patch1+2") < remote("old") / 10,
    `remote locks ${remote("patch1+2")} vs ${remote("old")}`,
  );
  // the target runs sched_ttwu_pending under its own lock
  assert.ok(sum("patch1+2", (s) => s.rqLock.ttwu_pending?.acquisitions ?? 0) > wl("patch1+2") / 2);
});

// With the pairs split, partners often catch their wakee still switching out (old queues ~50,000
// WF_ON_CPU wakees on the quick profile); patch1 sends those on a busy CPU through the spin.
test("001 mechanism: patch1 sends more on_cpu wakees through the spin + select_task_rq + remote lock", () => {
  const spins = (v: string) => sum(v, (s) => s.other.ttwu_on_cpu_spin ?? 0);
  assert.ok(spins("patch1") > spins("old") + 100);
});

test("001 band: patch1+2 / old between 1.05 and 1.30 (published 1.158)", {
  todo: "missed, and of the opposite sign: with halting idle at the calibrated 24.9 us wake, patch1+2 / old is 0.78 at the full profile; patch2's wakelist sends every wakeup to an idle CPU of the LLC, the box idles 58% of its time against old's 38% and keeps 13% of wakeups on the waker's CPU against 20%, so more wakeups pay the wake. With a 2 us wake the ratio is ~1.16 (the published one) but old's index is ~2.1x; with MWAIT idle 1.83 (docs/experiments/001.md, What would have to be true)",
}, () => {
  const ratio = mean(scores("patch1+2")) / mean(scores("old"));
  assert.ok(ratio >= 1.05 && ratio <= 1.3, `ratio ${ratio}`);
});

// published 7500-8000 against 7825 ('more at 7500'); 1.009 at the full profile, 0.958 on this quick one
test("001 band: patch1's mean within 5% of old", {
  todo: "missed with halting idle at the calibrated 24.9 us wake (0.83 of old at the full profile): patch1 keeps fewer wakeups on the waker's CPU (14% against old's 20%) and idles more (44% against 38%), so more wakeups pay the wake; with MWAIT idle it is within 5% (0.976)",
}, () => {
  const ratio = mean(scores("patch1")) / mean(scores("old"));
  assert.ok(Math.abs(ratio - 1) <= 0.05, `ratio ${ratio}`);
});

test("001 band: patch1's run-to-run spread (cv) larger than old's", {
  todo: "patch1 changes the path of the on_cpu wakees only (a tenth of the wakeups); on the quick profile's four runs the comparison of the coefficients of variation passes or fails by chance",
}, () => {
  assert.ok(cv(scores("patch1")) > cv(scores("old")));
});

test("001: old's index is the calibration target: in its band at the frozen hlt_wake_us, and never judged", () => {
  const m = mean(scores("old"));
  assert.ok(m >= 7825 / 2 && m <= 7825 * 2, `old ${m}`);
  const row = r.rows(res).find((x) => x.metric === "score" && x.variant === "old");
  assert.ok(row);
  assert.equal(
    calibrationTargets("001")
      .map((t) => t.id)
      .join(),
    "score/old",
  );
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

test("x86-104t, 5.19: context1 pairs stay split at 52 copies; at 104 they stay split only while a claimed CPU still looks idle to other wakers (VISIBILITY_WINDOWS)", () => {
  // A split pair keeps at least one CPU non-idle at every instant (the running task, or the
  // wakee enqueued on a CPU still leaving idle), plus the waker's tail after each wakeup. With 52
  // pairs on 104 CPUs a wakee's prev is idle at the wakeup: every wakeup is remote.
  const half = topology("x86-104t")
    .era("5.19")
    .workload(workload.unixbenchContext1({ copies: 52, passes: 3, passSeconds: 0.001 }))
    .runSync({ iterations: 1, seed: 1 }).data.iterations[0].sched.wakePath;
  assert.equal(half.local ?? 0, 0, JSON.stringify(half));
  assert.ok((half.remote ?? 0) > 10_000, JSON.stringify(half));
  // With 104 pairs, wakers on other CPUs keep picking CPUs whose wakee is not enqueued yet (the
  // enqueue comes after the waker's remote lock wait), so CPUs go idle and pairs stay split:
  // nearly every wakeup is remote (the preset's MWAIT idle, as bare metal).
  const full = topology("x86-104t")
    .era("5.19")
    .workload(workload.unixbenchContext1({ copies: 104, passes: 4, passSeconds: 0.001 }))
    .runSync({ iterations: 1, seed: 1 }).data.iterations[0].sched.wakePath;
  const local = full.local ?? 0;
  const remote = full.remote ?? 0;
  assert.ok(remote > 50 * local, `104 copies: local ${local}, remote ${remote}`);
  // Without the windows a claimed CPU stops looking idle at the waker's instant: no CPU is left
  // idle to pick, 5.19's sync wake_affine puts the wakee on the waker's CPU, and most of the box
  // settles stacked, most wakeups local.
  const off = topology("x86-104t")
    .era("5.19")
    .workload(workload.unixbenchContext1({ copies: 104, passes: 4, passSeconds: 0.001 }))
    .variants({ off: [patch("no windows").feature("VISIBILITY_WINDOWS", false)] })
    .runSync({ iterations: 1, seed: 1 }).data.iterations[0].sched.wakePath;
  assert.ok((off.local ?? 0) > (off.remote ?? 0), JSON.stringify(off));
});

test("001 declares idle_mode (hlt by default: one HLT state that does not poll) and hlt_wake_us, which sets its exit", () => {
  const e = reproduction("001").experiment();
  assert.deepEqual(
    e.declaredUnknowns().map((u) => u.name),
    ["idle_mode", "hlt_wake_us"],
  );
  const states = (values: Record<string, string | number>) => {
    const m = e.assume(values).spec(r.quick).machine as unknown as {
      idleStates: { name: string; exitLatencyNs: number; polling: boolean }[];
    };
    return m.idleStates.map((s) => [s.name, s.exitLatencyNs, s.polling]);
  };
  assert.deepEqual(states({ idle_mode: "hlt", hlt_wake_us: 20 }), [["HLT", 20000, false]]);
  // with MWAIT nothing halts: the preset's polling states, whatever the wake time
  const mwait = states({ idle_mode: "mwait", hlt_wake_us: 20 });
  assert.ok(mwait.length > 1 && mwait.every((s) => s[2] === true), JSON.stringify(mwait));
  assert.deepEqual(mwait, states({ idle_mode: "mwait", hlt_wake_us: 2 }));
});
