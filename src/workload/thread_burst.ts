// A burst of CPU-bound threads: a program creates N threads (pthread_create: fork placement,
// SD_BALANCE_FORK), each blocks until it is released (a futex wait, as in pthread_barrier_wait or
// pthread_cond_wait), and at one instant the releasers wake them (futex_wake of every waiter in
// one system call, glibc's barrier and condvar broadcast), after which each computes without
// sleeping. What it shows is where the wakeups put the threads and how long the balancers take
// to give each its own CPU.
//
// With one releaser (the default) every wakeup comes from one CPU, which sees its own enqueues;
// with two or more, releasers on different CPUs wake their shares at the same instant (a timer
// each, e.g. two processes released by one clock), so their wakeups read each other's targets
// while those are still in flight (the visibility windows of core/idle_cpu.ts).
import { fork, run, sleep, wait, wake } from "../kernel/ops";
import type { Task, TaskApi } from "../kernel/sched";
import type { Workload, WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireKnownKeys, requireNumber, runLength } from "./workload";

/** Parameters of workload.threadBurst. */
export interface ThreadBurstParams {
  /** Worker threads created and then released together (default 8). */
  threads?: number;
  /**
   * Threads that release the workers, each its share (worker i goes to releaser i mod releasers),
   * all at releaseAtMs (default 1: one thread wakes them all).
   */
  releasers?: number;
  /**
   * The parent's CPU time per pthread_create beyond the fork itself (stack mmap, guard page,
   * clone), ns at capacity 1024. Default 0: the threads are created back to back; a value is the
   * caller's estimate for its machine.
   */
  createNs?: number;
  /** When the release happens, ms after the start (default 5). */
  releaseAtMs?: number;
  /**
   * Pin releaser r to releaserCpus[r] (sched_setaffinity before the program starts; default: none,
   * fork placement decides, and the first releaser is the main thread).
   */
  releaserCpus?: number[];
  /** How often the placement is sampled after the release, us (default 50). */
  sampleUs?: number;
  /** Simulated seconds per run (default 0.2). */
  seconds?: number;
}

const ACCEPTED = [
  "threads",
  "releasers",
  "createNs",
  "releaseAtMs",
  "releaserCpus",
  "sampleUs",
  "seconds",
];

/**
 * `threads` CPU-bound threads created by one program and released together (see the file
 * comment). Metrics: `cpu_w<i>`, the CPU worker i first ran on after the release; `cpus_at_release`,
 * how many distinct CPUs those are; `max_stacked`, the most workers that first ran on one CPU;
 * `spread_ms`, the time from the release until every worker sat on a CPU of its own (-1: never
 * within the run, sampled every `sampleUs`); `migrations_after_release`, the workers' CPU changes
 * after their first run.
 */
export function threadBurst(params: ThreadBurstParams = {}): Workload {
  const where = "workload.threadBurst";
  requireKnownKeys(where, params, ACCEPTED);
  const threads = requireInt(where, "threads", params.threads ?? 8, 1, 4096);
  const releasers = requireInt(where, "releasers", params.releasers ?? 1, 1, threads);
  const createNs = requireNumber(where, "createNs", params.createNs ?? 0, 0);
  const releaseAtMs = requireNumber(where, "releaseAtMs", params.releaseAtMs ?? 5, 0, false);
  const sampleUs = requireNumber(where, "sampleUs", params.sampleUs ?? 50, 0, false);
  const len = runLength(where, { seconds: params.seconds ?? 0.2 }, 0.2);
  const pins = params.releaserCpus;
  if (pins !== undefined) {
    if (!Array.isArray(pins) || pins.length !== releasers)
      throw new Error(`${where}: releaserCpus must list one CPU per releaser (${releasers})`);
    pins.forEach((c, r) => {
      requireInt(where, `releaserCpus[${r}]`, c, 0);
    });
  }
  const releaseAt = Math.round(releaseAtMs * 1e6);
  if (releaseAt >= len.defaultDurationNs)
    throw new Error(`${where}: releaseAtMs must fall within the run (got ${releaseAtMs} ms)`);
  return {
    name: "thread-burst",
    params: { threads, releasers, createNs, releaseAtMs, sampleUs, releaserCpus: pins },
    ...len,
    setup(ctx: WorkloadContext): WorkloadRun {
      const workers: Task[] = [];
      const firstCpu = new Array<number>(threads).fill(-1);
      const cpuAtLastSample = new Array<number>(threads).fill(-1);
      let released = false;
      let migrations = 0;
      let spreadAt = -1;

      function* worker(api: TaskApi, i: number) {
        while (!released) yield wait();
        firstCpu[i] = api.cpu();
        yield run(Number.POSITIVE_INFINITY);
      }

      /** Releaser r: sleeps until the release, then wakes its share in one futex_wake. */
      function* releaser(api: TaskApi, r: number) {
        yield sleep(Math.max(0, releaseAt - api.now()));
        released = true;
        let first = true;
        for (let i = r; i < threads; i += releasers) {
          yield wake(workers[i].pid, false, first);
          first = false;
        }
        for (;;) yield wait(); // pthread_join
      }

      if (pins?.some((c) => c >= ctx.ncpus))
        throw new Error(`${where}: releaserCpus must be below ${ctx.ncpus} on this machine`);
      ctx.at(0, () => {
        ctx.spawn({
          comm: "burst",
          role: "main",
          cpus: pins ? [pins[0]] : undefined,
          program: function* (api) {
            for (let i = 0; i < threads; i++) {
              const pid = (yield fork({
                comm: `burst-w${i}`,
                role: "worker",
                program: (w) => worker(w, i),
              })) as number;
              workers.push(ctx.taskByPid(pid)!);
              if (createNs > 0) yield run(createNs);
            }
            for (let r = 1; r < releasers; r++)
              yield fork({
                comm: `burst-r${r}`,
                role: "releaser",
                cpus: pins ? [pins[r]] : undefined,
                program: (a) => releaser(a, r),
              });
            yield* releaser(api, 0);
          },
        });
      });

      // Placement samples after the release: CPU changes, and the first instant each worker
      // has a CPU of its own.
      const step = Math.round(sampleUs * 1e3);
      const sample = () => {
        if (workers.length === threads) {
          const seen = new Set<number>();
          for (let i = 0; i < threads; i++) {
            const c = workers[i].cpu;
            if (firstCpu[i] >= 0 && cpuAtLastSample[i] >= 0 && c !== cpuAtLastSample[i])
              migrations++;
            cpuAtLastSample[i] = firstCpu[i] >= 0 ? c : -1;
            seen.add(c);
          }
          const allRunning = firstCpu.every((c) => c >= 0);
          if (spreadAt < 0 && allRunning && seen.size === threads) spreadAt = ctx.kernel.now;
        }
        if (ctx.kernel.now + step < ctx.endNs) ctx.at(ctx.kernel.now + step, sample);
      };
      ctx.at(releaseAt, sample);

      return {
        metrics() {
          const out: Record<string, number> = {};
          const perCpu = new Map<number, number>();
          firstCpu.forEach((c, i) => {
            out[`cpu_w${i}`] = c;
            if (c >= 0) perCpu.set(c, (perCpu.get(c) ?? 0) + 1);
          });
          out.cpus_at_release = perCpu.size;
          out.max_stacked = Math.max(0, ...perCpu.values());
          out.spread_ms = spreadAt < 0 ? -1 : (spreadAt - releaseAt) / 1e6;
          out.migrations_after_release = migrations;
          return out;
        },
      };
    },
  };
}
