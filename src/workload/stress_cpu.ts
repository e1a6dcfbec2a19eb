// stress-ng's cpu stressor with --cpu-load (stress-cpu.c, stress_cpu(), stress-ng V0.22.00).
// The parent forks N instances; they start together (stress_sync_start_wait). At --cpu-load 100
// an instance calls its method in a loop. Below 100 it loops: t1 = wall and CPU clock
// (CLOCK_PROCESS_CPUTIME_ID); a busy slice (--cpu-load-slice S: S < 0, -S method calls; S = 0, a
// random 0-0.5 s of CPU time; S > 0, S ms of CPU time); t2; then
//   delay = (100 - P) * cpu / P + (cpu - wall) - bias
// (cpu, wall: the slice's CPU and wall time; the second term gives back time lost to preemption),
// and if delay >= 0 select() sleeps it and bias = overshoot of that sleep, else bias = 0. With
// --cpu-method all (the default) an instance cycles through every method in table order. Each
// call adds 1484.50 / rate (STRESS_CPU_METHOD_RATES) to the bogo-op counter. At --timeout every
// instance gets SIGALRM and stops. Defaults from the source: --cpu-load 100, --cpu-load-slice
// -64, --cpu-method all; --timeout defaults to 24 hours (not a useful simulation: here 10 s).
import { fork, run, sleep, wait, wake } from "../kernel/ops";
import type { Task, TaskApi } from "../kernel/sched";
import type { WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireKnownKeys, requireNumber } from "./workload";
import type { BenchmarkWorkload } from "./sysbench_cpu";
import { STRESS_CPU_METHOD_RATES } from "./stress_cpu_methods";

/** Parameters of workload.stressCpu, named as stress-ng's options. */
export interface StressCpuParams {
  /** --cpu N: instances; 0 = one per configured CPU, -1 = one per online CPU (required). */
  cpu: number;
  /** --cpu-load P: percent of each instance's time spent busy, 0-100 (default 100). */
  cpuLoad?: number;
  /** --cpu-load-slice S: < 0, -S method calls per busy slice; 0, random 0-0.5 s; > 0, S ms (default -64). */
  cpuLoadSlice?: number;
  /** --cpu-method: "all" (default) or one method of STRESS_CPU_METHOD_RATES. */
  cpuMethod?: string;
  /** --timeout T: seconds (default 10 here; stress-ng's own default is 24 hours). */
  timeout?: number;
}

/** The normalising constant of stress_cpu_counter_scale: bogo ops per second of reference CPU. */
const BOGO_SCALE = 1484.5;
/** choice: work per `run` op of a 100% instance (its calls have no observable boundary). */
const CHUNK_NS = 1_000_000;
const SEC = 1e9;

/**
 * The work of each call of a method, ns at capacity 1024. assumption: capacity 1024 is the
 * reference i5-8350U core the rates were measured on (stress-ng commit 72da15f77).
 */
class MethodCursor {
  private i = 0;
  constructor(private readonly costs: readonly number[]) {}
  /** The work of the next n calls. */
  calls(n: number): number {
    let w = 0;
    for (let j = 0; j < n; j++) w += this.next();
    return w;
  }
  /** The work of the next calls until at least `work` (one call at least). */
  atLeast(work: number): number {
    let w = this.next();
    while (w < work) w += this.next();
    return w;
  }
  private next(): number {
    const c = this.costs[this.i];
    this.i = (this.i + 1) % this.costs.length;
    return c;
  }
}

/** The bogo-op counter after `work` ns of calls (only calls completed by then count). */
function bogoAfter(costs: readonly number[], scales: readonly number[], work: number): number {
  const cycleWork = costs.reduce((a, b) => a + b, 0);
  const cycleOps = scales.reduce((a, b) => a + b, 0);
  const full = Math.floor(work / cycleWork);
  let left = work - full * cycleWork;
  let ops = full * cycleOps;
  for (let i = 0; i < costs.length && left >= costs[i]; i++) {
    left -= costs[i];
    ops += scales[i];
  }
  return ops;
}

/**
 * `stress-ng --cpu N --cpu-load P --cpu-load-slice S --cpu-method M --timeout T --metrics`:
 * N instances, each busy P% of the time in slices. Metrics, as stress-ng's metrics table names
 * them: `bogo_ops`, `real_time_s` (mean per instance), `usr_time_s` (CPU time of all instances;
 * the model does not split user and system time, so `sys_time_s` is 0), `bogo_ops_per_s_real`,
 * `bogo_ops_per_s_cpu` (per usr+sys second), `cpu_used_per_instance_pct`; `instances`, and the
 * achieved load of each instance, `load_w<i>` (% of its wall time on a CPU).
 * `format(metrics)` prints stress-ng's report.
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const hog = workload.stressCpu({ cpu: 2, cpuLoad: 50, timeout: 1 });
 * const it = topology("core2-2x2").workload(hog).runSync().iteration("baseline", 0);
 * console.log(hog.format(it.metrics));
 * ```
 * Prints:
 * ```text
 * stress-ng: info:  [1000] setting to a 1 sec run per stressor
 * stress-ng: info:  [1000] dispatching hogs: 2 cpu
 * stress-ng: metrc: [1000] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s CPU used per       RSS Max
 * stress-ng: metrc: [1000]                           (secs)    (secs)    (secs)   (real time) (usr+sys time) instance (%)          (KB)
 * stress-ng: metrc: [1000] cpu                1494      1.00      1.01      0.00      1494.00        1482.84        50.38             0
 * stress-ng: info:  [1000] successful run completed in 1.00 sec
 * ```
 */
