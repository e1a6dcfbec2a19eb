// A 4-ary min-heap of events keyed by (time, sequence number), stored in typed arrays (four
// children per node: half the levels of a binary heap, and siblings share cache lines).
// Events are small integer records (kind, a, b) so the hot path allocates nothing.
// Simultaneous events pop in insertion order: the sequence number breaks ties, which keeps
// runs deterministic. An event that will be the very next one (earlier than everything queued)
// waits in a one-entry front slot instead of going through the heap: in a busy simulation the
// segment just started is often the next thing to finish.

/** The simulation's event queue: (time, kind, a, b) records popped in time order, ties in insertion order. */
export class EventQueue {
  private time: Float64Array;
  private seq: Float64Array;
  private kind: Int32Array;
  private a: Int32Array;
  private b: Int32Array;
  private heap: Int32Array; // heap of slot indices
  private freeSlots: Int32Array;
  private nFree = 0;
  private size = 0;
  private capacity: number;
  private nextSeq = 0;
  // the front slot: strictly earlier than every heap entry when it was filled
  private hasFront = false;
  private frontTime = 0;
  private frontSeq = 0;
  private frontKind = 0;
  private frontA = 0;
  private frontB = 0;
  // fields of the event last popped
  popTime = 0;
  popKind = 0;
  popA = 0;
  popB = 0;

  constructor(initialCapacity = 1024) {
    this.capacity = initialCapacity;
    this.time = new Float64Array(initialCapacity);
    this.seq = new Float64Array(initialCapacity);
    this.kind = new Int32Array(initialCapacity);
    this.a = new Int32Array(initialCapacity);
    this.b = new Int32Array(initialCapacity);
    this.heap = new Int32Array(initialCapacity);
    this.freeSlots = new Int32Array(initialCapacity);
    for (let i = initialCapacity - 1; i >= 0; i--) this.freeSlots[this.nFree++] = i;
  }

  /** Number of queued events. */
  get length(): number {
    return this.size + (this.hasFront ? 1 : 0);
  }

  /** Time of the earliest event, or Infinity when empty. */
  peekTime(): number {
    const top = this.size === 0 ? Infinity : this.time[this.heap[0]];
    return this.hasFront && this.frontTime <= top ? this.frontTime : top;
  }

  /** Queue an event of `kind` with two integer arguments at simulated time `time` (ns). */
  push(time: number, kind: number, a: number, b: number): void {
    const seq = this.nextSeq++;
    const top = this.size === 0 ? Infinity : this.time[this.heap[0]];
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
    this.time[slot] = time;
    this.seq[slot] = seq;
    this.kind[slot] = kind;
    this.a[slot] = a;
    this.b[slot] = b;
    // sift up
    const heap = this.heap;
    const tm = this.time;
    const sq = this.seq;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 2;
      const ps = heap[p];
      const tp = tm[ps];
      if (time < tp || (time === tp && seq < sq[ps])) {
        heap[i] = ps;
        i = p;
      } else break;
    }
    heap[i] = slot;
  }

  /** Removes the earliest event into popTime/popKind/popA/popB. Returns false when empty. */
  pop(): boolean {
    // The front entry wins ties: heap entries of equal time were queued after it.
    if (this.hasFront && (this.size === 0 || this.frontTime <= this.time[this.heap[0]])) {
      this.hasFront = false;
      this.popTime = this.frontTime;
      this.popKind = this.frontKind;
      this.popA = this.frontA;
      this.popB = this.frontB;
      return true;
    }
    if (this.size === 0) return false;
    const heap = this.heap;
    const top = heap[0];
    this.popTime = this.time[top];
    this.popKind = this.kind[top];
    this.popA = this.a[top];
    this.popB = this.b[top];
    this.freeSlots[this.nFree++] = top;
    const last = heap[--this.size];
    if (this.size > 0) {
      // sift down: move the smallest of up to four children up while it beats `last`
      const tm = this.time;
      const sq = this.seq;
      const lt = tm[last];
      const ls = sq[last];
      let i = 0;
      const n = this.size;
      for (;;) {
        const first = 4 * i + 1;
        if (first >= n) break;
        let c = first;
        let ct = tm[heap[c]];
        let cs = sq[heap[c]];
        const end = Math.min(first + 4, n);
        for (let j = first + 1; j < end; j++) {
          const h = heap[j];
          const t = tm[h];
          if (t < ct || (t === ct && sq[h] < cs)) {
            c = j;
            ct = t;
            cs = sq[h];
          }
        }
        if (ct < lt || (ct === lt && cs < ls)) {
          heap[i] = heap[c];
          i = c;
        } else break;
      }
      heap[i] = last;
    }
    return true;
  }

  /** Drop every queued event. */
  clear(): void {
    this.size = 0;
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
    this.time = grow64(this.time);
    this.seq = grow64(this.seq);
    this.kind = grow32(this.kind);
    this.a = grow32(this.a);
    this.b = grow32(this.b);
    this.heap = grow32(this.heap);
    this.freeSlots = grow32(this.freeSlots);
    for (let i = cap - 1; i >= old; i--) this.freeSlots[this.nFree++] = i;
    this.capacity = cap;
  }
}
