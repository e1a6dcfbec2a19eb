// PELT's CPU invariance on asymmetric machines: a task's util_avg measures work at the biggest
// CPU's speed, not time. Frequency invariance is not modelled (CPUs run at full speed). Forms:
//   4.1 ... 5.0  __update_load_avg / accumulate_sum scale the running contribution:
//                util_sum += contrib * scale_cpu, scale_cpu = arch_scale_cpu_capacity(NULL, cpu)
//                (e0f5f3afd2cf "sched: Make usage tracking cpu scale-invariant", v4.1); load is
//                not CPU-scaled. A task always running on a CPU of capacity C settles at C.
//   5.1+         rq_clock_pelt (23127296889f "sched/fair: Update scale invariance of PELT", v5.1):
//                update_rq_clock_pelt advances rq->clock_pelt by cap_scale(delta, capacity)
//                while a task runs and syncs it to clock_task while idle; on going idle,
//                update_idle_rq_clock_pelt counts the gap as lost_idle_time if util_sum was
//                saturated, so an always-running task does not get idle time it never had.
//                rq_clock_pelt = clock_pelt - lost_idle_time. Contributions are unscaled: a task
//                always running on any CPU tends to 1024 (slower on a smaller CPU), a periodic
//                one gets the util it would have on the biggest CPU.
// A CPU of arch capacity 1024 (every CPU of a symmetric machine) takes the unscaled path, so
// nothing changes there. The 5.1+ clock is advanced lazily, at each PELT update of the rq (every
// change of rq->curr passes one, as update_rq_clock precedes each in the kernel): the interval
// since the last update ran what is current now; the first update that finds the rq idle after
// a busy one applies update_idle_rq_clock_pelt as of the last update. RT and
// DL util_sum (added to the saturation test in the kernel) are not modelled.
import type { SchedCore } from "../core/api";
import { eraAtLeastFn } from "../features";
import type { Rq } from "../sched";
import { LOAD_AVG_MAX, rqClockPelt } from "./pelt";

const atLeast41 = eraAtLeastFn("4.1");
const atLeast51 = eraAtLeastFn("5.1");

/** arch_scale_cpu_capacity(cpu): the machine's capacity of the CPU (no SMT gain). */
export function archScaleCpuCapacity(k: SchedCore, cpu: number): number {
  return k.machine.cpus[cpu].capacity;
}

/** The 4.1-5.0 scale_cpu of accumulate_sum: the arch capacity, 1024 in other eras. */
export function peltScaleCpu(k: SchedCore, rq: Rq): number {
  // a CPU of capacity 1024 scales by 1024 in every era: no era test on symmetric machines
  const cap = archScaleCpuCapacity(k, rq.cpu);
  if (cap === 1024 || !atLeast41(k.era) || atLeast51(k.era)) return 1024;
  return cap;
}

interface ClockPelt {
  /** clock_task at the last update (PELT-offset ns). */
  last: number;
  clockPelt: number;
  lostIdleTime: number;
  /** rq->curr was a task at the last update. */
  busy: boolean;
}
const clocks = new WeakMap<Rq, ClockPelt>();

/** cap_scale(delta, capacity): delta * capacity >> SCHED_CAPACITY_SHIFT. */
const capScale = (delta: number, capacity: number): number => Math.floor((delta * capacity) / 1024);

/**
 * update_idle_rq_clock_pelt's threshold: util_sum at or above ((LOAD_AVG_MAX - 1024) << 10) -
 * LOAD_AVG_MAX means the rq ran all the time.
 */
const UTIL_SUM_SATURATED = (LOAD_AVG_MAX - 1024) * 1024 - LOAD_AVG_MAX;

/** rq_clock_pelt(rq) now: the scaled clock on a smaller CPU from 5.1, else the task clock. */
export function rqClockPeltOf(k: SchedCore, rq: Rq): number {
  const clockTask = rqClockPelt(k.now);
  const cap = archScaleCpuCapacity(k, rq.cpu);
  if (cap === 1024 || !atLeast51(k.era)) return clockTask;
  const busy = rq.curr !== null;
  let c = clocks.get(rq);
  if (!c) {
    c = { last: clockTask, clockPelt: clockTask, lostIdleTime: 0, busy };
    clocks.set(rq, c);
  }
  if (busy) {
    // update_rq_clock_pelt: the elapsed time scaled to the computation done
    c.clockPelt += capScale(clockTask - c.last, cap);
  } else {
    // went idle at the last update: update_idle_rq_clock_pelt
    if (c.busy && rq.cfs.avg.utilSum >= UTIL_SUM_SATURATED) c.lostIdleTime += c.last - c.clockPelt;
    c.clockPelt = clockTask; // _update_idle_rq_clock_pelt
  }
  c.last = clockTask;
  c.busy = busy;
  return c.clockPelt - c.lostIdleTime;
}
