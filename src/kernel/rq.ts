// struct rq with its cfs_rq and rt_rq, as far as the model needs them.
import type { Task } from "./task";
import { MAX_RT_PRIO } from "./prio";
import { createPeltRemoved, createSchedAvg, type PeltRemoved, type SchedAvg } from "./fair/pelt";

export class CfsRq {
  /** Queued entities other than curr, ascending (vruntime, pid): the rbtree in order. */
  readonly queue: Task[] = [];
  /** The running entity; like the kernel, it is kept out of the tree while it runs. */
  curr: Task | null = null;
  nrRunning = 0;
  hNrRunning = 0;
  /** load.weight: sum of weights of queued entities including curr. */
  loadWeight = 0;
  minVruntime = 0;
  /** LAST_BUDDY / NEXT_BUDDY hints. */
  last: Task | null = null;
  next: Task | null = null;
  /** rq->cfs_tasks: every queued fair task, list head first (enqueue adds at the head). */
  readonly tasks: Task[] = [];
  /** PELT aggregate of the cfs_rq, and contributions of tasks that left while blocked. */
  avg: SchedAvg = createSchedAvg();
  removed: PeltRemoved = createPeltRemoved();
}

export class RtRq {
  /** One FIFO list per priority (the rt_prio_array). */
  readonly queues: Task[][] = Array.from({ length: MAX_RT_PRIO }, () => []);
  rtNrRunning = 0;
  /** Number of queued tasks that may run elsewhere (rt_nr_migratory). */
  rtNrMigratory = 0;
  /** highest_prio.curr / .next: best and second-best queued prio (MAX_RT_PRIO = none). */
  highestPrio = MAX_RT_PRIO;
  overloaded = false;
  /** pushable_tasks, kept sorted by prio. */
  readonly pushable: Task[] = [];
}

export class Rq {
  readonly cfs = new CfsRq();
  readonly rt = new RtRq();
  /** Tasks of every class on this rq, counted once each. */
  nrRunning = 0;
  curr: Task | null = null; // null = the idle task runs
  /** The per-CPU stopper (stop class) task, created on demand. */
  stop: Task | null = null;
  stopQueued = false;
  online = true;
  /** TIF_NEED_RESCHED of the running task. */
  needResched = false;
  /** Guards the pending run-segment completion event. */
  runGen = 0;
  /** Time of the pending tick event (-1: none). */
  tickEventAt = -1;
  tickRunning = false;
  /** A resched IPI is in flight. */
  reschedIpiPending = false;
  /** ttwu_pending: wakelist entries not yet activated. */
  ttwuPending = 0;
  /** Tasks queued on this CPU's wakelist (llist), in arrival order. */
  readonly wakeList: Task[] = [];
  // idle state
  idleSince = 0;
  idleStateIdx = -1;
  /** Running average of idle durations, the menu governor's prediction. */
  avgIdleNs = 1_000_000;
  /** rq->avg_idle, used by the newly-idle balance gate. */
  avgIdle = 0;
  idleStamp = 0;
  // balance state (used by the load balancer)
  nextBalance = 0;
  activeBalance = false;
  pushCpu = -1;
  /** cpu_load[] (2.6/4.x eras) and its bookkeeping (CpuLoadState). */
  readonly cpuLoad: number[] = [0, 0, 0, 0, 0];
  lastLoadUpdateTick = 0;
  nrLoadUpdates = 0;
  cpuCapacity = 1024;
  cpuCapacityOrig = 1024;
  // cache pressure: bytes of working sets dispatched on this CPU (drives eviction of others)
  cachePressure = 0;
  // accounting
  /** Time spent offline (boot-offline CPUs: the whole run). */
  offlineNs = 0;
  offlineSince = 0;
  idleNs = 0;
  contextSwitches = 0;
  ipisReceived = 0;
  /** Rq lock modelled as the time it becomes free. */
  lockFreeAt = 0;

  constructor(readonly cpu: number) {}

  isIdle(): boolean {
    return this.curr === null && this.nrRunning === 0 && this.ttwuPending === 0;
  }
}
