import { test } from "node:test";
import assert from "node:assert/strict";
import { preset, topology, workload } from "../../src/index";
import { LatencyHistogram } from "../../src/analysis/histogram";

test("schbench: bad options are refused with the field and accepted values named", () => {
  assert.throws(() => workload.schbench({ workers: 0 }), /workers must be an integer from 1/);
  assert.throws(() => workload.schbench({ sleeptime: -5 }), /sleeptime must be an integer >= 4/);
  assert.throws(() => workload.schbench({ runtime: 0 }), /runtime must be a finite number > 0/);
  assert.throws(
    // @ts-expect-error: an unknown option
    () => workload.schbench({ threads: 4 }),
    /unknown option "threads" \(accepted: messageThreads, workers, runtime, sleeptime, cputime/,
  );
});

test("schbench: one round per cputime + sleeptime (+ jitter), every latency pays a core C6 exit", () => {
  const sb = workload.schbench({ messageThreads: 1, workers: 1, runtime: 2 });
  const res = topology("numa-2x12x2").era("5.6").workload(sb).runSync({ iterations: 1, seed: 3 });
  const it = res.iteration("baseline", 0);
  // a round: 30 ms spin, then the message thread sleeps 30 ms + U[0, 7.5) ms: ~64 ms
  assert.ok(it.metrics.samples >= 28 && it.metrics.samples <= 33, `samples ${it.metrics.samples}`);
  // the worker's CPU idled ~34 ms, so the governor picked the deepest state, C6; the waker runs
  // on the same package, so each wakeup pays a drawn core C6 exit (the preset's median 41 us)
  // and no package wake, and none pays more than the table's worst case
  const c6 = preset("numa-2x12x2").idleStates.at(-1)!;
  const core = c6.exitDraw!.core.medianNs / 1000;
  const h = LatencyHistogram.fromSeries(it.series.lat_hist);
  assert.equal(h.count, it.metrics.samples);
  assert.ok(
    Math.abs(h.percentile(50) - core) < 8,
    `median ${h.percentile(50)} vs core exit ${core}`,
  );
  assert.ok(h.percentile(0) > 10, `min ${h.percentile(0)}: above C1E's 10 us exit`);
  assert.ok(h.max < c6.exitLatencyNs / 1000 + 20, `max ${h.max}`);
  assert.equal(it.metrics.idle_package_wake_frac, 0);
  // one message thread and its worker on one node: no cross-node wakeups
  assert.equal(it.metrics.same_node_frac, 1);
});

test("schbench: the same seed gives the same histogram", () => {
  const run = () =>
    topology("numa-2x12x2")
      .era("5.6")
      .workload(workload.schbench({ messageThreads: 2, workers: 2, runtime: 1 }))
      .runSync({ iterations: 1, seed: 9 })
      .iteration("baseline", 0);
  const a = run();
  const b = run();
  assert.deepEqual(a.series.lat_hist, b.series.lat_hist);
  assert.deepEqual(a.metrics, b.metrics);
});
