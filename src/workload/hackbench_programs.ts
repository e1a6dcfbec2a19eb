// The children of `perf bench sched messaging` (tools/perf/bench/sched-messaging.c): sender() and
// receiver(), both starting with ready() (a byte on the ready socket, then poll() on the wake
// socket) and ending with exit(0), or the thread's return for -t. They are plain iterators (state
// machines), as kernel/repeat.ts's RepeatProgram, not generators: the executor
// (kernel/core/exec.ts continueTask) only calls next() and reads the result's done and value
// before asking again, so each task refills one result object, and one op of each kind (the
// executor consumes an op before the program resumes and never writes to it). A generator
// allocated an IteratorResult per resume, several per message. Each state runs exactly the code a
// generator ran between two yields, so the operations, their order and the shared state they read
// are those of the generators they replace.
import type { CacheModel } from "../kernel/cache";
import type { Kernel } from "../kernel/core/core";
import { type Op, run, wait, wake } from "../kernel/ops";
import type { TaskApi } from "../kernel/sched";
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

  constructor(
    k: Kernel,
    readonly cfg: MessagingConfig,
  ) {
    this.costs = k.machine.costs;
    this.cache = k.cache;
    this.exclusiveWriters = cfg.pipeWake !== "all";
    this.done = new Uint8Array(cfg.total);
  }

  /** A write would sleep: the send buffer is spent, or all 16 pages are in use and the last is full. */
  full(f: Fd): boolean {
    const c = this.cfg;
    return c.pipe
      ? f.pages.length === PIPE_DEF_BUFFERS && f.pages[f.pages.length - 1].written >= c.perPage
      : f.wmem >= c.sndbuf;
  }

  /** Time to pull `n` cache lines last written on CPU `from` to `cpu` (0 if local or unwritten). */
  lines(n: number, from: number, cpu: number): number {
    return from < 0 || from === cpu ? 0 : n * this.cache.cacheLineNs(from, cpu);
  }
}

const DONE: IteratorReturnResult<void> = Object.freeze({ done: true, value: undefined });

// States. ready() and exit are shared; each role numbers its loop from BODY.
/** ready(): write(ready_out, &dummy, 1). */
const READY_WRITE = 0;
/** The byte is on the ready socket: it wakes the main task if it sleeps in read(). */
const READY_WRITTEN = 1;
/** poll(wakefd): asleep until the main task writes the wake socket. */
const POLL = 2;
/** The role's loop. */
const BODY = 3;
/** sender(), for each loop and fd: write(out_fds[j]), asleep while the socket or pipe is full. */
const SEND_WRITE = BODY;
/** The message is queued: sk_data_ready / pipe_write's wake_up of the reader. */
const SEND_WRITTEN = BODY + 1;
/** pipe_write (5.5+): a writer that slept and leaves room wakes the next (wake_next_writer). */
const SEND_NEXT_WRITER = BODY + 2;
/** receiver(), for each of num_packets: read(in_fds[0]), asleep while nothing is queued. */
const RECV_READ = BODY;
/** The message is copied: consume_skb -> unix_write_space, or pipe_read's page release. */
const RECV_COPIED = BODY + 1;
/** Waking the writers the read made room for, one op each. */
const RECV_WAKE_WRITERS = BODY + 2;
/** The loop is over: exit(0) wakes wait(), a thread's return wakes pthread_join's futex. */
const EXIT = 10;
/** Exited: the program ends. */
const EXITED = 11;

/** What sender() and receiver() share: ready(), exit, the task's reusable ops and result. */
abstract class MessagingTask implements Generator<Op, void, unknown> {
  protected st = READY_WRITE;
  /** One result object, refilled by every next(): the executor reads it before asking again. */
  private readonly result: IteratorYieldResult<Op>;
  // one op of each kind, refilled per message: the kernel consumes an op before the program resumes
  protected readonly work = run(0);
  protected readonly waker = wake(0, true, false);
  protected readonly sleepOp = wait();

  constructor(
    protected readonly api: TaskApi,
    protected readonly sh: Messaging,
    /** This child's pth_tab index: receivers of group g, then its senders. */
    private readonly idx: number,
  ) {
    this.result = { done: false, value: this.work };
  }

