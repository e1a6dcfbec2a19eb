// Invariants checked during and after runs.
import type { SchedCore } from "./api";
import type { Task } from "../sched";
import { TASK_DEAD, TASK_INTERRUPTIBLE } from "../sched";

/** No task is current on two CPUs or lost; every runqueue's counts agree with its classes. */
export function checkInvariants(k: SchedCore): void {
  const seen = new Set<Task>();
  for (const rq of k.rqs) {
    const c = rq.curr;
    if (c) {
      if (seen.has(c)) throw new Error(`invariant: ${c.comm}/${c.pid} is current on two CPUs`);
      seen.add(c);
      if (c.cpu !== rq.cpu)
        throw new Error(
          `invariant: ${c.comm}/${c.pid} runs on cpu${rq.cpu} but task_cpu is ${c.cpu}`,
        );
    }
    let nr = rq.cfs.nrRunning + rq.rt.rtNrRunning + (rq.stopQueued ? 1 : 0);
    if (nr !== rq.nrRunning)
      throw new Error(`invariant: cpu${rq.cpu} nr_running ${rq.nrRunning} != class sum ${nr}`);
    nr = rq.cfs.queue.length + (rq.cfs.curr?.se.onRq ? 1 : 0);
    if (nr !== rq.cfs.nrRunning)
      throw new Error(
        `invariant: cpu${rq.cpu} cfs tree holds ${nr}, nr_running ${rq.cfs.nrRunning}`,
      );
  }
  for (const p of k.tasks) {
    if (p.state === TASK_DEAD) continue;
    const queued = p.onRq !== 0;
    const waking = k.rqs.some((rq) => rq.wakeList.includes(p));
    const blocked = p.state === TASK_INTERRUPTIBLE;
    if (!queued && !waking && !blocked)
      throw new Error(
        `invariant: ${p.comm}/${p.pid} is lost (not queued, not waking, not sleeping)`,
      );
    if (queued && blocked) throw new Error(`invariant: ${p.comm}/${p.pid} is queued but sleeping`);
  }
  const overloaded = k.rqs.filter((rq) => rq.nrRunning >= 2).length;
  if (overloaded !== k.nrOverloaded)
    throw new Error(
      `invariant: ${overloaded} runqueues hold 2+ tasks, root domain counts ${k.nrOverloaded}`,
    );
}
