// workload.threadBurst: 8 CPU-bound threads created and then released together on hikey-a53-2x4
// (two clusters of four Cortex-A53s, one LLC per cluster), 5.6 and 6.6, with and without the
// visibility windows (VISIBILITY_WINDOWS).
import { test } from "node:test";
import assert from "node:assert/strict";
import { topology } from "../../src/experiment/experiment";
import { threadBurst, type ThreadBurstParams } from "../../src/workload/thread_burst";
import { patch } from "../../src/patch/patch";
import type { Era } from "../../src/kernel/features";
import type { TraceRecord } from "../../src/kernel/trace";

const noWindows = patch("no windows").feature("VISIBILITY_WINDOWS", false);

function burst(era: Era, p: ThreadBurstParams) {
  const res = topology("hikey-a53-2x4")
    .era(era)
    .workload(threadBurst({ threads: 8, createNs: 50_000, seconds: 0.03, ...p }))
    .variants({ windows: [], "no windows": [noWindows] })
    .runSync({ iterations: 1, seed: 1, trace: true });
  const out = (v: string) => {
    const it = res.iteration(v, 0);
    const m = it.metrics;
    const trace = it.trace ?? [];
    return {
      first: Array.from({ length: 8 }, (_, i) => m[`cpu_w${i}`]),
      // wake_up_new_task's record of each worker: its first sched_wakeup, before the release
      forks: trace
        .filter(
          (r): r is Extract<TraceRecord, { targetCpu: number }> =>
            r.type === "sched_wakeup_new" && r.comm.startsWith("burst-w") && r.t < 5_000_000,
        )
        .map((r) => r.targetCpu),
      moves: trace.filter(
        (r): r is Extract<TraceRecord, { type: "sched_migrate_task" }> =>
          r.type === "sched_migrate_task" && r.comm.startsWith("burst-w") && r.reason !== "wakeup",
      ),
      m,
    };
  };
  return { on: out("windows"), off: out("no windows") };
}

test("threadBurst: bad options are refused with the field named", () => {
  assert.throws(() => threadBurst({ threads: 0 }), /threads must be an integer from 1/);
  assert.throws(() => threadBurst({ threads: 4, releasers: 5 }), /releasers must be an integer/);
  assert.throws(
    () => threadBurst({ releasers: 2, releaserCpus: [0] }),
    /releaserCpus must list one CPU per releaser \(2\)/,
  );
  assert.throws(() => threadBurst({ releaseAtMs: 500 }), /releaseAtMs must fall within the run/);
  // @ts-expect-error: an unknown option
  assert.throws(() => threadBurst({ cpus: 8 }), /unknown option "cpus"/);
});

for (const era of ["5.6", "6.6"] as Era[]) {
  test(`${era}: one releaser (a barrier's futex_wake of every waiter): forks alternate clusters, each thread starts where it was forked, windows or not`, () => {
    const { on, off } = burst(era, {});
    // find_idlest_group (5.5+ rework, group_has_spare): the other cluster has more idle CPUs for
    // the first child; from then on the local cluster's idle_cpus >= the other's keeps the next
    // child local and find_idlest_group_cpu picks among the idle CPUs of the group chosen at the
    // level below: 4, 1, 5, 2, 6, 3, 7, and the last beside the forker.
    assert.deepEqual(on.forks, [4, 1, 5, 2, 6, 3, 7, 0]);
    // The release: each wakee's prev_cpu is idle, and select_idle_sibling keeps it there (6.6:
    // wake_affine_idle's idle prev, 5.11+; 5.6: wake_affine_weight's target, then the idle prev).
    assert.deepEqual(on.first, on.forks);
    assert.equal(on.m.max_stacked, 1);
    assert.equal(on.moves.length, 0, "no balancer moves a thread");
    // Every wakeup of the release comes from one CPU, which sees its own enqueues: the windows
    // change nothing (as in the kernel).
    assert.deepEqual(off.first, on.first);
    assert.equal(off.m.spread_ms, on.m.spread_ms);
  });

  test(`${era}: two releasers on one CPU (their hrtimers expire together): a CPU sees its own claims, so the windows change nothing`, () => {
    const { on, off } = burst(era, { releasers: 2 });
    assert.deepEqual(on.first, off.first);
    assert.equal(on.m.max_stacked, 1);
    assert.ok(on.m.spread_ms > 0, "every thread on a CPU of its own within the run");
  });
}

test("5.6, releasers pinned to the two clusters: a wakee moved off its CPU is given one by the balancers (newidle, then idle)", () => {
  const { on, off } = burst("5.6", { releasers: 2, releaserCpus: [0, 4] });
  assert.deepEqual(on.first, off.first);
  const reasons = new Set(on.moves.map((r) => r.reason));
  assert.ok(reasons.has("newidle_balance"), [...reasons].join(","));
  assert.ok(reasons.has("idle_balance"), [...reasons].join(","));
  assert.ok(on.m.spread_ms > 0 && on.m.spread_ms < 10, `spread after ${on.m.spread_ms} ms`);
});
