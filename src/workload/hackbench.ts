// `perf bench sched messaging` (tools/perf/bench/sched-messaging.c, Rusty Russell's hackbench
// ported by Hitoshi Mitake; hackbench.c is the same program with positional arguments). The main
// task makes two socketpairs (ready, wake) and, per group, one socketpair (or pipe, -p) per
// receiver: it forks (or pthread_creates, -t) num_fds = 20 receivers, then 20 senders sharing the
// group's 20 write ends. Every child writes one byte to the ready fd and poll()s the wake fd. The
// main task reads a byte per child, takes gettimeofday(start), writes the wake fd (every poller
// wakes), then reaps every child (wait() or pthread_join) and takes gettimeofday(stop). A sender
// writes DATASIZE = 100 bytes to each of the 20 receivers, nr_loops times; a receiver reads
// 20 x nr_loops messages. Defaults from the source: 10 groups (-g), 100 loops (-l), processes,
// AF_UNIX SOCK_STREAM socketpairs.
//
// What the kernel does with each message. Socket (net/unix/af_unix.c, net/core/sock.c, v4.8 to
// v6.x): unix_stream_sendmsg allocates one skb per write with sock_alloc_send_pskb, charging its
// truesize to the sending socket's sk_wmem_alloc; while sk_wmem_alloc >= sk_sndbuf (the socket
// is shared by the group's 20 senders) the writer sleeps in sock_wait_for_wmem (a non-exclusive
// wait). The skb is queued on the receiver and sk_data_ready (sock_def_readable) wakes the reader
// with a sync wakeup. The reader's consume_skb gives the truesize back (sock_wfree), and
// unix_write_space wakes every sleeping writer once unix_writable holds: sk_wmem_alloc x 4 <=
// sk_sndbuf. Pipe (fs/pipe.c): a 100-byte write merges into the last page while it fits
// (PIPE_BUF_FLAG_CAN_MERGE, offset + chars <= PAGE_SIZE), the pipe holds PIPE_DEF_BUFFERS = 16
// pages, and a writer that finds all 16 in use and the last one unmergeable sleeps. Who wakes
// it depends on the release: up to 5.4 readers and writers share the non-exclusive pipe->wait,
// and a read that empties a page wakes them all; from 5.5 (the pipe rework, "pipe: use exclusive
// waits when reading or writing") writers wait exclusively on wr_wait, a read that began with all
// 16 pages in use wakes one writer whether or not it freed a page, and a woken writer that leaves
// the pipe not full wakes the next (wake_next_writer); today (torvalds/linux fs/pipe.c, taken
// from era 6.19) a read wakes one only when it released a page of a full pipe (Oleg Nesterov,
// "pipe_read: don't wake up the writer if the pipe is still full"). In every era pipe_write and
// pipe_read hold pipe->mutex (2.6.29: inode->i_mutex) across the fullness or emptiness check, the
// copy and the page accounting (fs/pipe.c v4.8: __pipe_lock ... pipe->nrbufs = ++bufs; v5.10:
// __pipe_lock ... pipe->head = head + 1; today: mutex_lock(&pipe->mutex)), dropping it only to
// sleep, so a group's writers to one pipe copy one at a time and a pipe never exceeds 16 pages.
// mutex_lock spins while the owner runs (2.6.30 on) and sleeps when it is off CPU.
import { fork, run, wait, wake } from "../kernel/ops";
import type { TaskApi } from "../kernel/sched";
import { eraAtLeast } from "../kernel/features";
import {
  Messaging,
  newFd,
  ReceiverProgram,
  SenderProgram,
  UNIX_STREAM_SEND_NS,
} from "./hackbench_programs";
import type { WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireKnownKeys } from "./workload";
import type { BenchmarkWorkload } from "./sysbench_cpu";
import { SK_BUFF_BYTES, SHINFO_BYTES, SOCKET_BUFFER_DEFAULT } from "./netperf";

export {
  HACKBENCH_SHARED_LINES,
  UNIX_STREAM_RECV_NS,
  UNIX_STREAM_SEND_NS,
} from "./hackbench_programs";

/** sched-messaging.c DATASIZE: bytes per write and per read. */
export const HACKBENCH_DATASIZE = 100;
/** sched-messaging.c num_fds: receivers (and senders) per group. */
export const HACKBENCH_FDS = 20;
const PAGE_SIZE = 4096;

/**
 * skb->truesize of one AF_UNIX stream write of `bytes` that fits the skb head (v4.8-v6.2):
 * __alloc_skb(bytes) takes kmalloc(SKB_DATA_ALIGN(bytes) + skb_shared_info), a power-of-two
 * cache, and truesize = that size + the sk_buff (100 bytes: 512 + 256 = 768). These are the
 * SKB_TRUESIZE figures of 3.2+ (the 2.6.29 era reuses them); 6.3's skb_small_head_cache is not
 * modelled.
 */
