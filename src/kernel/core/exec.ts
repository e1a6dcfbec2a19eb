// Executing task programs on a CPU. A running task consumes "segments": kernel overhead
// (syscall, copy, context switch, cache refill) followed by work. When a segment completes the
// program's next operation runs; blocking operations put the task to sleep.
import { EV_RUN_DONE, WF_SYNC } from "../sched";
import type { SchedCore } from "./api";
import type { Rq } from "../sched";
import type { Task } from "../sched";
import type { Machine } from "../../machine/types";
import { TASK_DEAD, TASK_INTERRUPTIBLE } from "../sched";
import { tryToWakeUp } from "./ttwu";
import { currBecomesIdle } from "./idle_cpu";
import { POLICIES } from "../prio";
import { changeScheduling, customSlices } from "./setscheduler";
import { ERA_TRAITS, eraAtLeastFn } from "../features";

/** sched_process_exit's group_dead field (in v6.17's include/trace/events/sched.h, not v6.14's). */
const exitHasGroupDead = eraAtLeastFn("6.17");
import {
  OP_AFFINITY,
  OP_CALL,
  OP_EXIT,
  OP_FORK,
  OP_NICE,
  OP_POLICY,
  OP_RECV,
  OP_RUN,
  OP_SEND,
  OP_SLEEP,
  OP_SLICE,
  OP_WAIT,
  OP_WAKE,
  OP_YIELD,
  type Op,
} from "../ops";

/** Longest run of zero-cost operations before we call the program broken. */
const MAX_INSTANT_OPS = 100_000;

export function startSegment(k: SchedCore, rq: Rq, p: Task): void {
  p.segStartedAt = k.now;
  rq.runGen++;
  const t = p.segOverheadNs + p.segWorkNs / rq.speed;
  // One pending completion per CPU, keyed by CPU: a new segment replaces the old one's event.
  if (t === Infinity)
    k.eq.clearKeyed(rq.cpu); // runs until preempted: no completion event
  else k.eq.setKeyed(rq.cpu, k.now + Math.max(1, Math.ceil(t)), EV_RUN_DONE, rq.cpu, rq.runGen);
}

/** Accounts the progress of the running segment up to now and cancels its completion event. */
export function stopSegment(k: SchedCore, rq: Rq, p: Task): void {
  rq.runGen++;
  const elapsed = k.now - p.segStartedAt;
  p.segStartedAt = k.now;
  if (elapsed <= 0) return;
  const o = Math.min(elapsed, p.segOverheadNs);
  p.segOverheadNs -= o;
  const rest = elapsed - o;
  if (rest <= 0) return;
  const w = Math.min(rest * rq.speed, p.segWorkNs);
  p.segWorkNs -= w;
  p.stats.workDoneNs += w;
}

/** Each CPU's SMT siblings, whose speed it changes (none when costs.smtSiblingSpeed is 1). */
export function smtSiblingsOf(m: Machine): number[][] {
  const speedChanges = m.costs.smtSiblingSpeed < 1;
  return m.cpus.map((c) =>
    speedChanges ? m.cpus.filter((o) => o.core === c.core && o.id !== c.id).map((o) => o.id) : [],
  );
}

/**
 * Work per ns: arch capacity / 1024 (not cpu_capacity; `base`, resolved once per CPU by the
 * caller), x smtSiblingSpeed while a sibling runs.
 */
export function cpuSpeed(k: SchedCore, base: number, siblings: number[]): number {
  const s = base;
  for (let i = 0; i < siblings.length; i++) {
    if (k.rqs[siblings[i]].curr !== null) return s * k.machine.costs.smtSiblingSpeed;
  }
  return s;
}

/**
 * rq->curr = next. A CPU entering or leaving idle changes the speed of its SMT siblings
 * (costs.smtSiblingSpeed): their running segments are stopped before the change (progress at
 * the old speed) and started again after it (the rest at the new speed), so work stays exact.
 * `smtSiblings` and `baseSpeed` are per CPU (smtSiblingsOf, arch capacity / 1024).
 */
export function setCurr(
  k: SchedCore,
  rq: Rq,
  next: Task | null,
  smtSiblings: number[][],
  baseSpeed: Float64Array,
): void {
  const siblings = smtSiblings[rq.cpu];
  if (next === null && rq.curr !== null) currBecomesIdle(k, rq); // from this context's clock
  const idleChange = (rq.curr === null) !== (next === null);
  if (
    k.cache.contention.active &&
    (rq.curr?.footprint || next?.footprint || (idleChange && siblings.length > 0))
  ) {
    setCurrContended(k, rq, next, smtSiblings, baseSpeed);
    return;
  }
  if (siblings.length === 0 || !idleChange) {
    rq.curr = next;
    return;
  }
  for (const c of siblings) if (k.rqs[c].curr) stopSegment(k, k.rqs[c], k.rqs[c].curr!);
  rq.curr = next;
  for (const c of siblings) k.rqs[c].speed = cpuSpeed(k, baseSpeed[c], smtSiblings[c]);
  for (const c of siblings) if (k.rqs[c].curr) startSegment(k, k.rqs[c], k.rqs[c].curr!);
}

