// Shared hardware under load: a running task that states a footprint (working set, memory
// traffic per unit of work) is slowed by the footprints of the tasks running on the CPUs that
// share its L2, its LLC and its memory controller (NUMA node). Working sets over a cache's size
// share the cache; the bytes that then miss it are served by the next level, and bandwidth
// demanded of a level beyond what it sustains is shared out. A task's memory is on the node it
// first ran on (first touch; nothing migrates it, as no NUMA balancing is modelled): run on
// another node, its bytes come over the interconnect, at one thread's remote rate and within
// the links' bandwidth, from its home node's controller. Tasks without a footprint neither
// slow nor are slowed; while no task has one the model is off and runs are unchanged.
// The equations and the figures' sources are in docs/cost-model.md ("Shared caches and memory
// bandwidth").
import type { Machine } from "../machine/types";
import type { Rq, Task } from "./sched";

/** What a task does to the shared caches and memory (SpawnSpec.footprint). */
export interface Footprint {
  /** Bytes the task touches over and over (its arrays, its heap). */
  workingSetBytes: number;
  /** Bytes it loads and stores per ns of work (work at capacity 1024, a lone SMT thread). */
  bytesPerWorkNs: number;
  /**
   * Share of those bytes that are stores (0..1, default 0). A store that misses every cache reads
   * its line first (write-allocate), so memory moves (1 + writeFraction) x the bytes named.
   */
  writeFraction?: number;
  /**
   * How it walks its working set (default "random"): "random" keeps a cache's share of it
   * (size / sum of the sets) in an overflowing cache; "sweep" (STREAM's loops) keeps nothing,
   * since LRU evicts each line before the sweep comes back to it.
   */
  access?: "random" | "sweep";
}

/** A task's footprint, checked: a clear error naming the field otherwise. */
export function checkFootprint(comm: string, f: Footprint): Required<Footprint> {
  const bad = (field: string, accepted: string, v: unknown) =>
    new Error(`spawn ${comm}: footprint.${field} must be ${accepted} (got ${String(v)})`);
  if (typeof f !== "object" || f === null)
    throw new Error(
      `spawn ${comm}: footprint must be { workingSetBytes, bytesPerWorkNs, writeFraction? }`,
    );
  for (const k of Object.keys(f))
    if (!["workingSetBytes", "bytesPerWorkNs", "writeFraction", "access"].includes(k))
      throw bad(k, "absent (accepted: workingSetBytes, bytesPerWorkNs, writeFraction, access)", k);
  const ws = f.workingSetBytes;
  if (!(Number.isFinite(ws) && ws >= 0)) throw bad("workingSetBytes", "a number of bytes >= 0", ws);
  const t = f.bytesPerWorkNs;
  if (!(Number.isFinite(t) && t >= 0)) throw bad("bytesPerWorkNs", "a number >= 0 (B/ns)", t);
  const w = f.writeFraction ?? 0;
  if (!(Number.isFinite(w) && w >= 0 && w <= 1)) throw bad("writeFraction", "a number in 0..1", w);
  const a = f.access ?? "random";
  if (a !== "random" && a !== "sweep") throw bad("access", '"random" or "sweep"', a);
  return { workingSetBytes: ws, bytesPerWorkNs: t, writeFraction: w, access: a };
}

/** The figures of the shared levels, with what stands in for a figure the machine lacks. */
export interface SharedFigures {
  l2Bytes: number;
  llcBytes: number;
  /** One thread's rate from the LLC (costs.copyBytesPerNs.shared_llc). */
  threadLlcBytesPerNs: number;
  /** One thread's rate from memory (costs.memoryBytesPerNs). */
  threadMemoryBytesPerNs: number;
  /** What one LLC instance sustains for all its CPUs (Infinity: not a limit). */
  llcBytesPerNs: number;
  /** What one memory controller (NUMA node) sustains for all its CPUs. */
  nodeBytesPerNs: number;
  /** One thread's rate from another node's memory (costs.copyBytesPerNs.other_node, at most the local rate). */
  threadRemoteBytesPerNs: number;
  /** What the links between two nodes carry (Infinity: not a limit). */
  interconnectBytesPerNs: number;
}