export function unixSkbTruesize(bytes: number): number {
  const data = Math.ceil(bytes / 64) * 64 + SHINFO_BYTES;
  return 2 ** Math.ceil(Math.log2(data)) + SK_BUFF_BYTES;
}

/**
 * choice: what a hackbench task keeps warm (its stack with the 100-byte buffer, libc's
 * read/write paths, its fd table lines): 8 KB, refilled after a migration.
 */
export const HACKBENCH_WORKING_SET_BYTES = 8192;
/**
 * choice: simulated time allowed per message before the run is cut (`finished` = 0): 10 us, more
 * than a message's send, receive and two switches on one CPU of any preset.
 */
const MAX_NS_PER_MESSAGE = 10_000;

/** Parameters of workload.hackbench, named as `perf bench sched messaging` names them. */
export interface HackbenchParams {
  /** -g/--group: groups of senders and receivers (default 10). */
  groups?: number;
  /** -l/--nr_loops: messages each sender writes to each receiver (default 100). */
  loops?: number;
  /** -t/--thread: threads of one process instead of processes (default false). */
  thread?: boolean;
  /** -p/--pipe: pipe() instead of socketpair(AF_UNIX, SOCK_STREAM) (default false). */
  pipe?: boolean;
  /** hackbench -f/--fds: senders and receivers per group (perf: fixed at 20). */
  fds?: number;
  /** hackbench -s/--datasize: bytes per message (perf: fixed at 100). */
  datasize?: number;
}

const ACCEPTED = ["groups", "loops", "thread", "pipe", "fds", "datasize"];

/**
 * `perf bench sched messaging [-g GROUPS] [-l LOOPS] [-t] [-p]` (hackbench): groups of 20
 * senders each writing `loops` 100-byte messages to each of the group's 20 receivers. Metrics:
 * `total_time_s` (what perf prints: gettimeofday from the start signal to the last reap, whole
 * usec), `finished` (1 when every child was reaped within the simulated time), `messages`
 * (received in all), `tasks`, `writer_sleeps` (writes that found the socket's send buffer or the
 * pipe full and slept), `writer_wakeups` (writers woken by readers making room), `writer_spurious_wakeups` (woken
 * writers that found no room and slept again), and over the
 * timed part the kernel's `context_switches_per_s` and `wakeup_preemptions_per_s`. Threads
 * (-t) and processes cost the same here (the machine's context switch has no separate mm switch);
 * they differ in how an exiting child wakes the main task (a sync wakeup for wait(), a futex
 * wakeup for pthread_join).
 * `format(metrics)` prints perf's report.
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const hb = workload.hackbench({ groups: 1, loops: 10 });
 * const it = topology("core2-2x2").era("6.19").workload(hb).runSync().iteration("baseline", 0);
 * console.log(hb.format(it.metrics).split("\n").slice(0, 3).join("\n"));
 * ```
 * Prints:
 * ```text
 * # Running 'sched/messaging' benchmark:
 * # 20 sender and receiver processes per group
 * # 1 groups == 40 processes run
 * ```
 */