/**
 * setCurr while tasks with a footprint run (contention.ts): every CPU sharing a level with this
 * one whose task has a footprint, and every SMT sibling, has its running segment stopped, its
 * speed recomputed (compute speed capped by the bandwidth its footprint gets) and the segment
 * started again, so work stays exact.
 */
function setCurrContended(
  k: SchedCore,
  rq: Rq,
  next: Task | null,
  smtSiblings: number[][],
  baseSpeed: Float64Array,
): void {
  const ct = k.cache.contention;
  const near = ct.affectedCpus(rq.cpu, next);
  const siblings = smtSiblings[rq.cpu];
  const stopped: number[] = [];
  for (const c of near) {
    const p = k.rqs[c].curr;
    if (c === rq.cpu || !p || !(p.footprint || siblings.includes(c))) continue;
    stopSegment(k, k.rqs[c], p);
    stopped.push(c);
  }
  ct.switchWorkingSets(rq.cpu, rq.curr, next);
  rq.curr = next;
  const speedOf = (c: number) => cpuSpeed(k, baseSpeed[c], smtSiblings[c]);
  for (const c of siblings) k.rqs[c].speed = speedOf(c);
  rq.speed = speedOf(rq.cpu);
  ct.retime(k.rqs, near, speedOf);
  for (const c of stopped) startSegment(k, k.rqs[c], k.rqs[c].curr!);
}

/** The segment's completion event fired: whatever remained is done. */
export function completeSegment(p: Task): void {
  p.stats.workDoneNs += p.segWorkNs;
  p.segWorkNs = 0;
  p.segOverheadNs = 0;
}

/** Whether a syscall that blocks pays its entry before __schedule (the v5.8+ ttwu eras). */
function blockingSyscallCharged(k: SchedCore): boolean {
  return ERA_TRAITS[k.era].ttwuOnCpu;
}

function block(k: SchedCore, rq: Rq, p: Task): void {
  p.state = TASK_INTERRUPTIBLE;
  p.lastStateChange = k.now;
  rq.needResched = true;
}

function badOp(p: Task, field: string, value: unknown, accepted: string): Error {
  return new Error(`task ${p.comm}/${p.pid}: ${field} must be ${accepted} (got ${String(value)})`);
}

/**
 * Runs the program of the current task `p` on `rq` until it starts a timed segment, blocks,
 * yields or exits. Kernel costs incurred on the way (k.chargeNs) become segment overhead.
 */
