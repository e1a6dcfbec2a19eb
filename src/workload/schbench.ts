// schbench as of 2016-2020 (Chris Mason, Facebook; schbench.c "Copyright (C) 2016 Facebook"):
// message threads each start a pool of worker threads. A worker spins for cputime (usec_spin,
// a gettimeofday loop: wall time, not CPU work), then msg_and_wait(): it marks its futex
// BLOCKED, prepends itself to its message thread's list (xlist_add, a cmpxchg on the list head),
// fposts the message thread's futex and fwaits on its own. The message thread, in
// run_msg_thread(): futex = BLOCKED; xlist_wake_all() (xlist_splice of the list, ONE
// gettimeofday, then for each queued worker copy that time into its wake_time and fpost its
// futex); fwait until a worker posts; usleep(sleeptime + rand_r() % (sleeptime / 4)). The worker
// records gettimeofday - wake_time (whole usec, only if > 0) into its histogram after fwait
// returns. Defaults from the source: -m 2, -t 16, -r 30, -s 30000, -c 30000.
//
// Memory touched, and so what crosses nodes: the worker's thread_data line (futex and wake_time,
// "keep the futex and the wake_time in the same cacheline") is written by the message thread
// and read by the worker; the message thread's line (list head ->next and futex) is written by
// both. Each of those accesses is charged one cache-line transfer at the distance between the
// CPU that last wrote the line and the one touching it (costs.cacheLineNs).
import { fork, run, sleep, wait, wake } from "../kernel/ops";
import type { Task, TaskApi } from "../kernel/sched";
import { LatencyHistogram, SCHBENCH_PERCENTILES } from "../analysis/histogram";
import type { Workload, WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireNumber, runLength } from "./workload";

const US = 1000;
/** usec_spin's gettimeofday loop, modelled in slices of this much wall time (a choice). */
const SPIN_SLICE_NS = 1_000_000;
/**
 * choice: the memory a schbench thread keeps warm between rounds: its stack, the hot lines of
 * its thread_data (the 19 KB stats histogram is touched one bucket at a time) and libc's
 * gettimeofday/futex paths; 16 KB, refilled at the machine's copy bandwidth after a migration.
 */
export const SCHBENCH_WORKING_SET_BYTES = 16 * 1024;

/** Parameters of workload.schbench (schbench's own flags). */
export interface SchbenchParams {
  /** -m: message threads (default 2). */
  messageThreads?: number;
  /** -t: workers per message thread (default 16). */
  workers?: number;
  /** -r: run time, seconds (default 30). */
  runtime?: number;
  /** -s: message thread sleep between rounds, usec (default 30000). */
  sleeptime?: number;
  /** -c: worker spin per round, usec (default 30000). */
  cputime?: number;
  /** Seconds at the start whose latencies are not recorded (default 0). */
  warmupSeconds?: number;
}

const ACCEPTED = ["messageThreads", "workers", "runtime", "sleeptime", "cputime", "warmupSeconds"];

/** Per-run bookkeeping a notebook can read from the series (where things ran). */
interface PairState {
  msg: Task | null;
  workers: Task[];
}

/**
 * schbench (2016-2020): wakeup latency of worker threads woken by message threads.
 * Metrics (us): `lat_p50` ... `lat_p99.9` (schbench's percentiles), `lat_max`, `samples`;
 * `xnode_wakeups_per_s` (message thread and woken worker on different nodes at the wakeup),
 * `xnode_migrations_per_s` (a worker running on another node than in its previous round),
 * `same_node_frac` (share of wakeups with both on one node), `idle_package_wake_frac` (share of
 * wakeups whose target package had every CPU idle, where a per-socket package C-state would add
 * its exit; charged only for states with a core-only figure and package scope). Series:
 * `lat_hist` (the latency histogram as [usec, count] pairs) and `worker_node` (per round: time s,
 * worker index, node).
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const sb = workload.schbench({ messageThreads: 2, workers: 1, runtime: 0.5 });
 * const res = await topology("numa-2x12x2").era("5.6").workload(sb).run();
 * console.log(res.mean("samples", "baseline") > 10);
 * ```
 * Prints:
 * ```text
 * true
 * ```
 */
