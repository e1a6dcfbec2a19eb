// What each era contains (src/kernel/era_changes.ts): the listing is built from the code's own
// tables, every switched change is on in exactly the eras that list it, the page is fresh, and a
// folded-in change's switch turns it back (5.18's NUMA rule in find_idlest_group, e496132ebedd).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { ERA_CHANGES, eraChanges, erasMarkdown } from "../../src/kernel/era_changes";
import { ERAS, eraAtLeast, eraDefaults, type FeatureName } from "../../src/kernel/features";
import { FOLDED } from "../../src/kernel/features_folded";
import { findIdlestGroup5x, findIdlestGroupCtx } from "../../src/kernel/fair/wake/find_idlest";
import { SD_BALANCE_FORK, SD_NUMA } from "../../src/kernel/topology/sched_domain";
import { Task } from "../../src/kernel/sched";
import { machineBuilder } from "../../src/machine/builder";
import { run } from "../../src/kernel/ops";
import { patch } from "../../src/patch/patch";
import type { Era } from "../../src/kernel/features";
import { boot } from "./boot";

test("docs/eras.md is what the era tables generate (run scripts/eras-doc.ts after changing them)", () => {
  const page = fs.readFileSync(path.join(__dirname, "..", "..", "docs", "eras.md"), "utf8");
  assert.equal(page, erasMarkdown());
});

test("each folded-in switch is on from its release on, and listed in exactly those eras", () => {
  for (const [name, f] of Object.entries(FOLDED)) {
    const change = ERA_CHANGES.find(
      (c) => c.turnBack.kind === "feature" && name in c.turnBack.features,
    );
    assert.ok(change, `${name} is listed`);
    for (const era of ERAS) {
      const on = eraDefaults(era).features[name as FeatureName];
      assert.equal(on, eraAtLeast(era, f.since), `${name} in ${era}`);
      assert.equal(eraChanges(era).includes(change), on, `${name} listed in ${era}`);
    }
  }
});

test("every listed change names its release and commit, and a switch unless it says why not", () => {
  for (const era of ERAS)
    for (const c of eraChanges(era)) {
      assert.ok(eraAtLeast(era, c.release), `${c.commit} (${c.release}) in ${era}`);
      assert.ok(c.commit.length > 0 && c.what.length > 0);
      if (c.turnBack.kind === "feature")
        for (const [name, back] of Object.entries(c.turnBack.features))
          assert.notEqual(
            eraDefaults(era).features[name as FeatureName],
            back,
            `${name} in ${era}`,
          );
      if (c.turnBack.kind === "none") assert.ok(c.turnBack.why.length > 0);
    }
  const e519 = eraChanges("5.19");
  const numa = e519.filter((c) => c.commit === "e496132ebedd");
  assert.deepEqual(
    numa.map((c) => (c.turnBack.kind === "feature" ? Object.keys(c.turnBack.features) : [])),
    [["LB_IMB_NUMA_NR"], ["FIG_IMB_NUMA_NR"]],
  );
});

test("FIG_IMB_NUMA_NR: 5.19 forks to the idler node past imb_numa_nr; turned off (or 5.6) the local node keeps it while it has an idle CPU", () => {
  // two nodes of 4 CPUs; node 0 runs 5 tasks on CPUs 0-2 (CPU 3 idle), node 1 is idle
  const m = machineBuilder().sockets(2).nodes(2).cores(4).build();
  const pick = (era: Era, patches = [] as ReturnType<typeof patch>[]) => {
    const k = boot(m, era, "t", patches);
    const hog = (cpu: number, i: number) =>
      k.spawn({
        comm: `hog${cpu}.${i}`,
        cpu,
        cpus: [cpu],
        program: function* () {
          yield run(Infinity);
        },
      });
    hog(0, 0);
    hog(1, 0);
    hog(1, 1);
    hog(2, 0);
    hog(2, 1);
    k.runUntil(1_000_000);
    const sd = k.domains.domains[0].find((d) => (d.flags & SD_NUMA) !== 0)!;
    assert.ok(sd, "a NUMA domain");
    const child = new Task(999, "child", "child", function* () {}, m.cpus.length);
    return (
      findIdlestGroup5x(findIdlestGroupCtx(k, child, sd, 0, SD_BALANCE_FORK))?.cpus[0] ?? "local"
    );
  };
  assert.equal(pick("5.19"), 4, "5.19: 6 tasks on the node are past imb_numa_nr: the idle node");
  assert.equal(
    pick("5.19", [patch("no imb_numa_nr fork rule").feature("FIG_IMB_NUMA_NR", false)]),
    "local",
    "the 5.6 rule: the local node has an idle CPU",
  );
  assert.equal(pick("5.6"), "local");
});
