// EEVDF, the fair class's pick and placement since v6.6 (Peter Zijlstra, "sched/fair: Implement
// an EEVDF-like scheduling policy", 147f3efaa241, and "sched/fair: Commit to lag based
// placement", v6.6), as the 6.19 era runs it (docs/eevdf.md lists each piece and its release):
//
//   V        avg_vruntime(): the load-weighted average vruntime of the queued entities and curr
//   eligible entity_eligible(): v_i <= V, tested as avg >= (v_i - v0) * load without dividing
//   deadline vd_i = v_i + calc_delta_fair(slice_i, se); renewed in update_curr once v_i passes it.
//            slice_i is the base slice, or sched_attr.sched_runtime clamped to 0.1-100 ms (v6.12)
//   pick     the eligible entity with the earliest deadline (__pick_eevdf); curr is kept while
//            protect_slice(): up to vprot, set at pick to the deadline, or (v6.17) earlier if
//            a queued entity has a shorter slice (RUN_TO_PARITY), or one 0.75 ms quantum without
//            RUN_TO_PARITY; update_curr reschedules once vprot is passed
//   wakeup   the wakee preempts when it is what __pick_eevdf picks; PREEMPT_SHORT (v6.12): a
//            shorter-slice wakee is compared without curr's protection, which it then cancels
//   lag      vlag = V - v_i at dequeue (update_entity_lag, clamped to +-max(2 slice, TICK_NSEC)
//            in virtual time), restored by place_entity at the next enqueue (PLACE_LAG), scaled
//            by (W + w_i) / W so that adding the entity does not move V by its own lag;
//            reweight_entity scales vlag and a relative deadline by w_old / w_new
//   delay    DELAY_DEQUEUE (v6.12): a sleeper that is not eligible stays queued (sched_delayed)
//            until picked (then dequeued) or woken (requeued); DELAY_ZERO clips its lag to 0
//
// The kernel finds the pick in O(log n) through a deadline-ordered rbtree augmented with
// min_vruntime. Our queue is sorted by vruntime, so the eligible entities are a prefix of it
// and the pick is the earliest deadline within that prefix (walked until the first ineligible
// entity); runqueues are short, and the walk stops early.
import type { SchedCore } from "../core/api";
import { type CfsRq, type Task, WF_FORK } from "../sched";
import { calcDeltaFair, clearBuddies, type FairPolicy } from "./fair";
import { eraAtLeastFn } from "../features";

const atLeast617 = eraAtLeastFn("6.17");
const atLeast619 = eraAtLeastFn("6.19");

/** sysctl_sched_base_slice as scaled by update_sysctl (0.75 ms x (1 + ilog2(min(ncpus, 8)))). */
function baseSlice(k: SchedCore): number {
  return k.cfsTiming.minGranularity;
}

/** __setscheduler_params (v6.12): sched_runtime clamped to [NSEC_PER_MSEC/10, 100 ms]. */
export const CUSTOM_SLICE_MIN_NS = 100_000;
export const CUSTOM_SLICE_MAX_NS = 100_000_000;

/** se->custom_slice / se->slice from sched_attr.sched_runtime (0 = back to the base slice). */
export function setCustomSlice(k: SchedCore, p: Task, runtimeNs: number): void {
  const se = p.se;
  se.customSlice = runtimeNs > 0;
  se.slice = se.customSlice
    ? Math.min(CUSTOM_SLICE_MAX_NS, Math.max(CUSTOM_SLICE_MIN_NS, Math.round(runtimeNs)))
    : baseSlice(k);
}

/** The sums avg_vruntime() works from: Σ (v_i - v0) * w_i, Σ w_i, and v0 (min_vruntime). */
class AvgSums {
  avg = 0;
  load = 0;
  v0 = 0;
}

// One instance refilled by every avgSums() call: callers read it before the next call, and
// nothing between re-enters, so a pick costs no allocation (the kernel keeps the sums in cfs_rq).
const SUMS = new AvgSums();

