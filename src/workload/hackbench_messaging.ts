// What hackbench's tasks share (tools/perf/bench/sched-messaging.c run on the kernel's AF_UNIX
// sockets or pipes): per receiver a socketpair or pipe (Fd) with its queue, pages, waiters and
// pipe->mutex, and the run's Messaging object (the ready and wake sockets, the counters).
import type { CacheModel } from "../kernel/cache";
import type { Kernel } from "../kernel/core/core";
import type { CostModel } from "../machine/types";

/**
 * estimate: unix_stream_sendmsg's work besides the syscall entry and the payload copy, at ~3 GHz
 * and capacity 1024: sock_alloc_send_pskb (two slab allocations), unix_state_lock of the peer,
 * skb_queue_tail, sk_data_ready: several hundred instructions, taken as 0.6 us. Not derived from
 * any hackbench time.
 */
export const UNIX_STREAM_SEND_NS = 600;
/**
 * estimate: unix_stream_read_generic's work besides the syscall entry and the copy: the iolock
 * mutex, skb_peek / skb_unlink, consume_skb (two slab frees) and sock_wfree, taken as 0.4 us.
 */
export const UNIX_STREAM_RECV_NS = 400;
/**
 * estimate: cache lines every message writes on both sides: the receive queue (lock and list
 * head) and sk_wmem_alloc for a socket, the pipe's mutex and head/tail for a pipe (2); the
 * sk_buff the sender wrote and the receiver frees (256 bytes: 4; pipes have none).
 */
export const HACKBENCH_SHARED_LINES = { queue: 2, skb: 4 } as const;
/** PIPE_DEF_BUFFERS: pages a new pipe holds. */
export const PIPE_DEF_BUFFERS = 16;

/**
 * How a pipe read wakes sleeping writers: all of them when it released a page (up to 5.4), one
 * when the pipe was full as the read began (5.5 to 6.13), one when it released a page of a full
 * pipe (6.14 on).
 */
export type PipeWake = "all" | "was_full" | "released";

/** One page of a pipe: messages written to it and read from it. */
interface PipePage {
  written: number;
  read: number;
}

/**
 * The writer CPU of each queued message, oldest first: a ring that doubles when full, so a
 * message costs no allocation and reading one moves nothing.
 */
export class CpuFifo {
  private ring = new Int32Array(64);
  private head = 0;
  /** Messages queued. */
  length = 0;

  /** Queues a message written on `cpu`. */
  push(cpu: number): void {
    if (this.length === this.ring.length) {
      const grown = new Int32Array(this.ring.length * 2);
      for (let i = 0; i < this.length; i++)
        grown[i] = this.ring[(this.head + i) & (this.ring.length - 1)];
      this.ring = grown;
      this.head = 0;
    }
    this.ring[(this.head + this.length) & (this.ring.length - 1)] = cpu;
    this.length++;
  }

  /** Takes the oldest message's writer CPU; the caller checks `length` first. */
  shift(): number {
    const cpu = this.ring[this.head];
    this.head = (this.head + 1) & (this.ring.length - 1);
    this.length--;
    return cpu;
  }
}

/** One receiver's socket or pipe: what is queued, where its lines were last written, who waits. */
export interface Fd {
  /** Writer CPU of each queued message, oldest first. */
  queue: CpuFifo;
  /** Socket: sk_wmem_alloc of the sending end (bytes). */
  wmem: number;
  /** Pipe: the pages in use, oldest first. */
  pages: PipePage[];
  /** Pipe: released pages, reused by the next page a writer starts. */
  freePages: PipePage[];
  /** CPU that last wrote the queue's shared lines (-1: none yet). */
  lineCpu: number;
  /** Pid of the receiver. */
  reader: number;
  /** The receiver sleeps in read() on an empty queue. */
  readerWaiting: boolean;
  /** Pids of the senders asleep on a full send buffer or pipe, in wait-queue order. */
  writers: number[];
  /** Pipe: pid holding pipe->mutex (0: free). */
  owner: number;
  /** Pipe: pids asleep in mutex_lock's slow path (lock->wait_list), first to be woken first. */
  lockWaiters: number[];
  /** Pipe: the waiter mutex_unlock woke that has not tried the lock again yet (0: none). */
  lockWoken: number;
  /** Pipe: when the owner's copy ends if it runs undisturbed (what a spinner waits out). */
  holdEndNs: number;
}

/** A new, empty socketpair or pipe. */
export function newFd(): Fd {
  return {
    queue: new CpuFifo(),
    wmem: 0,
    pages: [],
    freePages: [],
    lineCpu: -1,
    reader: 0,
    readerWaiting: false,
    writers: [],
    owner: 0,
    lockWaiters: [],
    lockWoken: 0,
    holdEndNs: 0,
  };
}

