// A 4-ary min-heap of events keyed by (time, sequence number). Keys are stored inline in heap
// order (typed arrays), so a sift compares contiguous siblings without an indirection; the
// payload (kind, a, b) sits in a slot the heap entry names, so a move copies three numbers.
// Events are small integer records so the hot path allocates nothing.
// Simultaneous events pop in insertion order: the sequence number breaks ties, so every key is
// unique and the pop order does not depend on the heap's layout, which keeps runs deterministic.
// Two shortcuts use that freedom:
// - an event that will be the very next one (earlier than everything queued) waits in a one-entry
//   front slot instead of going through the heap;
// - pop leaves the popped entry at the root until the next operation: when that is a push (a
//   finished segment starting the next one), the new event replaces the root with one sift-down
//   instead of a sift-down for the pop and a sift-up for the push.
// Keyed events (setKeyed) live outside the heap: one slot per key, at most one pending event
// each, in a winner tree (a complete binary tree whose every node holds the earlier of its two
// children). The kernel model keys each CPU's segment completion by CPU: setting a new one
// replaces the old in place (no cancelled event left in the heap), and an update walks
// log2(keys) nodes with one comparison each. Keyed events take sequence numbers from the same
// counter as the rest, so the pop order is exactly what pushing them would give.

import { primeDoubles } from "./double_fields";

/** The simulation's event queue: (time, kind, a, b) records popped in time order, ties in insertion order. */
export class EventQueue {
  // heap order: key and payload slot of each entry
  private hTime: Float64Array;
  private hSeq: Float64Array;
  private hSlot: Int32Array;
  // payload by slot
  private kind: Int32Array;
  private a: Int32Array;
  private b: Int32Array;
  private freeSlots: Int32Array;
  private nFree = 0;
  private size = 0;
  private capacity: number;
  private nextSeq = 0;
  /** The root entry was popped and is still in place (removed by the next operation). */
  private rootPopped = false;
  // the front slot: strictly earlier than every heap entry when it was filled
  private hasFront = false;
  private frontTime = 0;
  private frontSeq = 0;
  private frontKind = 0;
  private frontA = 0;
  private frontB = 0;
  // keyed slots: a winner tree over nodes 1..2P-1, leaves P..P+P-1 are the keys
  private kP = 0;
  private wTime = new Float64Array(0);
  private wSeq = new Float64Array(0);
  private wKey = new Int32Array(0);
  private keyKind = new Int32Array(0);
  private keyA = new Int32Array(0);
  private keyB = new Int32Array(0);
  private nKeyed = 0;
  /** The keyed event popped last, still in its slot until the next operation (-1: none). */
  private keyPopped = -1;
  // fields of the event last popped
  popTime = 0;
  popKind = 0;
  popA = 0;
  popB = 0;

  constructor(initialCapacity = 1024) {
    this.capacity = initialCapacity;
    this.hTime = new Float64Array(initialCapacity);
    this.hSeq = new Float64Array(initialCapacity);
    this.hSlot = new Int32Array(initialCapacity);
    this.kind = new Int32Array(initialCapacity);
    this.a = new Int32Array(initialCapacity);
    this.b = new Int32Array(initialCapacity);
    this.freeSlots = new Int32Array(initialCapacity);
    for (let i = initialCapacity - 1; i >= 0; i--) this.freeSlots[this.nFree++] = i;
    primeDoubles(this, ["popTime"]);
    const front = this as unknown as { frontTime: number; frontSeq: number };
    primeDoubles(front, ["frontTime", "frontSeq"]);
  }

  /** Number of queued events. */
  get length(): number {
    return (
      this.size -
      (this.rootPopped ? 1 : 0) +
      (this.hasFront ? 1 : 0) +
      this.nKeyed -
      (this.keyPopped >= 0 ? 1 : 0)
    );
  }

  /** Time of the earliest event, or Infinity when empty. */
  peekTime(): number {
    if (this.rootPopped) this.removeRoot();
    if (this.keyPopped >= 0) this.settleKeyed();
    const top = this.size === 0 ? Infinity : this.hTime[0];
    const t = this.hasFront && this.frontTime <= top ? this.frontTime : top;
    return this.kP > 0 && this.wTime[1] < t ? this.wTime[1] : t;
  }

  /**
   * Sets the one pending event of `key` (a small integer), replacing any earlier one of that key;
   * it pops in (time, insertion) order with every other event.
   */
  setKeyed(key: number, time: number, kind: number, a: number, b: number): void {
    if (key >= this.kP) this.growKeyed(key + 1);
    if (this.keyPopped >= 0 && this.keyPopped !== key) this.settleKeyed();
    const leaf = this.kP + key;
    if (this.keyPopped === key) this.keyPopped = -1;
    else if (this.wTime[leaf] === Infinity) this.nKeyed++;
    this.keyKind[key] = kind;
    this.keyA[key] = a;
    this.keyB[key] = b;
    this.wTime[leaf] = time;
    this.wSeq[leaf] = this.nextSeq++;
    this.updateKeyed(leaf);
  }

