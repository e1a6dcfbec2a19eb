// sysbench 1.0 `cpu` test (Alexey Kopytov; src/tests/cpu/sb_cpu.c, src/sysbench.c, tag 1.0.20).
// The main thread creates --threads workers (pthread_create: fork placement); all meet at
// thread_start_barrier, whose last arrival starts sb_exec_timer (threads_started_callback). Each
// worker then loops: sb_more_events() (stop once the timer passed --time, or once the shared
// event counter, ck_pr_faa_64, reached --events), sb_event_start, cpu_execute_event (trial
// division of every c in [3, cpu-max-prime) by l = 2..sqrt(c) until a divisor is found),
// sb_event_stop. An event's latency is the wall time from start to stop, so it includes any time
// the thread spent preempted or waiting for a CPU. Defaults from the source: --threads=1,
// --events=0 (--max-requests is its deprecated alias), --time=10, --cpu-max-prime=10000,
// --percentile=95; --forced-shutdown defaults to time/20 after --time.
import { fork, run, wait, wake } from "../kernel/ops";
import type { TaskApi } from "../kernel/sched";
import { LatencyHistogram } from "../analysis/histogram";
import type { Workload, WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireKnownKeys, requireNumber } from "./workload";

/**
 * assumption: the cost of one trial division of cpu_execute_event (a 64-bit `c % l`, the sqrt
 * compare and the loop), ns at capacity 1024. Source: a published sysbench 1.0.20
 * `sysbench cpu run --threads=8 --time=7200` on a 16-vCPU Intel Cascade Lake ("standard-v2")
 * virtual machine printed latency min 0.83 ms at the default cpu-max-prime=10000; that event is
 * 117,526 trial divisions (counted by trialDivisions(10000)), so 0.83e6 / 117526 = 7.06 ns
 * (about 21 cycles at 3 GHz). Cross-check: a 1-thread run on another x86
 * box (jeonghoonkang/BerePi, setup/howto/sysbench.md, sysbench 1.0.18) printed min 0.84 ms. The
 * event cost then scales with cpu-max-prime through the division count, and with the machine
 * through its CPUs' capacity (a `run` op); it is never fitted to a scheduler result.
 */
export const SYSBENCH_CPU_DIVISION_NS = 0.83e6 / 117_526;

const divisionCache = new Map<number, number>();

/** The trial divisions one cpu_execute_event does for `maxPrime` (sb_cpu.c's loop, counted). */
export function trialDivisions(maxPrime: number): number {
  const hit = divisionCache.get(maxPrime);
  if (hit !== undefined) return hit;
  let n = 0;
  for (let c = 3; c < maxPrime; c++) {
    const t = Math.sqrt(c);
    for (let l = 2; l <= t; l++) {
      n++;
      if (c % l === 0) break;
    }
  }
  divisionCache.set(maxPrime, n);
  return n;
}

/** Parameters of workload.sysbenchCpu, named as sysbench's options. */
export interface SysbenchCpuParams {
  /** --threads: worker threads (default 1). */
  threads?: number;
  /** --max-requests (alias of --events): total events over all threads, 0 = no limit (default 0). */
  maxRequests?: number;
  /** --cpu-max-prime: upper limit of the primes generator (default 10000). */
  cpuMaxPrime?: number;
  /** --time: limit of the execution time, seconds, 0 = no limit (default 10). */
  time?: number;
  /** --percentile: the latency percentile reported (default 95). */
  percentile?: number;
  /** Model input, not a sysbench option: ns per trial division at capacity 1024 (default SYSBENCH_CPU_DIVISION_NS). */
  divisionNs?: number;
}

const ACCEPTED = ["threads", "maxRequests", "cpuMaxPrime", "time", "percentile", "divisionNs"];
/** Largest cpu-max-prime accepted (counting its divisions takes ~0.2 s; sysbench runs use 1e4-1e5). */
const MAX_PRIME_LIMIT = 1_000_000;

/** A workload with the real tool's report: `format(metrics)` returns the text the tool prints. */
export interface BenchmarkWorkload extends Workload {
  /** The tool's printed report for one iteration's metrics (and series, for tools that log rows). */
  format(metrics: Record<string, number>, series?: Record<string, number[]>): string;
}

