// A recorded trace beside the model's replay of it, figure by figure: CPU time, context switches,
// migrations, wakeups and their latency (sched_waking to the wakee's switch-in), per-CPU
// utilisation, runqueue length, and whether each wakeup went to the CPU it went to on the real
// box. Tasks are matched through the replay's pid map (trace pid, model pid); figures over all
// tasks (utilisation, runqueue length) take every task of each trace.
import type { TraceRecord } from "../kernel/trace";
import { byTime, cpuSegments, runqueueSteps, stepMean } from "./trace";
import { percentile } from "./stats";

/** What one trace says about one task. */
export interface TaskFigures {
  pid: number;
  comm: string;
  cpuNs: number;
  /** Switch-outs (voluntary or not). */
  switches: number;
  /** Switch-ins on another CPU than the task's previous one. */
  migrations: number;
  wakeups: number;
  /** sched_waking (else sched_wakeup) to the wakee's next switch-in, ns, in wakeup order. */
  wakeLatencyNs: number[];
  /** The CPU each wakeup put the task on (sched_wakeup's target_cpu), in wakeup order. */
  wakeCpus: number[];
  /** Wakeups whose target is the CPU the wakeup ran on (the waker's, or the interrupted one). */
  wakeupsOnWakingCpu: number;
}

/** What one trace says, over the span from its first record to its last. */
export interface TraceFigures {
  spanNs: number;
  nrCpus: number;
  tasks: Map<number, TaskFigures>;
  /** Busy share of each CPU over the span (0-1). */
  utilisation: number[];
  /** Time-averaged nr_running of each CPU. */
  runqueue: number[];
  /**
   * sched_waking to the switch-in, ns, of wakeups from a task on one CPU to another CPU that was
   * idle then: what waking an idle CPU costs (its idle exit, the IPI or the polling wakeup).
   */
  idleWakeLatencyNs: number[];
  /** How long the woken CPU had been idle when each of those wakeups began, ns (same order). */
  idleWakeIdleNs: number[];
}