export function continueTask(k: SchedCore, rq: Rq, p: Task): void {
  const costs = k.machine.costs;
  for (let n = 0; n < MAX_INSTANT_OPS; n++) {
    // Programs yield ops.ts's Op; the task stores them as sched.ts's TaskOp.
    let op = p.op as Op | null;
    if (!op) {
      const r = p.iter!.next(p.opResult);
      p.opResult = undefined;
      if (r.done) {
        taskExit(k, rq, p);
        return;
      }
      op = p.op = r.value as Op;
    }
    switch (op.kind) {
      case OP_RUN: {
        if (!(op.ns >= 0)) throw badOp(p, "run.ns", op.ns, "a duration >= 0 ns");
        p.op = null;
        if (op.ns === 0) continue;
        p.segWorkNs += op.ns;
        return begin(k, rq, p);
      }
      case OP_SLEEP: {
        if (!(op.ns >= 0) || op.ns === Infinity)
          throw badOp(p, "sleep.ns", op.ns, "a finite duration >= 0 ns");
        p.op = null;
        k.armTimer(p, k.now + Math.round(costs.syscallNs + op.ns));
        block(k, rq, p);
        return;
      }
      case OP_SEND: {
        if (!(op.bytes >= 0)) throw badOp(p, "send.bytes", op.bytes, "a byte count >= 0");
        p.op = null;
        op.ch!.push(op.bytes, rq.cpu, k.now);
        // Writing into the kernel buffer from a warm user buffer: local copy speed.
        p.segOverheadNs += costs.syscallNs + k.cache.copyNs(op.bytes, rq.cpu, rq.cpu);
        const reader = op.ch!.waiters.shift();
        if (reader) tryToWakeUp(k, reader, op.sync ? WF_SYNC : 0, rq.cpu, p);
        return begin(k, rq, p);
      }
      case OP_RECV: {
        const ch = op.ch!;
        if (!ch.shift()) {
          op.ch!.waiters.push(p);
          // The read that finds the pipe empty has entered the kernel before it sleeps, so its
          // syscall entry runs before __schedule (v5.8+ eras; before, a blocking read was free).
          if (blockingSyscallCharged(k)) k.chargeNs += costs.syscallNs;
          block(k, rq, p);
          return;
        }
        p.op = null;
        p.segOverheadNs += costs.syscallNs + k.cache.copyNs(ch.lastBytes, ch.lastWriterCpu, rq.cpu);
        return begin(k, rq, p);
      }
      case OP_WAIT: {
        p.op = null;
        if (p.wakePending) {
          p.wakePending = false;
          p.segOverheadNs += costs.syscallNs;
          return begin(k, rq, p);
        }
        p.waiting = true;
        if (blockingSyscallCharged(k)) k.chargeNs += costs.syscallNs; // futex_wait's entry, as recv
        block(k, rq, p);
        return;
      }
      case OP_WAKE: {
        p.op = null;
        const target = k.taskByPid(op.pid);
        if (!target) throw badOp(p, "wake.pid", op.pid, "the pid of a spawned task");
        if (target.waiting && target.state === TASK_INTERRUPTIBLE) {
          target.waiting = false;
          tryToWakeUp(k, target, op.sync ? WF_SYNC : 0, rq.cpu, p);
        } else {
          target.wakePending = true;
        }
        if (op.entry) p.segOverheadNs += costs.syscallNs;
        return begin(k, rq, p);
      }
      case OP_YIELD: {
        p.op = null;
        k.classFor(p).yieldTask?.(rq, p);
        p.segOverheadNs += costs.syscallNs;
        rq.needResched = true;
        return begin(k, rq, p);
      }
      case OP_NICE: {
        if (!Number.isInteger(op.nice) || op.nice < -20 || op.nice > 19)
          throw badOp(p, "nice", op.nice, "an integer from -20 to 19");
        p.op = null;
        changeScheduling(k, p, p.policy, op.nice, p.rtPriority);
        p.segOverheadNs += costs.syscallNs;
        return begin(k, rq, p);
      }
      case OP_POLICY: {
        if (!POLICIES.includes(op.policy))
          throw badOp(p, "policy", op.policy, POLICIES.join(" | "));
        p.op = null;
        changeScheduling(k, p, op.policy, p.nice, op.rtPriority);
        p.segOverheadNs += costs.syscallNs;
        return begin(k, rq, p);
      }
      case OP_SLICE: {
        if (!(op.ns >= 0 && Number.isFinite(op.ns)))
          throw badOp(p, "slice", op.ns, "a number of ns >= 0 (0 = the base slice)");
        p.op = null;
        if (customSlices(k) && p.schedClass === "fair")
          changeScheduling(k, p, p.policy, p.nice, p.rtPriority, op.ns);
        p.segOverheadNs += costs.syscallNs;
        return begin(k, rq, p);
      }
      case OP_AFFINITY: {
        p.op = null;
        p.setAffinity(op.cpus!);
        if (!op.cpus!.some((c) => k.rqs[c].online))
          throw badOp(p, "affinity", op.cpus!.join(","), "a list containing an online CPU");
        if (!p.cpusAllowed[rq.cpu]) {
          // __set_cpus_allowed_ptr on the running task: stop_one_cpu(migration_cpu_stop) while
          // the caller sleeps; it wakes on an allowed CPU (kernel/sched/core.c, v2.6.29-v6.x).
          // Modelled as a sleep of the syscall's length ended by a wakeup, whose select_task_rq
          // picks an allowed CPU; the stopper's own run is not modelled.
          k.armTimer(p, k.now + Math.round(costs.syscallNs));
          block(k, rq, p);
          return;
        }
        p.segOverheadNs += costs.syscallNs;
        return begin(k, rq, p);
      }
      case OP_CALL: {
        p.op = null;
        op.fn!();
        continue;
      }
      case OP_FORK: {
        p.op = null;
        const c = op.child!;
        const child = k.spawn({
          comm: c.comm,
          role: c.role,
          program: c.program,
          nice: c.nice,
          policy: c.policy,
          rtPriority: c.rtPriority,
          cpus: c.cpus,
          cpu: c.cpu,
          workingSetBytes: c.workingSetBytes,
          privateRefillBytesPerNs: c.privateRefillBytesPerNs,
          footprint: c.footprint,
          slice: c.slice,
        });
        p.opResult = child.pid;
        p.segOverheadNs += costs.syscallNs;
        return begin(k, rq, p);
      }
      case OP_EXIT:
        p.op = null;
        taskExit(k, rq, p);
        return;
      default:
        throw badOp(
          p,
          "op",
          op.op,
          "run | sleep | send | recv | wait | wake | yield | nice | policy | affinity | call | exit",
        );
    }
  }
  throw new Error(
    `task ${p.comm}/${p.pid}: ${MAX_INSTANT_OPS} zero-cost operations in a row (a program loop that never runs, sleeps or blocks)`,
  );
}

/** Folds kernel work charged so far into the segment and starts it. */
function begin(k: SchedCore, rq: Rq, p: Task): void {
  if (k.chargeNs > 0) {
    p.segOverheadNs += k.chargeNs;
    k.chargeNs = 0;
  }
  startSegment(k, rq, p);
}

function taskExit(k: SchedCore, rq: Rq, p: Task): void {
  // do_exit: trace_sched_process_exit(tsk[, group_dead]) on the exiting task's CPU
  if (k.trace)
    k.trace.push({
      type: "sched_process_exit",
      t: k.now,
      cpu: rq.cpu,
      comm: p.comm,
      pid: p.pid,
      prio: p.prio,
      ...(exitHasGroupDead(k.era) ? { groupDead: true } : {}),
    });
  p.state = TASK_DEAD;
  p.iter = null;
  rq.needResched = true;
}