  /** Runs the role's loop from state BODY on; returns null (state EXIT) once the loop is over. */
  protected abstract body(): Op | null;

  next(): IteratorResult<Op, void> {
    let op: Op | null = null;
    if (this.st < BODY) op = this.ready();
    if (op === null && this.st < EXIT) op = this.body();
    if (op === null) op = this.exit();
    if (op === null) return DONE;
    this.result.value = op;
    return this.result;
  }

  /** ready(): the states before BODY. Returns null once the wake socket's write has come. */
  private ready(): Op | null {
    const sh = this.sh;
    if (this.st === READY_WRITE) {
      this.st = READY_WRITTEN;
      this.work.ns = sh.costs.syscallNs;
      return this.work;
    }
    if (this.st === READY_WRITTEN) {
      sh.ready++;
      this.st = POLL;
      if (sh.mainWaiting) {
        sh.mainWaiting = false;
        this.waker.pid = sh.mainPid;
        return this.waker;
      }
    }
    // POLL
    if (!sh.started) {
      sh.pollers.push(this.api.pid);
      return this.sleepOp;
    }
    this.st = BODY;
    return null;
  }

  /** exit(0) or the thread's return; null once exited. */
  private exit(): Op | null {
    if (this.st === EXITED) return null;
    const sh = this.sh;
    this.st = EXITED;
    sh.exited++;
    sh.done[this.idx] = 1;
    // wait() takes any child (a sync wakeup); pthread_join's futex wakes only for its thread
    if (sh.mainWaiting && (!sh.cfg.thread || sh.joining === this.idx)) {
      sh.mainWaiting = false;
      return wake(sh.mainPid, !sh.cfg.thread, false);
    }
    return null;
  }

  return(): IteratorResult<Op, void> {
    this.st = EXITED;
    return DONE;
  }

  throw(e: unknown): IteratorResult<Op, void> {
    this.st = EXITED;
    throw e;
  }

  [Symbol.iterator](): Generator<Op, void, unknown> {
    return this;
  }
}

/** sender(): nr_loops times, DATASIZE bytes to each of the group's receivers in turn. */
export class SenderProgram extends MessagingTask {
  /** Loop and fd of the message being written. */
  private i = 0;
  private j = 0;
  private f: Fd;
  /** This write has slept on a full socket or pipe. */
  private waited = false;

  constructor(
    api: TaskApi,
    sh: Messaging,
    /** The sender's group. */
    private readonly g: number,
    idx: number,
  ) {
    super(api, sh, idx);
    this.f = sh.fdTab[g * sh.cfg.fds];
  }

  protected body(): Op | null {
    const sh = this.sh;
    const c = sh.cfg;
    let f = this.f;
    for (;;) {
      switch (this.st) {
        case SEND_WRITE: {
          if (sh.full(f)) {
            if (this.waited) sh.spurious++;
            sh.sleeps++;
            this.waited = true;
            f.writers.push(this.api.pid);
            return this.sleepOp;
          }
          if (!c.pipe) f.wmem += c.truesize; // skb_set_owner_w at the allocation
          const cpu = this.api.cpu();
          this.work.ns =
            sh.costs.syscallNs +
            (c.pipe ? 0 : UNIX_STREAM_SEND_NS) +
            sh.cache.copyNs(c.bytes, cpu, cpu) +
            sh.lines(HACKBENCH_SHARED_LINES.queue, f.lineCpu, cpu);
          this.st = SEND_WRITTEN;
          return this.work;
        }
        case SEND_WRITTEN: {
          f.lineCpu = this.api.cpu();
          f.queue.push(f.lineCpu);
          if (c.pipe) {
            // the write merges into the last page while it fits, else starts a page
            const last = f.pages[f.pages.length - 1];
            if (last && last.written < c.perPage) last.written++;
            else {
              const page = f.freePages.pop() ?? { written: 0, read: 0 };
              page.written = 1;
              page.read = 0;
              f.pages.push(page);
            }
          }
          this.st = SEND_NEXT_WRITER;
          if (f.readerWaiting) {
            f.readerWaiting = false;
            this.waker.pid = f.reader;
            return this.waker;
          }
          continue;
        }
        case SEND_NEXT_WRITER: {
          // 5.5+ pipe_write: a writer that waited and leaves the pipe not full (fewer than 16
          // pages in use) wakes the next one
          const wakeNext =
            c.pipe &&
            sh.exclusiveWriters &&
            this.waited &&
            f.writers.length > 0 &&
            f.pages.length < PIPE_DEF_BUFFERS;
          let op: Op | null = null;
          if (wakeNext) {
            sh.wakeups++;
            this.waker.pid = f.writers.shift()!;
            op = this.waker;
          }
          // the next message: the next fd, after the last fd the next loop
          if (++this.j === c.fds) {
            this.j = 0;
            if (++this.i === c.loops) {
              this.st = EXIT;
              return op;
            }
          }
          this.f = f = sh.fdTab[this.g * c.fds + this.j];
          this.waited = false;
          this.st = SEND_WRITE;
          if (op !== null) return op;
          continue;
        }
        default:
          throw new Error(`hackbench sender: bad state ${this.st}`);
      }
    }
  }
}

