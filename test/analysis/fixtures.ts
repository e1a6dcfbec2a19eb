// Hand-made results and traces shared by the analysis, plot and report tests.
import type { IterationResult, ResultsData, SchedCounters } from "../../src/experiment/types";
import type { TraceRecord } from "../../src/kernel/trace";
import { newCounters } from "../../src/kernel/counters";

function sched(over: Partial<SchedCounters> = {}): SchedCounters {
  return { ...newCounters(), ...over };
}

function iteration(
  variant: string,
  i: number,
  tput: number,
  cs: number,
  lat: number[],
): IterationResult {
  return {
    variant,
    iteration: i,
    seed: `1/${variant}/${i}`,
    durationNs: 1e9,
    metrics: { throughput_mbps: tput },
    series: { latency_us: lat },
    tasks: [
      {
        pid: 101,
        comm: "netperf",
        role: "netperf",
        policy: "normal",
        nice: 0,
        rtPriority: 0,
        runtimeNs: 6e8,
        waitNs: 1e7,
        sleepNs: 3.9e8,
        switches: cs / 2,
        voluntarySwitches: cs / 2,
        involuntarySwitches: 0,
        migrations: 1,
        wakeups: 10,
        lastCpu: 0,
        counters: { sent: 100 },
      },
      {
        pid: 102,
        comm: "netserver",
        role: "netserver",
        policy: "normal",
        nice: 0,
        rtPriority: 0,
        runtimeNs: 4e8,
        waitNs: 2e7,
        sleepNs: 5.8e8,
        switches: cs / 2,
        voluntarySwitches: cs / 2,
        involuntarySwitches: 0,
        migrations: 2,
        wakeups: 12,
        lastCpu: 1,
        counters: { sent: 0 },
      },
    ],
    cpus: [
      {
        cpu: 0,
        online: true,
        idleNs: 4e8,
        busyNs: 6e8,
        overheadNs: 0,
        offlineNs: 0,
        contextSwitches: cs / 2,
        ipisReceived: 3,
      },
      {
        cpu: 1,
        online: true,
        idleNs: 6e8,
        busyNs: 4e8,
        overheadNs: 0,
        offlineNs: 0,
        contextSwitches: cs / 2,
        ipisReceived: 4,
      },
    ],
    sched: sched({
      contextSwitches: cs,
      migrations: variant === "post" ? { active_balance: 2 + i, wakeup: 5 } : { wakeup: 4 },
      balance: {
        MC: {
          passes: 10,
          balanced: 8,
          failed: 2,
          tasksMoved: 1,
          activeBalances: variant === "post" ? 2 : 0,
        },
      },
      wakePath: { local: 7, wakelist: 3 },
      rqLock: { wakeup: { acquisitions: 20, waitNs: 500 } },
    }),
    events: 1000 + i,
  };
}

/** pre: throughput 100,102,98,101,99 (mean 100); post: 110,112,108,111,109 (mean 110). */
export function abResults(): ResultsData {
  const pre = [100, 102, 98, 101, 99];
  const post = [110, 112, 108, 111, 109];
  const lat = (base: number) => Array.from({ length: 1000 }, (_, k) => base + k / 10);
  return {
    schedlab: "0.1.0",
    spec: {
      machine: "xeon-x5472",
      offline: [],
      era: "2.6.30",
      workload: { name: "netperf", params: { test: "UDP_STREAM" } },
      variants: { pre: [], post: ["idle-imbalance-llc2"] },
      iterations: 5,
      seed: "1",
      durationNs: 1e9,
      warmupNs: 0,
      tunables: {},
      hotplug: [],
    },
    iterations: [
      ...post.map((v, i) => iteration("post", i, v, 2000 + 10 * i, lat(5))),
      ...pre.map((v, i) => iteration("pre", i, v, 1000 + 10 * i, lat(10))),
    ],
  };
}

/**
 * Two CPUs, tasks a(1) and b(2):
 *   t=0    cpu0 idle -> a           t=1ms  wakeup b on cpu1 (waker a on cpu0)
 *   t=1ms  cpu1 idle -> b           t=2ms  b migrates 1 -> 0 (load_balance) after being preempted
 *   t=3ms  cpu0 a -> b (a sleeps)   t=4ms  cpu0 b -> idle (b sleeps)
 */
export function smallTrace(): TraceRecord[] {
  return [
    {
      type: "sched_switch",
      t: 0,
      cpu: 0,
      prevComm: "swapper/0",
      prevPid: 0,
      prevPrio: 120,
      prevState: "R",
      nextComm: "a",
      nextPid: 1,
      nextPrio: 120,
    },
    { type: "sched_wakeup", t: 1_000_000, cpu: 0, comm: "b", pid: 2, prio: 120, targetCpu: 1 },
    {
      type: "sched_switch",
      t: 1_000_000,
      cpu: 1,
      prevComm: "swapper/1",
      prevPid: 0,
      prevPrio: 120,
      prevState: "R",
      nextComm: "b",
      nextPid: 2,
      nextPrio: 120,
    },
    {
      type: "sched_switch",
      t: 2_000_000,
      cpu: 1,
      prevComm: "b",
      prevPid: 2,
      prevPrio: 120,
      prevState: "R",
      nextComm: "swapper/1",
      nextPid: 0,
      nextPrio: 120,
    },
    {
      type: "sched_migrate_task",
      t: 2_000_001,
      cpu: 0,
      comm: "b",
      pid: 2,
      prio: 120,
      origCpu: 1,
      destCpu: 0,
      reason: "load_balance",
    },
    {
      type: "sched_switch",
      t: 3_000_000,
      cpu: 0,
      prevComm: "a",
      prevPid: 1,
      prevPrio: 120,
      prevState: "S",
      nextComm: "b",
      nextPid: 2,
      nextPrio: 120,
    },
    {
      type: "sched_switch",
      t: 4_000_000,
      cpu: 0,
      prevComm: "b",
      prevPid: 2,
      prevPrio: 120,
      prevState: "S",
      nextComm: "swapper/0",
      nextPid: 0,
      nextPrio: 120,
    },
  ];
}
