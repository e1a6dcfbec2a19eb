import { test } from "node:test";
import assert from "node:assert/strict";
import {
  topology,
  workload,
  SCHED_PRIO_TO_WEIGHT,
  runIteration,
  preset,
  patch,
} from "../../../src/index";
import type { Workload } from "../../../src/index";
import type { TraceRecord } from "../../../src/kernel/trace";

test("CPU hogs with different nice values share one CPU by the weight table within 1%", () => {
  const nices = [0, 3, 5, 10];
  const res = topology("core2-2x2")
    .era("6.19")
    .workload(workload.hogs({ n: nices.length, nice: nices, cpus: [0] }))
    .runSync({ duration: 30, warmup: 1, seed: 7 });
  const w = nices.map((n) => SCHED_PRIO_TO_WEIGHT[n + 20]);
  const total = w.reduce((a, b) => a + b, 0);
  nices.forEach((_, i) => {
    const share = res.values(`share_hog${i}`, "baseline")[0];
    const expect = w[i] / total;
    assert.ok(
      Math.abs(share - expect) / expect < 0.01,
      `hog${i} (nice ${nices[i]}): share ${share.toFixed(4)} vs weight share ${expect.toFixed(4)}`,
    );
  });
});

test("2.6.29 CFS also splits by weight", () => {
  const res = topology("core2-2x2")
    .era("2.6.29")
    .workload(workload.hogs({ n: 2, nice: [0, 2], cpus: [1] }))
    .runSync({ duration: 30, warmup: 1 });
  const share = res.values("share_hog0", "baseline")[0];
  const expect = 1024 / (1024 + 655);
  assert.ok(Math.abs(share - expect) / expect < 0.01, `share ${share} vs ${expect}`);
});

function mixed(): Workload {
  const a = workload.pingpong({ pairs: 3, workNs: 3000 });
  const b = workload.sleepers({ n: 5, runNs: 2_000_000, sleepNs: 3_000_000 });
  const c = workload.hogs({ n: 2 });
  return {
    name: "mixed",
    params: {},
    defaultDurationNs: 2e9,
    defaultWarmupNs: 0,
    setup(ctx) {
      const runs = [a.setup(ctx), b.setup(ctx), c.setup(ctx)];
      return { metrics: () => Object.assign({}, ...runs.map((r) => r.metrics())) };
    },
  };
}

test("task runtimes plus idle and kernel overhead time equal online CPUs x duration", () => {
  for (const [name, off] of [
    ["core2-2x2", [3]],
    ["x86-104t", []],
  ] as const) {
    const m = preset(name);
    const online = m.online.map((o, i) => o && !(off as readonly number[]).includes(i));
    const durationNs = 1e9;
    const { result } = runIteration({
      machine: m,
      online,
      era: "5.19",
      patches: [],
      workload: mixed(),
      variant: "v",
      iteration: 0,
      seed: "c",
      durationNs,
      warmupNs: 0,
      trace: false,
      checkEveryNs: 50_000_000,
    });
    const runtime = result.tasks.reduce((s, t) => s + t.runtimeNs, 0);
    const idle = result.cpus.reduce((s, c) => s + c.idleNs, 0);
    const overhead = result.cpus.reduce((s, c) => s + c.overheadNs, 0);
    const nOnline = online.filter(Boolean).length;
    // The 104-CPU box idles most CPUs between wakeups; each entry into idle runs schedule()
    // first (the 3-CPU box with 11 tasks may never idle, so it is not asked to).
    if (name === "x86-104t")
      assert.ok(overhead > 0, `${name}: CPUs going idle spend time in schedule() first`);
    assert.ok(
      Math.abs(runtime + idle + overhead - nOnline * durationNs) <= nOnline,
      `${name}: runtime ${runtime} + idle ${idle} + overhead ${overhead} != ${nOnline} x ${durationNs}`,
    );
    assert.equal(
      result.cpus.filter((c) => !c.online).every((c) => c.busyNs === 0),
      true,
    );
    assert.ok(result.sched.contextSwitches > 1000, `${name}: the mix should switch a lot`);
  }
});

test("no task is ever current on two CPUs, none is lost, none runs on an offline CPU", () => {
  const res = topology("core2-2x2")
    .offline(3)
    .era("5.19")
    .workload(mixed())
    .runSync({ duration: 1, trace: true, checkEvery: 0.01 });
  const trace = res.data.iterations[0].trace as TraceRecord[];
  const runningOn = new Map<number, number>();
  let switches = 0;
  for (const r of trace) {
    if (r.type !== "sched_switch") continue;
    switches++;
    assert.notEqual(r.cpu, 3, "cpu3 is offline");
    if (r.prevPid !== 0) {
      assert.equal(
        runningOn.get(r.prevPid),
        r.cpu,
        `pid ${r.prevPid} switched out of cpu${r.cpu} without running there`,
      );
      runningOn.delete(r.prevPid);
    }
    if (r.nextPid !== 0) {
      assert.equal(
        runningOn.has(r.nextPid),
        false,
        `pid ${r.nextPid} switched in on cpu${r.cpu} while running on cpu${runningOn.get(r.nextPid)}`,
      );
      runningOn.set(r.nextPid, r.cpu);
    }
  }
  assert.ok(switches > 1000);
  // every task made progress: none was lost
  for (const t of res.data.iterations[0].tasks) assert.ok(t.runtimeNs > 0, `${t.comm} never ran`);
});

test("the same seed gives byte-identical results; another seed does not", () => {
  const exp = () =>
    topology("core2-2x2")
      .era("5.19")
      .workload(workload.sleepers({ n: 6, runNs: 1e6, sleepNs: 2e6 }));
  const a = JSON.stringify(exp().runSync({ duration: 0.5, seed: 42, iterations: 2 }).data);
  const b = JSON.stringify(exp().runSync({ duration: 0.5, seed: 42, iterations: 2 }).data);
  const c = JSON.stringify(exp().runSync({ duration: 0.5, seed: 43, iterations: 2 }).data);
  assert.equal(a, b);
  assert.notEqual(a, c);
});

test("a patch replaces a hook and can call the default", () => {
  let calls = 0;
  const pinToZero = patch("place on cpu0").replace("fair.select_task_rq", (ctx, base) => {
    calls++;
    base(ctx);
    return 0;
  });
  const res = topology("core2-2x2")
    .era("6.19")
    .workload(workload.hogs({ n: 4 }))
    .patch(pinToZero)
    .runSync({ duration: 0.2, trace: true });
  assert.ok(calls >= 4);
  const placed = (res.data.iterations[0].trace ?? []).filter((r) => r.type === "sched_wakeup_new");
  assert.equal(placed.length, 4);
  assert.ok(
    placed.every((r) => r.type === "sched_wakeup_new" && r.targetCpu === 0),
    "every forked hog was placed on cpu0",
  );
  // ... and the load balancer then spread them (the hook only decides placement)
  assert.ok(Object.values(res.data.iterations[0].sched.migrations).reduce((a, b) => a + b, 0) >= 3);
});
