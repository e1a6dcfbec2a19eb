// EEVDF, the fair class's pick and placement since v6.6 (Peter Zijlstra, "sched/fair: Implement
// an EEVDF-like scheduling policy", 147f3efaa241, and "sched/fair: Commit to lag based
// placement", v6.6), as the 6.19 era runs it:
//
//   V        avg_vruntime(): the load-weighted average vruntime of the queued entities and curr
//   eligible entity_eligible(): v_i <= V, tested as avg >= (v_i - v0) * load without dividing
//   deadline vd_i = v_i + calc_delta_fair(slice, se); renewed in update_curr once v_i passes it
//   pick     the eligible entity with the earliest deadline (__pick_eevdf); RUN_TO_PARITY keeps
//            curr until it reaches its protected vruntime (the deadline it was picked with)
//   lag      vlag = V - v_i at dequeue (update_entity_lag, clamped to +-max(2 slice, TICK_NSEC)
//            in virtual time), restored by place_entity at the next enqueue (PLACE_LAG), scaled
//            by (W + w_i) / W so that adding the entity does not move V by its own lag
//
// Not modelled: DELAY_DEQUEUE (v6.12: a sleeper with negative lag stays queued until eligible),
// per-task slices (sched_attr.sched_runtime, v6.12) and so PREEMPT_SHORT, hrtick, cgroups.
// Every task has the base slice, so the protected vruntime is the deadline itself.
//
// The kernel finds the pick in O(log n) through a deadline-ordered rbtree augmented with
// min_vruntime. Our queue is sorted by vruntime, so the eligible entities are a prefix of it
// and the pick is the earliest deadline within that prefix (walked until the first ineligible
// entity); runqueues are short, and the walk stops early.
import type { SchedCore } from "../core/api";
import type { CfsRq, Task } from "../sched";
import { calcDeltaFair, clearBuddies, type FairPolicy } from "./fair";

/** sysctl_sched_base_slice as scaled by update_sysctl (0.75 ms x (1 + ilog2(min(ncpus, 8)))). */
function baseSlice(k: SchedCore): number {
  return k.cfsTiming.minGranularity;
}

/** Σ (v_i - v0) * w_i and Σ w_i over the tree and curr (cfs_rq->avg_vruntime / avg_load). */
function avgSums(cfs: CfsRq): { avg: number; load: number; v0: number } {
  const v0 = cfs.minVruntime;
  let avg = 0;
  let load = 0;
  const q = cfs.queue;
  for (let i = 0; i < q.length; i++) {
    const se = q[i].se;
    avg += (se.vruntime - v0) * se.weight;
    load += se.weight;
  }
  const curr = cfs.curr;
  if (curr?.se.onRq) {
    avg += (curr.se.vruntime - v0) * curr.se.weight;
    load += curr.se.weight;
  }
  return { avg, load, v0 };
}

/** avg_vruntime(): V, rounded towards minus infinity as the kernel's "sign flip" does. */
export function avgVruntime(cfs: CfsRq): number {
  return vOf(avgSums(cfs));
}

function vOf({ avg, load, v0 }: { avg: number; load: number; v0: number }): number {
  return load === 0 ? v0 : v0 + Math.floor(avg / load);
}

/** vruntime_eligible(): v <= V without the division. */
function eligibleAt(sums: { avg: number; load: number; v0: number }, v: number): boolean {
  return sums.avg >= (v - sums.v0) * sums.load;
}

/** entity_eligible(cfs_rq, se). */
export function entityEligible(cfs: CfsRq, p: Task): boolean {
  return eligibleAt(avgSums(cfs), p.se.vruntime);
}

/**
 * __pick_eevdf(cfs_rq, protect): the eligible entity with the earliest virtual deadline; with
 * `protect` and RUN_TO_PARITY, curr while it has not reached its protected vruntime.
 */
