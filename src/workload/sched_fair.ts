// Miao Xie's "sched-fair" test (seed 002, LKML 2009): a parent forks N identical children that
// repeat a sqrt loop forever and count iterations; every interval the parent reads each child's
// count and prints the average and standard deviation of the counts of that interval.
//
// The attachment (sched-fair.c) was not available. Assumptions, stated:
// - counts are per interval (differences), not cumulative;
// - the standard deviation is the population one over the N children;
// - the reported figures are the means over all intervals of a run;
// - one loop costs `loopNs` of CPU at full speed (the loop body is unknown, so its cost is a
//   parameter: the reproduction states how it chose it);
// - the parent sleeps between samples (it costs a wakeup per interval, nothing more);
// - run-to-run variation, each source seeded from the iteration's random stream:
//   - tick phase: the test starts at a random moment within the first jiffy;
//   - fork order and timing: the parent forks the children one after another, and each fork()
//     costs the parent CPU time (forkNs, varying by +-forkJitter per fork), so the children
//     start in order at times that differ between runs;
//   - other system activity: per-CPU kernel threads waking now and then (background.ts).
import { fork, run, sleep } from "../kernel/ops";
import { type BackgroundParams, KTHREADS_2009, startBackground } from "./background";
import type { Workload, WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireKnownKeys, requireNumber } from "./workload";

const SEC = 1_000_000_000;

/** Parameters of workload.schedFair (the test's own flags where it had them). */
export interface SchedFairParams {
  /** -p: number of children. */
  children: number;
  /** -i: sampling interval, seconds (default 5). */
  interval?: number;
  /** CPU time of one loop iteration at capacity 1024, ns. */
  loopNs: number;
  /** Nice value of the children (the test ran them all at the default). */
  nice?: number;
  /** Intervals per run (run length = intervals x interval). */
  intervals?: number;
  /** Mean parent CPU time of one fork(), ns (default FORK_NS_2009; 0: forks are free). */
  forkNs?: number;
  /** Each fork costs forkNs x (1 + forkJitter x u), u uniform in [-1, 1) (default 0.5). */
  forkJitter?: number;
  /** Other system activity during the run (default KTHREADS_2009; null: none). */
  background?: BackgroundParams | null;
}

/**
 * choice: 100 us of the parent's CPU per fork() of a small process on a 2009 x86 box
 * (copy_process: the mm, page tables, files; the order of magnitude of lmbench's lat_proc
 * fork), not measured; it varies +-50% from fork to fork with page-fault and cache state.
 */
export const FORK_NS_2009 = 100_000;

/**
 * Miao Xie's sched-fair test (seed 002): a parent forks `children` hogs and, every `interval`
 * seconds, prints the average and standard deviation of the loops each child did in it.
 * Metrics: `avg_loops`, `stddev_loops`, `cv_loops` (their means over the intervals) and
 * `intervals`; series: the same per interval. See the file header for the assumptions.
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const test = workload.schedFair({ children: 8, interval: 0.1, loopNs: 1e6, intervals: 2 });
 * const res = await topology("core2-2x2").era("2.6.29").offline(3).workload(test).run({ duration: 0.25 });
 * const { avg_loops, stddev_loops } = res.iteration("baseline", 0).series;
 * console.log("avg", avg_loops, "stddev", stddev_loops.map((x) => x.toFixed(2)));
 * ```
 * Prints:
 * ```text
 * avg [ 36.875, 37.625 ] stddev [ '23.84', '17.46' ]
 * ```
 */
export function schedFair(params: SchedFairParams): Workload {
  const where = "workload.schedFair";
  requireKnownKeys(where, params, [
    "children",
    "interval",
    "loopNs",
    "nice",
    "intervals",
    "forkNs",
    "forkJitter",
    "background",
  ]);
  const n = requireInt(where, "children", params.children, 1, 10_000);
  const interval = requireNumber(where, "interval", params.interval ?? 5, 0, false);
  const loopNs = requireNumber(where, "loopNs", params.loopNs, 0, false);
  const nice = requireInt(where, "nice", params.nice ?? 0, -20, 19);
  const intervals = requireInt(where, "intervals", params.intervals ?? 12, 1);
  const forkNs = requireNumber(where, "forkNs", params.forkNs ?? FORK_NS_2009, 0);
  const forkJitter = requireNumber(where, "forkJitter", params.forkJitter ?? 0.5, 0);
  if (forkJitter >= 1) throw new Error(`${where}: forkJitter must be < 1 (got ${forkJitter})`);
  const background = params.background === undefined ? KTHREADS_2009 : params.background;
  const intervalNs = Math.round(interval * SEC);
  return {
    name: "sched-fair",
    params: { children: n, interval, loopNs, nice, intervals, forkNs, forkJitter, background },
    defaultDurationNs: intervals * intervalNs + 1_000_000,
    defaultWarmupNs: 0,
    setup(ctx: WorkloadContext): WorkloadRun {
      const pids: number[] = [];
      const perInterval: number[][] = []; // [interval][child] loop counts
      const avgs: number[] = [];
      const stds: number[] = [];
      // The test starts at an arbitrary moment relative to the tick grid: this is what differs
      // between two runs of the same binary on an otherwise idle box.
      const start = Math.floor(ctx.random("sched-fair-start").next() * ctx.tickNs);
      const forkRnd = ctx.random("sched-fair-fork");
      if (background) startBackground(ctx, background);
      ctx.at(start, () =>
        ctx.spawn({
          comm: "sched-fair",
          role: "parent",
          cpu: ctx.onlineCpus()[0],
          program: function* (t) {
            for (let i = 0; i < n; i++) {
              if (forkNs > 0) yield run(forkNs * (1 + forkJitter * (2 * forkRnd.next() - 1)));
              const pid = (yield fork({
                comm: `sched-fair-${i}`,
                role: "child",
                nice,
                program: function* () {
                  yield run(Infinity);
                },
              })) as number;
              pids.push(pid);
            }
            let last = pids.map(() => 0);
            for (;;) {
              yield sleep(intervalNs);
              const loops = pids.map((pid) =>
                Math.floor(ctx.workDone(ctx.taskByPid(pid)!) / loopNs),
              );
              const counts = loops.map((l, i) => l - last[i]);
              last = loops;
              const avg = counts.reduce((a, b) => a + b, 0) / n;
              const std = Math.sqrt(counts.reduce((a, c) => a + (c - avg) ** 2, 0) / n);
              perInterval.push(counts);
              avgs.push(avg);
              stds.push(std);
              t.count("samples");
            }
          },
        }),
      );
      return {
        metrics() {
          const mean = (xs: number[]) =>
            xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
          const a = mean(avgs);
          const s = mean(stds);
          return { avg_loops: a, stddev_loops: s, cv_loops: s / a, intervals: avgs.length };
        },
        series() {
          return { avg_loops: avgs, stddev_loops: stds, loops: perInterval.flat() };
        },
      };
    },
  };
}
