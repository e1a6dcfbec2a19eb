// Shared fixture of the factory-wide tests (metrics.test.ts, cpus.test.ts): a small instance of
// every `workload` factory that takes options, and how long to run it.
import { workload, type Workload } from "../../src/index";
import type { CpusOption } from "../../src/workload/cpus";
import * as fs from "node:fs";
import * as path from "node:path";
import { importTraceText } from "../../src/analysis/trace_import";

const PIPE_TRACE = path.join(
  __dirname,
  "..",
  "analysis",
  "traces",
  "linux-6.18-perf-bench-pipe.txt",
);

/** Every factory with small options, extra options merged in (e.g. { cpus }). */
export function smallFactories(extra: CpusOption = {}): Record<string, Workload> {
  return {
    hogs: workload.hogs({ n: 2, seconds: 0.05, ...extra }),
    pingpong: workload.pingpong({ pairs: 1, seconds: 0.05, ...extra }),
    sleepers: workload.sleepers({ n: 2, runNs: 1e6, sleepNs: 1e6, seconds: 0.05, ...extra }),
    schedFair: workload.schedFair({
      children: 2,
      loopNs: 1e6,
      intervals: 2,
      interval: 0.02,
      background: null,
      ...extra,
    }),
    schbench: workload.schbench({ messageThreads: 1, workers: 2, runtime: 0.05, ...extra }),
    oltpRtMix: workload.oltpRtMix({ seconds: 0.3, ...extra }),
    sysbenchCpu: workload.sysbenchCpu({ threads: 2, maxRequests: 50, ...extra }),
    perfBenchPipe: workload.perfBenchPipe({ loops: 100, ...extra }),
    stressCpu: workload.stressCpu({ cpu: 2, timeout: 1, ...extra }),
    rtApp: workload.rtApp(
      { global: { duration: 1 }, tasks: { t1: { loop: -1, run: 1000, sleep: 1000 } } },
      extra,
    ),
    netperfUdpStream: workload.netperfUdpStream({ seconds: 0.05, ...extra }),
    netperfTcpRr: workload.netperfTcpRr({ seconds: 0.05, ...extra }),
    unixbenchContext1: workload.unixbenchContext1({
      copies: 1,
      passes: 1,
      passSeconds: 0.05,
      ...extra,
    }),
    hackbench: workload.hackbench({ groups: 1, loops: 10, ...extra }),
    threadBurst: workload.threadBurst({ threads: 2, releaseAtMs: 2, seconds: 0.1, ...extra }),
    stream: workload.stream({ threads: 2, arraySize: 1_000_000, ...extra }),
    cacheHog: workload.cacheHog({ copies: 2, runWorkNs: 5e6, ...extra }),
    // a real trace of perf bench sched pipe; its per-CPU kernel threads are left out, since they
    // are bound to CPUs that a cpus option may exclude
    replay: workload.replay(importTraceText(fs.readFileSync(PIPE_TRACE, "utf8")), {
      kthreads: false,
      ...extra,
    }),
  };
}

/** Simulated seconds to run each factory's instance (the warm-up of oltpRtMix is 0.2 s). */
export const SMALL_RUN_S = 0.1;
export const durationOf = (name: string) => (name === "oltpRtMix" ? 0.4 : SMALL_RUN_S);
