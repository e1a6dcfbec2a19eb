import { test } from "node:test";
import assert from "node:assert/strict";
import { topology, workload } from "../../../src/index";
import type { TraceRecord } from "../../../src/kernel/trace";

test("offlining a CPU mid-run rebuilds the domains and moves every task off it; none is lost", () => {
  const res = topology("core2-2x2")
    .era("2.6.29")
    .workload(workload.hogs({ n: 6 }))
    .hotplug(0.5, 3, "offline")
    .runSync({ duration: 1.5, trace: true, checkEvery: 0.05 });
  const it = res.data.iterations[0];
  const trace = it.trace as TraceRecord[];
  const after = trace.filter((r) => r.t > 0.5e9);
  assert.ok(after.length > 0);
  // nothing switches in on cpu3 after it went down
  assert.equal(
    after.some((r) => r.type === "sched_switch" && r.cpu === 3 && r.nextPid !== 0),
    false,
  );
  assert.ok(it.sched.migrations.hotplug! >= 1, "tasks were pushed off cpu3");
  // all six hogs keep running to the end
  assert.equal(it.tasks.filter((t) => t.role === "hog" && t.runtimeNs > 0.3e9).length, 6);
  const cpu3 = it.cpus[3];
  assert.equal(cpu3.online, false);
  assert.ok(Math.abs(cpu3.offlineNs - 1e9) < 1e6, `cpu3 offline for ${cpu3.offlineNs} ns`);
  // conservation still holds with a CPU that left mid-run
  const runtime = it.tasks.reduce((s, t) => s + t.runtimeNs, 0);
  const idle = it.cpus.reduce((s, c) => s + c.idleNs, 0);
  const offline = it.cpus.reduce((s, c) => s + c.offlineNs, 0);
  assert.ok(
    Math.abs(runtime + idle + offline - 4 * 1.5e9) < 10,
    `${runtime} + ${idle} + ${offline}`,
  );
});

test("a CPU brought back online takes work again", () => {
  const res = topology("core2-2x2")
    .era("5.19")
    .workload(workload.hogs({ n: 4 }))
    .hotplug(0.2, 2, "offline")
    .hotplug(0.6, 2, "online")
    .runSync({ duration: 1.5, trace: true });
  const trace = res.data.iterations[0].trace as TraceRecord[];
  const onCpu2 = (from: number, to: number) =>
    trace.some(
      (r) => r.type === "sched_switch" && r.cpu === 2 && r.nextPid !== 0 && r.t > from && r.t < to,
    );
  assert.equal(onCpu2(0.2e9 + 1, 0.6e9), false);
  assert.equal(onCpu2(0.6e9, 1.5e9), true);
});