/**
 * `sysbench cpu --threads=T --events=N --cpu-max-prime=P --time=S run` (sysbench 1.0): threads
 * computing primes, an event per pass. Metrics, as sysbench's report names them:
 * `events_per_s`, `total_time_s`, `events`, `lat_min_ms`, `lat_avg_ms`, `lat_max_ms`,
 * `lat_p<percentile>_ms`, `lat_sum_ms`, `fairness_events_avg`, `fairness_events_stddev`,
 * `fairness_time_avg_s`, `fairness_time_stddev_s`; `finished` is 1 when every thread stopped
 * within the simulated time. Series `lat_hist`: event latencies, usec, as [value, count] pairs.
 * `format(metrics)` prints sysbench's report.
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const sb = workload.sysbenchCpu({ threads: 2, time: 1 });
 * const it = topology("core2-2x2").workload(sb).runSync().iteration("baseline", 0);
 * console.log(sb.format(it.metrics).split("\n").slice(14, 17).join("\n"));
 * ```
 * Prints:
 * ```text
 * General statistics:
 *     total time:                          1.0002s
 *     total number of events:              2410
 * ```
 */
export function sysbenchCpu(params: SysbenchCpuParams = {}): BenchmarkWorkload {
  const where = "workload.sysbenchCpu";
  requireKnownKeys(where, params, ACCEPTED);
  const threads = requireInt(where, "threads", params.threads ?? 1, 1, 4096);
  const maxRequests = requireInt(where, "maxRequests", params.maxRequests ?? 0, 0);
  const cpuMaxPrime = requireInt(
    where,
    "cpuMaxPrime",
    params.cpuMaxPrime ?? 10000,
    1,
    MAX_PRIME_LIMIT,
  );
  const time = requireInt(where, "time", params.time ?? 10, 0);
  const percentile = requireInt(where, "percentile", params.percentile ?? 95, 0, 100);
  const divisionNs = requireNumber(
    where,
    "divisionNs",
    params.divisionNs ?? SYSBENCH_CPU_DIVISION_NS,
    0,
    false,
  );
  if (time === 0 && maxRequests === 0)
    throw new Error(
      `${where}: time and maxRequests are both 0 (an endless test); give time > 0 or maxRequests > 0`,
    );
  const eventNs = Math.max(1, Math.round(trialDivisions(cpuMaxPrime) * divisionNs));
  // With --time, run to its end plus sysbench's forced-shutdown window (time / 20); with only
  // --events, long enough for every event on one CPU at a quarter of full capacity.
  const durationNs =
    time > 0 ? Math.round(time * 1.05e9) : Math.round(maxRequests * eventNs * 4 + 0.1e9);
  const resolved = { threads, maxRequests, cpuMaxPrime, time, percentile, divisionNs };
  return {
    name: "sysbench-cpu",
    params: resolved,
    defaultDurationNs: durationNs,
    defaultWarmupNs: 0,
    format: (m) => formatSysbenchCpu(m, resolved),
    setup(ctx: WorkloadContext): WorkloadRun {
      const hist = new LatencyHistogram();
      const perThread = Array.from({ length: threads }, () => ({ events: 0, sumNs: 0 }));
      let minNs = Infinity;
      let maxNs = 0;
      let sumNs = 0;
      let granted = 0;
      let startNs = -1;
      let running = threads;
      let endNs = -1;
      const timeNs = time * 1e9;

      // sb_more_events(): the time limit first, then the shared event counter
      const moreEvents = (now: number): boolean => {
        if (time > 0 && now - startNs >= timeNs) return false;
        if (maxRequests > 0 && granted++ >= maxRequests) return false;
        return true;
      };

      function* worker(api: TaskApi, i: number, mainPid: number) {
        // thread_start_barrier: wait until the main thread releases every worker
        while (startNs < 0) yield wait();
        const mine = perThread[i];
        while (moreEvents(api.now())) {
          const t0 = api.now();
          yield run(eventNs);
          const lat = api.now() - t0;
          mine.events++;
          mine.sumNs += lat;
          sumNs += lat;
          if (lat < minNs) minNs = lat;
          if (lat > maxNs) maxNs = lat;
          hist.record(lat / 1000);
        }
        if (--running === 0) {
          endNs = api.now();
          yield wake(mainPid);
        }
      }

      ctx.at(0, () => {
        ctx.spawn({
          comm: "sysbench",
          role: "main",
          program: function* (api) {
            const pids: number[] = [];
            for (let i = 0; i < threads; i++) {
              pids.push(
                (yield fork({
                  comm: `sysbench-w${i}`,
                  role: "worker",
                  program: (w) => worker(w, i, api.pid),
                })) as number,
              );
            }
            // the barrier's last arrival starts sb_exec_timer and wakes the waiters
            startNs = api.now();
            for (const pid of pids) yield wake(pid);
            while (endNs < 0) yield wait();
          },
        });
      });

      return {
        metrics() {
          const finished = endNs >= 0;
          const total = ((finished ? endNs : ctx.endNs) - Math.max(0, startNs)) / 1e9;
          const events = perThread.reduce((s, t) => s + t.events, 0);
          const evAvg = events / threads;
          const timeAvg = sumNs / 1e9 / threads;
          let evVar = 0;
          let timeVar = 0;
          for (const t of perThread) {
            evVar += (evAvg - t.events) ** 2;
            timeVar += (timeAvg - t.sumNs / 1e9) ** 2;
          }
          const out: Record<string, number> = {
            events_per_s: total > 0 ? events / total : 0,
            total_time_s: total,
            events,
            lat_min_ms: events ? minNs / 1e6 : 0,
            lat_avg_ms: events ? sumNs / events / 1e6 : 0,
            lat_max_ms: maxNs / 1e6,
            lat_sum_ms: sumNs / 1e6,
            fairness_events_avg: evAvg,
            fairness_events_stddev: Math.sqrt(evVar / threads),
            fairness_time_avg_s: timeAvg,
            fairness_time_stddev_s: Math.sqrt(timeVar / threads),
            finished: finished ? 1 : 0,
          };
          if (percentile > 0)
            out[`lat_p${percentile}_ms`] = events ? hist.percentile(percentile) / 1000 : 0;
          return out;
        },
        series: () => ({ lat_hist: hist.toSeries() }),
      };
    },
  };
}

