// A recorded trace done again on the modelled kernel (analysis/trace_replay.ts says what each
// task did). Every task runs its recorded CPU bursts as work at capacity 1024, issues its wakeups
// and forks at the same point of its own run time, and blocks where it blocked. What ends a block
// depends on the mode:
// - "closed": a block ended by another replayed task waits for that task's wakeup in the model,
//   so the dependency graph is kept and a faster schedule finishes sooner; a block ended by an
//   interrupt, a timer, the idle task or a task outside the replay sleeps for the recorded time.
// - "open": every block sleeps until the recorded wakeup time, whoever woke it; wakeups between
//   tasks are not issued. The arrivals are the recorded ones whatever the schedule does.
// What the model adds on top: its own costs of switches, wakeups and system calls, which the
// recorded bursts already contain once (a replay runs a little longer than the trace for that).
import { fork, run, sleep, wait, wake, type Op } from "../kernel/ops";
import type { ForkSpec, SpawnSpec } from "../kernel/ops";
import type { Policy, TaskApi } from "../kernel/sched";
import type { TraceRecord } from "../kernel/trace";
import { type ReplayPlan, type ReplayTask, isRtPrio, replayPlan } from "../analysis/trace_replay";
import type { ImportedTrace } from "../analysis/trace_import";
import type { Workload, WorkloadContext, WorkloadRun } from "./workload";
import { requireKnownKeys } from "./workload";
import { withCpus, type CpusOption } from "./cpus";

/** How a replay ends blocks (see the file's comment). */
export type ReplayMode = "closed" | "open";

/** Options of workload.replay. */
export interface ReplayParams {
  /** "closed" (default): wakeups between replayed tasks are issued in the model; "open": recorded times. */
  mode?: ReplayMode;
  /**
   * Replay the kernel threads of the trace too (default true): they stand for the box's own
   * background activity as recorded. false leaves them out; their wakeups of others become timed.
   */
  kthreads?: boolean;
}

/** What a replay takes: an imported trace, its records, or a plan already made of them. */
export type ReplaySource = ImportedTrace | readonly TraceRecord[] | ReplayPlan;

const MODES: readonly ReplayMode[] = ["closed", "open"];

function planOf(src: ReplaySource): ReplayPlan {
  if (Array.isArray(src)) return replayPlan(src as readonly TraceRecord[]);
  const o = src as ImportedTrace | ReplayPlan;
  if ("tasks" in o && Array.isArray(o.tasks)) return o;
  if ("records" in o && Array.isArray(o.records)) return replayPlan(o.records, o.nrCpus);
  throw new Error(
    "workload.replay: trace must be an imported trace (importTraceFile / importTraceText), its records, or a replayPlan",
  );
}

/** The scheduling class of a trace prio: 0-99 real-time (SCHED_FIFO at 99 - prio), else nice. */
function schedOf(prio: number): { policy: Policy; nice: number; rtPriority: number } {
  if (prio < 0) return { policy: "fifo", nice: 0, rtPriority: 99 }; // deadline: -1
  if (isRtPrio(prio)) return { policy: "fifo", nice: 0, rtPriority: 99 - prio };
  return { policy: "normal", nice: Math.max(-20, Math.min(19, prio - 120)), rtPriority: 0 };
}

/**
 * A recorded kernel trace run again on the model: its tasks, their CPU bursts, blocks, wakeups,
 * forks and exits (see ReplayParams for the modes). Metrics: `replay_tasks` (count),
 * `trace_span_ms` and `replay_span_ms` (ms: the recorded span, and the model's time until every
 * task has done its steps), `replay_stretch` (ratio of the two), `replay_cpu_ms` (ms of CPU the
 * steps ask for), `replay_unfinished` (tasks that had steps left at the end). Series
 * `replay_pids`: pairs of (trace pid, model pid), for compareTrace.
 */
