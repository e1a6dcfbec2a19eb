// A pipe or datagram socket between tasks: a queue of messages, each remembering the CPU whose
// cache holds its freshly written bytes, and the readers blocked on it.
import type { Task } from "./sched";
import { primeDoubles } from "../sim/double_fields";

/** A channel's kind: a pipe, or a datagram socket that drops what does not fit. */
export type ChannelKind = "pipe" | "dgram";

/** A pipe or datagram socket between tasks (the pipe_inode_info / socket receive queue). */
export class Channel {
  // A growable ring of messages in parallel arrays (no per-message allocation).
  private bytesQ = new Float64Array(16);
  private cpuQ = new Int32Array(16);
  private timeQ = new Float64Array(16);
  private head = 0;
  private count = 0;
  queuedBytes = 0;
  /** Readers blocked in recv, in arrival order. */
  readonly waiters: Task[] = [];
  sent = 0;
  received = 0;
  dropped = 0;
  bytesReceived = 0;
  /** Fields of the message last taken by shift(). */
  lastBytes = 0;
  lastWriterCpu = 0;
  lastSentAt = 0;

  /**
   * @param capacityBytes pipe buffer (writes beyond it would block; we model no blocking writers
   *   yet, so pipes simply never fill in our workloads) or socket receive buffer (datagrams that
   *   do not fit are dropped, as UDP does).
   */
  constructor(
    readonly name: string,
    readonly kind: ChannelKind,
    readonly capacityBytes: number,
  ) {
    if (!(capacityBytes > 0))
      throw new Error(`channel ${name}: capacityBytes must be > 0 (got ${capacityBytes})`);
    primeDoubles(this, ["queuedBytes", "bytesReceived", "lastBytes", "lastSentAt"]);
  }

  /** Messages queued and not yet read (the pipe's / receive queue's length). */
  get length(): number {
    return this.count;
  }

  /** Returns false when a datagram was dropped for lack of buffer space. */
  push(bytes: number, writerCpu: number, sentAt: number): boolean {
    this.sent++;
    if (this.kind === "dgram" && this.queuedBytes + bytes > this.capacityBytes) {
      this.dropped++;
      return false;
    }
    if (this.count === this.bytesQ.length) this.grow();
    const cap = this.bytesQ.length;
    const i = (this.head + this.count) % cap;
    this.bytesQ[i] = bytes;
    this.cpuQ[i] = writerCpu;
    this.timeQ[i] = sentAt;
    this.count++;
    this.queuedBytes += bytes;
    return true;
  }

  /** Takes the oldest message into lastBytes/lastWriterCpu/lastSentAt; false when empty. */
  shift(): boolean {
    if (this.count === 0) return false;
    const i = this.head;
    this.lastBytes = this.bytesQ[i];
    this.lastWriterCpu = this.cpuQ[i];
    this.lastSentAt = this.timeQ[i];
    this.head = (i + 1) % this.bytesQ.length;
    this.count--;
    this.queuedBytes -= this.lastBytes;
    this.received++;
    this.bytesReceived += this.lastBytes;
    return true;
  }

  private grow(): void {
    const cap = this.bytesQ.length;
    const b = new Float64Array(cap * 2);
    const c = new Int32Array(cap * 2);
    const t = new Float64Array(cap * 2);
    for (let k = 0; k < this.count; k++) {
      const j = (this.head + k) % cap;
      b[k] = this.bytesQ[j];
      c[k] = this.cpuQ[j];
      t[k] = this.timeQ[j];
    }
    this.bytesQ = b;
    this.cpuQ = c;
    this.timeQ = t;
    this.head = 0;
  }
}
