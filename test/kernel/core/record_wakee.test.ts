// Who record_wakee charges, and when it runs at all: `current` on the waking CPU (the task an
// interrupt found running, for a wakeup from an hrtimer), only for wakees select_task_rq_fair
// places (4.8+: a task allowed on more than one CPU), for every fair wakee in 3.19
// (task_waking_fair), and never in 2.6.29. netperf's loopback wakeups run in the sender's softirq,
// so they are charged to the sender.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { run, sleep, wait, wake } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { boot } from "../boot";
import { netperfUdpStream } from "../../../src/workload/netperf";
import { runIteration } from "../../../src/experiment/run";
import { preset } from "../../../src/machine/presets";

const machine = () => machineBuilder().sockets(1).cores(4).build();

function sleeper(k: Kernel, comm: string, cpus: number[]): Task {
  return k.spawn({
    comm,
    cpu: cpus[0],
    cpus,
    program: function* () {
      for (;;) yield wait();
    },
  });
}

for (const era of ["3.19", "4.8", "5.19", "6.19"] as Era[]) {
  test(`${era}: a timer's wakeup is charged to the task the interrupt found running`, () => {
    const k = boot(machine(), era);
    // s sleeps on CPU 0 first; the hog then runs there when s's hrtimer fires
    const s = k.spawn({
      comm: "s",
      cpu: 0,
      cpus: [0, 1],
      program: function* () {
        yield sleep(2_000_000);
        yield wait();
      },
    });
    k.runUntil(100_000);
    const hog = k.spawn({
      comm: "hog",
      cpu: 0,
      cpus: [0],
      program: function* () {
        yield run(Infinity);
      },
    });
    k.runUntil(1_000_000);
    assert.equal(k.rqs[0].curr, hog);
    assert.equal(hog.wakeeFlips, 0);
    k.runUntil(5_000_000);
    assert.equal(s.stats.wakeups, 1, "s was woken by its timer");
    assert.equal(hog.lastWakee, s, "current on the timer's CPU was the hog");
    assert.equal(hog.wakeeFlips, 1);
  });
}

test("4.8+: a wakee pinned to one CPU is not recorded (select_task_rq skips the class); 3.19 records it in task_waking_fair; 2.6.29 never", () => {
  for (const [era, want] of [
    ["2.6.29", 0],
    ["3.19", 1],
    ["4.8", 0],
    ["5.19", 0],
  ] as const) {
    const k = boot(machine(), era);
    const pinned = sleeper(k, "pinned", [2]);
    const waker = k.spawn({
      comm: "waker",
      cpu: 0,
      cpus: [0],
      program: function* () {
        yield run(100_000);
        yield wake(pinned.pid);
        yield wait();
      },
    });
    k.runUntil(1_000_000);
    assert.equal(pinned.stats.wakeups, 1, `${era}: woken`);
    assert.equal(waker.wakeeFlips, want, `${era}: flips`);
  }
});

test("4.8 netperf UDP_STREAM: the softirq's wakeups of netserver are charged to netperf, in whose send they run", () => {
  const m = preset("xeon-x5472");
  const { kernel: k } = runIteration({
    machine: m,
    online: m.online,
    era: "4.8",
    patches: [],
    workload: netperfUdpStream({ seconds: 0.01, warmupSeconds: 0 }),
    variant: "v",
    iteration: 0,
    seed: "rw",
    durationNs: 10_000_000,
    warmupNs: 0,
    trace: false,
  });
  const netperf = k.tasks.find((t) => t.comm === "netperf")!;
  const netserver = k.tasks.find((t) => t.comm === "netserver")!;
  assert.ok(netserver.stats.wakeups > 10, `netserver woken ${netserver.stats.wakeups} times`);
  assert.equal(netperf.lastWakee, netserver);
  assert.equal(netperf.wakeeFlips, 1, "one wakee, one flip");
});
