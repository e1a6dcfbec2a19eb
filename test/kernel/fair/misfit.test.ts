// update_misfit_status (4.20+) on a big.LITTLE machine: a busy task on a little CPU that could run
// on a big one makes its runqueue misfit; 6.10+ does not flag a task whose affinity has no bigger
// CPU; eras before asymmetry detection never flag anything.
import { test } from "node:test";
import assert from "node:assert/strict";
import { run } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import { bigLittleKernel } from "../../support/big_little";

function kernel(era: Era): Kernel {
  const k = bigLittleKernel(era);
  const hog = function* () {
    yield run(Infinity);
  };
  // a: little CPUs only; b: little cpu2 or big cpu6, which c keeps busy; d: on a big CPU
  k.spawn({ comm: "a", cpu: 1, cpus: [0, 1, 2, 3], program: hog });
  k.spawn({ comm: "b", cpu: 2, cpus: [2, 6], program: hog });
  k.spawn({ comm: "c", cpu: 6, cpus: [6], program: hog });
  k.spawn({ comm: "d", cpu: 4, cpus: [4, 5], program: hog });
  k.runUntil(200_000_000);
  return k;
}

test("misfit: a busy task on a little CPU with a big CPU in its affinity; 6.10+ not where nothing bigger is allowed; none before 5.0", () => {
  for (const era of ["4.8", "5.6", "5.19", "6.19"] as Era[]) {
    const k = kernel(era);
    const comm = (cpu: number) => k.rqs[cpu].curr?.comm;
    assert.equal(comm(2), "b", era);
    const flagged = era !== "4.8";
    assert.equal(k.rqs[2].misfitTaskLoad > 0, flagged, `${era}: cpu2 (b)`);
    assert.equal(k.rqs[6].misfitTaskLoad, 0, `${era}: c is pinned`);
    // d saturates a big CPU (util ~1024 does not fit 80% of 1024): 5.x still flags it; 6.10+
    // does not, the CPU being the largest its affinity allows.
    const dCpu = comm(4) === "d" ? 4 : 5;
    assert.equal(k.rqs[dCpu].misfitTaskLoad > 0, flagged && era !== "6.19", `${era}: d`);
    // a may run only on little CPUs: 6.10+ knows no CPU would fit it better
    const aCpu = [0, 1, 3].find((c) => comm(c) === "a");
    assert.ok(aCpu !== undefined, `${era}: a runs on a little CPU`);
    assert.equal(
      k.rqs[aCpu].misfitTaskLoad > 0,
      flagged && era !== "6.19",
      `${era}: a on cpu${aCpu}`,
    );
  }
});