const pad = (s: string, width: number) => s.padStart(width);

/** sysbench 1.0.20's report of a cpu run (print_run_mode, cpu_report_cumulative, sb_report_cumulative). */
export function formatSysbenchCpu(
  m: Record<string, number>,
  p: { threads: number; cpuMaxPrime: number; percentile: number },
): string {
  const ms = (v: number, w: number) => pad(v.toFixed(2), w);
  const pct =
    p.percentile > 0
      ? `        ${pad(String(p.percentile), 3)}th percentile: ${ms(m[`lat_p${p.percentile}_ms`] ?? 0, 27)}`
      : "         percentile stats:               disabled";
  return [
    "Running the test with following options:",
    `Number of threads: ${p.threads}`,
    "Initializing random number generator from current time",
    "",
    "",
    `Prime numbers limit: ${p.cpuMaxPrime}`,
    "",
    "Initializing worker threads...",
    "",
    "Threads started!",
    "",
    "CPU speed:",
    `    events per second: ${pad(m.events_per_s.toFixed(2), 8)}`,
    "",
    "General statistics:",
    `    total time:                          ${m.total_time_s.toFixed(4)}s`,
    `    total number of events:              ${m.events}`,
    "",
    "Latency (ms):",
    `         min: ${ms(m.lat_min_ms, 39)}`,
    `         avg: ${ms(m.lat_avg_ms, 39)}`,
    `         max: ${ms(m.lat_max_ms, 39)}`,
    pct,
    `         sum: ${ms(m.lat_sum_ms, 39)}`,
    "",
    "Threads fairness:",
    `    events (avg/stddev):           ${m.fairness_events_avg.toFixed(4)}/${pad(m.fairness_events_stddev.toFixed(2), 3)}`,
    `    execution time (avg/stddev):   ${m.fairness_time_avg_s.toFixed(4)}/${pad(m.fairness_time_stddev_s.toFixed(2), 3)}`,
    "",
  ].join("\n");
}
