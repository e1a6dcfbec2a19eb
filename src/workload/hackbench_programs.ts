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
import { type Op, run, wait, wake } from "../kernel/ops";
import type { TaskApi } from "../kernel/sched";
import {
  type Fd,
  HACKBENCH_SHARED_LINES,
  type Messaging,
  PIPE_DEF_BUFFERS,
  UNIX_STREAM_RECV_NS,
  UNIX_STREAM_SEND_NS,
} from "./hackbench_messaging";

export {
  type Fd,
  HACKBENCH_SHARED_LINES,
  Messaging,
  type MessagingConfig,
  newFd,
  PIPE_DEF_BUFFERS,
  type PipeWake,
  UNIX_STREAM_RECV_NS,
  UNIX_STREAM_SEND_NS,
} from "./hackbench_messaging";

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
/** Pipe: in write(), mutex_lock(&pipe->mutex), then the fullness check under it. */
const SEND_LOCK = BODY + 3;
/** Pipe: the mutex dropped on a full pipe, wait_event on wr_wait (or pipe_wait up to 5.4). */
const SEND_SLEEP = BODY + 4;
/** After the unlock: the wake_up of the reader. */
const SEND_WAKE_READER = BODY + 5;
/** receiver(), for each of num_packets: read(in_fds[0]), asleep while nothing is queued. */
const RECV_READ = BODY;
/** The message is copied: consume_skb -> unix_write_space, or pipe_read's page release. */
const RECV_COPIED = BODY + 1;
/** Waking the writers the read made room for, one op each. */
const RECV_WAKE_WRITERS = BODY + 2;
/** Pipe: in read(), mutex_lock(&pipe->mutex), then the emptiness check under it. */
const RECV_LOCK = BODY + 3;
/** Pipe: the mutex dropped on an empty pipe, wait_event on rd_wait (or pipe_wait up to 5.4). */
const RECV_SLEEP = BODY + 4;
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
  /** mutex_unlock's wakeup of the first waiter (wake_up_process: not a sync wakeup). */
  protected readonly lockWaker = wake(0, false, false);
  /** This task was the waiter mutex_unlock woke: if it sleeps again it keeps the list's head. */
  private lockFirst = false;

  constructor(
    protected readonly api: TaskApi,
    protected readonly sh: Messaging,
    /** This child's pth_tab index: receivers of group g, then its senders. */
    private readonly idx: number,
  ) {
    this.result = { done: false, value: this.work };
  }

  /**
   * mutex_lock(&pipe->mutex) (kernel/locking/mutex.c): null once this task holds it, else the op
   * to wait with, after which the caller's state calls lock again. A free mutex is taken (the
   * fast path, or a woken waiter's retry). A held one: while its owner runs, the caller spins
   * (mutex_optimistic_spin / mutex_spin_on_owner, 2.6.30 on: spin while owner->on_cpu), modelled
   * as one `run` until the owner's copy should end plus the cache-line transfer that shows it the
   * release, then a retry; an owner off CPU (preempted mid-copy), or any owner before 2.6.30,
   * puts the caller on lock->wait_list (list_add_tail) to sleep until mutex_unlock wakes it.
   */
  protected lock(f: Fd): Op | null {
    const sh = this.sh;
    const pid = this.api.pid;
    if (f.lockWoken === pid) {
      f.lockWoken = 0;
      this.lockFirst = true;
    }
    if (f.owner === 0) {
      f.owner = pid;
      this.lockFirst = false;
      return null;
    }
    const ownerCpu = sh.mutexSpin ? sh.runningCpu(f.owner) : -1;
    if (ownerCpu >= 0) {
      sh.lockSpins++;
      this.work.ns =
        Math.max(0, f.holdEndNs - this.api.now()) + sh.lines(1, ownerCpu, this.api.cpu());
      return this.work;
    }
    sh.lockSleeps++;
    // a woken waiter never left the kernel's wait_list: it sleeps again at its head
    if (this.lockFirst) f.lockWaiters.unshift(pid);
    else f.lockWaiters.push(pid);
    this.lockFirst = false;
    return this.sleepOp;
  }

  /**
   * mutex_unlock(&pipe->mutex): frees the mutex and returns the waiter to wake (0: none). The
   * slow path wakes the first waiter, which takes the mutex if it is still free when it runs; one
   * woken waiter at a time (the kernel's stays on the list and is woken again, a no-op).
   */
  protected unlock(f: Fd): number {
    f.owner = 0;
    if (f.lockWoken !== 0 || f.lockWaiters.length === 0) return 0;
    f.lockWoken = f.lockWaiters.shift()!;
    return f.lockWoken;
  }

  /** The copy under the mutex: `ns` of work, which a spinner expects to end at now + ns. */
  protected copy(f: Fd, ns: number): Op {
    f.holdEndNs = this.api.now() + ns;
    this.work.ns = ns;
    return this.work;
  }

  /** The mutex wakeup of `pid`, or null for none. */
  protected wakeLockWaiter(pid: number): Op | null {
    if (pid === 0) return null;
    this.lockWaker.pid = pid;
    return this.lockWaker;
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
  /** Pipe (5.5+): wake_next_writer, decided under the mutex before the unlock. */
  private wakeNext = false;

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
          const cpu = this.api.cpu();
          if (c.pipe) {
            // the system call's entry, before pipe_write's mutex_lock
            this.work.ns = sh.costs.syscallNs;
            this.st = SEND_LOCK;
            return this.work;
          }
          if (sh.full(f)) {
            if (this.waited) sh.spurious++;
            sh.sleeps++;
            this.waited = true;
            f.writers.push(this.api.pid);
            return this.sleepOp;
          }
          f.wmem += c.truesize; // skb_set_owner_w at the allocation
          this.work.ns =
            sh.costs.syscallNs +
            UNIX_STREAM_SEND_NS +
            sh.cache.copyNs(c.bytes, cpu, cpu) +
            sh.lines(HACKBENCH_SHARED_LINES.queue, f.lineCpu, cpu);
          this.st = SEND_WRITTEN;
          return this.work;
        }
        case SEND_LOCK: {
          // pipe_write (fs/pipe.c, v4.8 __pipe_lock ... pipe->nrbufs = ++bufs; v5.10 and today
          // the same with pipe->head = head + 1): the fullness check, the copy and the page
          // accounting all happen under pipe->mutex, so writers of one pipe go one at a time
          const held = this.lock(f);
          if (held !== null) return held;
          if (sh.full(f)) {
            // drop the mutex to sleep: pipe_wait (..5.4) or wait_event_interruptible_exclusive
            this.st = SEND_SLEEP;
            const op = this.wakeLockWaiter(this.unlock(f));
            if (op !== null) return op;
            continue;
          }
          const cpu = this.api.cpu();
          this.st = SEND_WRITTEN;
          return this.copy(
            f,
            sh.cache.copyNs(c.bytes, cpu, cpu) +
              sh.lines(HACKBENCH_SHARED_LINES.queue, f.lineCpu, cpu),
          );
        }
        case SEND_SLEEP: {
          // wait_event rechecks pipe_writable without the mutex: room made meanwhile, no sleep
          this.st = SEND_LOCK;
          if (!sh.full(f)) continue;
          if (this.waited) sh.spurious++;
          sh.sleeps++;
          this.waited = true;
          f.writers.push(this.api.pid);
          return this.sleepOp;
        }
        case SEND_WRITTEN: {
          f.lineCpu = this.api.cpu();
          f.queue.push(f.lineCpu);
          this.st = SEND_WAKE_READER;
          if (c.pipe) {
            // the write merges into the last page while it fits, else starts a page
            const last = f.pages[f.pages.length - 1];
            if (last && last.written < c.perPage) last.written++;
            else {
              const page = f.freePages.pop() ?? { written: 0, read: 0 };
              page.written = 1;
              page.read = 0;
              f.pages.push(page);
              if (f.pages.length > sh.maxPages) sh.maxPages = f.pages.length;
            }
            // 5.5+ out: a writer that waited wakes the next unless the pipe is full, decided
            // under the mutex; then __pipe_unlock
            this.wakeNext = sh.exclusiveWriters && this.waited && f.pages.length < PIPE_DEF_BUFFERS;
            const op = this.wakeLockWaiter(this.unlock(f));
            if (op !== null) return op;
          }
          continue;
        }
        case SEND_WAKE_READER: {
          this.st = SEND_NEXT_WRITER;
          if (f.readerWaiting) {
            f.readerWaiting = false;
            this.waker.pid = f.reader;
            return this.waker;
          }
          continue;
        }
        case SEND_NEXT_WRITER: {
          // 5.5+ pipe_write: a writer that waited and left the pipe not full (fewer than 16
          // pages in use) wakes the next one
          const wakeNext = c.pipe && this.wakeNext && f.writers.length > 0;
          this.wakeNext = false;
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
          if (c.pipe) {
            // the system call's entry, before pipe_read's mutex_lock
            this.work.ns = sh.costs.syscallNs;
            this.st = RECV_LOCK;
            return this.work;
          }
          if (f.queue.length === 0) {
            f.readerWaiting = true;
            return this.sleepOp;
          }
          const from = f.queue.shift(); // the oldest message's writer CPU
          const cpu = this.api.cpu();
          this.work.ns =
            sh.costs.syscallNs +
            UNIX_STREAM_RECV_NS +
            sh.cache.copyNs(c.bytes, from, cpu) +
            sh.lines(HACKBENCH_SHARED_LINES.queue, f.lineCpu, cpu) +
            sh.lines(HACKBENCH_SHARED_LINES.skb, from, cpu);
          this.st = RECV_COPIED;
          return this.work;
        }
        case RECV_LOCK: {
          // pipe_read (fs/pipe.c v4.8, v5.10, today): __pipe_lock / mutex_lock(&pipe->mutex)
          // before looking at the buffers; a writer cannot add a page mid-read
          const held = this.lock(f);
          if (held !== null) return held;
          if (f.queue.length === 0) {
            this.st = RECV_SLEEP;
            const op = this.wakeLockWaiter(this.unlock(f));
            if (op !== null) return op;
            continue;
          }
          const from = f.queue.shift(); // the oldest message's writer CPU
          const cpu = this.api.cpu();
          this.st = RECV_COPIED;
          return this.copy(
            f,
            sh.cache.copyNs(c.bytes, from, cpu) +
              sh.lines(HACKBENCH_SHARED_LINES.queue, f.lineCpu, cpu),
          );
        }
        case RECV_SLEEP: {
          // wait_event rechecks pipe_readable without the mutex: data written meanwhile, no sleep
          this.st = RECV_LOCK;
          if (f.queue.length !== 0) continue;
          f.readerWaiting = true;
          return this.sleepOp;
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
          // pipe_read: __pipe_unlock / mutex_unlock, then the wakeup of writers
          if (c.pipe) {
            const op = this.wakeLockWaiter(this.unlock(f));
            if (op !== null) return op;
          }
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