  /** Drops the pending event of `key`, if any. */
  clearKeyed(key: number): void {
    if (key >= this.kP) return;
    if (this.keyPopped >= 0) this.settleKeyed();
    const leaf = this.kP + key;
    if (this.wTime[leaf] === Infinity) return;
    this.nKeyed--;
    this.wTime[leaf] = Infinity;
    this.updateKeyed(leaf);
  }

  /** Empties the slot of the keyed event popped last. */
  private settleKeyed(): void {
    const leaf = this.kP + this.keyPopped;
    this.keyPopped = -1;
    this.nKeyed--;
    this.wTime[leaf] = Infinity;
    this.updateKeyed(leaf);
  }

  /**
   * Recomputes the winners on the path from `leaf` to the root. Each node's winner is the earlier
   * of the path's winner so far (carried up) and its other child's, so a level reads one sibling;
   * a node whose winner comes out unchanged (sequence numbers are unique) leaves every ancestor as
   * it was.
   */
  private updateKeyed(leaf: number): void {
    const wt = this.wTime;
    const ws = this.wSeq;
    const wk = this.wKey;
    let t = wt[leaf];
    let s = ws[leaf];
    let key = wk[leaf];
    for (let c = leaf; c > 1; c >>= 1) {
      const sib = c ^ 1;
      const st = wt[sib];
      if (st < t || (st === t && ws[sib] < s)) {
        t = st;
        s = ws[sib];
        key = wk[sib];
      }
      const j = c >> 1;
      if (wt[j] === t && ws[j] === s && wk[j] === key) return;
      wt[j] = t;
      ws[j] = s;
      wk[j] = key;
    }
  }

  /** Node j takes the earlier (time, then sequence) of its two children. */
  private playNode(j: number): void {
    const wt = this.wTime;
    const ws = this.wSeq;
    const l = 2 * j;
    const r = l + 1;
    const c = wt[r] < wt[l] || (wt[r] === wt[l] && ws[r] < ws[l]) ? r : l;
    wt[j] = wt[c];
    ws[j] = ws[c];
    this.wKey[j] = this.wKey[c];
  }

  /** Room for keys 0..n-1: the tree grows to the next power of two, pending keyed events kept. */
  private growKeyed(n: number): void {
    let p = 1;
    while (p < n) p *= 2;
    const old = this.kP;
    const wt = new Float64Array(2 * p).fill(Infinity);
    const ws = new Float64Array(2 * p);
    const wk = new Int32Array(2 * p);
    for (let k = 0; k < p; k++) wk[p + k] = k;
    for (let k = 0; k < old; k++) {
      wt[p + k] = this.wTime[old + k];
      ws[p + k] = this.wSeq[old + k];
    }
    const kind = new Int32Array(p);
    const a = new Int32Array(p);
    const b = new Int32Array(p);
    kind.set(this.keyKind);
    a.set(this.keyA);
    b.set(this.keyB);
    this.kP = p;
    this.wTime = wt;
    this.wSeq = ws;
    this.wKey = wk;
    this.keyKind = kind;
    this.keyA = a;
    this.keyB = b;
    for (let j = p - 1; j >= 1; j--) this.playNode(j);
  }

  /** Pops the keyed winner if it precedes (time, seq): true when it did. */
  private popKeyedBefore(time: number, seq: number): boolean {
    if (this.kP === 0) return false;
    const t = this.wTime[1];
    if (!(t < time || (t === time && this.wSeq[1] < seq))) return false;
    const key = this.wKey[1];
    this.popTime = t;
    this.popKind = this.keyKind[key];
    this.popA = this.keyA[key];
    this.popB = this.keyB[key];
    this.keyPopped = key;
    return true;
  }

  /** Queue an event of `kind` with two integer arguments at simulated time `time` (ns). */
  push(time: number, kind: number, a: number, b: number): void {
    const seq = this.nextSeq++;
    if (this.rootPopped) {
      // replace the popped root: its slot takes the new payload
      this.rootPopped = false;
      const slot = this.hSlot[0];
      this.kind[slot] = kind;
      this.a[slot] = a;
      this.b[slot] = b;
      this.siftDown(time, seq, slot, this.size);
      return;
    }
    const top = this.size === 0 ? Infinity : this.hTime[0];
    if (time < top) {
      if (!this.hasFront) {
        this.setFront(time, seq, kind, a, b);
        return;
      }
      if (time < this.frontTime) {
        // the new event comes first: the old front goes to the heap with its own sequence number
        this.pushHeap(this.frontTime, this.frontSeq, this.frontKind, this.frontA, this.frontB);
        this.setFront(time, seq, kind, a, b);
        return;
      }
    }
    this.pushHeap(time, seq, kind, a, b);
  }

  private setFront(time: number, seq: number, kind: number, a: number, b: number): void {
    this.hasFront = true;
    this.frontTime = time;
    this.frontSeq = seq;
    this.frontKind = kind;
    this.frontA = a;
    this.frontB = b;
  }

