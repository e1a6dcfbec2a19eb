// menu's repeating-pattern detector (drivers/cpuidle/governors/menu.c get_typical_interval) over
// the last INTERVALS measured idle intervals of a CPU (data->intervals[], in us), per era, and
// the prediction menu_select makes from it. The detector came with 1f85f87d4f81 "cpuidle: add a
// repeating pattern detector to the menu governor" (Arjan van de Ven, committed 25 May 2010,
// v2.6.35), so 2.6.29 has none.
//
// The model keeps no next timer event per CPU, so menu's other term, next_timer_us scaled by
// correction_factor[bucket] (itself a running average of measured / next-timer ratios), has no
// direct counterpart: the model's running average of idle periods (rq.avgIdleNs, idle.ts
// recordIdle) stands in for it, and tests against next_timer_us are left out (taken as passed:
// no timer is known to come sooner).
import type { Rq } from "../sched";
import type { EraTraits } from "../features";

/** menu.c INTERVALS (1 << INTERVAL_SHIFT). */
export const INTERVALS = 8;
/** UINT_MAX: get_typical_interval's "no typical interval". */
export const NO_TYPICAL_INTERVAL = 0xffff_ffff;
/** gov.h RESIDENCY_THRESHOLD_NS (15 us): v6.6+ menu_select skips the next-timer term below it. */
const RESIDENCY_THRESHOLD_NS = 15_000;

/** The form of get_typical_interval and its use in menu_select (EraTraits.menuTypicalInterval). */
export type TypicalIntervalForm = "none" | "v3.13" | "v4.6" | "v6.6" | "v6.15";

/** int_sqrt: the integer square root (floor). */
function intSqrt(x: number): number {
  let r = Math.floor(Math.sqrt(x));
  while (r * r > x) r--;
  while ((r + 1) * (r + 1) <= x) r++;
  return r;
}

/**
 * get_typical_interval over `intervals` (us, unsigned): the average of the recent intervals when
 * their spread is small, upward outliers discarded one value at a time ("thresh = max - 1; goto
 * again") while more than 3/4 of the samples remain; NO_TYPICAL_INTERVAL otherwise. Integer
 * arithmetic as in the kernel (do_div floors; u64 sums, which no modelled interval overflows, so
 * the "variance <= U64_MAX/36" and "stddev <= ULONG_MAX" guards always pass).
 *
 * - "v3.13" (3.19; the form of v3.13 to v4.5, read in a torvalds/linux tree of v4.x): stddev =
 *   int_sqrt(variance), typical when "((avg > stddev * 6) && (divisor * 4 >= INTERVALS * 3)) ||
 *   stddev <= 20".
 * - "v4.6" (4.8 to 5.19): no square root, typical when "(((u64)avg*avg > variance*36) &&
 *   (divisor * 4 >= INTERVALS * 3)) || variance <= 400", "return UINT_MAX" at the 3/4 stop. The
 *   v5.x shortcut "if (min >= predicted_us) return UINT_MAX" is left out: the average of values
 *   at least predicted_us would lose to it in menu_select's min() anyway.
 * - "v6.6" (5484e31bbbff, queued 17 Aug 2023 for v6.6): as v4.6, and "if (!max) return
 *   UINT_MAX" (all remaining intervals 0).
 * - "v6.15" (6.19; Feb 2025 series and 85975daeaa4d "cpuidle: menu: Avoid discarding useful
 *   information"): one loop, variance = sum(x^2)/n - avg^2; outliers discarded on either side
 *   ("if (avg - min > max - avg) min_thresh = min; else max_thresh = max", bounds exclusive);
 *   at the 3/4 stop "if (divisor >= INTERVALS / 2) return max".
 */
