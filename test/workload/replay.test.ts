// workload.replay (src/workload/replay.ts): closed replays keep the waker -> wakee edges (a block
// ends when its own waker gets to its recorded point), open replays keep the recorded times; a
// wakeup issued before the wakee gets to its block is not lost; the model's own trace replays to
// the same switches and wakeups; bad options are refused naming the field.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { topology, workload } from "../../src/index";
import { importTraceText } from "../../src/analysis/trace_import";
import type { ReplayPlan, ReplayTask } from "../../src/analysis/trace_replay";
import { compareTrace, pidPairs } from "../../src/analysis/trace_compare";
import { toFtrace } from "../../src/report/trace";
import type { TraceRecord } from "../../src/kernel/trace";

const MS = 1e6;
const task = (
  pid: number,
  comm: string,
  steps: ReplayTask["steps"],
  startCpu: number,
): ReplayTask => ({
  pid,
  comm,
  prio: 120,
  origin: "running",
  parent: null,
  startCpu,
  boundCpu: null,
  kthread: false,
  steps,
  cpuNs: steps.reduce((s, x) => s + (x.op === "run" ? x.ns : 0), 0),
});
const runReplay = (plan: ReplayPlan, mode: "closed" | "open") => {
  const it = topology("core2-2x2")
    .era("6.19")
    .workload(workload.replay(plan, { mode }))
    .runSync({ trace: true, duration: 0.03 })
    .iteration("baseline", 0);
  const pids = new Map(pidPairs(it.series?.replay_pids ?? []));
  return { it, pids };
};
/** The model time of the first sched_waking of the task replaying trace pid `pid`. */
const firstWaking = (recs: readonly TraceRecord[], pid: number) =>
  recs.find((r) => r.type === "sched_waking" && r.pid === pid)?.t;

test("closed: a block ends when its waker gets to its point; open: at the recorded time", () => {
  // a runs 1 ms, then wakes b; on the recorded box that wakeup came at 5 ms (a was held up)
  const plan: ReplayPlan = {
    start: 0,
    end: 6 * MS,
    nrCpus: 2,
    notes: {},
    tasks: [
      task(
        10,
        "a",
        [
          { op: "run", ns: 1 * MS },
          { op: "wake", pid: 11, t: 5 * MS },
        ],
        0,
      ),
      task(
        11,
        "b",
        [
          { op: "block", t: 0, wokeAt: 5 * MS, by: 10 },
          { op: "run", ns: 1 * MS },
        ],
        1,
      ),
    ],
  };
  const closed = runReplay(plan, "closed");
  const open = runReplay(plan, "open");
  const tc = firstWaking(closed.it.trace ?? [], closed.pids.get(11)!)!;
  assert.ok(tc > 0.9 * MS && tc < 1.2 * MS, `closed: b woken at ${tc} ns, when a got there`);
  // open: b's timer fires at the recorded 5 ms (plus the sleep's system call)
  const sw = (open.it.trace ?? []).find(
    (r) => r.type === "sched_switch" && r.nextPid === open.pids.get(11) && r.t > 0.1 * MS,
  );
  assert.ok(sw && sw.t >= 5 * MS && sw.t < 5.1 * MS, `open: b ran again at ${sw?.t} ns`);
  assert.equal(closed.it.metrics.replay_unfinished, 0);
  assert.equal(open.it.metrics.replay_unfinished, 0);
});

test("closed: a wakeup issued before the wakee gets to its block is kept, and a block waits for its own waker", () => {
  // b blocks after 2 ms of work until c wakes it (c gets there after 6 ms of work); then runs
  // 2 ms and blocks until a wakes it, which a did long before (after 0.5 ms): that token waits.
  const plan: ReplayPlan = {
    start: 0,
    end: 10 * MS,
    nrCpus: 3,
    notes: {},
    tasks: [
      task(
        10,
        "a",
        [
          { op: "run", ns: 0.5 * MS },
          { op: "wake", pid: 11, t: 8.2 * MS },
        ],
        0,
      ),
      task(
        11,
        "b",
        [
          { op: "run", ns: 2 * MS },
          { op: "block", t: 2 * MS, wokeAt: 6.1 * MS, by: 12 },
          { op: "run", ns: 2 * MS },
          { op: "block", t: 8.1 * MS, wokeAt: 8.2 * MS, by: 10 },
          { op: "run", ns: 0.1 * MS },
        ],
        1,
      ),
      task(
        12,
        "c",
        [
          { op: "run", ns: 6 * MS },
          { op: "wake", pid: 11, t: 6.1 * MS },
        ],
        2,
      ),
    ],
  };
  const { it, pids } = runReplay(plan, "closed");
  assert.equal(it.metrics.replay_unfinished, 0, "nobody waits for a wakeup that was lost");
  const b = pids.get(11)!;
  const woke = (it.trace ?? []).filter((r) => r.type === "sched_waking" && r.pid === b);
  assert.equal(
    woke.length,
    1,
    "b sleeps once, until c wakes it; a's early token ends the second block",
  );
  assert.ok(woke[0].t > 5.9 * MS && woke[0].t < 6.5 * MS, `c woke b at ${woke[0].t}`);
  // a's token did not end the first block: b's 2 ms burst comes after c's wakeup
  assert.ok(Math.abs(it.metrics.replay_span_ms - 8.1) < 0.5, `${it.metrics.replay_span_ms} ms`);
});

test("the model's own trace of perf bench sched pipe replays to the same switches and wakeups", () => {
  const orig = topology("core2-2x2")
    .era("6.19")
    .workload(workload.perfBenchPipe({ loops: 300 }))
    .runSync({ trace: true, seed: 3 })
    .iteration("baseline", 0);
  const tr = importTraceText(toFtrace(orig.trace ?? []));
  const again = topology("core2-2x2")
    .era("6.19")
    .workload(workload.replay(tr))
    .runSync({ trace: true, seed: 3 })
    .iteration("baseline", 0);
  const c = compareTrace(
    tr.records,
    again.trace ?? [],
    pidPairs(again.series?.replay_pids ?? []),
    4,
  );
  const fig = (name: string) => c.rows.find((r) => r.figure === name)!;
  assert.equal(fig("tasks matched").real, 2);
  assert.equal(fig("context switches").simulated, fig("context switches").real);
  assert.equal(fig("wakeups").simulated, fig("wakeups").real);
  // the recorded bursts hold the model's costs once, and the replay adds them again
  const cpu = fig("CPU time").ratio;
  assert.ok(cpu > 1 && cpu < 2.5, `CPU time x${cpu}`);
});

test("kernel threads can be left out; bad options are refused naming the field", () => {
  const pipe = importTraceText(
    fs.readFileSync(
      path.join(__dirname, "..", "analysis", "traces", "linux-6.18-perf-bench-pipe.txt"),
      "utf8",
    ),
  );
  const all = workload.replay(pipe);
  const own = workload.replay(pipe, { kthreads: false });
  assert.ok((all.params.tasks as number) > (own.params.tasks as number));
  assert.throws(
    () => workload.replay(pipe, { mode: "later" as never }),
    /workload\.replay: mode must be one of closed, open/,
  );
  assert.throws(
    () => workload.replay(pipe, { kthreads: 1 as never }),
    /workload\.replay: kthreads must be true or false/,
  );
  assert.throws(
    () => workload.replay(pipe, { speed: 2 } as never),
    /workload\.replay: unknown option "speed"/,
  );
  assert.throws(
    () => workload.replay({} as never),
    /workload\.replay: trace must be an imported trace/,
  );
});