export function hackbench(params: HackbenchParams = {}): BenchmarkWorkload {
  const where = "workload.hackbench";
  requireKnownKeys(where, params, ACCEPTED);
  const groups = requireInt(where, "groups", params.groups ?? 10, 1, 10_000);
  const loops = requireInt(where, "loops", params.loops ?? 100, 1, 100_000_000);
  const fds = requireInt(where, "fds", params.fds ?? HACKBENCH_FDS, 1, 1000);
  const bytes = requireInt(where, "datasize", params.datasize ?? HACKBENCH_DATASIZE, 1, PAGE_SIZE);
  for (const f of ["thread", "pipe"] as const)
    if (typeof (params[f] ?? false) !== "boolean")
      throw new Error(`${where}: ${f} must be true or false (got ${JSON.stringify(params[f])})`);
  const thread = params.thread ?? false;
  const pipe = params.pipe ?? false;
  const resolved = { groups, loops, thread, pipe, fds, datasize: bytes };
  const messages = groups * fds * fds * loops;
  return {
    name: "perf-bench-sched-messaging",
    params: resolved,
    defaultDurationNs: messages * MAX_NS_PER_MESSAGE + 10_000_000,
    defaultWarmupNs: 0,
    format: (m) => formatHackbench(m, resolved),
    setup(ctx: WorkloadContext): WorkloadRun {
      const k = ctx.kernel;
      const costs = k.machine.costs;
      const total = groups * fds * 2;
      // how a pipe read wakes writers: all on a released page (..5.4), one on a read of a full
      // pipe (5.5..), one on a page released from a full pipe (today)
      const pipeWake = !eraAtLeast(k.era, "5.5")
        ? "all"
        : eraAtLeast(k.era, "6.14")
          ? "released"
          : "was_full";
      const sh = new Messaging(k, {
        loops,
        fds,
        bytes,
        pipe,
        thread,
        sndbuf: SOCKET_BUFFER_DEFAULT,
        truesize: unixSkbTruesize(bytes),
        perPage: Math.floor(PAGE_SIZE / bytes),
        pipeWake,
        // mutex_lock's optimistic spinning on a running owner: 2.6.30 on (0d66bf6d3514)
        mutexSpin: eraAtLeast(k.era, "2.6.30"),
        total,
      });
      let startNs = -1;
      let stopNs = -1;
      const base = { cs: 0, wp: 0 };

      const child = (comm: string, role: string, program: (api: TaskApi) => Generator) =>
        fork({
          comm,
          role,
          workingSetBytes: HACKBENCH_WORKING_SET_BYTES,
          program: program as never,
        });

      ctx.at(0, () => {
        const main = ctx.spawn({
          comm: "perf",
          role: "main",
          workingSetBytes: HACKBENCH_WORKING_SET_BYTES,
          program: function* (api: TaskApi) {
            for (let g = 0; g < groups; g++) {
              for (let j = 0; j < fds; j++) {
                const f = newFd();
                sh.fdTab.push(f);
                yield run(costs.syscallNs); // socketpair() or pipe()
                const idx = g * 2 * fds + j; // pth_tab order: receivers, then senders
                f.reader = (yield child(
                  `sched-msg-r${g}.${j}`,
                  "receiver",
                  (a) => new ReceiverProgram(a, sh, f, idx),
                )) as number;
              }
              for (let j = 0; j < fds; j++) {
                const idx = g * 2 * fds + fds + j;
                yield child(
                  `sched-msg-s${g}.${j}`,
                  "sender",
                  (a) => new SenderProgram(a, sh, g, idx),
                );
              }
            }
            // read one byte per child from the ready socket
            let read = 0;
            while (read < total) {
              while (sh.ready === read) {
                sh.mainWaiting = true;
                yield wait();
              }
              yield run((sh.ready - read) * costs.syscallNs);
              read = sh.ready;
            }
            startNs = api.now();
            base.cs = k.counters.contextSwitches;
            base.wp = k.counters.wakeupPreemptions;
            sh.started = true;
            // write(wakefds[1]): sock_def_readable wakes every poller (sync)
            yield run(costs.syscallNs + (pipe ? 0 : UNIX_STREAM_SEND_NS));
            // poll's waiters sit at the head of the queue: the last to poll is woken first
            for (const pid of sh.pollers.splice(0).reverse()) yield wake(pid, true, false);
            // reap them all: wait() returns any exited child; pthread_join takes them in order
            let reaped = 0;
            while (reaped < total) {
              if (thread) {
                sh.joining = reaped;
                // a finished thread is joined in user space; a running one costs a futex wait
                while (!sh.done[reaped]) {
                  sh.mainWaiting = true;
                  yield wait();
                }
                reaped++;
                continue;
              }
              while (sh.exited === reaped) {
                sh.mainWaiting = true;
                yield wait();
              }
              yield run((sh.exited - reaped) * costs.syscallNs);
              reaped = sh.exited;
            }
            stopNs = api.now();
          },
        });
        sh.mainPid = main.pid;
      });

      return {
        metrics() {
          const finished = stopNs >= 0;
          const end = finished ? stopNs : ctx.endNs;
          // gettimeofday: whole microseconds
          const usec = startNs < 0 ? 0 : Math.floor((end - startNs) / 1000);
          const secs = usec / 1e6;
          return {
            total_time_s: secs,
            finished: finished ? 1 : 0,
            messages: sh.received,
            tasks: total,
            writer_sleeps: sh.sleeps,
            writer_wakeups: sh.wakeups,
            writer_spurious_wakeups: sh.spurious,
            context_switches_per_s: secs > 0 ? (k.counters.contextSwitches - base.cs) / secs : 0,
            wakeup_preemptions_per_s:
              secs > 0 ? (k.counters.wakeupPreemptions - base.wp) / secs : 0,
            // pipe->mutex contention (pipes only; sockets take no such mutex here)
            ...(pipe ? { mutex_spins: sh.lockSpins, mutex_sleeps: sh.lockSleeps } : {}),
          };
        },
      };
    },
  };
}

/** perf's default-format report of `sched messaging` (builtin-bench.c's header, then sched-messaging.c's). */
export function formatHackbench(
  m: Record<string, number>,
  p: { groups: number; thread: boolean; fds: number },
): string {
  const kind = p.thread ? "threads" : "processes";
  const usec = Math.round(m.total_time_s * 1e6);
  const sec = Math.floor(usec / 1e6);
  const msec = Math.floor((usec % 1e6) / 1000);
  return [
    "# Running 'sched/messaging' benchmark:",
    `# ${p.fds} sender and receiver ${kind} per group`,
    `# ${p.groups} groups == ${p.groups * 2 * p.fds} ${kind} run`,
    "",
    ` ${"Total time".padStart(14)}: ${sec}.${String(msec).padStart(3, "0")} [sec]`,
  ].join("\n");
}
