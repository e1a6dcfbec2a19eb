import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder, topology, workload } from "../../src/index";

test("perfBenchPipe: bad options are refused with the field and accepted values named", () => {
  assert.throws(() => workload.perfBenchPipe({ loops: 0 }), /loops must be an integer from 1/);
  assert.throws(
    // @ts-expect-error: -T is a flag
    () => workload.perfBenchPipe({ threaded: "yes" }),
    /threaded must be true \(-T\) or false/,
  );
  assert.throws(
    // @ts-expect-error: perf's option is loops (-l/--loop)
    () => workload.perfBenchPipe({ loop: 10 }),
    /unknown option "loop" \(accepted: loops, threaded, cpus\)/,
  );
  // the source's default, LOOPS_DEFAULT
  assert.equal(workload.perfBenchPipe().params.loops, 1_000_000);
});

test("perfBenchPipe: prints perf's report; ops/sec and usecs/op agree with the total time", () => {
  for (const threaded of [false, true]) {
    const pipe = workload.perfBenchPipe({ loops: 3000, threaded });
    const m = topology("core2-2x2").workload(pipe).runSync().iteration("baseline", 0).metrics;
    assert.equal(m.finished, 1);
    assert.ok(Math.abs(m.usecs_per_op * 3000 - m.total_time_s * 1e6) < 1e-6);
    assert.equal(m.ops_per_sec, Math.trunc(3000 / m.total_time_s));
    const lines = pipe.format(m).split("\n");
    assert.equal(lines[0], "# Running 'sched/pipe' benchmark:");
    assert.equal(
      lines[1],
      `# Executed 3000 pipe operations between two ${threaded ? "threads" : "processes"}`,
    );
    assert.equal(lines[2], "");
    // " %14s: %lu.%03lu [sec]", " %14lf usecs/op", " %14d ops/sec"
    assert.match(lines[3], /^ {5}Total time: \d+\.\d{3} \[sec\]$/);
    assert.match(lines[5], /^ +\d+\.\d{6} usecs\/op$/);
    assert.equal(lines[5].length, " 12345678901234 usecs/op".length);
    assert.match(lines[6], /^ +\d+ ops\/sec$/);
    assert.equal(lines[6].length, " 12345678901234 ops/sec".length);
  }
});

test("perfBenchPipe: a costlier context switch makes every op slower", () => {
  const pipe = workload.perfBenchPipe({ loops: 3000 });
  const on = (contextSwitchNs: number) =>
    topology(machineBuilder().cores(2).costs({ contextSwitchNs }).build())
      .workload(pipe)
      .runSync()
      .iteration("baseline", 0).metrics;
  const cheap = on(1000);
  const dear = on(3000);
  assert.ok(
    dear.usecs_per_op > cheap.usecs_per_op + 1,
    `${dear.usecs_per_op} vs ${cheap.usecs_per_op}`,
  );
  assert.ok(dear.ops_per_sec < cheap.ops_per_sec);
});

test("perfBenchPipe: a run cut short says so", () => {
  const pipe = workload.perfBenchPipe({ loops: 100_000 });
  const m = topology("core2-2x2")
    .workload(pipe)
    .runSync({ duration: 0.01 })
    .iteration("baseline", 0).metrics;
  assert.equal(m.finished, 0);
  assert.ok(m.loops_done > 100 && m.loops_done < 100_000, `${m.loops_done}`);
  assert.ok(Math.abs(m.total_time_s - 0.01) < 1e-5, `${m.total_time_s}`);
  // per op over the loops completed: a round trip of a few usec, not 0.1 usec
  assert.ok(m.usecs_per_op > 1, `${m.usecs_per_op}`);
});