export function stressCpu(params: StressCpuParams): BenchmarkWorkload {
  const where = "workload.stressCpu";
  requireKnownKeys(where, params, ["cpu", "cpuLoad", "cpuLoadSlice", "cpuMethod", "timeout"]);
  const cpu = requireInt(where, "cpu", params.cpu, -1, 4096);
  const cpuLoad = requireInt(where, "cpuLoad", params.cpuLoad ?? 100, 0, 100);
  const slice = params.cpuLoadSlice ?? -64;
  if (!Number.isInteger(slice) || slice < -5000 || slice > 5000)
    throw new Error(
      `${where}: cpuLoadSlice must be an integer from -5000 to 5000 (got ${JSON.stringify(slice)})`,
    );
  const method = params.cpuMethod ?? "all";
  const names = STRESS_CPU_METHOD_RATES.map(([n]) => n);
  if (method !== "all" && !names.includes(method))
    throw new Error(
      `${where}: cpuMethod must be "all" or one of ${names.join(", ")} (got ${JSON.stringify(method)})`,
    );
  const timeout = requireNumber(where, "timeout", params.timeout ?? 10, 0, false);
  const table =
    method === "all"
      ? STRESS_CPU_METHOD_RATES
      : STRESS_CPU_METHOD_RATES.filter(([n]) => n === method);
  const costs = table.map(([, rate]) => SEC / rate);
  const scales = table.map(([, rate]) => BOGO_SCALE / rate);
  const resolved = { cpu, cpuLoad, cpuLoadSlice: slice, cpuMethod: method, timeout };
  const timeoutNs = Math.round(timeout * SEC);
  return {
    name: "stress-ng-cpu",
    params: resolved,
    // the timeout plus room for the instances to see the alarm and exit
    defaultDurationNs: timeoutNs + 50_000_000,
    defaultWarmupNs: 0,
    format: (m) => formatStressCpu(m, timeout),
    setup(ctx: WorkloadContext): WorkloadRun {
      const k = ctx.kernel;
      const n = cpu > 0 ? cpu : cpu === 0 ? ctx.ncpus : ctx.onlineCpus().length;
      const workers: Task[] = [];
      let startNs = -1;
      let stop = false;
      // what each instance had done when SIGALRM came
      const workAt: number[] = new Array(n).fill(0);
      const cpuAt: number[] = new Array(n).fill(0);
      let snapped = false;

      // CLOCK_PROCESS_CPUTIME_ID: sum_exec_runtime plus the running part (task_sched_runtime)
      const cpuTime = (p: Task): number => {
        const running = p.onCpu && k.rqs[p.cpu].curr === p;
        return p.se.sumExecRuntime + (running ? Math.max(0, k.now - p.se.execStart) : 0);
      };

      function* instance(api: TaskApi) {
        while (startNs < 0) yield wait();
        const me = k.taskByPid(api.pid)!;
        const cur = new MethodCursor(costs);
        if (cpuLoad === 0) {
          // "somebody may request to do a zero load stress test": sleep(timeout)
          yield sleep(timeoutNs);
          return;
        }
        if (cpuLoad === 100) {
          while (!stop) yield run(cur.atLeast(CHUNK_NS));
          return;
        }
        let bias = 0;
        while (!stop) {
          const t1w = api.now();
          const t1c = cpuTime(me);
          if (slice < 0) {
            yield run(cur.calls(-slice));
          } else {
            const want =
              slice === 0 ? (Math.floor(api.random() * 65536) / 131072) * SEC : slice * 1e6;
            // calls until the slice's CPU time is used; the work per CPU ns is the CPU's speed
            do {
              const left = want - (cpuTime(me) - t1c);
              yield run(cur.atLeast(Math.max(1, left * k.speed(api.cpu()))));
            } while (!stop && cpuTime(me) - t1c < want);
          }
          if (stop) break;
          const dc = cpuTime(me) - t1c;
          const dw = api.now() - t1w;
          const delay = ((100 - cpuLoad) * dc) / cpuLoad + (dc - dw) - bias;
          if (delay < 0) {
            bias = 0;
          } else {
            const t2w = api.now();
            // select(): a timeval, whole microseconds
            const us = Math.floor(delay / 1000) * 1000;
            if (us > 0) yield sleep(us);
            bias = api.now() - t2w - delay;
          }
        }
      }

      ctx.at(0, () => {
        ctx.spawn({
          comm: "stress-ng",
          role: "main",
          program: function* (api) {
            const pids: number[] = [];
            for (let i = 0; i < n; i++)
              pids.push(
                (yield fork({
                  comm: `stress-ng-cpu${i}`,
                  role: "worker",
                  program: instance,
                })) as number,
              );
            for (const pid of pids) workers.push(k.taskByPid(pid)!);
            startNs = api.now();
            ctx.at(startNs + timeoutNs, () => {
              stop = true;
              snapped = true;
              workers.forEach((w, i) => {
                workAt[i] = ctx.workDone(w);
                cpuAt[i] = cpuTime(w);
              });
            });
            for (const pid of pids) yield wake(pid);
            // waitpid() on every instance
            while (!stop) yield wait();
          },
        });
      });

      return {
        metrics() {
          if (!snapped)
            workers.forEach((w, i) => {
              workAt[i] = ctx.workDone(w);
              cpuAt[i] = cpuTime(w);
            });
          const real = snapped ? timeoutNs / SEC : Math.max(0, ctx.endNs - startNs) / SEC;
          let bogo = 0;
          let usr = 0;
          const out: Record<string, number> = {};
          workers.forEach((_, i) => {
            bogo += Math.floor(bogoAfter(costs, scales, workAt[i]));
            usr += cpuAt[i] / SEC;
            out[`load_w${i}`] = real > 0 ? (100 * cpuAt[i]) / SEC / real : 0;
          });
          return {
            ...out,
            instances: n,
            bogo_ops: bogo,
            real_time_s: real,
            usr_time_s: usr,
            sys_time_s: 0,
            bogo_ops_per_s_real: real > 0 ? bogo / real : 0,
            bogo_ops_per_s_cpu: usr > 0 ? bogo / usr : 0,
            cpu_used_per_instance_pct: real > 0 && n > 0 ? (100 * usr) / real / n : 0,
            finished: snapped ? 1 : 0,
          };
        },
      };
    },
  };
}