export function schbench(params: SchbenchParams = {}): Workload {
  const where = "workload.schbench";
  for (const k of Object.keys(params))
    if (!ACCEPTED.includes(k))
      throw new Error(`${where}: unknown option "${k}" (accepted: ${ACCEPTED.join(", ")})`);
  const m = requireInt(where, "messageThreads", params.messageThreads ?? 2, 1, 1024);
  const t = requireInt(where, "workers", params.workers ?? 16, 1, 4096);
  const runtime = requireNumber(where, "runtime", params.runtime ?? 30, 0, false);
  const sleeptime = requireInt(where, "sleeptime", params.sleeptime ?? 30000, 4);
  const cputime = requireInt(where, "cputime", params.cputime ?? 30000, 0);
  const len = runLength(where, { seconds: runtime, warmupSeconds: params.warmupSeconds }, runtime);
  const maxJitter = Math.floor(sleeptime / 4);
  return {
    name: "schbench",
    params: {
      messageThreads: m,
      workers: t,
      runtime,
      sleeptime,
      cputime,
      warmupSeconds: params.warmupSeconds ?? 0,
    },
    ...len,
    setup(ctx: WorkloadContext): WorkloadRun {
      const k = ctx.kernel;
      const nodeOf = (cpu: number) => k.machine.cpus[cpu].node;
      const line = (a: number, b: number) => (a < 0 || a === b ? 0 : k.cache.cacheLineNs(a, b));
      const hist = new LatencyHistogram();
      const workerNode: number[] = [];
      let xnodeWakeups = 0;
      let wakeups = 0;
      let xnodeMigrations = 0;
      let idlePkgWakeups = 0;
      const pkgCpus = new Map<number, number[]>();
      for (const c of k.machine.cpus) {
        const list = pkgCpus.get(c.package) ?? [];
        list.push(c.id);
        pkgCpus.set(c.package, list);
      }
      // Every CPU of the package idle: a package C-state may be in force (idle.ts exitLatencyNs).
      const packageIdle = (cpu: number) =>
        pkgCpus.get(k.machine.cpus[cpu].package)!.every((c) => k.rqs[c].isIdle());
      const pairs: PairState[] = [];
      const counting = () => k.now >= ctx.warmupNs;

      for (let mi = 0; mi < m; mi++) {
        const pair: PairState = { msg: null, workers: [] };
        pairs.push(pair);
        // One thread_data per thread: its futex word and (workers) wake_time, and which CPU last
        // wrote the line holding them; the message thread's line also holds the list head.
        const msgTd = { futex: 0, lastCpu: -1, list: [] as number[] };
        const workerTd: { futex: number; wakeTime: number; lastCpu: number; node: number }[] = [];

        // fpost(): cmpxchg BLOCKED -> RUNNING, and FUTEX_WAKE only if that succeeded.
        function* fpostMsg(api: TaskApi, msgPid: number) {
          const cpu = api.cpu();
          const c = line(msgTd.lastCpu, cpu);
          msgTd.lastCpu = cpu;
          if (c > 0) yield run(c);
          if (msgTd.futex === 0) {
            msgTd.futex = 1;
            yield wake(msgPid);
          }
        }

        function* worker(api: TaskApi, wi: number, msgPid: number) {
          const td = workerTd[wi];
          for (;;) {
            // usec_spin(cputime): spin until cputime of wall time has passed
            const end = api.now() + cputime * US;
            while (api.now() < end) yield run(Math.min(SPIN_SLICE_NS, end - api.now()));
            // msg_and_wait(): futex = BLOCKED, xlist_add to the message thread's list, fpost it
            td.futex = 0;
            td.lastCpu = api.cpu();
            msgTd.list.unshift(wi);
            yield* fpostMsg(api, msgPid);
            // fwait(): sleep until the message thread posts us (a cmpxchg RUNNING -> BLOCKED)
            while (td.futex !== 1) yield wait();
            const cpu = api.cpu();
            const c = line(td.lastCpu, cpu);
            if (c > 0) yield run(c);
            td.futex = 0;
            td.lastCpu = cpu;
            const node = nodeOf(cpu);
            if (counting()) {
              const us = Math.floor((api.now() - td.wakeTime) / US);
              if (us > 0) hist.record(us);
              if (node !== td.node && td.node >= 0) xnodeMigrations++;
              workerNode.push(api.now() / 1e9, mi * t + wi, node);
            }
            td.node = node;
          }
        }

        const spawnMsg = () =>
          ctx.spawn({
            comm: `schbench-msg${mi}`,
            role: "message",
            workingSetBytes: SCHBENCH_WORKING_SET_BYTES,
            program: function* (api) {
              // message_thread(): pthread_create each worker (clone: fork balancing), then run
              for (let wi = 0; wi < t; wi++) {
                workerTd.push({ futex: 0, wakeTime: 0, lastCpu: -1, node: -1 });
                const pid = (yield fork({
                  comm: `schbench-w${mi}.${wi}`,
                  role: "worker",
                  workingSetBytes: SCHBENCH_WORKING_SET_BYTES,
                  program: (wapi) => worker(wapi, wi, api.pid),
                })) as number;
                pair.workers.push(k.taskByPid(pid)!);
              }
              for (;;) {
                msgTd.futex = 0;
                // xlist_wake_all(): splice the list (a cmpxchg on the head), ONE gettimeofday
                const cpu = api.cpu();
                const c = line(msgTd.lastCpu, cpu);
                msgTd.lastCpu = cpu;
                if (c > 0) yield run(c);
                const list = msgTd.list.splice(0);
                const now = api.now();
                for (const wi of list) {
                  const td = workerTd[wi];
                  // memcpy wake_time into the worker's line and cmpxchg its futex
                  const wc = line(td.lastCpu, api.cpu());
                  td.lastCpu = api.cpu();
                  if (wc > 0) yield run(wc);
                  td.wakeTime = now;
                  if (td.futex === 0) {
                    td.futex = 1;
                    const w = pair.workers[wi];
                    if (counting()) {
                      wakeups++;
                      if (nodeOf(api.cpu()) !== nodeOf(w.cpu)) xnodeWakeups++;
                      if (packageIdle(w.cpu)) idlePkgWakeups++;
                    }
                    yield wake(w.pid);
                  }
                }
                // fwait(): until a worker posts
                while (msgTd.futex !== 1) yield wait();
                msgTd.futex = 0;
                const jitter = Math.floor(api.random() * maxJitter);
                yield sleep((sleeptime + jitter) * US);
              }
            },
          });
        ctx.at(0, () => {
          pair.msg = spawnMsg();
        });
      }

      return {
        metrics() {
          const secs = Math.max(1e-9, (ctx.endNs - ctx.warmupNs) / 1e9);
          const out: Record<string, number> = {};
          SCHBENCH_PERCENTILES.forEach((p) => {
            out[`lat_p${p}`] = hist.percentile(p);
          });
          out.lat_max = hist.max;
          out.samples = hist.count;
          out.xnode_wakeups_per_s = xnodeWakeups / secs;
          out.xnode_migrations_per_s = xnodeMigrations / secs;
          out.same_node_frac = wakeups ? 1 - xnodeWakeups / wakeups : NaN;
          out.idle_package_wake_frac = wakeups ? idlePkgWakeups / wakeups : NaN;
          return out;
        },
        series() {
          return { lat_hist: hist.toSeries(), worker_node: workerNode };
        },
      };
    },
  };
}