/** The figures of a trace (pid 0, the idle task, is no task). */
export function traceFigures(records: readonly TraceRecord[], nrCpus?: number): TraceFigures {
  const recs = byTime(records);
  const start = recs.length ? recs[0].t : 0;
  const end = recs.length ? recs[recs.length - 1].t : 0;
  const n = nrCpus ?? Math.max(0, ...recs.map((r) => r.cpu + 1));
  const tasks = new Map<number, TaskFigures>();
  const of = (pid: number, comm: string): TaskFigures => {
    let f = tasks.get(pid);
    if (!f) {
      f = {
        pid,
        comm,
        cpuNs: 0,
        switches: 0,
        migrations: 0,
        wakeups: 0,
        wakeLatencyNs: [],
        wakeCpus: [],
        wakeupsOnWakingCpu: 0,
      };
      tasks.set(pid, f);
    }
    return f;
  };
  const useWaking = recs.some((r) => r.type === "sched_waking");
  // perf sched record keeps sched_waking only: then a waking of a task not running is the
  // wakeup, and its CPU is the one the task runs on next
  const hasWakeup = recs.some((r) => r.type === "sched_wakeup");
  const running = new Set<number>();
  const wakeOf = new Map<number, number>(); // pid -> the waking's CPU, until its switch-in
  const current = new Map<number, number>(); // cpu -> pid running there
  const idleWoken = new Map<number, number>(); // pid -> waking time, target idle on another CPU
  const idleWakeLatencyNs: number[] = [];
  const idleWakeIdleNs: number[] = [];
  const idleFrom = new Map<number, number>(); // cpu -> when it switched to idle
  const idleFor = new Map<number, number>(); // pid -> how long its target CPU had been idle
  const wokenAt = new Map<number, number>();
  const lastCpu = new Map<number, number>();
  const wakingCpu = new Map<number, number>();
  for (const r of recs) {
    if (r.type === "sched_switch") {
      current.set(r.cpu, r.nextPid);
      if (r.nextPid === 0) idleFrom.set(r.cpu, r.t);
      running.delete(r.prevPid);
      running.add(r.nextPid);
      if (r.prevPid !== 0) of(r.prevPid, r.prevComm).switches++;
      if (r.nextPid === 0) continue;
      const iw = idleWoken.get(r.nextPid);
      if (iw !== undefined) {
        idleWakeLatencyNs.push(r.t - iw);
        idleWakeIdleNs.push(idleFor.get(r.nextPid) ?? 0);
        idleWoken.delete(r.nextPid);
      }
      const f = of(r.nextPid, r.nextComm);
      const was = lastCpu.get(r.nextPid);
      if (was !== undefined && was !== r.cpu) f.migrations++;
      lastCpu.set(r.nextPid, r.cpu);
      const wc = wakeOf.get(r.nextPid);
      if (wc !== undefined) {
        f.wakeCpus.push(r.cpu);
        if (wc === r.cpu) f.wakeupsOnWakingCpu++;
        wakeOf.delete(r.nextPid);
      }
      const w = wokenAt.get(r.nextPid);
      if (w !== undefined) {
        f.wakeLatencyNs.push(r.t - w);
        wokenAt.delete(r.nextPid);
      }
    } else if (r.type === "sched_waking" && useWaking) {
      if (!wokenAt.has(r.pid)) wokenAt.set(r.pid, r.t);
      wakingCpu.set(r.pid, r.cpu);
      if (!hasWakeup && !running.has(r.pid) && !wakeOf.has(r.pid)) {
        of(r.pid, r.comm).wakeups++;
        wakeOf.set(r.pid, r.cpu);
      }
      if (
        (r.context ?? "task") === "task" &&
        (current.get(r.cpu) ?? 0) !== 0 &&
        r.targetCpu !== r.cpu &&
        current.get(r.targetCpu) === 0
      ) {
        idleWoken.set(r.pid, r.t);
        idleFor.set(r.pid, r.t - (idleFrom.get(r.targetCpu) ?? r.t));
      }
    } else if (r.type === "sched_wakeup") {
      const f = of(r.pid, r.comm);
      f.wakeups++;
      f.wakeCpus.push(r.targetCpu);
      // sched_wakeup fires on the target when the wakelist delivers it: the waker's CPU is
      // the sched_waking's
      if (r.targetCpu === (wakingCpu.get(r.pid) ?? r.cpu)) f.wakeupsOnWakingCpu++;
      wakingCpu.delete(r.pid);
      if (!useWaking && !wokenAt.has(r.pid)) wokenAt.set(r.pid, r.t);
    }
  }
  const busy = new Array<number>(n).fill(0);
  for (const s of cpuSegments(recs, { start, end })) {
    if (s.cpu < n) busy[s.cpu] += s.end - s.start;
    of(s.pid, s.comm).cpuNs += s.end - s.start;
  }
  const span = end - start;
  const rq = new Array<number>(n).fill(0);
  for (const s of runqueueSteps(recs)) if (s.cpu < n) rq[s.cpu] = stepMean(s, start, end);
  return {
    spanNs: span,
    nrCpus: n,
    tasks,
    utilisation: busy.map((b) => (span > 0 ? b / span : 0)),
    runqueue: rq,
    idleWakeLatencyNs,
    idleWakeIdleNs,
  };
}

/** One figure of the comparison. */
export interface ComparisonRow {
  figure: string;
  unit: string;
  real: number;
  simulated: number;
  /** simulated / real (NaN when real is 0). */
  ratio: number;
}

/** One task's figures on both sides. */
export interface TaskComparison {
  realPid: number;
  simPid: number;
  comm: string;
  real: TaskFigures;
  simulated: TaskFigures;
}

/** What compareTrace returns. */
export interface TraceComparison {
  rows: ComparisonRow[];
  /** The matched tasks, by real CPU time, largest first. */
  tasks: TaskComparison[];
  /** Wakeup latencies of the matched tasks, us, on each side (for CDFs). */
  latencyUs: { real: number[]; simulated: number[] };
  real: TraceFigures;
  simulated: TraceFigures;
}

/** The pid pairs (trace pid, model pid) as workload.replay's `replay_pids` series gives them. */
export function pidPairs(series: readonly number[]): Array<[number, number]> {
  if (series.length % 2 !== 0)
    throw new Error(
      `pidPairs: expected (trace pid, model pid) pairs (got ${series.length} numbers)`,
    );
  const out: Array<[number, number]> = [];
  for (let i = 0; i < series.length; i += 2) out.push([series[i], series[i + 1]]);
  return out;
}

const row = (figure: string, unit: string, real: number, simulated: number): ComparisonRow => ({
  figure,
  unit,
  real,
  simulated,
  ratio: real !== 0 ? simulated / real : Number.NaN,
});

const sum = (xs: Iterable<number>) => {
  let s = 0;
  for (const x of xs) s += x;
  return s;
};

