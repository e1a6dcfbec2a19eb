import { test } from "node:test";
import assert from "node:assert/strict";
import { patch, topology, run, setNice, setPolicy } from "../../../src/index";
import type { Workload } from "../../../src/index";

/** Two tasks pinned to cpu1: a plain hog, and one that changes its own scheduling after 1 s. */
function twoOnOneCpu(change: "nice" | "fifo"): Workload {
  return {
    name: `setscheduler-${change}`,
    params: {},
    defaultDurationNs: 3e9,
    defaultWarmupNs: 0,
    setup(ctx) {
      const hog = ctx.spawn({
        comm: "hog",
        cpus: [1],
        program: function* () {
          yield run(Infinity);
        },
      });
      const changer = ctx.spawn({
        comm: "changer",
        cpus: [1],
        program: function* () {
          yield run(0.5e9); // 0.5 s of work: about 1 s of wall time at half a CPU
          yield change === "nice" ? setNice(10) : setPolicy("fifo", 10);
          yield run(Infinity);
        },
      });
      let hogAt1 = 0;
      let changerAt1 = 0;
      ctx.at(1.2e9, () => {
        hogAt1 = ctx.kernel.workDone(hog);
        changerAt1 = ctx.kernel.workDone(changer);
      });
      return {
        metrics: () => ({
          hog_after: ctx.kernel.workDone(hog) - hogAt1,
          changer_after: ctx.kernel.workDone(changer) - changerAt1,
        }),
      };
    },
  };
}

test("set_user_nice mid-run: the task's share follows its new weight", () => {
  const res = topology("core2-2x2").era("6.19").workload(twoOnOneCpu("nice")).runSync();
  const m = res.data.iterations[0].metrics;
  const share = m.changer_after / (m.changer_after + m.hog_after);
  const expect = 110 / (110 + 1024); // nice 10 vs nice 0
  assert.ok(Math.abs(share - expect) / expect < 0.05, `changer share ${share} vs ${expect}`);
});

test("sched_setscheduler to SCHED_FIFO: the task takes the CPU from the fair hog", () => {
  const res = topology("core2-2x2").era("6.19").workload(twoOnOneCpu("fifo")).runSync();
  const m = res.data.iterations[0].metrics;
  // 6.19 does not throttle the root rt_rq; the fair server (v6.12) runs the hog for its 50 ms at
  // the end of each 1 s period in which it was starved: two of them from 1.2 s to 3 s.
  const share = m.hog_after / (m.hog_after + m.changer_after);
  assert.ok(share > 0.045 && share < 0.06, `hog share ${share} beside a spinning FIFO task`);
  assert.ok(m.changer_after > 1.65e9);
  const t = res.data.iterations[0].tasks.find((x) => x.comm === "changer")!;
  assert.equal(t.policy, "fifo");
});

test("sched_setscheduler to SCHED_FIFO, 6.6: RT throttling leaves the fair hog 50 ms a second", () => {
  const res = topology("core2-2x2").era("6.6").workload(twoOnOneCpu("fifo")).runSync();
  const m = res.data.iterations[0].metrics;
  // From the switch (about 1 s) the period timer runs 1 s periods: from 1.2 s to 3 s the FIFO
  // task is throttled for the last ~48 ms of two of them (about 96 ms of 1.8 s).
  const share = m.hog_after / (m.hog_after + m.changer_after);
  assert.ok(share > 0.045 && share < 0.06, `hog share ${share} under a throttled FIFO task`);
});

test("sched_setscheduler to SCHED_FIFO, 6.19 with the fair server off: the fair hog gets nothing", () => {
  const off = patch("no fair server").tunable("fair_server_runtime_ns", 0);
  const res = topology("core2-2x2")
    .era("6.19")
    .workload(twoOnOneCpu("fifo"))
    .variants({ off: [off] })
    .runSync();
  const m = res.data.iterations[0].metrics;
  assert.equal(m.hog_after, 0, `hog ran ${m.hog_after} ns under a spinning FIFO task`);
});
