// The scheduler objects' number fields that hold fractions or large times during a run (times in
// ns, vruntime, remaining segment work, idle averages): primed as doubles when the object is made
// (sim/double_fields.ts says why). The lists come from V8's --trace-generalization over the bench
// cases and the reproductions.
import { primeDoubles } from "../sim/double_fields";
import type { Rq, Task } from "./sched";

/** A new task's fields (fork.ts createTask). */
export function primeTaskLayout(p: Task): Task {
  primeDoubles(p, [
    "segOverheadNs",
    "segWorkNs",
    "segStartedAt",
    "lastStateChange",
    "onCpuUntil",
    "lastRanAt",
    "privateRefillBytesPerNs",
  ]);
  primeDoubles(p.se, [
    "vruntime",
    "execStart",
    "sumExecRuntime",
    "prevSumExecRuntime",
    "deadline",
    "vlag",
    "vprot",
  ]);
  primeDoubles(p.stats, ["runtimeNs", "waitNs", "sleepNs", "workDoneNs"]);
  return p;
}

/** The kernel's clock and the charge of the running context (core.ts). */
export function primeKernelLayout(k: { now: number; chargeNs: number }): void {
  primeDoubles(k, ["now", "chargeNs"]);
}

/** A new runqueue's fields (core.ts, at boot). */
export function primeRqLayout(rq: Rq): Rq {
  primeDoubles(rq, [
    "avgIdleNs",
    "avgIdle",
    "busyHiddenFrom",
    "busyVisibleAt",
    "clockAtSchedule",
    "currIdleAt",
    "idleNs",
    "idleSince",
    "idleStamp",
    "lockFreeAt",
    "maxIdleBalanceCost",
    "seenIdleStamp",
    "seenLoadAvg",
    "seenRunnableAvg",
    "seenUtilAvg",
    "seenUtilEst",
    "nextBalance",
    "speed",
    "switchDoneAt",
    "tickEventAt",
    "wakeAvgIdle",
  ]);
  primeDoubles(rq.cfs, ["minVruntime"]);
  return rq;
}
