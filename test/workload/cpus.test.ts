// Every workload factory takes `cpus`, a cpulist as `taskset -c` takes it (src/workload/cpus.ts):
// every task the benchmark spawns or forks runs only there, and a bad list is refused naming it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { topology, workload } from "../../src/index";
import { durationOf, smallFactories } from "./factories";

test("with cpus '1,3' every task of every factory runs only on CPUs 1 and 3", () => {
  for (const [name, w] of Object.entries(smallFactories({ cpus: "1,3" }))) {
    assert.equal(w.params.cpus, "1,3", `${name} records cpus in its params`);
    const it = topology("core2-2x2")
      .workload(w)
      .runSync({ duration: durationOf(name), trace: true })
      .iteration("baseline", 0);
    const pids = new Set(it.tasks.filter((t) => t.role !== "kthread").map((t) => t.pid));
    assert.ok(pids.size > 0, name);
    const ran = new Set<number>();
    for (const r of it.trace ?? [])
      if (r.type === "sched_switch" && pids.has(r.nextPid)) ran.add(r.cpu);
    assert.ok(ran.size > 0, `${name} ran`);
    assert.deepEqual(
      [...ran].filter((c) => c !== 1 && c !== 3),
      [],
      `workload.${name} ran on CPUs ${[...ran].sort()}`,
    );
  }
});

test("a bad cpulist, or one beyond the machine, is refused naming the field", () => {
  for (const bad of ["1-", "a", "0,,2", ""])
    assert.throws(() => workload.sysbenchCpu({ cpus: bad }), /workload\.sysbenchCpu: cpus/, bad);
  assert.throws(
    () => workload.netperfTcpRr({ cpus: "3-1" }),
    /workload\.netperfTcpRr: cpus: range 3-1 runs backwards/,
  );
  assert.throws(
    () =>
      topology("core2-2x2")
        .workload(workload.schbench({ cpus: "0-7" }))
        .runSync({ duration: 0.01 }),
    /workload\.schbench: cpus 0-7: this machine has CPUs 0-3 \(got 4-7\)/,
  );
  assert.throws(
    () =>
      topology("core2-2x2")
        .workload(workload.netperfTcpRr({ cpus: "0", bind: [1, 2] }))
        .runSync({ duration: 0.01 }),
    /workload\.netperfTcpRr: cpus 0 leaves netserver no CPU \(it is bound to 2\)/,
  );
});
