// What a trace says each task did (src/analysis/trace_replay.ts): bursts summed over preemptions,
// blocks and who ended them, wakeups and forks at their point of the waker's run time, interrupt
// wakeups as timed, a parent woken after its child's sched_process_exit, a waking seen before the
// switch-out of its block, and a wakeup ttwu_runnable absorbed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { importTraceText } from "../../src/analysis/trace_import";
import { boundCpuOf, replayPlan, type ReplayStep } from "../../src/analysis/trace_replay";

const sw = (
  comm: string,
  pid: number,
  cpu: number,
  t: number,
  st: string,
  next: string,
  npid: number,
) =>
  `  ${comm}-${pid} [00${cpu}] d..2. ${t.toFixed(6)}: sched_switch: prev_comm=${comm} prev_pid=${pid} prev_prio=120 prev_state=${st} ==> next_comm=${next} next_pid=${npid} next_prio=120`;
const waking = (
  cur: string,
  cpu: number,
  t: number,
  flags: string,
  comm: string,
  pid: number,
  target: number,
) =>
  `  ${cur} [00${cpu}] ${flags} ${t.toFixed(6)}: sched_waking: comm=${comm} pid=${pid} prio=120 target_cpu=00${target}`;
const plan = (lines: string[]) => {
  const tr = importTraceText(lines.join("\n"));
  assert.equal(tr.badCount, 0, JSON.stringify(tr.bad));
  return replayPlan(tr.records, tr.nrCpus);
};
const steps = (p: ReturnType<typeof plan>, pid: number): ReplayStep[] =>
  p.tasks.find((t) => t.pid === pid)!.steps;
const US = 1000;

test("a ping-pong: each task's bursts, its block, who woke it and at which point of the waker's run", () => {
  const p = plan([
    // a (pid 10) runs on CPU 0 from 1.000000; b (pid 11) is asleep
    sw("swapper/0", 0, 0, 1.0, "R", "a", 10),
    waking("a-10", 0, 1.00003, "d..3.", "b", 11, 1),
    sw("swapper/1", 0, 1, 1.000035, "R", "b", 11),
    sw("a", 10, 0, 1.00005, "S", "swapper/0", 0),
    waking("b-11", 1, 1.00009, "d..3.", "a", 10, 0),
    sw("swapper/0", 0, 0, 1.000095, "R", "a", 10),
    sw("b", 11, 1, 1.0001, "S", "swapper/1", 0),
  ]);
  assert.deepEqual(steps(p, 10), [
    { op: "run", ns: 30 * US },
    { op: "wake", pid: 11, t: 1.00003e9 },
    { op: "run", ns: 20 * US },
    { op: "block", t: 1.00005e9, wokeAt: 1.00009e9, by: 11 },
    // runs to the trace's end
    { op: "run", ns: 5 * US },
  ]);
  const b = p.tasks.find((t) => t.pid === 11)!;
  assert.equal(b.origin, "blocked");
  assert.deepEqual(b.steps, [
    { op: "block", t: 1e9, wokeAt: 1.00003e9, by: 10 },
    { op: "run", ns: 55 * US },
    { op: "wake", pid: 10, t: 1.00009e9 },
    { op: "run", ns: 10 * US },
    { op: "block", t: 1.0001e9, wokeAt: null, by: null },
  ]);
  assert.equal(b.cpuNs, 65 * US);
});

test("a preemption does not end a burst; a wakeup in an interrupt or from idle is timed (no waker)", () => {
  const p = plan([
    sw("swapper/0", 0, 0, 2.0, "R", "a", 10),
    sw("a", 10, 0, 2.00001, "R", "c", 12), // preempted by c
    sw("c", 12, 0, 2.00002, "S", "a", 10),
    sw("a", 10, 0, 2.00004, "S", "swapper/0", 0),
    waking("a-10", 0, 2.00006, "d.h3.", "a", 10, 0), // a hardirq wakes a
    waking("<idle>-0", 1, 2.00007, "d..3.", "c", 12, 1), // from idle
    sw("swapper/0", 0, 0, 2.00008, "R", "a", 10),
  ]);
  assert.deepEqual(steps(p, 10).slice(0, 2), [
    { op: "run", ns: 30 * US },
    { op: "block", t: 2.00004e9, wokeAt: 2.00006e9, by: null },
  ]);
  assert.deepEqual(steps(p, 12), [
    { op: "run", ns: 10 * US },
    { op: "block", t: 2.00002e9, wokeAt: 2.00007e9, by: null },
  ]);
  assert.equal(p.notes["wakeup from irq"], 1);
  assert.equal(p.notes["wakeup from idle"], 1);
});

