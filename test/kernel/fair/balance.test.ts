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
  return blip(era, patches).passes;
}

/** newidlePasses, with the kernel it ran on. */
function blip(era: Era, patches: Patch[] = []) {
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
  return { k, passes: count() - warm };
}

test("v5.16+: newidle balance is no longer skipped for an avg_idle under sched_migration_cost", () => {
  // cpu0's avg_idle settles near 50 us, under the 500 us sysctl_sched_migration_cost
  assert.equal(newidlePasses("5.10"), 0);
  const on = newidlePasses("5.19");
  assert.ok(on > 250, `5.19 newidle passes: ${on}`); // about one per 100 us sleep cycle
  assert.equal(newidlePasses("5.19", [patch("5.15 gate").feature("LB_NEWIDLE_COST", false)]), 0);
});

test("v6.19 NI_RANDOM: newidle passes that never pull are rolled for less and less often", () => {
  // cpu1's hogs are pinned, so every newidle pass of cpu0 fails: each domain's newidle_ratio
  // falls from sd_init's 512 as its calls pass 1024 and halve, and the die skips more passes.
  const off = newidlePasses("6.19", [patch("no NI_RANDOM").feature("NI_RANDOM", false)]);
  const { k, passes } = blip("6.19");
  assert.ok(off > 250, `6.19 without NI_RANDOM: ${off}`);
  assert.ok(passes < off / 3, `6.19: ${passes} passes, ${off} without the die`);
  const skips = k.counters.other.newidle_ratio_skip ?? 0;
  assert.ok(skips > passes, `skipped ${skips}`);
  // by 100 ms each domain has passed 1024 calls once, none successful: 256 / 2 successes
  // left, ratio 256 (a 1 in 4 chance per roll from then on)
  for (const sd of k.domains.domains[0]) {
    const s = k.balancer.newidleRatio.stats(sd);
    assert.deepEqual([s.ratio, s.success], [256, 128], sd.level);
    assert.ok(s.call > 512 && s.call < 1024, `${sd.level}: newidle_call ${s.call}`);
  }
  // 6.6 has no die: as many passes as 6.19 without it would roll for
  assert.equal(blip("6.6").k.counters.other.newidle_ratio_skip, undefined);
});
