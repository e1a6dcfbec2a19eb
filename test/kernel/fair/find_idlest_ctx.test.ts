// fair.find_idlest_group's context carries the statistics the kernel function gathers
// (update_sg_wakeup_stats' struct sg_lb_stats per group), so a replacement need not recompute
// idle CPUs and nr_running from k.rqs (src/kernel/fair/wake/find_idlest.ts findIdlestGroupCtx).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  fork,
  machineBuilder,
  patch,
  run,
  SD_BALANCE_FORK,
  SD_NUMA,
  topology,
  type FindIdlestGroupStats,
} from "../../../src/index";

test("find_idlest_group's context gives each group's idle CPUs, nr_running, load, util, capacity and type", () => {
  const seen: Array<{ flags: number; stats: readonly FindIdlestGroupStats[]; busy: number[] }> = [];
  const spy = patch("spy").replace("fair.find_idlest_group", (ctx, base) => {
    if (ctx.sdFlag === SD_BALANCE_FORK)
      seen.push({
        flags: ctx.sd.flags,
        stats: ctx.groupStats(),
        busy: ctx.k.rqs.map((rq) => rq.nrRunning),
      });
    return base(ctx);
  });
  const m = machineBuilder().sockets(2).nodes(2).cores(4).build();
  topology(m)
    .era("6.19")
    .patch(spy)
    .workload({
      name: "forker",
      params: {},
      defaultDurationNs: 3e6,
      defaultWarmupNs: 0,
      setup(ctx) {
        for (const cpu of [1, 2])
          ctx.spawn({
            comm: `hog${cpu}`,
            cpu,
            cpus: [cpu],
            program: function* () {
              yield run(Infinity);
            },
          });
        ctx.spawn({
          comm: "parent",
          cpu: 0,
          cpus: [0],
          program: function* () {
            yield run(1_000_000);
            yield fork({
              comm: "child",
              program: function* () {
                yield run(100_000);
              },
            });
            yield run(Infinity);
          },
        });
        return { metrics: () => ({}) };
      },
    })
    .runSync();
  const numa = seen.find((s) => (s.flags & SD_NUMA) !== 0);
  assert.ok(numa, "the fork searched the NUMA level");
  assert.deepEqual(
    numa.stats.map((g) => [
      g.local,
      g.group.cpus.join(","),
      g.idleCpus,
      g.sumNrRunning,
      g.groupWeight,
    ]),
    [
      [true, "0,1,2,3", 1, 3, 4], // parent, hog1, hog2 running; cpu3 idle
      [false, "4,5,6,7", 4, 0, 4],
    ],
  );
  const [local, remote] = numa.stats;
  assert.equal(
    local.sumNrRunning,
    numa.busy.slice(0, 4).reduce((a, b) => a + b, 0),
  );
  assert.ok(local.groupUtil > remote.groupUtil, "the busy node carries util");
  assert.equal(local.groupCapacity, 4 * 1024);
  assert.equal(remote.groupType, "group_has_spare");
});