/** stress_time_duration_to_str (core-time.c) for durations under a day. */
function duration(secs: number, intSecs: boolean): string {
  const parts: string[] = [];
  let d = secs;
  for (const [unit, size] of [
    ["hour", 3600],
    ["min", 60],
  ] as const) {
    const v = Math.floor(d / size);
    if (v > 0) parts.push(`${v} ${unit}${v > 1 ? "s" : ""}`);
    d -= v * size;
  }
  const v = Math.floor(d);
  if (v > 0)
    parts.push(intSecs ? `${d.toFixed(2)} sec${v > 1 ? "s" : ""}` : `${v} sec${v > 1 ? "s" : ""}`);
  return parts.length ? parts.join(" ") : "0 secs";
}

/**
 * stress-ng's output of a `--cpu N --metrics` run: the run-length and dispatch lines, the metrics
 * table (stress_metrics_dump's "%-13s %9.9s ..." columns) and the completion line; pid 1000.
 */
export function formatStressCpu(m: Record<string, number>, timeout?: number): string {
  const pre = (kind: string) => `stress-ng: ${kind} [1000] `;
  const info = pre("info: ");
  const metrc = pre("metrc:");
  const col = (s: string, w: number) => s.slice(0, w).padStart(w);
  const head = (a: string[]) =>
    `${a[0].padEnd(13)} ${col(a[1], 9)} ${col(a[2], 9)} ${col(a[3], 9)} ${col(a[4], 9)} ${a[5].padStart(12)} ${a[6].padStart(14)} ${col(a[7], 12)} ${col(a[8], 13)}`;
  const f2 = (v: number, w: number) => v.toFixed(2).padStart(w);
  const row = `${"cpu".padEnd(13)} ${String(m.bogo_ops).padStart(9)} ${f2(m.real_time_s, 9)} ${f2(m.usr_time_s, 9)} ${f2(m.sys_time_s, 9)} ${f2(m.bogo_ops_per_s_real, 12)} ${f2(m.bogo_ops_per_s_cpu, 14)} ${f2(m.cpu_used_per_instance_pct, 12)} ${"0".padStart(13)}`;
  return [
    `${info}setting to a ${duration(timeout ?? m.real_time_s, false)} run per stressor`,
    `${info}dispatching hogs: ${m.instances} cpu`,
    metrc +
      head([
        "stressor",
        "bogo ops",
        "real time",
        "usr time",
        "sys time",
        "bogo ops/s",
        "bogo ops/s",
        "CPU used per",
        "RSS Max",
      ]),
    metrc +
      head([
        "",
        "",
        "(secs) ",
        "(secs) ",
        "(secs) ",
        "(real time)",
        "(usr+sys time)",
        "instance (%)",
        "(KB)",
      ]),
    metrc + row,
    `${info}successful run completed in ${duration(m.real_time_s, true)}`,
  ].join("\n");
}
