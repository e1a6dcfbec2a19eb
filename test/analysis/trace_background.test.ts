// The background a recording shows (src/analysis/trace_background.ts): kernel threads' wakeups and
// runs counted from a hand-built plan, and KTHREADS_GUEST_6_18 is what the shipped recordings give.
import { test } from "node:test";
import assert from "node:assert/strict";
import { backgroundActivity } from "../../src/analysis/trace_background";
import { replayPlan, type ReplayPlan } from "../../src/analysis/trace_replay";
import {
  readRecording,
  shippedRecording,
  shippedRecordings,
} from "../../src/experiment/replay_run";
import { KTHREADS_GUEST_6_18 } from "../../src/workload/background";

test("kernel threads' wakeups per CPU per second and mean run; other tasks are not counted", () => {
  const plan: ReplayPlan = {
    start: 0,
    end: 2e9,
    nrCpus: 2,
    notes: {},
    tasks: [
      {
        pid: 20,
        comm: "kworker/0:1",
        prio: 120,
        origin: "blocked",
        parent: null,
        startCpu: 0,
        boundCpu: 0,
        kthread: true,
        cpuNs: 40_000,
        steps: [
          { op: "block", t: 0, wokeAt: 1e8, by: null },
          { op: "run", ns: 20_000 },
          { op: "block", t: 2e8, wokeAt: 3e8, by: null },
          { op: "run", ns: 20_000 },
          { op: "block", t: 4e8, wokeAt: null, by: null },
        ],
      },
      {
        pid: 21,
        comm: "rcu_preempt",
        prio: 120,
        origin: "blocked",
        parent: null,
        startCpu: 1,
        boundCpu: null,
        kthread: true,
        cpuNs: 10_000,
        steps: [
          { op: "block", t: 0, wokeAt: 5e8, by: null },
          { op: "run", ns: 10_000 },
        ],
      },
      {
        pid: 30,
        comm: "app",
        prio: 120,
        origin: "running",
        parent: null,
        startCpu: 1,
        boundCpu: null,
        kthread: false,
        cpuNs: 1e9,
        steps: [
          { op: "run", ns: 1e9 },
          { op: "block", t: 1e9, wokeAt: 1.5e9, by: null },
        ],
      },
    ],
  };
  const b = backgroundActivity(plan);
  assert.equal(b.wakeups, 3);
  assert.equal(b.threads, 2);
  assert.equal(b.wakeupsPerSecPerCpu, 3 / 2 / 2);
  assert.equal(b.meanRunNs, 50_000 / 3);
  assert.deepEqual(Object.keys(b.byName).sort(), ["kworker", "rcu_preempt"]);
});

test("KTHREADS_GUEST_6_18 is what the shipped recordings measure, pooled", async () => {
  let wakeups = 0;
  let runNs = 0;
  let span = 0;
  const names = shippedRecordings();
  assert.ok(names.length >= 5);
  for (const n of names) {
    const r = await readRecording(shippedRecording(n));
    const b = backgroundActivity(replayPlan(r.trace.records, r.trace.nrCpus));
    assert.equal(b.spanS > 0 && r.trace.nrCpus, 2);
    wakeups += b.wakeups;
    runNs += b.meanRunNs * b.wakeups;
    span += b.spanS;
  }
  assert.ok(
    Math.abs(wakeups / span / 2 - KTHREADS_GUEST_6_18.ratePerSec) < 0.1,
    `${wakeups / span / 2}`,
  );
  assert.ok(Math.abs(runNs / wakeups - KTHREADS_GUEST_6_18.runNs) < 100, `${runNs / wakeups}`);
});
