import { test } from "node:test";
import assert from "node:assert/strict";
import { topology, workload, OLTP_RT_MIX_DEFAULTS } from "../../src/index";

test("oltpRtMix: bad input names the field and what is accepted", () => {
  assert.throws(
    () => workload.oltpRtMix({ rtLevel: 2 } as never),
    /unknown option "rtLevel".*rtLevels/,
  );
  assert.throws(
    () => workload.oltpRtMix({ txPerCpu: 0 }),
    /txPerCpu must be an integer from 1 to 64/,
  );
  assert.throws(() => workload.oltpRtMix({ rtWakeHz: -1 }), /rtWakeHz must be a finite number > 0/);
  assert.throws(
    () => workload.oltpRtMix({ rtBasePriority: 97, rtLevels: 3 }),
    /rtBasePriority \+ rtLevels - 1 must be at most 98/,
  );
  assert.throws(
    () => workload.oltpRtMix({ hiPriority: 51, rtLevels: 3 }),
    /hiPriority must be above every server level \(got 51, top server level 52\)/,
  );
  assert.throws(() => workload.oltpRtMix({ seconds: 0 }), /seconds must be a finite number > 0/);
  assert.throws(
    () => workload.oltpRtMix({ hiCpuStart: -1 }),
    /hiCpuStart must be an integer from 0 to 4095/,
  );
});

test("oltpRtMix: the defaults are recorded as the workload's parameters", () => {
  const w = workload.oltpRtMix();
  for (const [key, v] of Object.entries(OLTP_RT_MIX_DEFAULTS)) assert.equal(w.params[key], v, key);
});

test("oltpRtMix on 4 CPUs: transactions fill what RT leaves; wakeups recorded by kind", () => {
  const w = workload.oltpRtMix({
    rtThreads: 4,
    rtLevels: 1,
    rtWakeHz: 2000,
    rtBurstUs: 50,
    hiThreads: 1,
    seconds: 0.3,
    warmupSeconds: 0.05,
  });
  const res = topology("core2-2x2").era("3.19").workload(w).runSync({ iterations: 1, seed: 2 });
  const m = (x: string) => res.mean(x, "baseline");
  // 4 CPUs, 200 us per transaction: at most 20000/s; RT takes ~4 x 2000 x 50 us = 10% of them.
  assert.ok(m("throughput_tps") > 15000 && m("throughput_tps") < 19000, `${m("throughput_tps")}`);
  assert.ok(m("rt_util") > 0.07 && m("rt_util") < 0.13, `rt_util ${m("rt_util")}`);
  const it = res.iteration("baseline", 0);
  const n = it.series.lat_equal.length + it.series.lat_other.length;
  // 4 threads x 2000/s x 0.25 s, Poisson: about 2000 wakeups
  assert.ok(n > 1700 && n < 2300, `${n} wakeups`);
  assert.ok(
    m("equal_prio_wakeups_per_s") > 0,
    "one level on 4 CPUs: some wakeups meet an equal-prio curr",
  );
  assert.ok(m("rt_wakeup_latency_p99_us") > 0);
});

test("oltpRtMix: new parameters refuse bad input by name", () => {
  assert.throws(
    () => workload.oltpRtMix({ hiCpuStride: 0 }),
    /hiCpuStride must be an integer from 1 to 4096/,
  );
  assert.throws(
    () => workload.oltpRtMix({ hiPinned: "yes" as never }),
    /hiPinned must be true or false/,
  );
  assert.throws(
    () => workload.oltpRtMix({ txPrivateRefillGBps: -1 }),
    /txPrivateRefillGBps must be a finite number >= 0/,
  );
});

test("oltpRtMix: the FIFO 90 threads start at hiCpuStart + i * hiCpuStride, pinned there with hiPinned", () => {
  // Stride 4 on 4 CPUs puts both threads on cpu1: unpinned, a wakee meeting the other (equal
  // priority) is moved by select_task_rq_rt; pinned, both stay on cpu1.
  const high = (hiPinned: boolean) => {
    const w = workload.oltpRtMix({
      rtThreads: 0,
      hiThreads: 2,
      hiWakeHz: 20000,
      hiBurstUs: 40,
      hiCpuStart: 1,
      hiCpuStride: 4,
      hiPinned,
      seconds: 0.05,
      warmupSeconds: 0.005,
    });
    const res = topology("core2-2x2").era("3.19").workload(w).runSync({ iterations: 1, seed: 2 });
    return res.iteration("baseline", 0).tasks.filter((t) => t.role === "high");
  };
  const pinned = high(true);
  assert.deepEqual(
    pinned.map((t) => [t.lastCpu, t.migrations]),
    [
      [1, 0],
      [1, 0],
    ],
  );
  const free = high(false);
  assert.ok(
    free.reduce((s, t) => s + t.migrations, 0) > 0,
    "unpinned equal-priority threads on one CPU move",
  );
});

test("oltpRtMix: rq_locks_per_s counts every path, at least push + pull + wakeup", () => {
  const w = workload.oltpRtMix({
    rtThreads: 4,
    rtWakeHz: 2000,
    hiThreads: 1,
    seconds: 0.1,
    warmupSeconds: 0.02,
  });
  const res = topology("core2-2x2").era("3.19").workload(w).runSync({ iterations: 1, seed: 2 });
  const m = (x: string) => res.mean(x, "baseline");
  assert.ok(
    m("rq_locks_per_s") >=
      m("push_rq_locks_per_s") + m("pull_rq_locks_per_s") + m("wakeup_rq_locks_per_s"),
  );
  assert.ok(m("rq_locks_per_s") > m("wakeup_rq_locks_per_s"), "the schedule() path too");
});
