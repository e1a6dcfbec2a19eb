// SCHED_RR time slices and (not modelled) RT throttling, as seed 004's issue lists them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { preset } from "../../../src/index";
import { run } from "../../../src/kernel/ops";
import { boot } from "../boot";

const MS = 1_000_000;
const hog = function* () {
  yield run(Infinity);
};

test("SCHED_RR: equal-prio RR tasks on one CPU take turns every rr_timeslice (100 ms); FIFO does not", () => {
  for (const policy of ["rr", "fifo"] as const) {
    const k = boot(preset("core2-2x2"), "3.19");
    const a = k.spawn({ comm: "a", program: hog, policy, rtPriority: 50, cpu: 0, cpus: [0] });
    const b = k.spawn({ comm: "b", program: hog, policy, rtPriority: 50, cpu: 0, cpus: [0] });
    k.runUntil(350 * MS);
    k.flushAccounting();
    const ms = (t: typeof a) => t.se.sumExecRuntime / MS;
    if (policy === "rr") {
      // a: 0-100, 200-300; b: 100-200, 300-350
      assert.ok(Math.abs(ms(a) - 200) < 3, `a ${ms(a)} ms`);
      assert.ok(Math.abs(ms(b) - 150) < 3, `b ${ms(b)} ms`);
    } else {
      assert.ok(ms(a) > 345 && ms(b) < 1, `fifo: a ${ms(a)}, b ${ms(b)}`);
    }
  }
});

test("RT throttling: an RT hog gets at most sched_rt_runtime_us per sched_rt_period_us (950 ms / 1 s)", {
  todo: "RT throttling (sched_rt_runtime_exceeded, do_sched_rt_period_timer) is not modelled; seed 004's RT load stays far below 95% of any CPU",
}, () => {
  const k = boot(preset("core2-2x2"), "3.19");
  const rtHog = k.spawn({
    comm: "r",
    program: hog,
    policy: "fifo",
    rtPriority: 50,
    cpu: 0,
    cpus: [0],
  });
  const c = k.spawn({ comm: "c", program: hog, cpu: 0, cpus: [0] });
  k.runUntil(2000 * MS);
  k.flushAccounting();
  assert.ok(c.se.sumExecRuntime > 80 * MS, `cfs got ${c.se.sumExecRuntime / MS} ms`);
  assert.ok(rtHog.se.sumExecRuntime < 1910 * MS);
});