/** Σ (v_i - v0) * w_i and Σ w_i over the tree and curr (cfs_rq->avg_vruntime / avg_load). */
function avgSums(cfs: CfsRq): AvgSums {
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
  SUMS.avg = avg;
  SUMS.load = load;
  SUMS.v0 = v0;
  return SUMS;
}

/** avg_vruntime(): V, rounded towards minus infinity as the kernel's "sign flip" does. */
export function avgVruntime(cfs: CfsRq): number {
  return vOf(avgSums(cfs));
}

function vOf(s: AvgSums): number {
  return s.load === 0 ? s.v0 : s.v0 + Math.floor(s.avg / s.load);
}

/** vruntime_eligible(): v <= V without the division. */
function eligibleAt(sums: AvgSums, v: number): boolean {
  return sums.avg >= (v - sums.v0) * sums.load;
}

/** entity_eligible(cfs_rq, se). */
export function entityEligible(cfs: CfsRq, p: Task): boolean {
  return eligibleAt(avgSums(cfs), p.se.vruntime);
}

/**
 * cfs_rq_min_slice(): the shortest slice among curr and the tree (Infinity when empty), leaving
 * out `except` (set_next_entity asks it with the picked entity out of the tree, not yet curr).
 */
export function cfsRqMinSlice(cfs: CfsRq, except: Task | null = null): number {
  let min = Number.POSITIVE_INFINITY;
  const curr = cfs.curr;
  if (curr && curr !== except && curr.se.onRq) min = curr.se.slice;
  const q = cfs.queue;
  for (let i = 0; i < q.length; i++)
    if (q[i] !== except && q[i].se.slice < min) min = q[i].se.slice;
  return min;
}

/** protect_slice(): curr has not reached the vruntime it is protected up to. */
function protectSlice(p: Task): boolean {
  return p.se.vruntime < p.se.vprot;
}

/** update_protect_slice(): shorten curr's protection to the shortest queued slice (v6.17). */
function updateProtectSlice(cfs: CfsRq, p: Task): void {
  const se = p.se;
  se.vprot = Math.min(se.vprot, se.vruntime + calcDeltaFair(cfsRqMinSlice(cfs), se.weight));
}

/**
 * __pick_eevdf(cfs_rq, protect): the eligible entity with the earliest virtual deadline; with
 * `protect`, an eligible next buddy (PICK_BUDDY) first, and curr while protect_slice().
 */
