// Other system activity: the per-CPU kernel threads that wake now and then on a box that runs
// "nothing else" (the workqueue threads running vmstat_update, writeback, driver work...). Each
// online CPU gets one bound thread that sleeps for an exponentially distributed gap (a Poisson
// process at `ratePerSec`) and then runs `runNs` of CPU. It is off unless a workload asks for it
// (withBackground, or a benchmark model whose real runs had it), and it is seeded from the
// iteration's random stream, one stream per CPU.
import { run, sleep } from "../kernel/ops";
import type { Task } from "../kernel/sched";
import type { Workload, WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireNumber } from "./workload";

const SEC = 1_000_000_000;

/** Parameters of the background activity (per online CPU). */
export interface BackgroundParams {
  /** Mean wakeups per second on each CPU. */
  ratePerSec: number;
  /** CPU time of one wakeup at capacity 1024, ns. */
  runNs: number;
  /** Nice value of the threads. Default 0. */
  nice?: number;
  /** Name prefix of the threads (`${comm}/${cpu}`). Default "kworker". */
  comm?: string;
}

/**
 * Background activity on an otherwise idle 2.6.29-era box.
 * - vmstat_update runs once a second on every CPU (mm/vmstat.c: sysctl_stat_interval = HZ),
 *   from the per-CPU workqueue thread events/N;
 * - choice: other work items (writeback every dirty_writeback_interval = 5 s, driver and timer
 *   work) about as often again, so 2 wakeups per second per CPU;
 * - choice: 20 us of CPU per wakeup (the work item plus the two context switches), not measured;
 * - nice -5: 2.6.29's kthreadd sets KTHREAD_NICE_LEVEL (-5) and its children inherit it
 *   (kernel/kthread.c, v2.6.29);
 * - choice: exponential gaps. The threads' timers were armed at boot, long before the test, so
 *   their phases relative to it are unknown; a Poisson process stands for them.
 */
export const KTHREADS_2009: Readonly<BackgroundParams> = Object.freeze({
  ratePerSec: 2,
  runNs: 20_000,
  nice: -5,
  comm: "events",
});

/**
 * Background activity measured on the project's 2-vCPU Linux 6.18 guest: the kernel threads'
 * wakeups and CPU time in the five recordings of data/traces (analysis.backgroundActivity over
 * each replay plan, pooled: 471 wakeups in 3.31 s on 2 CPUs, mostly rcu_preempt, kworkers,
 * ksoftirqd and the migration stopper; kdamond's rare long runs raise the mean). The rate depends
 * on the load: 7 per CPU per second beside CPU hogs, 224 during a fork burst (exits feed RCU and
 * the workqueues). Nice 0: the traces give these threads prio 120.
 */
export const KTHREADS_GUEST_6_18: Readonly<BackgroundParams> = Object.freeze({
  ratePerSec: 71.2,
  runNs: 65_300,
  nice: 0,
  comm: "kworker",
});

/** What startBackground returns: the threads and the CPU time they used. */
export interface BackgroundRun {
  /** The per-CPU threads, in CPU order. */
  readonly tasks: readonly Task[];
  /** Wakeups so far, over all CPUs. */
  wakeups(): number;
  /** Work done so far (ns at capacity 1024), over all threads. */
  cpuNs(): number;
}

function check(params: BackgroundParams): Required<BackgroundParams> {
  const where = "background";
  return {
    ratePerSec: requireNumber(where, "ratePerSec", params.ratePerSec, 0, false),
    runNs: requireNumber(where, "runNs", params.runNs, 0, false),
    nice: requireInt(where, "nice", params.nice ?? 0, -20, 19),
    comm: params.comm ?? "kworker",
  };
}

/** Spawns one background thread bound to each online CPU of the run (see BackgroundParams). */
export function startBackground(ctx: WorkloadContext, params: BackgroundParams): BackgroundRun {
  const p = check(params);
  const meanGapNs = SEC / p.ratePerSec;
  let wakeups = 0;
  const tasks = ctx.onlineCpus().map((cpu) => {
    const rnd = ctx.random(`background/${p.comm}/${cpu}`);
    return ctx.spawn({
      comm: `${p.comm}/${cpu}`,
      role: "background",
      nice: p.nice,
      cpu,
      cpus: [cpu],
      program: function* () {
        for (;;) {
          // 1 - U is in (0, 1]: the gap is finite.
          yield sleep(Math.max(1, Math.round(-Math.log(1 - rnd.next()) * meanGapNs)));
          wakeups++;
          yield run(p.runNs);
        }
      },
    });
  });
  return {
    tasks,
    wakeups: () => wakeups,
    cpuNs: () => tasks.reduce((s, t) => s + ctx.workDone(t), 0),
  };
}

/**
 * `w` with background activity added: the same tasks and figures, plus `background_cpu_ns`
 * and `background_wakeups`.
 *
 * @example
 * ```ts
 * import { topology, workload, KTHREADS_2009 } from "schedlab";
 * const w = workload.withBackground(workload.hogs({ n: 2, seconds: 1 }), KTHREADS_2009);
 * const res = await topology("core2-2x2").workload(w).run({ seed: 3 });
 * console.log(res.mean("background_wakeups", "baseline"));
 * ```
 * Prints:
 * ```text
 * 8
 * ```
 */
export function withBackground(w: Workload, params: BackgroundParams): Workload {
  const p = check(params);
  return {
    name: `${w.name}+background`,
    params: { ...w.params, background: { ...p } },
    defaultDurationNs: w.defaultDurationNs,
    defaultWarmupNs: w.defaultWarmupNs,
    setup(ctx): WorkloadRun {
      const inner = w.setup(ctx);
      const bg = startBackground(ctx, p);
      return {
        metrics: () => ({
          ...inner.metrics(),
          background_cpu_ns: bg.cpuNs(),
          background_wakeups: bg.wakeups(),
        }),
        ...(inner.series ? { series: () => inner.series!() } : {}),
      };
    },
  };
}
