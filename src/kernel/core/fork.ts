// Creating tasks (kernel/fork.c): user tasks placed by wake_up_new_task, and the per-CPU
// stop-class kernel threads.
import type { SchedCore } from "./api";
import type { SpawnSpec } from "../ops";
import type { Program, TaskApi } from "../ops";
import { isRtPolicy, setSchedParams } from "../prio";
import { Task, TASK_INTERRUPTIBLE } from "../sched";
import { wakeUpNewTask } from "./ttwu";
import { customSlices } from "./setscheduler";
import { setCustomSlice } from "../fair/eevdf";
import { primeTaskLayout } from "../layout";
import { checkFootprint } from "../contention";
import type { RandomStream } from "../../sim/random";

/** fork + wake_up_new_task of a user task. */
export function spawnTask(k: SchedCore, spec: SpawnSpec): Task {
  const policy = spec.policy ?? "normal";
  const p = createTask(k, spec.comm, spec.role ?? spec.comm, spec.program);
  setSchedParams(p, policy, spec.nice ?? 0, isRtPolicy(policy) ? (spec.rtPriority ?? 1) : 0);
  if (spec.cpus) p.setAffinity(spec.cpus);
  p.workingSetBytes = spec.workingSetBytes ?? 0;
  if (spec.footprint !== undefined) {
    p.footprint = checkFootprint(spec.comm, spec.footprint);
    if (spec.workingSetBytes === undefined) p.workingSetBytes = p.footprint.workingSetBytes;
    k.cache.contention.active = true;
  }
  const refill = spec.privateRefillBytesPerNs ?? 0;
  if (!(refill >= 0 && Number.isFinite(refill)))
    throw new Error(
      `spawn ${spec.comm}: privateRefillBytesPerNs must be a finite number >= 0 (bytes per ns; got ${refill})`,
    );
  p.privateRefillBytesPerNs = refill;
  if (spec.slice !== undefined) {
    if (!(spec.slice >= 0 && Number.isFinite(spec.slice)))
      throw new Error(`spawn ${spec.comm}: slice must be a number of ns >= 0 (got ${spec.slice})`);
    // sched_setattr(sched_runtime) before the first enqueue; ignored for fair tasks before 6.12
    if (customSlices(k) && p.schedClass === "fair") setCustomSlice(k, p, spec.slice);
  }
  k.classFor(p).taskFork?.(p);
  if (spec.cpu !== undefined) {
    if (!k.rqs[spec.cpu]?.online)
      throw new Error(`spawn ${spec.comm}: cpu ${spec.cpu} is not an online CPU`);
    if (!p.cpusAllowed[spec.cpu])
      throw new Error(`spawn ${spec.comm}: cpu ${spec.cpu} is outside its affinity`);
  }
  if (k.trace) traceProcessFork(k, p);
  wakeUpNewTask(k, p, spec.cpu);
  return p;
}

/**
 * trace_sched_process_fork(current, p), which kernel_clone records before wake_up_new_task (so a
 * trace shows fork, then sched_wakeup_new). A task the workload's setup spawns has no modelled
 * parent (it comes "from outside", as if forked before the trace began): no record.
 */
function traceProcessFork(k: SchedCore, child: Task): void {
  const cpu = k.thisCpu;
  const parent = cpu >= 0 ? k.rqs[cpu].curr : null;
  if (!parent || !k.trace) return;
  k.trace.push({
    type: "sched_process_fork",
    t: k.now,
    cpu,
    parentComm: parent.comm,
    parentPid: parent.pid,
    childComm: child.comm,
    childPid: child.pid,
  });
}

/**
 * A per-CPU stop-class kernel thread (the stopper), created asleep as if it had just called
 * `wait`: its program starts with the work to do when it is first woken.
 */
export function spawnKernelThread(k: SchedCore, comm: string, cpu: number, program: Program): Task {
  const p = createTask(k, comm, "kthread", program);
  p.schedClass = "stop";
  p.prio = 0;
  p.setAffinity([cpu]);
  p.cpu = cpu;
  p.state = TASK_INTERRUPTIBLE;
  p.waiting = true;
  p.lastStateChange = k.now;
  return p;
}

function createTask(k: SchedCore, comm: string, role: string, program: Program): Task {
  const pid = k.allocPid();
  const p = primeTaskLayout(new Task(pid, comm, role, program, k.rqs.length));
  p.rtTimeSlice = k.tunables.rr_timeslice_ns;
  // made on first use: seeding a stream costs more than most programs' whole use of it
  let stream: RandomStream | null = null;
  const api: TaskApi = {
    pid,
    comm,
    now: () => k.now,
    cpu: () => p.cpu,
    random: () => {
      stream ??= k.random.stream(`task/${comm}/${pid}`);
      return stream.next();
    },
    count: (name, n = 1) => {
      p.counters[name] = (p.counters[name] ?? 0) + n;
    },
    workDoneNs: () => k.workDone(p),
  };
  p.api = api;
  p.iter = program(api);
  k.tasks.push(p);
  return p;
}
