// The blocked load of idle CPUs (src/kernel/fair/nohz_blocked.ts, balance.ts): what the
// balancer reads of another CPU, and when the idle CPUs' averages are decayed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { boot } from "../boot";
import { preset } from "../../../src/machine/presets";
import { run, sleep } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import { NohzBlockedLoad } from "../../../src/kernel/fair/nohz_blocked";

const MS = 1_000_000;

/**
 * core2-2x2 (4 CPUs, one LLC per socket pair): a hog on cpu0, and on cpu2 a task that runs 50 ms
 * and then sleeps for good, leaving its load and util on cpu2's cfs_rq as blocked load.
 */
function blockedLoadKernel(era: Era): Kernel {
  const k = boot(preset("core2-2x2"), era);
  k.spawn({
    comm: "hog",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(Infinity);
    },
  });
  k.spawn({
    comm: "sleeper",
    cpu: 2,
    cpus: [2],
    program: function* () {
      yield run(50 * MS);
      yield sleep(10_000 * MS);
    },
  });
  return k;
}

test("5.19: the balancer reads an idle CPU's cfs_rq averages as last updated, without decaying them", () => {
  const k = blockedLoadKernel("5.19");
  k.runUntil(51 * MS);
  const avg = k.rqs[2].cfs.avg;
  const before = { t: avg.lastUpdateTime, util: avg.utilAvg, load: avg.loadAvg };
  assert.ok(before.util > 0 && before.load > 0, "the sleeper left blocked load");
  k.now += 0.2 * MS; // later, before anything else runs
  const v = k.lbRq(2);
  assert.equal(v.cfsUtilAvg, before.util);
  assert.equal(v.cfsLoadAvg, before.load);
  assert.equal(avg.lastUpdateTime, before.t, "reading does not update");
});

test("5.19: a busy CPU's tick kicks a statistics pass every LOAD_AVG_PERIOD while idle CPUs keep blocked load", () => {
  const k = blockedLoadKernel("5.19");
  k.runUntil(60 * MS);
  const util60 = k.rqs[2].cfs.avg.utilAvg;
  const kicks60 = k.counters.other.nohz_stats_kick ?? 0;
  assert.ok(kicks60 >= 1, "a first pass soon after cpu2 idles");
  k.runUntil(260 * MS);
  const kicks = (k.counters.other.nohz_stats_kick ?? 0) - kicks60;
  // one pass per 32 ms plus the jiffy at which the next one becomes due: 200 / 33 ~ 6
  assert.ok(kicks >= 5 && kicks <= 7, `statistics kicks in 200 ms: ${kicks}`);
  assert.equal(k.counters.other.nohz_kick ?? 0, 0, "one busy CPU: no balance kick");
  const util = k.rqs[2].cfs.avg.utilAvg;
  assert.ok(util < util60 / 8, `cpu2's blocked util decays: ${util60} -> ${util}`);
});

test("4.8 has no statistics kick (v4.17): an idle CPU's blocked load stays until it balances", () => {
  const k = blockedLoadKernel("4.8");
  k.runUntil(260 * MS);
  assert.equal(k.counters.other.nohz_stats_kick, undefined);
});

test("update_nohz_stats: at most one update of a CPU per jiffy unless forced (before v5.13)", () => {
  const k = blockedLoadKernel("5.19");
  k.runUntil(60 * MS);
  const jiffy = 1e9 / k.tunables.hz;
  const nb = new NohzBlockedLoad(k, k.tunables.hz);
  const rq = k.rqs[2];
  assert.equal(
    nb.updateNohzStats(rq, false),
    false,
    "no blocked load recorded yet (no tick stop seen)",
  );
  // a tick stop (nohz_balance_enter_idle) marks the CPU as carrying blocked load
  for (const h of k.tickStopHooks.slice(-1)) h(rq);
  assert.equal(nb.hasBlocked, true);
  const jiffyStart = Math.ceil(k.now / jiffy) * jiffy;
  k.now = jiffyStart + 0.1 * jiffy;
  assert.equal(nb.updateNohzStats(rq, false), true);
  const t1 = rq.cfs.avg.lastUpdateTime;
  k.now = jiffyStart + 0.6 * jiffy; // same jiffy
  assert.equal(nb.updateNohzStats(rq, false), true, "skipped, still counted as blocked");
  assert.equal(rq.cfs.avg.lastUpdateTime, t1);
  nb.updateNohzStats(rq, true);
  assert.ok(rq.cfs.avg.lastUpdateTime > t1, "forced");
  k.now = jiffyStart + 1.2 * jiffy; // next jiffy
  const t2 = rq.cfs.avg.lastUpdateTime;
  nb.updateNohzStats(rq, false);
  assert.ok(rq.cfs.avg.lastUpdateTime > t2);
});
