import { test } from "node:test";
import assert from "node:assert/strict";
import { patch, topology, workload, type Patch } from "../../src/index";
import { illegalHookResult } from "../../src/kernel/hook_checks";

const runWith = (p: Patch, w = workload.pingpong({ pairs: 2 })) =>
  topology("core2-2x2")
    .era("4.8")
    .offline(3)
    .workload(w)
    .patch(p)
    .runSync({ iterations: 1, duration: 0.02 });

const CASES: Array<[string, Patch, RegExp]> = [
  [
    "an offline CPU",
    patch("to-offline").replace("fair.select_task_rq", () => 3),
    /^hook fair\.select_task_rq \(patch "to-offline"\) returned cpu3, which is offline$/,
  ],
  [
    "a CPU outside the task's affinity",
    patch("outside").replace("fair.select_task_rq", () => 2),
    /^hook fair\.select_task_rq \(patch "outside"\) returned cpu2, outside the affinity of hog\d\/\d+ \(allowed: 0,1\)$/,
  ],
  [
    "a CPU number past the machine",
    patch("far").replace("fair.select_idle_sibling", () => 64),
    /returned 64, not a CPU \(accepted: an integer from 0 to 3\)/,
  ],
  [
    "NaN",
    patch("nan-slack").replace("fair.idle_imbalance_slack", () => Number.NaN),
    /^hook fair\.idle_imbalance_slack \(patch "nan-slack"\) returned NaN \(accepted: a finite number >= 0\)$/,
  ],
  [
    "a negative capacity",
    patch("neg").replace("topology.group_capacity", () => -5),
    /^hook topology\.group_capacity \(patch "neg"\) returned -5/,
  ],
  [
    "a non-boolean",
    patch("truthy").replace("fair.wake_wide", () => 1 as unknown as boolean),
    /^hook fair\.wake_wide \(patch "truthy"\) returned 1 \(accepted: true or false\)$/,
  ],
  [
    "an exception",
    patch("boom").replace("fair.wake_wide", () => {
      throw new Error("kaput");
    }),
    /^hook fair\.wake_wide \(patch "boom"\) threw: kaput$/,
  ],
];

for (const [name, p, re] of CASES) {
  test(`a replacement returning ${name} stops the run naming the hook, the patch and the value`, () => {
    // hogs allowed on cpus 0 and 1 go through select_task_rq at fork (nr_cpus_allowed > 1)
    const w = name.includes("affinity") ? workload.hogs({ n: 2, cpus: [0, 1] }) : undefined;
    assert.throws(
      () => runWith(p, w),
      (err: Error) => {
        assert.match(err.message, re);
        return true;
      },
    );
  });
}

test("legal answers pass, and an error from an inner replacement is not wrapped twice", () => {
  runWith(patch("prev").replace("fair.select_task_rq", (ctx) => ctx.prevCpu));
  const inner = patch("inner").replace("fair.wake_wide", () => {
    throw new Error("inner failed");
  });
  const outer = patch("outer").replace("fair.wake_wide", (ctx, base) => base(ctx));
  assert.throws(
    () =>
      topology("core2-2x2")
        .era("4.8")
        .workload(workload.pingpong({ pairs: 2 }))
        .patch(inner, outer)
        .runSync({ iterations: 1, duration: 0.02 }),
    /^Error: hook fair\.wake_wide \(patch "inner"\) threw: inner failed$/,
  );
});

test("find_lowest_rq may answer -1 (no CPU); hooks without a rule are not checked", () => {
  const k = { rqs: [{ online: true }, { online: false }] };
  assert.equal(illegalHookResult("rt.find_lowest_rq", -1, { k }), null);
  assert.match(illegalHookResult("rt.find_lowest_rq", 1, { k }) ?? "", /cpu1, which is offline/);
  assert.equal(illegalHookResult("fair.find_busiest_group", { anything: 1 }, { k }), null);
});