/** The machine's shared-level figures (machine.bandwidth, else the stand-ins in the docs). */
export function sharedFigures(m: Machine): SharedFigures {
  for (const [k, v] of Object.entries(m.bandwidth ?? {}))
    if (!(typeof v === "number" && v > 0))
      throw new Error(
        `machine ${m.name}: bandwidth.${k} must be a number of bytes/ns > 0 (got ${v})`,
      );
  return {
    l2Bytes: m.caches.l2Bytes,
    llcBytes: m.caches.llcBytes,
    threadLlcBytesPerNs: m.costs.copyBytesPerNs.shared_llc,
    threadMemoryBytesPerNs: m.costs.memoryBytesPerNs,
    llcBytesPerNs: m.bandwidth?.llcBytesPerNs ?? Infinity,
    nodeBytesPerNs: m.bandwidth?.nodeBytesPerNs ?? m.costs.memoryBytesPerNs,
    threadRemoteBytesPerNs: Math.min(
      m.costs.memoryBytesPerNs,
      m.costs.copyBytesPerNs.other_node ?? m.costs.memoryBytesPerNs,
    ),
    interconnectBytesPerNs: m.bandwidth?.interconnectBytesPerNs ?? Infinity,
  };
}

/**
 * Max-min fair shares of `capacity` among `demand` (water-filling): demands under the equal share
 * are met, the rest split what remains equally. Writes the shares into `out`.
 */
export function shareOut(demand: number[], capacity: number, out: number[]): void {
  const n = demand.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += demand[i];
  if (total <= capacity) {
    for (let i = 0; i < n; i++) out[i] = demand[i];
    return;
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => demand[a] - demand[b]);
  let left = capacity;
  for (let j = 0; j < n; j++) {
    const i = order[j];
    out[i] = Math.min(demand[i], left / (n - j));
    left -= out[i];
  }
}

/** Share of a working set a cache of `size` keeps when `sum` bytes of working sets compete. */
function kept(size: number, sum: number, sweep: boolean): number {
  return sum <= size ? 1 : sweep ? 0 : size / sum;
}

/**
 * The per-level state: which CPUs share each L2, LLC and node, the working sets running on each,
 * and the speed cap of each CPU's running task.
 */
export class Contention {
  /** Whether any task has a footprint (set at its spawn); off, no switch looks further. */
  active = false;
  private readonly f: SharedFigures;
  private readonly l2Of: Int32Array;
  private readonly llcOf: Int32Array;
  private readonly nodeOf: Int32Array;
  /** CPUs whose running task a switch on a CPU can slow, made at first use (nearCpus). */
  private readonly near: (number[] | null)[];
  private readonly l2Sum: Float64Array;
  private readonly llcSum: Float64Array;
  private readonly byNode: number[][];
  private readonly byLlc: number[][];
  private readonly all: number[];
  /** The node each footprint task's memory is on: where it first ran (first touch). */
  private readonly home = new WeakMap<Task, number>();
  /** Footprint tasks running on a node other than their memory's. */
  private offHome = 0;

  constructor(m: Machine) {
    this.f = sharedFigures(m);
    this.l2Of = Int32Array.from(m.cpus, (c) => c.l2);
    this.llcOf = Int32Array.from(m.cpus, (c) => c.llc);
    this.nodeOf = Int32Array.from(m.cpus, (c) => c.node);
    this.near = m.cpus.map(() => null);
    this.l2Sum = new Float64Array(Math.max(...this.l2Of) + 1);
    this.llcSum = new Float64Array(Math.max(...this.llcOf) + 1);
    this.byNode = Array.from({ length: Math.max(...this.nodeOf) + 1 }, (_, n) =>
      m.cpus.filter((c) => c.node === n).map((c) => c.id),
    );
    this.byLlc = Array.from({ length: this.llcSum.length }, (_, l) =>
      m.cpus.filter((c) => c.llc === l).map((c) => c.id),
    );
    this.all = m.cpus.map((c) => c.id);
  }