export function pickEevdf(k: SchedCore, cfs: CfsRq, protect: boolean): Task | null {
  const q = cfs.queue;
  let curr = cfs.curr?.se.onRq ? cfs.curr : null;
  if (cfs.nrRunning === 1) return curr ?? q[0] ?? null;
  const sums = avgSums(cfs);
  const next = cfs.next;
  if (protect && k.features.PICK_BUDDY && next?.se.onRq && eligibleAt(sums, next.se.vruntime))
    return next;
  if (curr && !eligibleAt(sums, curr.se.vruntime)) curr = null;
  if (curr && protect && protectSlice(curr)) return curr;
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

/** update_entity_lag(): vlag = V - v, clamped to max(2 slice, a tick) of p's virtual time. */
export function updateEntityLag(k: SchedCore, cfs: CfsRq, p: Task): void {
  const se = p.se;
  const limit = calcDeltaFair(Math.max(2 * se.slice, k.tickNs), se.weight);
  se.vlag = Math.max(-limit, Math.min(limit, avgVruntime(cfs) - se.vruntime));
}

export const EEVDF_POLICY: FairPolicy = {
  name: "eevdf",
  placesEveryEnqueue: true,
  placeEntity(k, cfs, p, initial) {
    // place_entity(): called for every enqueue, before the entity is accounted in cfs
    const se = p.se;
    if (!se.customSlice) se.slice = baseSlice(k);
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
    updateEntityLag(k, cfs, p);
    if (k.features.PLACE_REL_DEADLINE && !sleep) {
      se.deadline -= se.vruntime;
      se.relDeadline = true;
    }
  },
  delayDequeue(k, cfs, p) {
    // dequeue_entity(DEQUEUE_SLEEP): an entity that is not eligible stays in the competition
    return k.features.DELAY_DEQUEUE && !entityEligible(cfs, p);
  },
  updateLag: updateEntityLag,
  reweight(_k, p, oldWeight) {
    // reweight_entity() of a dequeued entity: lag_i = w_i * vlag is what is kept, so vlag and
    // a relative deadline scale by w_old / w_new (div_s64 truncates)
    const se = p.se;
    se.vlag = Math.trunc((se.vlag * oldWeight) / se.weight);
    if (se.relDeadline) se.deadline = Math.trunc((se.deadline * oldWeight) / se.weight);
  },
  afterUpdateCurr(k, rq, curr) {
    // update_deadline(): a new request once the old one is used up; then (v6.17) reschedule
    // when a deadline was renewed or curr has run past its protection, if others are queued
    const se = curr.se;
    let renewed = false;
    if (se.vruntime >= se.deadline) {
      if (!se.customSlice) se.slice = baseSlice(k);
      se.deadline = se.vruntime + calcDeltaFair(se.slice, se.weight);
      renewed = true;
    }
    if (rq.cfs.nrRunning === 1) return;
    // v6.6-v6.16: update_deadline() reschedules only when it renewed the deadline
    if (renewed || (atLeast617(k.era) && !protectSlice(curr))) {
      k.reschedCurr(rq);
      clearBuddies(rq.cfs, curr);
    }
  },
  onSetNext(k, cfs, p) {
    // set_protect_slice() (v6.17 form), with p already out of the tree: protected up to its
    // deadline, or the shortest queued slice (RUN_TO_PARITY) / one unscaled base slice
    // (NO_RUN_TO_PARITY) when that is shorter than its own
    const se = p.se;
    if (!atLeast617(k.era)) {
      // v6.6-v6.16: RUN_TO_PARITY keeps curr to its deadline (set_next_entity marks
      // vlag = deadline, __pick_eevdf honours it); without it there is no protection
      se.vprot = k.features.RUN_TO_PARITY ? se.deadline : se.vruntime;
      return;
    }
    let slice = k.features.RUN_TO_PARITY
      ? cfsRqMinSlice(cfs, p)
      : k.tunables.sched_min_granularity_ns;
    slice = Math.min(slice, se.slice);
    se.vprot =
      slice !== se.slice
        ? Math.min(se.deadline, se.vruntime + calcDeltaFair(slice, se.weight))
        : se.deadline;
  },
  pickNext(k, cfs) {
    return pickEevdf(k, cfs, true);
  },
  checkPreemptTick() {
    // entity_tick() only runs update_curr(); update_deadline() rescheduled if the slice ran out
    return false;
  },
  wakeupPreempt(k, curr, p, wakeFlags = 0) {
    // check_preempt_wakeup_fair() after update_curr(): a delayed wakee (a migrated sleeper)
    // never preempts; PREEMPT_SHORT compares a shorter-slice wakee without curr's protection.
    // v6.19 (e837456fdca8, "Reimplement NEXT_BUDDY to align with EEVDF goals"): unless it is
    // shorter, a new task (WF_FORK) does not preempt either
    if (p.se.schedDelayed) return false;
    const cfs = k.rqs[curr.cpu].cfs;
    const short = k.features.PREEMPT_SHORT && p.se.slice < curr.se.slice;
    if (!short && wakeFlags & WF_FORK && atLeast619(k.era)) return false;
    if (pickEevdf(k, cfs, !short) === p) {
      if (short && protectSlice(curr)) curr.se.vprot = curr.se.vruntime; // cancel_protect_slice
      return true;
    }
    // update_protect_slice() when p does not preempt: v6.17 (052c3d87c82e) for a shorter wakee
    // only, v6.19 (e837456fdca8) for every wakee; v6.6-v6.16 have no such step
    if (k.features.RUN_TO_PARITY && (atLeast619(k.era) || (atLeast617(k.era) && short)))
      updateProtectSlice(cfs, curr);
    return false;
  },
  yieldTask(k, _cfs, p) {
    // yield_task_fair(): push the deadline one slice out
    p.se.deadline += calcDeltaFair(p.se.slice || baseSlice(k), p.se.weight);
  },
};
