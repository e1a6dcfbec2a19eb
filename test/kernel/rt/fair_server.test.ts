// The v6.12+ fair server (src/kernel/rt/fair_server.ts): a deferred deadline server that gives
// fair tasks starved by RT ones dl_runtime (50 ms) per dl_period (1000 ms), at the end of it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { patch } from "../../../src/index";
import type { Patch } from "../../../src/index";
import { MS, hog, kernel as kernel619, ms, rtAndCfs, runChecked } from "./hog_pair_fixture";
import type { Kernel } from "../../../src/kernel/core/core";
import { run, sleep } from "../../../src/kernel/ops";

const off = patch("no fair server").tunable("fair_server_runtime_ns", 0);
const kernel = (patches: Patch[] = []): Kernel => kernel619("6.19", patches);

test("a FIFO hog leaves a CFS hog on its CPU 50 ms per 1000 ms period, at the end of it", () => {
  const k = kernel();
  const { r, c } = rtAndCfs(k);
  const at = (t: number) => {
    runChecked(k, t * MS);
    return ms(c);
  };
  // Deferred: the server waits for its zero-laxity time, 950 ms into the period that started
  // when the CFS hog was queued, before it preempts the FIFO task.
  assert.equal(at(940), 0, "the CFS hog runs before the zero-laxity time");
  // Then 50 ms above RT; the throttle is noticed at the tick (no HRTICK), so a slice runs up to a
  // tick (1 ms at HZ 1000) past the runtime, and that overrun comes off the next period's.
  const first = at(1010);
  assert.ok(first >= 50 && first <= 51.5, `first slice ${first} ms`);
  assert.equal(at(1940), first, "throttled until the next period");
  // From then on it is not deferred again: each replenishment runs it at once.
  const second = at(2010) - first;
  assert.ok(second >= 49 && second <= 51, `second slice ${second} ms`);
  const total = at(3000);
  assert.ok(total >= 148 && total <= 152, `cfs ran ${total} ms in 3 s`);
  assert.ok(Math.abs(ms(r) + total - 3000) < 1, `rt ${ms(r)} + cfs ${total} ms`);
  assert.equal(k.counters.other.fair_server_timer, 3, "one timer event per period");
});

test("with fair_server_runtime_ns = 0 (the server off) the FIFO hog starves the CFS hog", () => {
  const k = kernel([off]);
  const { r, c } = rtAndCfs(k);
  runChecked(k, 2100 * MS);
  assert.equal(ms(c), 0);
  assert.ok(ms(r) > 2099);
  assert.equal(k.counters.other.fair_server_timer, undefined);
});

/** Everything a run leaves behind that a change could show in. */
function fingerprint(k: Kernel): string {
  return JSON.stringify({
    events: k.events,
    counters: k.counters,
    tasks: k.tasks.map((p) => [p.comm, p.cpu, p.se.sumExecRuntime, p.stats]),
    overhead: Array.from(k.overheadNs),
  });
}

/** CFS tasks that run and sleep across the machine, and optionally an RT task that sleeps often. */
function mixed(k: Kernel, rt: boolean): void {
  for (let i = 0; i < 6; i++) {
    k.spawn({
      comm: `w${i}`,
      program: function* () {
        for (;;) {
          yield run((1 + i) * 0.7 * MS);
          yield sleep((3 - (i % 3)) * 0.9 * MS);
        }
      },
    });
  }
  k.spawn({ comm: "c", program: hog, cpu: 0, cpus: [0] });
  if (rt) {
    // 9 ms of every 10 on cpu0: 900 ms of RT time per second, under the 950 that would starve CFS
    k.spawn({
      comm: "r",
      policy: "fifo",
      rtPriority: 10,
      cpu: 0,
      cpus: [0],
      program: function* () {
        for (;;) {
          yield run(9 * MS);
          yield sleep(1 * MS);
        }
      },
    });
  }
}

test("without RT starvation the fair server changes nothing: CFS only, and an RT task that sleeps", () => {
  for (const rt of [false, true]) {
    const runs = [[], [off]].map((patches) => {
      const k = kernel(patches);
      mixed(k, rt);
      runChecked(k, 3000 * MS);
      return k;
    });
    assert.equal(
      fingerprint(runs[0]),
      fingerprint(runs[1]),
      `rt ${rt}: the server changed the run`,
    );
    assert.equal(runs[0].counters.other.fair_server_timer, undefined, `rt ${rt}: a timer event`);
    const c = runs[0].tasks.find((p) => p.comm === "c")!;
    if (rt) assert.ok(ms(c) > 250, `rt ${rt}: cfs ran ${ms(c)} ms beside the RT task`);
  }
});

test("the server stops when its fair tasks are gone, and starts again for a new one", () => {
  const k = kernel();
  k.spawn({ comm: "r", program: hog, policy: "fifo", rtPriority: 50, cpu: 0, cpus: [0] });
  // a CFS task that needs 20 ms of CPU, then exits
  const short = k.spawn({
    comm: "s",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(20 * MS);
    },
  });
  runChecked(k, 1500 * MS);
  assert.ok(Math.abs(ms(short) - 20) < 0.5, `the short task ran ${ms(short)} ms`);
  assert.equal(k.rt.fs.state[0], 0, "stopped once it found no fair task");
  // A new CFS hog at 1.5 s: a new period from then, deferred to its zero-laxity time.
  const c = k.spawn({ comm: "c", program: hog, cpu: 0, cpus: [0] });
  runChecked(k, 2440 * MS);
  assert.equal(ms(c), 0, "the new task waits for the zero-laxity time");
  runChecked(k, 2510 * MS);
  assert.ok(ms(c) >= 50 && ms(c) <= 51.5, `it then runs ${ms(c)} ms`);
});

test("determinism: two runs with a starved CFS task, a sleeping RT task and CFS load agree", () => {
  const runs = [0, 1].map(() => {
    const k = kernel();
    mixed(k, true);
    k.spawn({ comm: "h", program: hog, policy: "fifo", rtPriority: 60, cpu: 1, cpus: [1] });
    k.spawn({ comm: "c1", program: hog, cpu: 1, cpus: [1] });
    runChecked(k, 2500 * MS);
    return k;
  });
  assert.equal(fingerprint(runs[0]), fingerprint(runs[1]));
  assert.ok((runs[0].counters.other.fair_server_timer ?? 0) >= 2);
});