test("fork and exit: the child is the parent's step; exit_notify's wakeup of the parent comes before the exit", () => {
  const p = plan([
    sw("swapper/0", 0, 0, 3.0, "R", "sh", 20),
    "  sh-20 [000] ..... 3.000010: sched_process_fork: comm=sh pid=20 child_comm=sh child_pid=21",
    "  sh-20 [000] d..2. 3.000011: sched_wakeup_new: comm=sh pid=21 prio=120 target_cpu=001",
    sw("sh", 20, 0, 3.00002, "S", "swapper/0", 0),
    sw("swapper/1", 0, 1, 3.00003, "R", "sh", 21),
    "  sh-21 [001] ..... 3.000050: sched_process_exit: comm=sh pid=21 prio=120 group_dead=true",
    waking("sh-21", 1, 3.00006, "d..5.", "sh", 20, 0),
    sw("sh", 21, 1, 3.00007, "Z", "swapper/1", 0),
  ]);
  assert.deepEqual(steps(p, 20), [
    { op: "run", ns: 10 * US },
    { op: "fork", pid: 21, t: 3.00001e9 },
    { op: "run", ns: 10 * US },
    { op: "block", t: 3.00002e9, wokeAt: 3.00006e9, by: 21 },
  ]);
  const child = p.tasks.find((t) => t.pid === 21)!;
  assert.equal(child.origin, "fork");
  assert.equal(child.parent, 20);
  assert.deepEqual(child.steps, [
    { op: "run", ns: 30 * US },
    { op: "wake", pid: 20, t: 3.00006e9 },
    { op: "run", ns: 10 * US },
    { op: "exit", t: 3.00007e9 },
  ]);
});

test("a waking seen before its block's switch-out ends that block; one ttwu_runnable absorbed drops the waker's step", () => {
  const p = plan([
    sw("swapper/0", 0, 0, 4.0, "R", "a", 10),
    sw("swapper/1", 0, 1, 4.0, "R", "b", 11),
    // b wakes a while a is still running (a set TASK_INTERRUPTIBLE and has not switched out)
    waking("b-11", 1, 4.00001, "d..3.", "a", 10, 0),
    sw("a", 10, 0, 4.00002, "S", "swapper/0", 0),
    sw("swapper/0", 0, 0, 4.00003, "R", "a", 10),
    // b wakes a again while a runs; a never blocks: the wakeup was absorbed
    waking("b-11", 1, 4.00004, "d..3.", "a", 10, 0),
    sw("a", 10, 0, 4.00005, "R", "swapper/0", 0),
  ]);
  assert.deepEqual(steps(p, 10).slice(0, 2), [
    { op: "run", ns: 20 * US },
    { op: "block", t: 4.00002e9, wokeAt: 4.00001e9, by: 11 },
  ]);
  assert.deepEqual(steps(p, 11), [
    { op: "run", ns: 10 * US },
    { op: "wake", pid: 10, t: 4.00001e9 },
    // the second wake was dropped and the runs around it merged
    { op: "run", ns: 40 * US },
  ]);
});

test("per-CPU kernel threads are bound to the CPU their name gives", () => {
  assert.equal(boundCpuOf("ksoftirqd/3"), 3);
  assert.equal(boundCpuOf("kworker/1:2H"), 1);
  assert.equal(boundCpuOf("migration/0"), 0);
  assert.equal(boundCpuOf("kworker/u8:1"), null);
  assert.equal(boundCpuOf("perf"), null);
});
