// A task program that repeats a fixed list of operations. It does what
//   function* (t) { yield* first; for (;;) { yield ops[0]; ...; yield ops[n - 1]; lap(t); } }
// does, but as a plain iterator: the executor only calls next(), and a generator's resume and
// suspend were about a tenth of a ping-pong event's instructions (valgrind, pingpong-104cpu:
// 4 096 instructions per event with generators, 3 654 without). The ops are shared by every
// pass, which is safe because the executor never writes to an Op.
import type { Op, Program } from "./ops";
import type { TaskApi } from "./sched";

/** Options of {@link repeat}: what runs once before the loop, and what runs after each pass. */
export interface RepeatOptions {
  /** Operations run once before the first pass (a fork, a setup call). */
  first?: readonly Op[];
  /** Called at the end of each pass, when the program resumes after the pass's last op. */
  lap?: (t: TaskApi) => void;
}

/**
 * A program that runs `ops` in order, forever (the task ends only by being killed with the
 * run). For loops whose operations never change; anything that decides as it goes stays a
 * generator.
 *
 * @example
 * ```ts
 * import { repeat, run, sleep, topology, type Workload } from "schedlab";
 * const ticker: Workload = {
 *   name: "ticker",
 *   params: {},
 *   defaultDurationNs: 50e6,
 *   defaultWarmupNs: 0,
 *   setup(ctx) {
 *     const t = ctx.spawn({
 *       comm: "ticker",
 *       program: repeat([run(1e6), sleep(4e6)], { lap: (api) => api.count("ticks") }),
 *     });
 *     return { metrics: () => ({ ticks: t.counters.ticks ?? 0 }) };
 *   },
 * };
 * const res = await topology("core2-2x2").workload(ticker).run();
 * console.log(res.mean("ticks", "baseline"));
 * ```
 * Prints:
 * ```text
 * 9
 * ```
 */
export function repeat(ops: readonly Op[], options: RepeatOptions = {}): Program {
  if (!Array.isArray(ops) || ops.length === 0) {
    throw new Error("repeat: ops must be a non-empty array of operations (run, send, recv, ...)");
  }
  const loop = ops.slice();
  const first = (options.first ?? []).slice();
  const lap = options.lap ?? null;
  return (t) => new RepeatProgram(t, loop, first, lap);
}

class RepeatProgram implements Generator<Op, void, unknown> {
  private i = 0;
  private f = 0;
  private finished = false;
  /** One result object, refilled by every next(): the executor reads it before asking again. */
  private readonly result: IteratorYieldResult<Op>;

  constructor(
    private readonly t: TaskApi,
    private readonly ops: Op[],
    private readonly first: Op[],
    private readonly lap: ((t: TaskApi) => void) | null,
  ) {
    this.result = { done: false, value: ops[0] };
  }

  next(): IteratorResult<Op, void> {
    if (this.finished) return { done: true, value: undefined };
    const r = this.result;
    if (this.f < this.first.length) {
      r.value = this.first[this.f++];
      return r;
    }
    if (this.i === this.ops.length) {
      this.i = 0;
      if (this.lap !== null) this.lap(this.t);
    }
    r.value = this.ops[this.i++];
    return r;
  }

  return(): IteratorResult<Op, void> {
    this.finished = true;
    return { done: true, value: undefined };
  }

  throw(e: unknown): IteratorResult<Op, void> {
    this.finished = true;
    throw e;
  }

  [Symbol.iterator](): Generator<Op, void, unknown> {
    return this;
  }
}
