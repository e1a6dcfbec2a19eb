// SCHED_RR time slices (RT throttling: rt_throttle.test.ts).
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
