// repeat(): a fixed loop of operations stepped without a generator must behave exactly as the
// generator it replaces, op for op and lap for lap, on the iterator and in a run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { preset } from "../../src/index";
import { Channel } from "../../src/kernel/channel";
import { type Op, type Program, fork, recv, run, send, sleep } from "../../src/kernel/ops";
import { repeat } from "../../src/kernel/repeat";
import type { TaskApi } from "../../src/kernel/sched";
import { boot } from "./boot";

const MS = 1_000_000;

function fakeApi(): TaskApi & { laps: number } {
  const api = {
    pid: 1,
    comm: "t",
    laps: 0,
    now: () => 0,
    cpu: () => 0,
    random: () => 0,
    count: () => {
      api.laps++;
    },
    workDoneNs: () => 0,
  };
  return api;
}

test("repeat yields the first ops once, then the loop in order, calling lap after each pass", () => {
  const a = run(1);
  const b = sleep(2);
  const f = run(3);
  const api = fakeApi();
  const it = repeat([a, b], { first: [f], lap: (t) => t.count("x") })(api);
  const seen: Op[] = [];
  const lapsBefore: number[] = [];
  for (let i = 0; i < 7; i++) {
    const r = it.next();
    assert.equal(r.done, false);
    seen.push(r.value as Op);
    lapsBefore.push(api.laps);
  }
  assert.deepEqual(seen, [f, a, b, a, b, a, b]);
  // lap runs when the program resumes after a pass's last op, before the next pass's first
  assert.deepEqual(lapsBefore, [0, 0, 0, 1, 1, 2, 2]);
  assert.deepEqual(it.return(undefined), { done: true, value: undefined });
  assert.equal(it.next().done, true);
});

test("repeat rejects an empty loop with an error naming the argument", () => {
  assert.throws(() => repeat([]), /repeat: ops must be a non-empty array/);
});

test("repeat's ops are copied: changing the caller's array afterwards changes nothing", () => {
  const ops = [run(1)];
  const prog = repeat(ops);
  ops.push(sleep(5));
  const it = prog(fakeApi());
  assert.equal((it.next().value as Op).op, "run");
  assert.equal((it.next().value as Op).op, "run");
});

/** A pipe ping-pong pair on a 4-CPU box, its programs made by `make`; the run's per-task record. */
function pingpongRun(make: (ab: Channel, ba: Channel, lap: (t: TaskApi) => void) => Program[]) {
  const k = boot(preset("core2-2x2"), "5.19");
  const ab = new Channel("ab", "pipe", 65536);
  const ba = new Channel("ba", "pipe", 65536);
  const [parent, child] = make(ab, ba, (t) => t.count("laps"));
  const p = k.spawn({ comm: "p", program: parent });
  const c = k.spawn({ comm: "c", program: child });
  k.runUntil(20 * MS);
  k.flushAccounting();
  k.checkInvariants();
  return [p, c].map((t) => ({
    cpu: t.cpu,
    laps: t.counters.laps ?? 0,
    runtime: t.se.sumExecRuntime,
    switches: t.stats.nvcsw,
    events: k.events,
  }));
}

test("a ping-pong pair written with repeat runs exactly as the same pair written as generators", () => {
  const gens = pingpongRun((ab, ba, lap) => [
    function* (t) {
      for (;;) {
        yield send(ab, 8);
        yield recv(ba);
        yield run(200);
        lap(t);
      }
    },
    function* (t) {
      for (;;) {
        yield recv(ab);
        yield send(ba, 8);
        lap(t);
      }
    },
  ]);
  const reps = pingpongRun((ab, ba, lap) => [
    repeat([send(ab, 8), recv(ba), run(200)], { lap }),
    repeat([recv(ab), send(ba, 8)], { lap }),
  ]);
  assert.ok(gens[0].laps > 1000, `only ${gens[0].laps} round trips`);
  assert.deepEqual(reps, gens);
});

test("repeat's first ops run before the loop: a forked child starts once", () => {
  const k = boot(preset("core2-2x2"), "5.19");
  const p = k.spawn({
    comm: "parent",
    program: repeat([run(MS), sleep(MS)], {
      first: [fork({ comm: "child", program: repeat([run(MS), sleep(3 * MS)]) })],
    }),
  });
  k.runUntil(10 * MS);
  k.checkInvariants();
  const children = k.tasks.filter((t) => t.comm === "child");
  assert.equal(children.length, 1);
  assert.ok(p.se.sumExecRuntime > 3 * MS);
  assert.ok(children[0].se.sumExecRuntime > 1 * MS);
});
