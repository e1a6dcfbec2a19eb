// A pipe or datagram socket between tasks: a queue of messages, each remembering the CPU whose
// cache holds its freshly written bytes, and the readers blocked on it.
import type { Task } from "./task";

export type ChannelKind = "pipe" | "dgram";

export interface Message {
  bytes: number;
  writerCpu: number;
  sentAt: number;
}

export class Channel {
  readonly queue: Message[] = [];
  private head = 0;
  queuedBytes = 0;
  /** Readers blocked in recv, in arrival order. */
  readonly waiters: Task[] = [];
  sent = 0;
  received = 0;
  dropped = 0;
  bytesReceived = 0;

  /**
   * @param capacityBytes pipe buffer (writes beyond it would block; we model no blocking writers
   *   yet, so pipes simply never fill in our workloads) or socket receive buffer (datagrams that
   *   do not fit are dropped, as UDP does).
   */
  constructor(readonly name: string, readonly kind: ChannelKind, readonly capacityBytes: number) {
    if (!(capacityBytes > 0)) throw new Error(`channel ${name}: capacityBytes must be > 0 (got ${capacityBytes})`);
  }

  get length(): number {
    return this.queue.length - this.head;
  }

  /** Returns false when a datagram was dropped for lack of buffer space. */
  push(m: Message): boolean {
    this.sent++;
    if (this.kind === "dgram" && this.queuedBytes + m.bytes > this.capacityBytes) {
      this.dropped++;
      return false;
    }
    this.queue.push(m);
    this.queuedBytes += m.bytes;
    return true;
  }

  shift(): Message | undefined {
    if (this.head >= this.queue.length) return undefined;
    const m = this.queue[this.head++];
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.queuedBytes -= m.bytes;
    this.received++;
    this.bytesReceived += m.bytes;
    return m;
  }
}
