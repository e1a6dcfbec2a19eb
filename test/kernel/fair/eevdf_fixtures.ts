// Hand-built EEVDF run queues shared by the EEVDF tests: entities, a cfs_rq holding them, and a
// minimal SchedCore with the 6.19 feature set.
import { CfsRq, Task } from "../../../src/kernel/sched";
import { run } from "../../../src/kernel/ops";
import type { SchedCore } from "../../../src/kernel/core/api";

export const forever = function* () {
  yield run(Infinity);
};

/** A queued task with this vruntime, weight and deadline (slice 3 ms). */
export function entity(pid: number, vruntime: number, weight: number, deadline: number): Task {
  const t = new Task(pid, `t${pid}`, "t", forever, 4);
  Object.assign(t.se, { vruntime, weight, deadline, onRq: true, slice: 3_000_000 });
  return t;
}

/** A cfs_rq holding `queued` (sorted by vruntime as the model keeps it) and `curr`. */
export function cfsOf(queued: Task[], curr: Task | null = null): CfsRq {
  const cfs = new CfsRq();
  cfs.queue.push(...[...queued].sort((a, b) => a.se.vruntime - b.se.vruntime));
  cfs.curr = curr;
  cfs.nrRunning = queued.length + (curr ? 1 : 0);
  cfs.minVruntime = Math.min(...[...queued, ...(curr ? [curr] : [])].map((t) => t.se.vruntime));
  return cfs;
}

/** The EEVDF features of 6.19, all on. */
export const EEVDF_FEATURES = {
  RUN_TO_PARITY: true,
  PLACE_LAG: true,
  PLACE_DEADLINE_INITIAL: true,
  PLACE_REL_DEADLINE: true,
  PICK_BUDDY: true,
  PREEMPT_SHORT: true,
  DELAY_DEQUEUE: true,
  DELAY_ZERO: true,
};

/** A SchedCore with only what the EEVDF policy reads: era, features, base slice, tick, rqs. */
export const fakeCore = (
  over: Partial<typeof EEVDF_FEATURES> = {},
  cfs: CfsRq | null = null,
  era = "6.19",
) =>
  ({
    era,
    features: { ...EEVDF_FEATURES, ...over },
    cfsTiming: { minGranularity: 3_000_000 },
    tunables: { sched_min_granularity_ns: 750_000 },
    tickNs: 1_000_000,
    rqs: cfs ? [{ cfs }] : [],
  }) as unknown as SchedCore;
