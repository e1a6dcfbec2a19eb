// `perf bench sched pipe` (tools/perf/bench/sched-pipe.c, v5.x: Ingo Molnar's pipe-test-1m.c
// ported by Hitoshi Mitake). Two pipes; gettimeofday(start); then either fork() (default: the
// child is worker 0, the parent worker 1) or, with -T, two pthread_create'd threads joined by the
// main thread. Worker 0 loops read(pipe_1) then write(pipe_2); worker 1 loops write(pipe_1) then
// read(pipe_2); each moves sizeof(int) = 4 bytes, `loops` times. The parent waitpid()s the
// child (or joins both threads), then gettimeofday(stop). Defaults from the source:
// LOOPS_DEFAULT 1000000 (-l/--loop), processes unless -T/--threaded. Later perf versions add
// -n (non-blocking) and -G (cgroups); they are not modelled.
import { fork, recv, send, wait, wake } from "../kernel/ops";
import type { Channel } from "../kernel/channel";
import type { TaskApi } from "../kernel/sched";
import type { WorkloadContext, WorkloadRun } from "./workload";
import { requireKnownKeys, requireInt } from "./workload";
import type { BenchmarkWorkload } from "./sysbench_cpu";

/** Parameters of workload.perfBenchPipe, named as the benchmark's options. */
export interface PerfBenchPipeParams {
  /** -l/--loop: round trips (default 1000000, LOOPS_DEFAULT). */
  loops?: number;
  /** -T/--threaded: two threads of one process instead of two processes (default false). */
  threaded?: boolean;
}

/** The pipe size Linux gives a new pipe (PIPE_DEF_BUFFERS = 16 pages of 4 KB). */
const PIPE_BYTES = 16 * 4096;
/** sizeof(int): what each read and write moves. */
const MSG_BYTES = 4;
/**
 * choice: simulated time allowed per loop before the run is cut (`finished` = 0 then): 100 us,
 * over ten times the round trip of any preset; the run's clock stops early only at this bound.
 */
const MAX_NS_PER_LOOP = 100_000;

/**
 * `perf bench sched pipe [-l LOOPS] [-T]`: two tasks ping-ponging 4 bytes over two pipes.
 * Metrics, as perf prints them: `total_time_s`, `usecs_per_op` (total usec / loops),
 * `ops_per_sec`; `loops`, `loops_done` and `finished` (1 when both tasks completed their loops
 * within the simulated time; a run cut short divides by `loops_done` instead). `format(metrics)` prints perf's report.
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const pipe = workload.perfBenchPipe({ loops: 2000 });
 * const it = topology("core2-2x2").workload(pipe).runSync().iteration("baseline", 0);
 * console.log(pipe.format(it.metrics));
 * ```
 * Prints:
 * ```text
 * # Running 'sched/pipe' benchmark:
 * # Executed 2000 pipe operations between two processes
 *
 *      Total time: 0.013 [sec]
 *
 *        6.895000 usecs/op
 *          145032 ops/sec
 * ```
 */
export function perfBenchPipe(params: PerfBenchPipeParams = {}): BenchmarkWorkload {
  const where = "workload.perfBenchPipe";
  requireKnownKeys(where, params, ["loops", "threaded"]);
  const loops = requireInt(where, "loops", params.loops ?? 1_000_000, 1, 2_147_483_647);
  const threaded = params.threaded ?? false;
  if (typeof threaded !== "boolean")
    throw new Error(
      `${where}: threaded must be true (-T) or false (got ${JSON.stringify(threaded)})`,
    );
  const resolved = { loops, threaded };
  return {
    name: "perf-bench-sched-pipe",
    params: resolved,
    defaultDurationNs: loops * MAX_NS_PER_LOOP + 10_000_000,
    defaultWarmupNs: 0,
    format: (m) => formatPerfBenchPipe(m, resolved),
    setup(ctx: WorkloadContext): WorkloadRun {
      const pipe1 = ctx.channel("pipe_1", "pipe", PIPE_BYTES);
      const pipe2 = ctx.channel("pipe_2", "pipe", PIPE_BYTES);
      let startNs = -1;
      let stopNs = -1;
      let done = 0;
      let loopsDone = 0;

      // worker_thread(): nr 0 reads first, nr 1 writes first
      function* workerThread(nr: number, rd: Channel, wr: Channel) {
        for (let i = 0; i < loops; i++) {
          if (nr === 0) {
            yield recv(rd);
            yield send(wr, MSG_BYTES);
          } else {
            yield send(wr, MSG_BYTES);
            yield recv(rd);
            loopsDone++;
          }
        }
      }
      // the child's exit (or a thread's) wakes the waiting parent: waitpid / pthread_join
      function* finish(parentPid: number) {
        done++;
        yield wake(parentPid);
      }

      ctx.at(0, () => {
        ctx.spawn({
          comm: "perf",
          role: "main",
          program: function* (api: TaskApi) {
            startNs = api.now();
            const parent = api.pid;
            if (threaded) {
              for (const nr of [0, 1])
                yield fork({
                  comm: `perf-pipe-t${nr}`,
                  role: "worker",
                  program: function* () {
                    yield* nr === 0 ? workerThread(0, pipe1, pipe2) : workerThread(1, pipe2, pipe1);
                    yield* finish(parent);
                  },
                });
              while (done < 2) yield wait();
            } else {
              yield fork({
                comm: "perf-pipe-child",
                role: "worker",
                program: function* () {
                  yield* workerThread(0, pipe1, pipe2);
                  yield* finish(parent);
                },
              });
              yield* workerThread(1, pipe2, pipe1);
              while (done < 1) yield wait();
            }
            stopNs = api.now();
          },
        });
      });

      return {
        metrics() {
          const finished = stopNs >= 0;
          // gettimeofday: whole microseconds
          const usec = Math.floor(((finished ? stopNs : ctx.endNs) - Math.max(0, startNs)) / 1000);
          // a run cut short reports the loops it completed (perf itself would print nothing)
          const n = finished ? loops : loopsDone;
          return {
            loops,
            loops_done: loopsDone,
            total_time_s: usec / 1e6,
            usecs_per_op: n > 0 ? usec / n : NaN,
            ops_per_sec: usec > 0 ? Math.trunc(n / (usec / 1e6)) : 0,
            finished: finished ? 1 : 0,
          };
        },
      };
    },
  };
}

/** perf's default-format report of `sched pipe` (builtin-bench.c's header, then sched-pipe.c's). */
export function formatPerfBenchPipe(
  m: Record<string, number>,
  p: { loops: number; threaded: boolean },
): string {
  const usec = Math.round(m.total_time_s * 1e6);
  const sec = Math.floor(usec / 1e6);
  const msec = Math.floor((usec % 1e6) / 1000);
  return [
    "# Running 'sched/pipe' benchmark:",
    `# Executed ${p.loops} pipe operations between two ${p.threaded ? "threads" : "processes"}`,
    "",
    ` ${"Total time".padStart(14)}: ${sec}.${String(msec).padStart(3, "0")} [sec]`,
    "",
    ` ${m.usecs_per_op.toFixed(6).padStart(14)} usecs/op`,
    ` ${String(m.ops_per_sec).padStart(14)} ops/sec`,
  ].join("\n");
}