export function getTypicalInterval(
  form: TypicalIntervalForm,
  intervals: ArrayLike<number>,
): number {
  if (form === "none") return NO_TYPICAL_INTERVAL;
  if (form === "v6.15") return typicalTwoSided(intervals);
  let thresh = NO_TYPICAL_INTERVAL;
  for (;;) {
    let max = 0;
    let sum = 0;
    let divisor = 0;
    for (let i = 0; i < INTERVALS; i++) {
      const v = intervals[i];
      if (v <= thresh) {
        sum += v;
        divisor++;
        if (v > max) max = v;
      }
    }
    if (form === "v6.6" && max === 0) return NO_TYPICAL_INTERVAL;
    const avg = Math.floor(sum / divisor);
    let variance = 0;
    for (let i = 0; i < INTERVALS; i++) {
      const v = intervals[i];
      if (v <= thresh) variance += (v - avg) * (v - avg);
    }
    variance = Math.floor(variance / divisor);
    const enough = divisor * 4 >= INTERVALS * 3;
    if (form === "v3.13") {
      const stddev = intSqrt(variance);
      if ((avg > stddev * 6 && enough) || stddev <= 20) return avg;
    } else if ((avg * avg > variance * 36 && enough) || variance <= 400) return avg;
    if (divisor * 4 <= INTERVALS * 3) return NO_TYPICAL_INTERVAL;
    thresh = max - 1;
  }
}

/** get_typical_interval of v6.15+ (see getTypicalInterval). */
function typicalTwoSided(intervals: ArrayLike<number>): number {
  let minThresh = -1;
  let maxThresh = NO_TYPICAL_INTERVAL;
  for (;;) {
    let max = 0;
    let min = NO_TYPICAL_INTERVAL;
    let sum = 0;
    let sumSq = 0;
    let divisor = 0;
    for (let i = 0; i < INTERVALS; i++) {
      const v = intervals[i];
      if (v <= minThresh || v >= maxThresh) continue;
      divisor++;
      sum += v;
      sumSq += v * v;
      if (v > max) max = v;
      if (v < min) min = v;
    }
    if (max === 0) return NO_TYPICAL_INTERVAL;
    const avg = Math.floor(sum / divisor);
    const avgSq = avg * avg;
    const variance = Math.floor(sumSq / divisor) - avgSq;
    if ((avgSq > variance * 36 && divisor * 4 >= INTERVALS * 3) || variance <= 400) return avg;
    if (divisor * 4 <= INTERVALS * 3) return divisor >= INTERVALS / 2 ? max : NO_TYPICAL_INTERVAL;
    if (avg - min > max - avg) minThresh = min;
    else maxThresh = max;
  }
}

/**
 * menu_update's "data->intervals[data->interval_ptr++] = measured_us" (ktime_to_us of the
 * measured time from v5.x): the ring of the last INTERVALS idle intervals, tick wakeups' 45 ms
 * sample included. The model records the observed idle period without menu's exit-latency
 * deduction, as for its running average.
 */
export function menuUpdateIntervals(rq: Rq, observedNs: number): void {
  rq.idleIntervalsUs[rq.idleIntervalPtr] = Math.min(
    Math.floor(observedNs / 1000),
    NO_TYPICAL_INTERVAL,
  );
  rq.idleIntervalPtr = (rq.idleIntervalPtr + 1) % INTERVALS;
}

/**
 * The predicted idle time (ns) menu_select picks a state by, per era, with rq.avgIdleNs standing
 * in for the next-timer term: "v3.13" replaces it by a typical interval ("data->predicted_us =
 * avg", the next_timer_us > avg test taken as passed); "v4.6" takes "min(predicted_us,
 * get_typical_interval(...))" (e132b9b3bc7f, v4.6: "Use the lowest expected idle interval");
 * from v6.6 a typical interval of at most RESIDENCY_THRESHOLD_NS is used alone (the next timer
 * is not looked up), a longer one in that min. "none": the average alone.
 */
export function menuPredictNs(traits: EraTraits, rq: Rq): number {
  const form = traits.menuTypicalInterval;
  if (form === "none") return rq.avgIdleNs;
  const typical = getTypicalInterval(form, rq.idleIntervalsUs);
  if (typical === NO_TYPICAL_INTERVAL) return rq.avgIdleNs;
  const typicalNs = typical * 1000;
  if (form === "v3.13") return typicalNs;
  if (form !== "v4.6" && typicalNs <= RESIDENCY_THRESHOLD_NS) return typicalNs;
  return Math.min(rq.avgIdleNs, typicalNs);
}