export function pickEevdf(k: SchedCore, cfs: CfsRq, protect: boolean): Task | null {
  const q = cfs.queue;
  let curr = cfs.curr?.se.onRq ? cfs.curr : null;
  if (cfs.nrRunning === 1) return curr ?? q[0] ?? null;
  const sums = avgSums(cfs);
  if (curr && !eligibleAt(sums, curr.se.vruntime)) curr = null;
  if (curr && protect && k.features.RUN_TO_PARITY && curr.se.vruntime < curr.se.vprot) return curr;
  let best: Task | null = null;
  for (let i = 0; i < q.length; i++) {
    const p = q[i];
    if (!eligibleAt(sums, p.se.vruntime)) break; // sorted by vruntime: the rest are later
    if (!best || p.se.deadline < best.se.deadline) best = p;
  }
  if (!best || (curr && curr.se.deadline < best.se.deadline)) best = curr;
  // V is a weighted mean of the queued vruntimes, so the leftmost is always eligible; the
  // fallback only guards against a rounding surprise
  return best ?? q[0] ?? null;
}

export const EEVDF_POLICY: FairPolicy = {
  name: "eevdf",
  placesEveryEnqueue: true,
  placeEntity(k, cfs, p, initial) {
    // place_entity(): called for every enqueue, before the entity is accounted in cfs
    const se = p.se;
    se.slice = baseSlice(k);
    let vslice = calcDeltaFair(se.slice, se.weight);
    const sums = avgSums(cfs); // W = sums.load: the tree and curr, without the entity placed
    let lag = 0;
    if (k.features.PLACE_LAG && cfs.nrRunning > 0 && se.vlag !== 0) {
      // lag = vlag * (W + w_i) / W: placing the entity moves V towards it by w_i / (W + w_i)
      lag = Math.trunc((se.vlag * (sums.load + se.weight)) / Math.max(1, sums.load));
    }
    se.vruntime = vOf(sums) - lag;
    if (k.features.PLACE_REL_DEADLINE && se.relDeadline) {
      se.deadline += se.vruntime;
      se.relDeadline = false;
      return;
    }
    if (k.features.PLACE_DEADLINE_INITIAL && initial) vslice = Math.floor(vslice / 2);
    se.deadline = se.vruntime + vslice;
  },
  onDequeue(k, cfs, p, sleep) {
    // update_entity_lag(), while the entity still counts in V; then keep the deadline relative
    // across a migration or a requeue (PLACE_REL_DEADLINE)
    const se = p.se;
    const limit = calcDeltaFair(Math.max(2 * se.slice, k.tickNs), se.weight);
    se.vlag = Math.max(-limit, Math.min(limit, avgVruntime(cfs) - se.vruntime));
    if (k.features.PLACE_REL_DEADLINE && !sleep) {
      se.deadline -= se.vruntime;
      se.relDeadline = true;
    }
  },
  afterUpdateCurr(k, rq, curr) {
    // update_deadline(): a new slice once the old one is used up; with others queued, reschedule
    if (curr.se.vruntime < curr.se.deadline) return;
    curr.se.slice = baseSlice(k);
    curr.se.deadline = curr.se.vruntime + calcDeltaFair(curr.se.slice, curr.se.weight);
    if (rq.cfs.nrRunning > 1) {
      k.reschedCurr(rq);
      clearBuddies(rq.cfs, curr);
    }
  },
  onSetNext(_k, _cfs, p) {
    // set_protect_slice(): with every slice the base slice, the protected vruntime is the deadline
    p.se.vprot = p.se.deadline;
  },
  pickNext(k, cfs) {
    // pick_next_entity(): an eligible next buddy (PICK_BUDDY), else EEVDF
    const next = cfs.next;
    if (k.features.PICK_BUDDY && next?.se.onRq && entityEligible(cfs, next)) return next;
    return pickEevdf(k, cfs, true);
  },
  checkPreemptTick() {
    // entity_tick() only runs update_curr(); update_deadline() rescheduled if the slice ran out
    return false;
  },
  wakeupPreempt(k, curr, p) {
    // check_preempt_wakeup_fair(): preempt if the wakee is now what __pick_eevdf would run
    // (every slice is the base slice, so PREEMPT_SHORT never applies)
    return pickEevdf(k, k.rqs[curr.cpu].cfs, true) === p;
  },
  yieldTask(k, _cfs, p) {
    // yield_task_fair(): push the deadline one slice out
    p.se.deadline += calcDeltaFair(p.se.slice || baseSlice(k), p.se.weight);
  },
};