  private pushHeap(time: number, seq: number, kind: number, a: number, b: number): void {
    if (this.nFree === 0) this.grow();
    const slot = this.freeSlots[--this.nFree];
    this.kind[slot] = kind;
    this.a[slot] = a;
    this.b[slot] = b;
    // sift up
    const tm = this.hTime;
    const sq = this.hSeq;
    const sl = this.hSlot;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 2;
      const tp = tm[p];
      if (time < tp || (time === tp && seq < sq[p])) {
        tm[i] = tp;
        sq[i] = sq[p];
        sl[i] = sl[p];
        i = p;
      } else break;
    }
    tm[i] = time;
    sq[i] = seq;
    sl[i] = slot;
  }

  /** Places (time, seq, slot) at the root of a heap of n entries and sifts it down. */
  private siftDown(time: number, seq: number, slot: number, n: number): void {
    const tm = this.hTime;
    const sq = this.hSeq;
    const sl = this.hSlot;
    let i = 0;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      // the smallest of up to four children
      let c = first;
      let ct = tm[first];
      const end = Math.min(first + 4, n);
      for (let j = first + 1; j < end; j++) {
        const t = tm[j];
        if (t < ct || (t === ct && sq[j] < sq[c])) {
          c = j;
          ct = t;
        }
      }
      if (ct < time || (ct === time && sq[c] < seq)) {
        tm[i] = ct;
        sq[i] = sq[c];
        sl[i] = sl[c];
        i = c;
      } else break;
    }
    tm[i] = time;
    sq[i] = seq;
    sl[i] = slot;
  }

  /** Takes the popped root out of the heap: the last entry sifts down from the root. */
  private removeRoot(): void {
    this.rootPopped = false;
    this.freeSlots[this.nFree++] = this.hSlot[0];
    const n = --this.size;
    if (n > 0) this.siftDown(this.hTime[n], this.hSeq[n], this.hSlot[n], n);
  }

  /** Removes the earliest event into popTime/popKind/popA/popB. Returns false when empty. */
  pop(): boolean {
    return this.popUntil(Infinity, true);
  }

  /**
   * pop() if the earliest event is due by `until`, in one call (the event loop's step: no
   * separate length / peekTime calls). Returns false, leaving the queue as it was, otherwise.
   */
  popUntil(until: number, all = false): boolean {
    if (this.rootPopped) this.removeRoot();
    if (this.keyPopped >= 0) this.settleKeyed();
    const n = this.size;
    // The front entry wins ties with the heap: heap entries of equal time were queued after it.
    if (this.hasFront && (n === 0 || this.frontTime <= this.hTime[0])) {
      if (this.popKeyedBefore(this.frontTime, this.frontSeq)) return this.due(until, all);
      if (this.frontTime > until && !all) return false;
      this.hasFront = false;
      this.popTime = this.frontTime;
      this.popKind = this.frontKind;
      this.popA = this.frontA;
      this.popB = this.frontB;
      return true;
    }
    if (n === 0) return this.popKeyedBefore(Infinity, Infinity) && this.due(until, all);
    if (this.popKeyedBefore(this.hTime[0], this.hSeq[0])) return this.due(until, all);
    if (this.hTime[0] > until && !all) return false;
    const slot = this.hSlot[0];
    this.popTime = this.hTime[0];
    this.popKind = this.kind[slot];
    this.popA = this.a[slot];
    this.popB = this.b[slot];
    this.rootPopped = true;
    return true;
  }

  /** A keyed event was taken: keep it popped if due, else put it back (nothing popped). */
  private due(until: number, all: boolean): boolean {
    if (all || this.popTime <= until) return true;
    this.keyPopped = -1;
    return false;
  }

  /** Drop every queued event. */
  clear(): void {
    this.size = 0;
    if (this.kP > 0) this.wTime.fill(Infinity);
    this.nKeyed = 0;
    this.keyPopped = -1;
    this.rootPopped = false;
    this.hasFront = false;
    this.nFree = 0;
    for (let i = this.capacity - 1; i >= 0; i--) this.freeSlots[this.nFree++] = i;
  }

  private grow(): void {
    const old = this.capacity;
    const cap = old * 2;
    const grow64 = (src: Float64Array) => {
      const d = new Float64Array(cap);
      d.set(src);
      return d;
    };
    const grow32 = (src: Int32Array) => {
      const d = new Int32Array(cap);
      d.set(src);
      return d;
    };
    this.hTime = grow64(this.hTime);
    this.hSeq = grow64(this.hSeq);
    this.hSlot = grow32(this.hSlot);
    this.kind = grow32(this.kind);
    this.a = grow32(this.a);
    this.b = grow32(this.b);
    this.freeSlots = grow32(this.freeSlots);
    for (let i = cap - 1; i >= old; i--) this.freeSlots[this.nFree++] = i;
    this.capacity = cap;
  }
}
