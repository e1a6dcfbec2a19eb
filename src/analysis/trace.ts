// Derived views of a sched trace: who ran where and when, and how long each runqueue was.
import type { TraceRecord } from "../kernel/trace";

/** A stretch of time one task spent on one CPU. Times in ns. */
export interface RunSegment {
  cpu: number;
  pid: number;
  comm: string;
  start: number;
  end: number;
}

/** Records in time order; stable, so same-time records keep the kernel's emission order. */
export function byTime(records: readonly TraceRecord[]): TraceRecord[] {
  return records
    .map((r, i) => [r, i] as const)
    .sort((a, b) => a[0].t - b[0].t || a[1] - b[1])
    .map(([r]) => r);
}

/**
 * Per-CPU run segments from sched_switch records. A CPU's first segment starts at its first
 * switch's prev task from `start` (default the first record's time), the last one ends at `end`
 * (default the last record's time). The idle task (pid 0) is left out.
 */
export function cpuSegments(
  records: readonly TraceRecord[],
  opts: { start?: number; end?: number } = {},
): RunSegment[] {
  const recs = byTime(records);
  if (recs.length === 0) return [];
  const t0 = opts.start ?? recs[0].t;
  const t1 = opts.end ?? recs[recs.length - 1].t;
  const current = new Map<number, { pid: number; comm: string; since: number }>();
  const out: RunSegment[] = [];
  const close = (cpu: number, pid: number, comm: string, since: number, until: number) => {
    const s = Math.max(since, t0);
    const e = Math.min(until, t1);
    if (pid !== 0 && e > s) out.push({ cpu, pid, comm, start: s, end: e });
  };
  for (const r of recs) {
    if (r.type !== "sched_switch") continue;
    const cur = current.get(r.cpu);
    // Before a CPU's first switch we only learn who was running from the prev fields.
    if (cur) close(r.cpu, cur.pid, cur.comm, cur.since, r.t);
    else close(r.cpu, r.prevPid, r.prevComm, t0, r.t);
    current.set(r.cpu, { pid: r.nextPid, comm: r.nextComm, since: r.t });
  }
  for (const [cpu, cur] of current) close(cpu, cur.pid, cur.comm, cur.since, t1);
  return out.sort((a, b) => a.cpu - b.cpu || a.start - b.start);
}

/** nr_running of one CPU as a step function: n[i] holds from t[i] until t[i+1]. */
export interface RunqueueSteps {
  cpu: number;
  t: number[];
  n: number[];
}

/**
 * Runqueue length (running + queued tasks, nr_running) per CPU, rebuilt from the trace by
 * following each task's state: a wakeup makes it runnable on target_cpu, a switch-out in a state
 * other than R makes it sleep, a migration of a runnable task moves it between runqueues (a
 * sleeping task's migration at wakeup moves nothing: the wakeup that follows enqueues it).
 * Tasks first seen running are taken as runnable on that CPU. The idle task is not counted.
 */
export function runqueueSteps(
  records: readonly TraceRecord[],
  cpus?: readonly number[],
): RunqueueSteps[] {
  const recs = byTime(records);
  const where = new Map<number, number>(); // pid -> cpu while runnable
  const count = new Map<number, number>();
  const steps = new Map<number, RunqueueSteps>();
  const touch = (cpu: number) => {
    if (!steps.has(cpu)) {
      steps.set(cpu, { cpu, t: [], n: [] });
      count.set(cpu, 0);
    }
  };
  const emit = (cpu: number, t: number) => {
    const s = steps.get(cpu)!;
    const n = count.get(cpu)!;
    const last = s.t.length - 1;
    if (last >= 0 && s.t[last] === t)
      s.n[last] = n; // several changes at one instant: keep the final
    else if (last < 0 || s.n[last] !== n) {
      s.t.push(t);
      s.n.push(n);
    }
  };
  const setRunnable = (pid: number, cpu: number, t: number) => {
    if (pid === 0) return;
    const old = where.get(pid);
    if (old === cpu) return;
    if (old !== undefined) {
      count.set(old, count.get(old)! - 1);
      emit(old, t);
    }
    touch(cpu);
    where.set(pid, cpu);
    count.set(cpu, count.get(cpu)! + 1);
    emit(cpu, t);
  };
  const setSleeping = (pid: number, t: number) => {
    const old = where.get(pid);
    if (old === undefined) return;
    where.delete(pid);
    count.set(old, count.get(old)! - 1);
    emit(old, t);
  };
  for (const r of recs) {
    touch(r.cpu);
    if (!steps.get(r.cpu)!.t.length) emit(r.cpu, r.t);
    if (r.type === "sched_wakeup" || r.type === "sched_wakeup_new")
      setRunnable(r.pid, r.targetCpu, r.t);
    else if (r.type === "sched_switch") {
      if (r.prevState === "R") setRunnable(r.prevPid, r.cpu, r.t);
      else {
        setRunnable(r.prevPid, r.cpu, r.t); // it was running here until now
        setSleeping(r.prevPid, r.t);
      }
      setRunnable(r.nextPid, r.cpu, r.t);
    } else if (r.type === "sched_migrate_task") {
      if (where.has(r.pid)) setRunnable(r.pid, r.destCpu, r.t);
    }
  }
  const wanted = cpus ? new Set(cpus) : null;
  return [...steps.values()]
    .filter((s) => !wanted || wanted.has(s.cpu))
    .sort((a, b) => a.cpu - b.cpu);
}

/**
 * Time-weighted mean of a step function over [start, end), times in ns as the trace's `t` (a
 * RunqueueSteps). A window that is empty, under 1 us (seconds given for ns?) or outside the
 * steps is refused, naming the window and the steps' range, rather than giving NaN or 0.
 */
export function stepMean(s: { t: number[]; n: number[] }, start: number, end: number): number {
  const range = s.t.length ? `${s.t[0]}..${s.t[s.t.length - 1]} ns` : "no steps";
  if (!(Number.isFinite(start) && Number.isFinite(end) && end > start))
    throw new Error(`stepMean: the window must have start < end, in ns (got ${start}..${end})`);
  if (end - start < 1000)
    throw new Error(
      `stepMean: a window of ${end - start} ns (${start}..${end}): times are in ns, as the trace's t (seconds x 1e9)`,
    );
  if (s.t.length === 0 || end <= s.t[0])
    throw new Error(`stepMean: the window ${start}..${end} ns ends before the steps (${range})`);
  return binMean(s, start, end);
}

/**
 * @internal The time-weighted mean of a step function over [start, end) without stepMean's
 * checks (0 for an empty window): the timeline heatmap's bins.
 */
export function binMean(s: { t: number[]; n: number[] }, start: number, end: number): number {
  if (end <= start) return 0;
  let area = 0;
  for (let i = 0; i < s.t.length; i++) {
    const a = Math.max(s.t[i], start);
    const b = Math.min(i + 1 < s.t.length ? s.t[i + 1] : end, end);
    if (b > a) area += s.n[i] * (b - a);
  }
  return area / (end - start);
}
