// Idle-state limits (src/machine/idle_states.ts): idle("poll") as idle=poll, { maxState: N } as
// intel_idle.max_cstate=N, on the builder and on an Experiment of any machine (a preset too).
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder, topology, workload } from "../../src/index";

test("idle({ maxState }) keeps cpuidle states 0..N; idle('poll') leaves one polling state", () => {
  const box = topology("x86-104t");
  assert.deepEqual(
    box.machine().idleStates.map((s) => s.name),
    ["POLL", "C1", "C1E", "C6"],
  );
  const max1 = box.idle({ maxState: 1 }).machine();
  assert.deepEqual(
    max1.idleStates.map((s) => s.name),
    ["POLL", "C1"],
  );
  assert.equal(max1.sources["idle.C6.exitLatencyNs"], undefined, "no source for a state left out");
  assert.match(max1.sources.cpuidle, /intel_idle\.max_cstate=1/);
  const poll = box.idle("poll").machine();
  assert.deepEqual(poll.idleStates, [
    { name: "POLL", exitLatencyNs: 0, targetResidencyNs: 0, polling: true },
  ]);
  // the limit is part of the spec: the machine is recorded whole, not by its preset name
  const spec = box
    .idle("poll")
    .workload(workload.hogs({ n: 1, seconds: 0.01 }))
    .spec();
  assert.deepEqual((spec.machine as { idleStates: unknown }).idleStates, poll.idleStates);
  const built = machineBuilder().cores(2).profile("x86-server-2019").idle({ maxState: 2 }).build();
  assert.deepEqual(
    built.idleStates.map((s) => s.name),
    ["POLL", "C1", "C1E"],
  );
  assert.throws(
    () => box.idle({ maxState: 4 }),
    /idle\.maxState must be a cpuidle state index from 0 to 3 on x86-104t \(0 POLL, 1 C1, 2 C1E, 3 C6\) \(got 4\)/,
  );
});

test("with idle('poll') a pipe ping-pong pays no idle exit: round trips are shorter than with C6", () => {
  const base = topology("x86-104t")
    .era("5.19")
    .workload(workload.pingpong({ pairs: 1, seconds: 0.02 }));
  const rt = (e: typeof base) => e.runSync().mean("round_trip_us", "baseline");
  const deep = rt(base);
  const poll = rt(base.idle("poll"));
  assert.ok(poll < deep * 0.75, `poll ${poll} us vs deep ${deep} us`);
});
