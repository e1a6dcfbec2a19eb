// Invariants checked during and after runs.
import type { SchedCore } from "./api";
import type { Task } from "../sched";
import { TASK_DEAD, TASK_INTERRUPTIBLE, type Rq, type SchedAvg } from "../sched";
import { CPUPRI_INVALID, convertPrio, rqCpupriPrio } from "../rt/cpupri";

/** min_vruntime seen at the previous check, per cfs_rq (it never goes backwards). */
const lastMinVruntime = new WeakMap<Rq, number>();

/** PELT averages are never negative; a task's util_avg (a geometric series of at most 1024 per
 *  period) never exceeds SCHED_CAPACITY_SCALE. A cfs_rq's may, for a while, after tasks with
 *  their util attach (attach_entity_load_avg adds it; cpu_util() clamps to the capacity). */
function checkPelt(what: string, a: SchedAvg, task: boolean): void {
  if (!(a.loadAvg >= 0 && a.utilAvg >= 0 && a.runnableAvg >= 0 && a.utilSum >= 0))
    throw new Error(`invariant: ${what} has a negative or NaN PELT average (${JSON.stringify(a)})`);
  if (task && a.utilAvg > 1024) throw new Error(`invariant: ${what} util_avg ${a.utilAvg} > 1024`);
}

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
    let nr = rq.cfs.nrRunning + rq.rt.rtNrRunning - k.rt.nrHidden(rq) + (rq.stopQueued ? 1 : 0);
    if (nr !== rq.nrRunning)
      throw new Error(`invariant: cpu${rq.cpu} nr_running ${rq.nrRunning} != class sum ${nr}`);
    nr = rq.cfs.queue.length + (rq.cfs.curr?.se.onRq ? 1 : 0);
    if (nr !== rq.cfs.nrRunning)
      throw new Error(
        `invariant: cpu${rq.cpu} cfs tree holds ${nr}, nr_running ${rq.cfs.nrRunning}`,
      );
    nr = rq.cfs.queue.reduce((n, t) => n + (t.se.schedDelayed ? 1 : 0), 0);
    if (nr !== rq.cfs.hNrDelayed)
      throw new Error(`invariant: cpu${rq.cpu} holds ${nr} delayed, counts ${rq.cfs.hNrDelayed}`);
    // util_est: the cfs_rq's estimate is its runnable tasks' (a delayed sleeper's left at its sleep)
    const est = rq.cfs.tasks.reduce((n, t) => n + (t.se.schedDelayed ? 0 : t.se.avg.utilEst), 0);
    if (est !== rq.cfs.avg.utilEst)
      throw new Error(
        `invariant: cpu${rq.cpu} util_est ${rq.cfs.avg.utilEst} != its tasks' estimates ${est}`,
      );
  }
  for (const p of k.tasks) {
    if (p.state === TASK_DEAD) continue;
    const queued = p.onRq !== 0;
    const blocked = p.state === TASK_INTERRUPTIBLE;
    // on some wakelist (searched only for a task neither queued nor sleeping: tasks x CPUs)
    if (!queued && !blocked && !k.rqs.some((rq) => rq.wakeList.includes(p)))
      throw new Error(
        `invariant: ${p.comm}/${p.pid} is lost (not queued, not waking, not sleeping)`,
      );
    // a sleeper whose dequeue is delayed (DELAY_DEQUEUE, v6.12) is queued and sleeping, and only it
    if (queued && blocked !== p.se.schedDelayed)
      throw new Error(
        `invariant: ${p.comm}/${p.pid} is queued ${blocked ? "but sleeping" : "and running"} with sched_delayed ${p.se.schedDelayed}`,
      );
  }
  checkTimeAndState(k);
  const overloaded = k.rqs.filter((rq) => rq.nrRunning >= 2).length;
  if (overloaded !== k.nrOverloaded)
    throw new Error(
      `invariant: ${overloaded} runqueues hold 2+ tasks, root domain counts ${k.nrOverloaded}`,
    );
}

/** Offline CPUs hold nothing; cpupri and rto_mask agree with the runqueues; min_vruntime and
 *  the clock only move forward; PELT averages stay in their bounds. */
function checkTimeAndState(k: SchedCore): void {
  if (k.eq.peekTime() < k.now)
    throw new Error(`invariant: an event is queued at ${k.eq.peekTime()}, before now (${k.now})`);
  const cp = k.rt.rd.cpupri;
  let rto = 0;
  for (const rq of k.rqs) {
    if (!rq.online && (rq.curr !== null || rq.nrRunning !== 0))
      throw new Error(
        `invariant: offline cpu${rq.cpu} runs or holds tasks (nr_running ${rq.nrRunning})`,
      );
    const want = rq.online
      ? convertPrio(cp.numbering, rqCpupriPrio(cp.numbering, rq.rt.highestPrio))
      : CPUPRI_INVALID;
    if (cp.level(rq.cpu) !== want)
      throw new Error(
        `invariant: cpupri files cpu${rq.cpu} at level ${cp.level(rq.cpu)}, its rt_rq says ${want}`,
      );
    rto += k.rt.rd.rtoMask[rq.cpu];
    const prev = lastMinVruntime.get(rq);
    if (prev !== undefined && rq.cfs.minVruntime < prev)
      throw new Error(
        `invariant: cpu${rq.cpu} min_vruntime went back from ${prev} to ${rq.cfs.minVruntime}`,
      );
    lastMinVruntime.set(rq, rq.cfs.minVruntime);
    checkPelt(`cpu${rq.cpu} cfs_rq`, rq.cfs.avg, false);
  }
  for (let l = 0; l < cp.nrPriorities; l++) {
    let n = 0;
    for (let c = 0; c < k.rqs.length; c++) n += cp.vecMask[l][c];
    if (n !== cp.vecCount[l])
      throw new Error(`invariant: cpupri level ${l} counts ${cp.vecCount[l]}, its mask holds ${n}`);
  }
  if (rto !== k.rt.rd.rtoCount)
    throw new Error(`invariant: rto_count ${k.rt.rd.rtoCount}, rto_mask holds ${rto}`);
  for (const p of k.tasks)
    if (p.state !== TASK_DEAD) checkPelt(`${p.comm}/${p.pid}`, p.se.avg, true);
}
