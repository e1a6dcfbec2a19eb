// Seed 004's declared unknowns: the 4-socket preset's sched domains, each unknown's apply
// reaching the run, and the calibration target kept apart from the predictions.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel, preset } from "../../src/index";
import { seed004Experiment } from "../../src/reproduce/seed004";
import { SEED004_UNKNOWNS } from "../../src/reproduce/seed004_unknowns";
import { calibrateReproduction, calibrationTargets } from "../../src/reproduce/unknowns";
import { judgeRow, verdictContext } from "../../src/reproduce/verdict";
import { figureRole, publishedFor, reproduction } from "../../src/reproduce/registry";
import { frozenCalibration } from "../../src/reproduce/calibration_file";
import { ledgerRow } from "../../src/reproduce/ledger";
import type { UnknownValue } from "../../src/experiment/unknown";

test("ivb-ex-4x15x2 on 3.19: SMT(2) / MC(30) / NUMA(120) with four node groups, one LLC per socket", () => {
  const m = preset("ivb-ex-4x15x2");
  assert.equal(m.cpus.length, 120);
  assert.equal(new Set(m.cpus.map((c) => c.node)).size, 4);
  // thread-major numbering: cpu N and N+60 are siblings; node 0 = 0-14, 60-74
  assert.equal(m.cpus[0].core, m.cpus[60].core);
  assert.deepEqual(
    m.cpus.filter((c) => c.node === 0).map((c) => c.id),
    [...Array.from({ length: 15 }, (_, i) => i), ...Array.from({ length: 15 }, (_, i) => 60 + i)],
  );
  const k = buildKernel({
    machine: m,
    online: m.online,
    era: "3.19",
    patches: [],
    seed: "t",
    trace: false,
  });
  const doms = k.domains.domains[0];
  assert.deepEqual(
    doms.map((d) => [d.level, d.spanWeight]),
    [
      ["SMT", 2],
      ["MC", 30],
      ["NUMA", 120],
    ],
  );
  // every socket is one QPI hop from every other: one NUMA level, one group per node
  assert.equal(doms[2].groups.length, 4);
  assert.equal(k.domains.sdLlcSize[0], 30);
  assert.equal(k.domains.sdLlcSize[119], 30);
  // intel_idle's ivt_cstates_4s (3-4 sockets)
  assert.deepEqual(
    m.idleStates.map((s) => [s.name, s.exitLatencyNs / 1000, s.targetResidencyNs / 1000]),
    [
      ["POLL", 0, 0],
      ["C1", 1, 1],
      ["C1E", 10, 250],
      ["C3", 59, 300],
      ["C6", 84, 400],
    ],
  );
});

/** One short iteration of variant `pre`: the run's metrics. */
function metricsOf(values: Record<string, UnknownValue>) {
  const exp = seed004Experiment().assume(values);
  return exp.runJob({ duration: 0.03, warmup: 0.01, seed: 3 }, { variant: "pre", iteration: 0 })
    .metrics;
}

test("004 unknowns: every one reaches the run (a value off its default changes the metrics)", () => {
  const exp = seed004Experiment();
  const declared = exp.declaredUnknowns().map((u) => u.name);
  assert.deepEqual(
    declared,
    SEED004_UNKNOWNS.map((u) => u.name),
  );
  const other: Record<string, UnknownValue> = {
    machine: "ivb-ex-4x15x2",
    rt_wake_hz: 2000,
    rt_levels: 3,
    hi_placement: "high",
    tx_private_refill_gbps: 15,
  };
  assert.deepEqual(Object.keys(other).sort(), [...declared].sort(), "a value for each unknown");
  const base = metricsOf({});
  for (const [name, v] of Object.entries(other)) {
    const m = metricsOf({ [name]: v });
    assert.notDeepEqual(m, base, `${name}=${v} changed nothing`);
  }
});

test("004 unknowns: what each apply sets", () => {
  const exp = seed004Experiment();
  const params = (v: Record<string, UnknownValue>) =>
    exp.assume(v).spec().workload.params as Record<string, unknown>;
  assert.equal(exp.assume({ machine: "ivb-ex-4x15x2" }).machine().cpus.length, 120);
  assert.equal(params({ machine: "ivb-ex-4x15x2" }).rtThreads, 120, "one server per CPU");
  assert.equal(params({}).rtThreads, 72);
  assert.equal(params({ rt_wake_hz: 2000 }).rtWakeHz, 2000);
  assert.equal(params({ rt_levels: 2 }).rtLevels, 2);
  assert.equal(params({ tx_private_refill_gbps: 7 }).txPrivateRefillGBps, 7);
  const hi = (v: string, machine = "hsw-ep-2x18x2") => {
    const p = params({ hi_placement: v, machine });
    return [p.hiCpuStart, p.hiCpuStride, p.hiPinned];
  };
  assert.deepEqual(hi("low"), [1, 2, false]);
  assert.deepEqual(hi("high"), [57, 2, false], "CPUs 57, 59, ..., 71");
  assert.deepEqual(hi("spread"), [1, 9, false]);
  assert.deepEqual(hi("low-pinned"), [1, 2, true]);
  assert.deepEqual(hi("high", "ivb-ex-4x15x2"), [105, 2, false], "placement follows the machine");
  // Unknowns compose: one apply keeps what another set.
  const p = params({ machine: "ivb-ex-4x15x2", rt_wake_hz: 2000, rt_levels: 2 });
  assert.deepEqual([p.rtThreads, p.rtWakeHz, p.rtLevels], [120, 2000, 2]);
});

test("004 calibration: the push-lock ratio is the one target; it is never judged as a prediction", () => {
  const pub = publishedFor("004");
  assert.deepEqual(pub.calibration?.unknowns, ["rt_wake_hz"]);
  assert.deepEqual(
    calibrationTargets("004").map((t) => t.id),
    ["push_rq_locks_pre_over_post/pre"],
  );
  const predicted = pub.figures
    .filter((f) => figureRole(f) === "predicted" && f.value !== null)
    .map((f) => `${f.metric}/${f.variant}`);
  assert.ok(!predicted.includes("push_rq_locks_pre_over_post/pre"));
  assert.ok(predicted.includes("throughput_gain_pct/post"));
  // The ledger row of the target is a calibration target whatever its value, even in band.
  const ctx = verdictContext("004");
  const row = judgeRow(
    ledgerRow("push_rq_locks_pre_over_post", "pre", 1.7, [1.7, 1.71], [1.3, 2.2]),
    ctx,
  );
  assert.equal(row.role, "calibrated");
  assert.equal(row.verdict, "calibration target");
  const pred = judgeRow(ledgerRow("throughput_gain_pct", "post", 1.5, [1.4], [0.3, 5]), ctx);
  assert.equal(pred.verdict, "reproduced after calibration");
  // A prediction can not be made a target.
  assert.throws(
    () => calibrateReproduction("004", { targets: ["throughput_gain_pct/post"] }),
    /is a prediction/,
  );
  // The frozen values are what the reproduction runs with.
  const cal = frozenCalibration("004");
  assert.ok(cal, "data/calibration/004.json");
  assert.deepEqual(Object.keys(cal.values), ["rt_wake_hz"]);
  assert.equal(reproduction("004").experiment().unknownValues().rt_wake_hz, cal.values.rt_wake_hz);
  assert.deepEqual(
    cal.targets.map((t) => t.id),
    ["push_rq_locks_pre_over_post/pre"],
  );
});