  /**
   * CPUs a switch on `cpu` to `next` can re-time: nearCpus, or every CPU while a task runs away
   * from its memory (its bytes load its home node's controller and a link, wherever it runs).
   */
  affectedCpus(cpu: number, next: Task | null): readonly number[] {
    const away = (p: Task | null) => {
      if (!p?.footprint) return false;
      const h = this.home.get(p);
      return h !== undefined && h !== this.nodeOf[cpu];
    };
    return this.offHome > 0 || away(next) ? this.all : this.nearCpus(cpu);
  }

  /**
   * CPUs a switch on `cpu` can re-time (itself included). A switch changes the L2 and LLC sums of
   * its CPU's caches, so the memory demand of the tasks in them, so the shares of every node
   * those tasks draw from.
   */
  nearCpus(cpu: number): readonly number[] {
    const hit = this.near[cpu];
    if (hit) return hit;
    const n = this.l2Of.length;
    const nodes = new Set<number>();
    for (let o = 0; o < n; o++)
      if (this.l2Of[o] === this.l2Of[cpu] || this.llcOf[o] === this.llcOf[cpu])
        nodes.add(this.nodeOf[o]);
    const out: number[] = [];
    for (let o = 0; o < n; o++)
      if (
        this.l2Of[o] === this.l2Of[cpu] ||
        this.llcOf[o] === this.llcOf[cpu] ||
        nodes.has(this.nodeOf[o])
      )
        out.push(o);
    this.near[cpu] = out;
    return out;
  }

  /** rq->curr on `cpu` goes from `prev` to `next`: the working sets each level holds. */
  switchWorkingSets(cpu: number, prev: Task | null, next: Task | null): void {
    const d = (next?.footprint?.workingSetBytes ?? 0) - (prev?.footprint?.workingSetBytes ?? 0);
    this.l2Sum[this.l2Of[cpu]] += d;
    this.llcSum[this.llcOf[cpu]] += d;
    const node = this.nodeOf[cpu];
    if (prev?.footprint && this.home.get(prev) !== node) this.offHome--;
    if (next?.footprint) {
      if (!this.home.has(next)) this.home.set(next, node);
      if (this.home.get(next) !== node) this.offHome++;
    }
  }

  /**
   * Where the task running on `cpu` finds its bytes: the shares served by the LLC and by memory
   * (the rest hits its L2, which its work figure already includes).
   */
  private served(cpu: number, fp: Required<Footprint>): { llc: number; mem: number } {
    if (fp.workingSetBytes <= 0) return { llc: 0, mem: 0 };
    const sweep = fp.access === "sweep";
    const inL2 = kept(this.f.l2Bytes, this.l2Sum[this.l2Of[cpu]], sweep);
    const inLlc = kept(this.f.llcBytes, this.llcSum[this.llcOf[cpu]], sweep);
    return { llc: Math.max(0, inLlc - inL2), mem: 1 - Math.max(inL2, inLlc) };
  }