/** What sets up a run's {@link Messaging}: hackbench's parameters and the era's kernel rules. */
export interface MessagingConfig {
  /** nr_loops: messages each sender writes to each receiver. */
  loops: number;
  /** num_fds: receivers (and senders) per group. */
  fds: number;
  /** DATASIZE: bytes per message. */
  bytes: number;
  /** -p: pipes instead of AF_UNIX stream sockets. */
  pipe: boolean;
  /** -t: threads, reaped by pthread_join in order, instead of processes reaped by wait(). */
  thread: boolean;
  /** sk_sndbuf of a sending socket (bytes). */
  sndbuf: number;
  /** skb->truesize of one message (bytes). */
  truesize: number;
  /** Messages that fit one pipe page. */
  perPage: number;
  /** The era's pipe wake rule. */
  pipeWake: PipeWake;
  /**
   * mutex_lock spins on a running owner before it sleeps (CONFIG_MUTEX_SPIN_ON_OWNER, 2.6.30 on;
   * default true). 2.6.29's mutex_lock sleeps at once.
   */
  mutexSpin?: boolean;
  /** Children in all (senders and receivers). */
  total: number;
}

/**
 * What a run's tasks share: the socketpairs or pipes, the ready and wake sockets (as counts and
 * the list of pollers), the main task's wait, and the counters the metrics report.
 */
export class Messaging {
  /** The machine's costs (syscall entry). */
  readonly costs: CostModel;
  /** The kernel's cache model (copies, cache-line transfers). */
  readonly cache: CacheModel;
  /** A read's page releases wake writers exclusively (5.5 on). */
  readonly exclusiveWriters: boolean;
  /** Every receiver's socketpair or pipe, group by group (receiver j of group g at g * fds + j). */
  readonly fdTab: Fd[] = [];
  /** Pid of the main task (perf). */
  mainPid = 0;
  /** The main task sleeps in read(ready), wait() or pthread_join. */
  mainWaiting = false;
  /** Bytes written to the ready socket. */
  ready = 0;
  /** The main task has written the wake socket. */
  started = false;
  /** Pids asleep in poll() on the wake socket, in the order they polled. */
  readonly pollers: number[] = [];
  /** Children exited. */
  exited = 0;
  /** Per child (pth_tab order): 1 once it exited. */
  readonly done: Uint8Array;
  /** pth_tab index of the thread pthread_join waits for (-1: none). */
  joining = -1;
  /** Messages read by receivers. */
  received = 0;
  /** Writes that found the socket or pipe full and slept (each sleep counted). */
  sleeps = 0;
  /** Sleeping writers woken by a reader or by wake_next_writer. */
  wakeups = 0;
  /** Writers woken that found no room and slept again. */
  spurious = 0;
  /** Pipe: mutex_lock calls that found pipe->mutex held and spun on its running owner (per spin op). */
  lockSpins = 0;
  /** Pipe: mutex_lock calls that found pipe->mutex held by an owner off CPU and slept. */
  lockSleeps = 0;
  /** Pipe: the most pages any pipe has held (never above PIPE_DEF_BUFFERS). */
  maxPages = 0;
  /** mutex_lock spins on a running owner (2.6.30+). */
  readonly mutexSpin: boolean;
  private readonly kernel: Kernel;

  constructor(
    k: Kernel,
    readonly cfg: MessagingConfig,
  ) {
    this.kernel = k;
    this.costs = k.machine.costs;
    this.cache = k.cache;
    this.mutexSpin = cfg.mutexSpin ?? true;
    this.exclusiveWriters = cfg.pipeWake !== "all";
    this.done = new Uint8Array(cfg.total);
  }

  /**
   * A write would sleep: the send buffer is spent, or all 16 pages are in use and the last is full.
   * A pipe's writer checks and adds its page under pipe->mutex, so it never holds more than 16.
   */
  full(f: Fd): boolean {
    const c = this.cfg;
    return c.pipe
      ? f.pages.length === PIPE_DEF_BUFFERS && f.pages[f.pages.length - 1].written >= c.perPage
      : f.wmem >= c.sndbuf;
  }

  /** The CPU task `pid` runs on (p->on_cpu), or -1 when it is off CPU. */
  runningCpu(pid: number): number {
    const t = this.kernel.taskByPid(pid);
    return t?.onCpu ? t.cpu : -1;
  }

  /** Time to pull `n` cache lines last written on CPU `from` to `cpu` (0 if local or unwritten). */
  lines(n: number, from: number, cpu: number): number {
    return from < 0 || from === cpu ? 0 : n * this.cache.cacheLineNs(from, cpu);
  }
}
