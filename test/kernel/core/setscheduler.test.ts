import { test } from "node:test";
import assert from "node:assert/strict";
import { topology, run, setNice, setPolicy } from "../../../src/index";
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
  // With RT throttling (950 ms per 1 s) the hog would keep at most 5%; the model does not throttle yet.
  assert.ok(
    m.hog_after <= 0.05 * (m.hog_after + m.changer_after),
    `hog ran ${m.hog_after} ns under a spinning FIFO task`,
  );
  assert.ok(m.changer_after > 1.7e9);
  const t = res.data.iterations[0].tasks.find((x) => x.comm === "changer")!;
  assert.equal(t.policy, "fifo");
});