  /**
   * Sets rq.speed of every CPU in `cpus` that runs a task with a footprint, from its compute
   * speed `speedOf(cpu)` (capacity, SMT) and the rate it gets from its LLC and its memory. A
   * level gives a task min(thread rate, speed x bytes per work) when the level's demands fit its
   * sustained bandwidth, else its max-min fair share; memory away from home is also shared out
   * on the link between the two nodes, and the task gets the smaller of the two shares. A
   * sweep's transfers overlap its work (prefetch; roofline: speed = min(compute speed, rate /
   * bytes per work)); a random walk's dependent loads stall it (time per work = 1 / compute
   * speed + bytes per work / rate, summed over the levels).
   */
  retime(rqs: readonly Rq[], cpus: readonly number[], speedOf: (cpu: number) => number): void {
    const homeOf = (c: number) => this.home.get(rqs[c].curr!) ?? this.nodeOf[c];
    const nodes = new Map<number, number[]>(); // home node -> CPUs running its tasks
    const llcs = new Set<number>();
    const links = new Map<number, number[]>(); // node pair -> CPUs running away from home
    const n = this.byNode.length;
    // the link a CPU's task crosses: the unordered pair (home, here), -1 when it is home
    const linkOf = (c: number) => {
      const [h, r] = [homeOf(c), this.nodeOf[c]];
      return h === r ? -1 : Math.min(h, r) * n + Math.max(h, r);
    };
    const cpusOfNode = (c: number): number[] => {
      const h = homeOf(c);
      if (this.offHome === 0) return this.byNode[h];
      return this.all.filter((o) => rqs[o].curr?.footprint && homeOf(o) === h);
    };
    for (const c of cpus) {
      if (!rqs[c].curr?.footprint) continue;
      llcs.add(this.llcOf[c]);
      const h = homeOf(c);
      if (!nodes.has(h)) nodes.set(h, cpusOfNode(c));
      const key = linkOf(c);
      if (key >= 0 && this.f.interconnectBytesPerNs < Infinity && !links.has(key))
        links.set(
          key,
          this.all.filter((o) => rqs[o].curr?.footprint && linkOf(o) === key),
        );
    }
    const cap = new Map<number, number>(); // sweeps: the lowest rate-bound speed
    const stall = new Map<number, number>(); // random walks: ns of transfer per ns of work
    /** Each member's bytes per work, demand and granted rate at one level. */
    const grant = (members: readonly number[], level: "llc" | "mem", capacity: number) => {
      const out = new Map<number, { bytes: number; demand: number; got: number; thread: number }>();
      const ids: number[] = [];
      const demand: number[] = [];
      for (const c of members) {
        const fp = rqs[c].curr?.footprint;
        if (!fp) continue;
        const s = this.served(c, fp);
        const bytes =
          level === "llc"
            ? fp.bytesPerWorkNs * s.llc
            : fp.bytesPerWorkNs * s.mem * (1 + fp.writeFraction);
        if (bytes <= 0) continue;
        const thread =
          level === "llc"
            ? this.f.threadLlcBytesPerNs
            : homeOf(c) === this.nodeOf[c]
              ? this.f.threadMemoryBytesPerNs
              : this.f.threadRemoteBytesPerNs;
        const d = Math.min(speedOf(c) * bytes, thread);
        ids.push(c);
        demand.push(d);
        out.set(c, { bytes, demand: d, got: d, thread });
      }
      const got = new Array<number>(ids.length);
      shareOut(demand, capacity, got);
      for (let i = 0; i < ids.length; i++) out.get(ids[i])!.got = got[i];
      return out;
    };
    const apply = (
      g: { bytes: number; demand: number; got: number; thread: number },
      c: number,
    ) => {
      if (rqs[c].curr!.footprint!.access === "sweep") {
        cap.set(c, Math.min(cap.get(c) ?? Infinity, g.got / g.bytes));
      } else {
        const rate = (g.thread * g.got) / g.demand; // its thread rate, scaled by what it got
        stall.set(c, (stall.get(c) ?? 0) + g.bytes / rate);
      }
    };
    for (const l of llcs)
      for (const [c, g] of grant(this.byLlc[l], "llc", this.f.llcBytesPerNs)) apply(g, c);
    const linkGot = new Map<number, number>();
    for (const members of links.values())
      for (const [c, g] of grant(members, "mem", this.f.interconnectBytesPerNs))
        linkGot.set(c, g.got);
    for (const members of nodes.values())
      for (const [c, g] of grant(members, "mem", this.f.nodeBytesPerNs))
        apply({ ...g, got: Math.min(g.got, linkGot.get(c) ?? Infinity) }, c);
    for (const c of cpus) {
      if (!rqs[c].curr?.footprint) continue;
      const s = speedOf(c);
      const st = stall.get(c);
      rqs[c].speed = Math.min(st === undefined ? s : 1 / (1 / s + st), cap.get(c) ?? Infinity);
    }
  }
}