export function replay(trace: ReplaySource, params: ReplayParams = {}): Workload {
  const where = "workload.replay";
  requireKnownKeys(where, params, ["mode", "kthreads"]);
  const mode = params.mode ?? "closed";
  if (!MODES.includes(mode))
    throw new Error(
      `${where}: mode must be one of ${MODES.join(", ")} (got ${JSON.stringify(mode)})`,
    );
  const kthreads = params.kthreads ?? true;
  if (typeof kthreads !== "boolean")
    throw new Error(`${where}: kthreads must be true or false (got ${JSON.stringify(kthreads)})`);
  const plan = planOf(trace);
  const tasks = plan.tasks.filter((t) => kthreads || !t.kthread);
  const span = plan.end - plan.start;
  return {
    name: "replay",
    params: { mode, kthreads, tasks: tasks.length, span_ns: span },
    defaultDurationNs: Math.max(10_000_000, Math.ceil(span * 3)),
    defaultWarmupNs: 0,
    setup(ctx: WorkloadContext): WorkloadRun {
      const byPid = new Map(tasks.map((t) => [t.pid, t]));
      const modelPid = new Map<number, number>();
      // tokens of each edge: wakeups `waker` has issued to `wakee` and the wakee has not used
      // yet. A block waits for its own waker's token, so the block ends when that waker gets to
      // the point of its run where it woke this task on the real box, whatever others do.
      const tokens = new Map<number, number>();
      // pids are below PID_MAX_LIMIT (2^22, include/linux/threads.h), so one number keys an edge
      const edge = (wakee: number, waker: number) => wakee * 4_194_304 + waker;
      const waitingFor = new Map<number, number>();
      const doneAt = new Map<number, number>();
      const cpuOk = (c: number | null) => c !== null && c >= 0 && c < ctx.ncpus;

      function* program(task: ReplayTask, api: TaskApi): Generator<Op, void, unknown> {
        for (const s of task.steps) {
          switch (s.op) {
            case "run":
              yield run(s.ns);
              break;
            case "wake": {
              if (mode === "open" || !byPid.has(s.pid)) break;
              const e = edge(s.pid, task.pid);
              tokens.set(e, (tokens.get(e) ?? 0) + 1);
              const m = modelPid.get(s.pid);
              const target = m === undefined ? undefined : ctx.taskByPid(m);
              // a wakee not yet asleep for this waker finds the token when it gets to its block
              if (target?.waiting && waitingFor.get(s.pid) === task.pid)
                yield wake(m!, false, false);
              break;
            }
            case "fork": {
              const child = byPid.get(s.pid);
              if (!child) break;
              const pid = (yield fork(specOf(child) as ForkSpec)) as number;
              modelPid.set(child.pid, pid);
              break;
            }
            case "block": {
              if (mode === "closed" && s.by !== null && byPid.has(s.by)) {
                const e = edge(task.pid, s.by);
                waitingFor.set(task.pid, s.by);
                while ((tokens.get(e) ?? 0) === 0) yield wait();
                waitingFor.delete(task.pid);
                tokens.set(e, tokens.get(e)! - 1);
              } else if (s.wokeAt === null) {
                doneAt.set(task.pid, api.now());
                for (;;) yield wait(); // never woken in the trace
              } else if (mode === "closed") {
                yield sleep(Math.max(0, s.wokeAt - s.t));
              } else {
                yield sleep(Math.max(0, s.wokeAt - plan.start - api.now()));
              }
              break;
            }
            case "exit":
              doneAt.set(task.pid, api.now());
              return;
          }
        }
        doneAt.set(task.pid, api.now());
        for (;;) yield wait(); // alive at the trace's end: it stays, asleep
      }

      function specOf(task: ReplayTask): SpawnSpec {
        const sched = schedOf(task.prio);
        const bound = cpuOk(task.boundCpu) ? [task.boundCpu!] : undefined;
        return {
          comm: task.comm,
          role: task.kthread ? "kthread-replayed" : "replayed",
          program: (api) => program(task, api),
          policy: sched.policy,
          nice: sched.nice,
          rtPriority: sched.rtPriority,
          ...(bound ? { cpus: bound } : {}),
        };
      }

      ctx.at(0, () => {
        for (const task of tasks) {
          if (task.origin === "fork" && task.parent !== null && byPid.has(task.parent)) continue;
          const cpu = cpuOk(task.boundCpu) ? task.boundCpu! : task.startCpu % ctx.ncpus;
          const t = ctx.spawn({ ...specOf(task), cpu });
          modelPid.set(task.pid, t.pid);
        }
      });

      const spanMs = span / 1e6;
      return {
        metrics() {
          const unfinished = tasks.filter((t) => !doneAt.has(t.pid)).length;
          const last = Math.max(0, ...doneAt.values());
          const replaySpan = unfinished ? ctx.endNs : last;
          return {
            replay_tasks: tasks.length,
            trace_span_ms: spanMs,
            replay_span_ms: replaySpan / 1e6,
            replay_stretch: span > 0 ? replaySpan / span : 0,
            replay_cpu_ms: tasks.reduce((s, t) => s + t.cpuNs, 0) / 1e6,
            replay_unfinished: unfinished,
          };
        },
        series: () => ({ replay_pids: [...modelPid].flat() }),
      };
    },
  };
}

/** workload.replay: replay() with `cpus` (CpusOption) as every factory takes it. */
export function replayTaking(trace: ReplaySource, opts: ReplayParams & CpusOption = {}): Workload {
  const { cpus, ...rest } = opts;
  return withCpus("workload.replay", replay(trace, rest), cpus);
}