/**
 * The real trace and the simulated one, figure by figure. `pids` matches tasks: pairs of (real
 * pid, simulated pid), as pidPairs(series.replay_pids) gives them.
 */
export function compareTrace(
  real: readonly TraceRecord[],
  simulated: readonly TraceRecord[],
  pids: Iterable<readonly [number, number]>,
  nrCpus?: number,
): TraceComparison {
  const r = traceFigures(real, nrCpus);
  const s = traceFigures(simulated, nrCpus ?? r.nrCpus);
  const tasks: TaskComparison[] = [];
  for (const [rp, sp] of pids) {
    const a = r.tasks.get(rp);
    const b = s.tasks.get(sp);
    if (a && b) tasks.push({ realPid: rp, simPid: sp, comm: a.comm, real: a, simulated: b });
  }
  tasks.sort((x, y) => y.real.cpuNs - x.real.cpuNs || x.realPid - y.realPid);
  const both = (f: (t: TaskFigures) => number) => [
    sum(tasks.map((t) => f(t.real))),
    sum(tasks.map((t) => f(t.simulated))),
  ];
  const lat = {
    real: tasks.flatMap((t) => t.real.wakeLatencyNs.map((x) => x / 1000)),
    simulated: tasks.flatMap((t) => t.simulated.wakeLatencyNs.map((x) => x / 1000)),
  };
  let compared = 0;
  let same = 0;
  for (const t of tasks) {
    const k = Math.min(t.real.wakeCpus.length, t.simulated.wakeCpus.length);
    for (let i = 0; i < k; i++) if (t.real.wakeCpus[i] === t.simulated.wakeCpus[i]) same++;
    compared += k;
  }
  const [cpuR, cpuS] = both((t) => t.cpuNs);
  const [swR, swS] = both((t) => t.switches);
  const [miR, miS] = both((t) => t.migrations);
  const [wuR, wuS] = both((t) => t.wakeups);
  const [onR, onS] = both((t) => t.wakeupsOnWakingCpu);
  const pct = (xs: number[], p: number) => (xs.length ? percentile(xs, p) : Number.NaN);
  const rows: ComparisonRow[] = [
    row("span", "ms", r.spanNs / 1e6, s.spanNs / 1e6),
    row("tasks matched", "count", tasks.length, tasks.length),
    row("CPU time", "ms", cpuR / 1e6, cpuS / 1e6),
    row("context switches", "count", swR, swS),
    row("migrations", "count", miR, miS),
    row("wakeups", "count", wuR, wuS),
    row("wakeups on the waking CPU", "fraction", wuR ? onR / wuR : 0, wuS ? onS / wuS : 0),
    row("wakeup latency p50", "us", pct(lat.real, 50), pct(lat.simulated, 50)),
    row("wakeup latency p90", "us", pct(lat.real, 90), pct(lat.simulated, 90)),
    row("wakeup latency p99", "us", pct(lat.real, 99), pct(lat.simulated, 99)),
    row("same CPU as the real wakeup", "fraction", 1, compared ? same / compared : Number.NaN),
    row(
      "wakeup latency to an idle CPU p50",
      "us",
      pct(r.idleWakeLatencyNs, 50) / 1000,
      pct(s.idleWakeLatencyNs, 50) / 1000,
    ),
    ...r.utilisation.map((u, c) =>
      row(`CPU ${c} utilisation`, "fraction", u, s.utilisation[c] ?? 0),
    ),
    ...r.runqueue.map((q, c) => row(`CPU ${c} mean nr_running`, "tasks", q, s.runqueue[c] ?? 0)),
  ];
  return { rows, tasks, latencyUs: lat, real: r, simulated: s };
}

/** The comparison as a plain-text table (figure, unit, real, simulated, simulated / real). */
export function formatComparison(c: TraceComparison): string {
  const fmt = (x: number) =>
    Number.isNaN(x)
      ? "-"
      : Math.abs(x) >= 100 || Number.isInteger(x)
        ? x.toFixed(0)
        : x.toPrecision(3);
  const lines = [["figure", "unit", "real", "simulated", "sim/real"]];
  for (const r of c.rows)
    lines.push([r.figure, r.unit, fmt(r.real), fmt(r.simulated), fmt(r.ratio)]);
  const w = lines[0].map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  return lines
    .map((l) => l.map((x, i) => (i < 2 ? x.padEnd(w[i]) : x.padStart(w[i]))).join("  "))
    .join("\n");
}
