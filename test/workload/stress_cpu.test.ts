import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder, topology, workload } from "../../src/index";

test("stressCpu: bad options are refused with the field and accepted values named", () => {
  assert.throws(
    // @ts-expect-error: --cpu N is what starts the stressor
    () => workload.stressCpu({}),
    /cpu must be an integer from -1 to 4096 \(got undefined\)/,
  );
  assert.throws(
    () => workload.stressCpu({ cpu: 1, cpuLoad: 101 }),
    /cpuLoad must be an integer from 0 to 100/,
  );
  assert.throws(
    () => workload.stressCpu({ cpu: 1, cpuLoadSlice: 6000 }),
    /cpuLoadSlice must be an integer from -5000 to 5000/,
  );
  assert.throws(
    () => workload.stressCpu({ cpu: 1, cpuMethod: "primes" }),
    /cpuMethod must be "all" or one of ackermann, apery, .*prime, /,
  );
  assert.throws(
    // @ts-expect-error: stress-ng's option is cpuLoad (--cpu-load)
    () => workload.stressCpu({ cpu: 1, load: 50 }),
    /unknown option "load" \(accepted: cpu, cpuLoad, cpuLoadSlice, cpuMethod, timeout, cpus\)/,
  );
});

const metricsOn = (
  m: ReturnType<typeof machineBuilder> | string,
  params: Parameters<typeof workload.stressCpu>[0],
) => {
  const hog = workload.stressCpu(params);
  const exp = typeof m === "string" ? topology(m) : topology(m.build());
  return { hog, m: exp.workload(hog).runSync().iteration("baseline", 0).metrics };
};

test("stressCpu: prints stress-ng's metrics table; its columns line up with the header", () => {
  const { hog, m } = metricsOn("core2-2x2", { cpu: 2, cpuLoad: 50, timeout: 1 });
  const lines = hog.format(m).split("\n");
  assert.equal(lines[0], "stress-ng: info:  [1000] setting to a 1 sec run per stressor");
  assert.equal(lines[1], "stress-ng: info:  [1000] dispatching hogs: 2 cpu");
  assert.match(
    lines[2],
    /^stress-ng: metrc: \[1000\] stressor {7}bogo ops real time {2}usr time {2}sys time {3}bogo ops\/s {5}bogo ops\/s CPU used per {7}RSS Max$/,
  );
  assert.match(lines[3], /\(real time\) \(usr\+sys time\) instance \(%\) {10}\(KB\)$/);
  assert.match(
    lines[4],
    /^stress-ng: metrc: \[1000\] cpu {10,}\d+ +1\.00 +\d+\.\d\d +0\.00 +\d+\.\d\d +\d+\.\d\d +\d+\.\d\d +0$/,
  );
  // "%-13s %9.9s %9.9s %9.9s %9.9s %12s %14s %12.12s %13.13s": every row ends each column at
  // the same place, and a column's last character is never a blank
  const prefix = "stress-ng: metrc: [1000] ".length;
  let at = prefix + 13;
  const colEnds = [at];
  for (const w of [9, 9, 9, 9, 12, 14, 12, 13]) {
    at += 1 + w;
    colEnds.push(at);
  }
  for (const line of lines.slice(2, 5)) {
    assert.equal(line.length, colEnds.at(-1), line);
    for (const e of colEnds.slice(1)) assert.equal(line[e], e < line.length ? " " : undefined);
  }
  for (const e of colEnds.slice(1)) {
    assert.notEqual(lines[2][e - 1], " ");
    assert.notEqual(lines[4][e - 1], " ");
  }
  assert.equal(lines[5], "stress-ng: info:  [1000] successful run completed in 1.00 sec");
});

test("stressCpu: --cpu-load 50 keeps each instance busy half the time; bogo ops follow the normalised rate", () => {
  const { m } = metricsOn("core2-2x2", { cpu: 2, cpuLoad: 50, timeout: 2 });
  for (const w of ["load_w0", "load_w1"]) assert.ok(Math.abs(m[w] - 50) < 2, `${w} ${m[w]}`);
  // at capacity 1024 (the reference CPU) every method yields 1484.50 bogo ops per CPU second
  assert.ok(Math.abs(m.bogo_ops_per_s_cpu - 1484.5) < 15, `${m.bogo_ops_per_s_cpu}`);
  const full = metricsOn("core2-2x2", { cpu: 2, timeout: 1 }).m;
  assert.ok(full.load_w0 > 99.9 && full.cpu_used_per_instance_pct > 99.9);
  const idle = metricsOn("core2-2x2", { cpu: 2, cpuLoad: 0, timeout: 1 }).m;
  assert.equal(idle.bogo_ops, 0);
});

test("stressCpu: a slower machine gives fewer bogo ops; a crowded one misses the asked load", () => {
  const fast = metricsOn(machineBuilder().cores(4), { cpu: 2, cpuLoad: 50, timeout: 1 }).m;
  const slow = metricsOn(machineBuilder().cores(4).capacity(512), {
    cpu: 2,
    cpuLoad: 50,
    timeout: 1,
  }).m;
  assert.ok(
    slow.bogo_ops_per_s_real < 0.55 * fast.bogo_ops_per_s_real,
    `${slow.bogo_ops_per_s_real} vs ${fast.bogo_ops_per_s_real}`,
  );
  // the duty cycle is set in CPU time, so the asked load still holds on the slower CPUs
  assert.ok(Math.abs(slow.cpu_used_per_instance_pct - 50) < 3, `${slow.cpu_used_per_instance_pct}`);
  // eight instances asking 80% of four CPUs: 640% of 400%, so each gets at most half
  const crowded = metricsOn(machineBuilder().cores(4), { cpu: 8, cpuLoad: 80, timeout: 1 }).m;
  assert.ok(crowded.cpu_used_per_instance_pct < 51, `${crowded.cpu_used_per_instance_pct}`);
  assert.ok(crowded.cpu_used_per_instance_pct > 45, `${crowded.cpu_used_per_instance_pct}`);
});