/** receiver(): num_fds x nr_loops reads of DATASIZE bytes from its own socket or pipe. */
export class ReceiverProgram extends MessagingTask {
  /** Messages read so far. */
  private n = 0;
  /** The writers this read wakes, newest first for a non-exclusive wakeup; entries below nWoken. */
  private readonly woken: number[] = [];
  private nWoken = 0;
  private kWoken = 0;

  constructor(
    api: TaskApi,
    sh: Messaging,
    /** The receiver's socketpair or pipe. */
    private readonly f: Fd,
    idx: number,
  ) {
    super(api, sh, idx);
  }

  protected body(): Op | null {
    const sh = this.sh;
    const c = sh.cfg;
    const f = this.f;
    for (;;) {
      switch (this.st) {
        case RECV_READ: {
          if (f.queue.length === 0) {
            f.readerWaiting = true;
            return this.sleepOp;
          }
          const from = f.queue.shift();
          const cpu = this.api.cpu();
          this.work.ns =
            sh.costs.syscallNs +
            (c.pipe ? 0 : UNIX_STREAM_RECV_NS) +
            sh.cache.copyNs(c.bytes, from, cpu) +
            sh.lines(HACKBENCH_SHARED_LINES.queue, f.lineCpu, cpu) +
            (c.pipe ? 0 : sh.lines(HACKBENCH_SHARED_LINES.skb, from, cpu));
          this.st = RECV_COPIED;
          return this.work;
        }
        case RECV_COPIED: {
          f.lineCpu = this.api.cpu();
          sh.received++;
          let wakeOne = false;
          let wakeAll = false;
          if (c.pipe) {
            const wasFull = f.pages.length === PIPE_DEF_BUFFERS;
            const page = f.pages[0];
            page.read++;
            const released = page.read === page.written;
            if (released) f.freePages.push(f.pages.shift()!); // buf->len == 0: the page goes back
            wakeAll = c.pipeWake === "all" && released;
            wakeOne =
              (c.pipeWake === "was_full" && wasFull) ||
              (c.pipeWake === "released" && released && wasFull);
          } else {
            f.wmem -= c.truesize; // sock_wfree -> unix_write_space
            wakeAll = f.wmem * 4 <= c.sndbuf;
          }
          this.nWoken = 0;
          this.kWoken = 0;
          if ((wakeOne || wakeAll) && f.writers.length > 0) {
            // exclusive waiters queue at the tail and the first is woken; non-exclusive ones
            // (prepare_to_wait: __add_wait_queue at the head) are woken newest first
            const w = f.writers;
            if (wakeOne) this.woken[this.nWoken++] = w.shift()!;
            else {
              for (let x = w.length - 1; x >= 0; x--) this.woken[this.nWoken++] = w[x];
              w.length = 0;
            }
            sh.wakeups += this.nWoken;
          }
          this.st = RECV_WAKE_WRITERS;
          continue;
        }
        case RECV_WAKE_WRITERS: {
          if (this.kWoken < this.nWoken) {
            this.waker.pid = this.woken[this.kWoken++];
            return this.waker;
          }
          if (++this.n === c.fds * c.loops) {
            this.st = EXIT;
            return null;
          }
          this.st = RECV_READ;
          continue;
        }
        default:
          throw new Error(`hackbench receiver: bad state ${this.st}`);
      }
    }
  }
}
