// The RT bookkeeping under load: a busy mix of RT priorities and CFS on 48 CPUs, checked every
// 10 ms. Kept out of the rt mutation set (stryker.modules.json) for its run time; part of npm test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { preset } from "../../../src/index";
import { run, sleep } from "../../../src/kernel/ops";
import type { Task } from "../../../src/kernel/sched";
import { boot } from "../boot";
import { checkRt } from "./rt_check";

const MS = 1_000_000;
const hog = function* () {
  yield run(Infinity);
};

test("bookkeeping holds through a busy mix of RT priorities and CFS on 48 CPUs", () => {
  for (const era of ["3.19", "4.8", "6.19"] as const) {
    const k = boot(preset("numa-2x12x2"), era);
    const tasks: Task[] = [];
    const prios = [10, 20, 30];
    for (let i = 0; i < 60; i++) {
      const cpus = i % 7 === 0 ? [i % 48] : undefined;
      tasks.push(
        k.spawn({
          comm: `rt${i}`,
          policy: i % 5 === 0 ? "rr" : "fifo",
          rtPriority: prios[i % 3],
          cpu: i % 48,
          cpus,
          program: function* (t) {
            for (;;) {
              yield run(50_000 + Math.floor(t.random() * 400_000));
              yield sleep(100_000 + Math.floor(t.random() * 1_500_000));
            }
          },
        }),
      );
    }
    for (let i = 0; i < 24; i++) k.spawn({ comm: `cfs${i}`, program: hog, cpu: (i * 2) % 48 });
    for (let t = 10 * MS; t <= 200 * MS; t += 10 * MS) {
      k.runUntil(t);
      k.checkInvariants();
      checkRt(k);
    }
    assert.ok(
      tasks.every((t) => t.se.sumExecRuntime > 0),
      `${era}: every RT task ran`,
    );
    assert.ok(
      (k.counters.wakePlacement.rt_lowest ?? 0) > 0,
      `${era}: wakeups were placed by find_lowest_rq`,
    );
    const pullish =
      (k.counters.other.rt_pull_attempt ?? 0) + (k.counters.other.rt_tell_cpu_to_push ?? 0);
    assert.ok(pullish > 0, `${era}: CPUs going idle looked for RT work`);
  }
});
