// Bad input through the API, table-driven: each case must fail with an error that names the field
// (or the thing) and what is accepted. The CLI's table is in test/cli.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { patch, topology, workload, type Experiment } from "../../src/index";

const hog = () => workload.hogs({ n: 1 });
const box = (): Experiment => topology("core2-2x2").workload(hog());
const tiny = { iterations: 1, duration: 0.01 };

const CASES: Array<[string, () => unknown, RegExp]> = [
  ["unknown preset", () => topology("nobox"), /unknown machine "nobox"; accepted: core2-2x2/],
  [
    "unknown era",
    () => topology("core2-2x2").era("3.0" as never),
    /era must be one of 2\.6\.29, .*6\.19 \(got "3\.0"\)/,
  ],
  [
    "unknown hook",
    () => patch("p").replace("nope.hook" as never, () => 1),
    /patch "p": unknown hook "nope\.hook" \(accepted: .*fair\./,
  ],
  [
    "unknown feature",
    () => patch("p").feature("NOPE" as never, true),
    /unknown feature "NOPE" \(accepted: .*START_DEBIT/,
  ],
  [
    "unknown tunable in a patch",
    () => patch("p").tunable("nope" as never, 1),
    /unknown tunable "nope" \(accepted: hz,/,
  ],
  [
    "unknown tunable on an experiment",
    () => box().tunables({ nope: 1 }),
    /^tunables: unknown tunable "nope" \(accepted: hz,/,
  ],
  [
    "hz 0",
    () => box().tunables({ hz: 0 }),
    /tunables: tunable hz must be a positive integer \(got 0\)/,
  ],
  [
    "tunable NaN",
    () => box().tunables({ sched_latency_ns: Number.NaN }),
    /sched_latency_ns must be a finite number >= 0 \(got NaN\)/,
  ],
  [
    "sched_rt_runtime_us below -1 (only -1, RUNTIME_INF, is negative)",
    () => box().tunables({ sched_rt_runtime_us: -2 }),
    /tunable sched_rt_runtime_us must be a finite number >= 0 or -1 \(RUNTIME_INF\) \(got -2\)/,
  ],
  [
    "sched_rt_period_us 0",
    () => box().tunables({ sched_rt_period_us: 0 }),
    /tunable sched_rt_period_us must be >= 1 \(got 0\)/,
  ],
  [
    "fair_server_period_ns 0",
    () => box().tunables({ fair_server_period_ns: 0 }),
    /tunable fair_server_period_ns must be >= 1 \(got 0\)/,
  ],
  [
    "zero hogs",
    () => workload.hogs({ n: 0 }),
    /workload\.hogs: n must be an integer from 1 to 100000 \(got 0\)/,
  ],
  [
    "fractional hogs",
    () => workload.hogs({ n: 1.5 }),
    /n must be an integer from 1 to 100000 \(got 1\.5\)/,
  ],
  [
    "nice out of range",
    () => workload.hogs({ n: 1, nice: [30] }),
    /nice\[0\] must be an integer from -20 to 19 \(got 30\)/,
  ],
  [
    "unknown workload option",
    () => workload.hogs({ n: 1, bogus: 1 } as never),
    /workload\.hogs: unknown option "bogus" \(accepted: n, nice, cpus, seconds, warmupSeconds\)/,
  ],
  [
    "workload options not an object",
    () => workload.pingpong(3 as never),
    /workload\.pingpong: expected an options object \(got 3\)/,
  ],
  [
    "zero pairs",
    () => workload.pingpong({ pairs: 0 }),
    /pairs must be an integer from 1 to 100000 \(got 0\)/,
  ],
  [
    "zero sched-fair children",
    () => workload.schedFair({ children: 0, loopNs: 1e6 }),
    /workload\.schedFair: children must be an integer from 1 to 10000 \(got 0\)/,
  ],
  [
    "negative run length",
    () => workload.hogs({ n: 1, seconds: -1 }),
    /workload\.hogs: seconds must be a finite number > 0 \(got -1\)/,
  ],
  ["offline cpu0", () => topology("core2-2x2").offline(0), /offline: cpu0 cannot be taken offline/],
  [
    "non-integer CPU id",
    () => topology("core2-2x2").offline(1.5),
    /offline: cpu must be an integer from 0 to 3 \(got 1\.5\)/,
  ],
  [
    "CPU id past the machine",
    () => topology("core2-2x2").offline(9),
    /offline: cpu must be an integer from 0 to 3 \(got 9\)/,
  ],
  [
    "affinity to no online CPU",
    () =>
      topology("core2-2x2")
        .offline(3)
        .workload(workload.hogs({ n: 1, cpus: [3] }))
        .runSync(tiny),
    /task hog0\/\d+: no online CPU in its affinity mask/,
  ],
  [
    "duration 0",
    () => box().runSync({ duration: 0 }),
    /run: duration must be a positive number of seconds \(got 0\)/,
  ],
  [
    "duration negative",
    () => box().runSync({ duration: -1 }),
    /duration must be a positive number of seconds \(got -1\)/,
  ],
  [
    "duration NaN",
    () => box().runSync({ duration: Number.NaN }),
    /duration must be a positive number of seconds \(got NaN\)/,
  ],
  [
    "duration Infinity",
    () => box().runSync({ duration: Number.POSITIVE_INFINITY }),
    /duration must be a positive number of seconds \(got Infinity\)/,
  ],
  [
    "iterations 0",
    () => box().runSync({ iterations: 0 }),
    /run: iterations must be a positive integer \(got 0\)/,
  ],
  [
    "warmup negative",
    () => box().runSync({ warmup: -1 }),
    /run: warmup must be a number of seconds >= 0 \(got -1\)/,
  ],
  [
    "no workload",
    () => topology("core2-2x2").runSync(tiny),
    /run: no workload; call \.workload\(\.\.\.\) first/,
  ],
  [
    "zero sockets",
    () => topology().sockets(0).cores(2).workload(hog()).runSync(tiny),
    /topology: sockets must be a positive integer \(got 0\)/,
  ],
  [
    "fractional threads",
    () => topology().cores(2).threads(1.5).workload(hog()).runSync(tiny),
    /threads/,
  ],
];

for (const [name, fn, re] of CASES) {
  test(`bad input: ${name}`, () => {
    assert.throws(fn, (err: Error) => {
      assert.match(err.message, re);
      return true;
    });
  });
}
