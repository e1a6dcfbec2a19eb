// struct task_struct and struct sched_entity, reduced to what the scheduler model reads.
import type { Op, Program, TaskApi } from "./ops";
import type { Policy } from "./prio";
import {
  DEFAULT_PRIO,
  NICE_0_LOAD,
  niceToWeight,
  rtPriorityToPrio,
  isRtPolicy,
  WEIGHT_IDLEPRIO,
} from "./prio";
import { createSchedAvg, type SchedAvg } from "./fair/pelt";

export const TASK_RUNNING = 0;
export const TASK_INTERRUPTIBLE = 1;
export const TASK_DEAD = 2;

/** p->on_rq values. */
export const TASK_ON_RQ_QUEUED = 1;
export const TASK_ON_RQ_MIGRATING = 2;

export type ClassName = "stop" | "rt" | "fair" | "idle";

export class SchedEntity {
  /** load.weight in 1024 units. */
  weight = NICE_0_LOAD;
  vruntime = 0;
  /** rq clock when the entity last started/was accounted running. */
  execStart = 0;
  sumExecRuntime = 0;
  prevSumExecRuntime = 0;
  onRq = false;
  /** PELT averages (sched_avg). */
  avg: SchedAvg = createSchedAvg();
}

export class Task {
  readonly se = new SchedEntity();
  state = TASK_RUNNING;
  onRq = 0;
  onCpu = false;
  /** task_cpu(p). */
  cpu = 0;
  policy: Policy = "normal";
  nice = 0;
  rtPriority = 0;
  /** Kernel prio: 0..99 RT, 100..139 normal. */
  prio = DEFAULT_PRIO;
  schedClass: ClassName = "fair";
  /** cpus_allowed as a byte per CPU; nrCpusAllowed = its popcount. */
  cpusAllowed: Uint8Array;
  nrCpusAllowed: number;
  // RT
  rtTimeSlice = 0;
  // wake_wide bookkeeping (record_wakee)
  lastWakee: Task | null = null;
  wakeeFlips = 0;
  wakeeFlipDecayTs = 0;
  lastWakeTs = 0;
  /** CPU the task ran on before its last migration (for cache modelling). */
  lastRanCpu = -1;
  lastRanAt = 0;
  workingSetBytes = 0;
  /** Pressure counter snapshot of the last CPU's caches when the task left it. */
  cachePressureAtLeave = 0;

  // program execution
  iter: Generator<Op, void, unknown> | null = null;
  /** The op being executed (a blocking op is retried when the task runs again). */
  op: Op | null = null;
  /** Value handed back to the program by the next `yield` (fork's child pid). */
  opResult: unknown = undefined;
  /** Remaining non-work time (syscall, copy, switch, cache refill) of the current segment. */
  segOverheadNs = 0;
  /** Remaining work of the current segment (ns at capacity 1024). */
  segWorkNs = 0;
  /** When the current segment last started running (valid while on a CPU). */
  segStartedAt = 0;
  /** Blocked in a futex-style `wait`; a `wake` that finds it not waiting sets wakePending. */
  waiting = false;
  wakePending = false;
  /** Generation guarding timers (sleep) against stale expiry. */
  timerGen = 0;

  // statistics
  stats = {
    runtimeNs: 0,
    waitNs: 0,
    sleepNs: 0,
    nvcsw: 0,
    nivcsw: 0,
    migrations: 0,
    wakeups: 0,
    workDoneNs: 0,
  };
  /** When the task last became runnable-but-waiting, or blocked (for wait/sleep accounting). */
  lastStateChange = 0;
  counters: Record<string, number> = {};
  api!: TaskApi;

  constructor(
    readonly pid: number,
    readonly comm: string,
    readonly role: string,
    readonly program: Program,
    nrCpus: number,
  ) {
    this.cpusAllowed = new Uint8Array(nrCpus).fill(1);
    this.nrCpusAllowed = nrCpus;
  }

  setAffinity(cpus: number[]): void {
    const n = this.cpusAllowed.length;
    const mask = new Uint8Array(n);
    for (const c of cpus) {
      if (!Number.isInteger(c) || c < 0 || c >= n) {
        throw new Error(`affinity: cpu ${c} does not exist (accepted 0..${n - 1})`);
      }
      mask[c] = 1;
    }
    if (cpus.length === 0) throw new Error("affinity: the CPU list is empty");
    this.cpusAllowed = mask;
    this.nrCpusAllowed = mask.reduce((s, v) => s + v, 0);
  }

  /** Sets policy/nice/prio and the load weight the way __setscheduler/set_user_nice do. */
  setScheduling(policy: Policy, nice: number, rtPriority: number): void {
    this.policy = policy;
    this.nice = nice;
    this.rtPriority = rtPriority;
    if (isRtPolicy(policy)) {
      this.prio = rtPriorityToPrio(rtPriority);
      this.schedClass = "rt";
    } else {
      this.prio = DEFAULT_PRIO + nice;
      this.schedClass = "fair";
    }
    this.se.weight = policy === "idle" ? WEIGHT_IDLEPRIO : niceToWeight(nice);
  }
}
