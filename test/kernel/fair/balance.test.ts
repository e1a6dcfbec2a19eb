// Driving the balancer (src/kernel/fair/balance.ts) through a real Kernel: when newly-idle
// balancing runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { preset } from "../../../src/machine/presets";
import { run, sleep } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import { patch, type Patch } from "../../../src/patch/patch";

/** Newly-idle balance passes in 50 ms on core2-2x2 while cpu0 idles 50 us at a time and cpu1 is overloaded. */
function newidlePasses(era: Era, patches: Patch[] = []): number {
  const m = preset("core2-2x2");
  const k = buildKernel({ machine: m, online: m.online, era, patches, seed: "t", trace: false });
  for (const i of [0, 1])
    k.spawn({
      comm: `hog${i}`,
      cpu: 1,
      cpus: [1],
      program: function* () {
        yield run(Infinity);
      },
    });
  k.spawn({
    comm: "blip",
    cpu: 0,
    cpus: [0],
    program: function* () {
      for (;;) {
        yield run(50_000);
        yield sleep(50_000);
      }
    },
  });
  const count = (): number => {
    let passes = 0;
    for (const [key, s] of Object.entries(k.counters.balance))
      if (key.endsWith(".CPU_NEWLY_IDLE")) passes += s.passes;
    return passes;
  };
  // avg_idle starts at 2 * sched_migration_cost and takes a few ms to come down to ~50 us
  k.runUntil(50_000_000);
  const warm = count();
  k.runUntil(100_000_000);
  return count() - warm;
}

test("v5.16+: newidle balance is no longer skipped for an avg_idle under sched_migration_cost", () => {
  // cpu0's avg_idle settles near 50 us, under the 500 us sysctl_sched_migration_cost
  assert.equal(newidlePasses("5.10"), 0);
  const on = newidlePasses("5.19");
  assert.ok(on > 250, `5.19 newidle passes: ${on}`); // about one per 100 us sleep cycle
  assert.equal(newidlePasses("5.19", [patch("5.15 gate").feature("LB_NEWIDLE_COST", false)]), 0);
});
