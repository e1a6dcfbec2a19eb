// A binary min-heap of events keyed by (time, sequence number), stored in typed arrays.
// Events are small integer records (kind, a, b) so the hot path allocates nothing.
// Simultaneous events pop in insertion order: the sequence number breaks ties, which keeps
// runs deterministic.

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

  get length(): number {
    return this.size;
  }

  /** Time of the earliest event, or Infinity when empty. */
  peekTime(): number {
    return this.size === 0 ? Infinity : this.time[this.heap[0]];
  }

  push(time: number, kind: number, a: number, b: number): void {
    if (this.nFree === 0) this.grow();
    const slot = this.freeSlots[--this.nFree];
    this.time[slot] = time;
    this.seq[slot] = this.nextSeq++;
    this.kind[slot] = kind;
    this.a[slot] = a;
    this.b[slot] = b;
    // sift up
    const heap = this.heap;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const ps = heap[p];
      if (this.less(slot, ps)) {
        heap[i] = ps;
        i = p;
      } else break;
    }
    heap[i] = slot;
  }

  /** Removes the earliest event into popTime/popKind/popA/popB. Returns false when empty. */
  pop(): boolean {
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
      // sift down
      let i = 0;
      const n = this.size;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        let c = l;
        if (r < n && this.less(heap[r], heap[l])) c = r;
        if (this.less(heap[c], last)) {
          heap[i] = heap[c];
          i = c;
        } else break;
      }
      heap[i] = last;
    }
    return true;
  }

  clear(): void {
    this.size = 0;
    this.nFree = 0;
    for (let i = this.capacity - 1; i >= 0; i--) this.freeSlots[this.nFree++] = i;
  }

  private less(x: number, y: number): boolean {
    const tx = this.time[x];
    const ty = this.time[y];
    return tx < ty || (tx === ty && this.seq[x] < this.seq[y]);
  }

  private grow(): void {
    const old = this.capacity;
    const cap = old * 2;
    const grow64 = (src: Float64Array) => { const d = new Float64Array(cap); d.set(src); return d; };
    const grow32 = (src: Int32Array) => { const d = new Int32Array(cap); d.set(src); return d; };
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
