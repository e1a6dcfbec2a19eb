import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder, topology, workload } from "../../src/index";
import { trialDivisions } from "../../src/workload/sysbench_cpu";

test("sysbenchCpu: bad options are refused with the field and accepted values named", () => {
  assert.throws(() => workload.sysbenchCpu({ threads: 0 }), /threads must be an integer from 1/);
  assert.throws(
    () => workload.sysbenchCpu({ cpuMaxPrime: 0 }),
    /cpuMaxPrime must be an integer from 1 to 1000000/,
  );
  assert.throws(() => workload.sysbenchCpu({ time: 1.5 }), /time must be an integer >= 0/);
  assert.throws(
    () => workload.sysbenchCpu({ time: 0 }),
    /time and maxRequests are both 0 \(an endless test\)/,
  );
  assert.throws(
    // @ts-expect-error: sysbench's option is threads, not numThreads
    () => workload.sysbenchCpu({ numThreads: 4 }),
    /unknown option "numThreads" \(accepted: threads, maxRequests, cpuMaxPrime, time, percentile/,
  );
});

test("sysbenchCpu: the event cost follows sb_cpu.c's trial divisions", () => {
  // c = 3..9 take 0 (sqrt 3 < 2), 1, 1, 1, 1, 1 and 2 (9 % 2, 9 % 3) divisions
  assert.equal(trialDivisions(10), 7);
  assert.equal(trialDivisions(10000), 117_526);
  assert.ok(trialDivisions(20000) > 2.5 * trialDivisions(10000));
});

test("sysbenchCpu: --events stops at exactly N events; format prints sysbench's report", () => {
  const sb = workload.sysbenchCpu({ threads: 2, maxRequests: 300, time: 0 });
  const it = topology("core2-2x2").workload(sb).runSync().iteration("baseline", 0);
  assert.equal(it.metrics.events, 300);
  assert.equal(it.metrics.finished, 1);
  // two threads on two idle CPUs: 150 events each, every one at the bare event cost
  assert.equal(it.metrics.fairness_events_avg, 150);
  assert.ok(Math.abs(it.metrics.lat_avg_ms - 0.83) < 0.01, `avg ${it.metrics.lat_avg_ms}`);
  const text = sb.format(it.metrics);
  const lines = text.split("\n");
  assert.equal(lines[1], "Number of threads: 2");
  assert.equal(lines[5], "Prime numbers limit: 10000");
  assert.match(text, /\nCPU speed:\n {4}events per second: +\d+\.\d\d\n/);
  assert.match(text, /\nGeneral statistics:\n {4}total time: {26}\d+\.\d{4}s\n/);
  assert.match(text, /\n {4}total number of events: {14}300\n/);
  // sysbench's "%39.2f" columns: every latency value ends at column 53
  for (const key of ["min", "avg", "max", "sum"]) {
    const line = lines.find((l) => l.startsWith(`         ${key}:`))!;
    assert.equal(line.length, 53, line);
  }
  const p95 = lines.find((l) => l.includes("95th percentile:"))!;
  assert.match(p95, /^ {9}95th percentile: +0\.83$/);
  assert.equal(p95.length, 53);
  assert.match(text, /\nThreads fairness:\n {4}events \(avg\/stddev\): {11}150\.0000\/0\.00\n/);
});

test("sysbenchCpu: a slower machine gives fewer events/s; more threads than CPUs, longer latency", () => {
  const sb = workload.sysbenchCpu({ threads: 4, time: 1 });
  const on = (cap: number, cores: number) =>
    topology(machineBuilder().cores(cores).capacity(cap).build())
      .workload(sb)
      .runSync()
      .iteration("baseline", 0).metrics;
  const fast = on(1024, 4);
  const slow = on(512, 4);
  assert.ok(
    slow.events_per_s < 0.55 * fast.events_per_s,
    `${slow.events_per_s} vs ${fast.events_per_s}`,
  );
  assert.ok(slow.lat_avg_ms > 1.9 * fast.lat_avg_ms);
  // four threads on two CPUs: events wait for a CPU, so the 95th percentile grows past the cost
  const crowded = on(1024, 2);
  assert.ok(
    crowded.lat_p95_ms > 2 * fast.lat_p95_ms,
    `${crowded.lat_p95_ms} vs ${fast.lat_p95_ms}`,
  );
});
