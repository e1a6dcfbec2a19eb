// rt-app (scheduler-tools/rt-app, src/rt-app.c): threads described in JSON run phases of events.
// The main thread creates every thread (pthread_create: fork placement); they meet at
// threads_barrier, t_first = t_zero; a thread with "delay" sleeps until t_first + delay (and
// t_first moves there). Then per phase iteration: set affinity and policy if the phase gives
// them, run its events in order, and log one row (idx perf run period start end rel_st slack
// c_duration c_period wu_lat). Events: run (loops of the calibrated busy loop: the work of that
// many usec on the calibration CPU), runtime (32 usec busy loops until that much wall time
// passed), sleep (nanosleep), timer (clock_nanosleep to t_next += period; t_next starts at
// t_first; relative mode resets t_next to now when late; "unique*" refs are per thread, others
// shared), lock / unlock (a pthread mutex, no priority inheritance). Thread loop default -1
// (forever), phase loop 1, instance 1; priority default 0 (nice) for SCHED_OTHER/BATCH/IDLE and
// 10 for SCHED_FIFO/RR; global duration -1 (until the threads end).
import { fork, run, setAffinity, setNice, setPolicy, sleep, wait, wake } from "../kernel/ops";
import type { Policy, TaskApi } from "../kernel/sched";
import { parseWith } from "../machine/schema";
import type { WorkloadContext, WorkloadRun } from "./workload";
import type { BenchmarkWorkload } from "./sysbench_cpu";
import { eventTypeOf, type RtAppJson, rtAppSchema } from "./rt_app_schema";

const POLICY: Record<string, Policy> = {
  SCHED_OTHER: "normal",
  SCHED_BATCH: "batch",
  SCHED_IDLE: "idle",
  SCHED_FIFO: "fifo",
  SCHED_RR: "rr",
};
/** choice: simulated length when global.duration is -1 (rt-app would run until the threads end). */
const UNBOUNDED_SECONDS = 10;
/** choice: ns per calibration loop for `perf` when calibration names a CPU (rt-app measures it). */
const DEFAULT_NS_PER_LOOP = 1000;
/** rt-app's runtime event does loadwait(32) between clock reads. */
const RUNTIME_CHUNK_US = 32;
const ROW = 11;

type Ev =
  | { type: "run" | "runtime" | "sleep"; us: number }
  | { type: "timer"; ref: string; periodUs: number; relative: boolean }
  | { type: "lock" | "unlock"; name: string };
interface Sched {
  policy: Policy;
  prio: number;
}
interface Phase {
  loop: number;
  sched: Sched | null;
  cpus: number[] | null;
  events: Ev[];
}
interface Thread {
  name: string;
  instances: number;
  delayUs: number;
  loop: number;
  sched: Sched;
  cpus: number[] | null;
  phases: Phase[];
}

function schedOf(
  where: string,
  o: { policy?: string; priority?: number },
  dflt: string | null,
): Sched | null {
  if (o.policy === undefined && o.priority === undefined && dflt === null) return null;
  const name = o.policy ?? dflt ?? "SCHED_OTHER";
  const policy = POLICY[name];
  const rt = policy === "fifo" || policy === "rr";
  const prio = o.priority ?? (rt ? 10 : 0);
  if (rt ? prio < 1 || prio > 99 : prio < -20 || prio > 19)
    throw new Error(
      `workload.rtApp: ${where}.priority must be ${rt ? "from 1 to 99 (an RT priority)" : "from -20 to 19 (a nice value)"} for ${name} (got ${prio})`,
    );
  return { policy, prio };
}

function eventsOf(obj: Record<string, unknown>): Ev[] {
  const out: Ev[] = [];
  for (const [key, v] of Object.entries(obj)) {
    const type = eventTypeOf(key);
    if (type === "run" || type === "runtime" || type === "sleep")
      out.push({ type, us: v as number });
    else if (type === "timer") {
      const t = v as { ref: string; period: number; mode?: string };
      out.push({ type, ref: t.ref, periodUs: t.period, relative: t.mode !== "absolute" });
    } else if (type === "lock" || type === "unlock") out.push({ type, name: v as string });
  }
  return out;
}

function plan(json: RtAppJson, ncpus: number): Thread[] {
  const dflt = json.global?.default_policy ?? "SCHED_OTHER";
  return Object.entries(json.tasks).map(([name, t]) => {
    const where = `tasks.${name}`;
    const checkCpus = (w: string, cpus?: number[]) => {
      const bad = cpus?.find((c) => c >= ncpus);
      if (bad !== undefined)
        throw new Error(
          `workload.rtApp: ${w}.cpus has CPU ${bad}; the machine has CPUs 0-${ncpus - 1}`,
        );
      return cpus ?? null;
    };
    const phases: Phase[] = t.phases
      ? Object.entries(t.phases).map(([pn, p]) => ({
          loop: p.loop ?? 1,
          sched: schedOf(`${where}.phases.${pn}`, p, null),
          cpus: checkCpus(`${where}.phases.${pn}`, p.cpus),
          events: eventsOf(p),
        }))
      : [{ loop: 1, sched: null, cpus: null, events: eventsOf(t) }];
    return {
      name,
      instances: t.instance ?? 1,
      delayUs: t.delay ?? 0,
      loop: t.loop ?? -1,
      sched: schedOf(where, t, dflt)!,
      cpus: checkCpus(where, t.cpus),
      phases,
    };
  });
}

/**
 * rt-app: run an rt-app / LISA-style JSON workload description (an object, or its JSON text with
 * unique keys: name repeated events run0, run1... as workgen does). Validated with a zod
 * schema; errors name the field (`workload.rtApp: tasks.t1.run0 must be >= 0 (usec) ...`).
 * Modelled: global duration, calibration, default_policy; per thread instance, delay, loop,
 * policy, priority, cpus, phases; events run, runtime, sleep, timer (period, relative/absolute,
 * unique), lock, unlock. Refused: SCHED_DEADLINE, pi_enabled, util clamps, taskgroups, and the
 * other events. Series `log.<thread>-<index>`: rt-app's log rows, 11 numbers each. Metrics per
 * thread `<thread>-<index>.loops`, `.wu_lat_avg_us`, `.wu_lat_max_us`, `.slack_min_us`,
 * `.period_avg_us`; overall `wu_lat_avg_us`, `wu_lat_max_us`, `missed_timers` (rows whose slack
 * was negative). `format(metrics, series)` prints each thread's log file.
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const wl = workload.rtApp({
 *   global: { duration: 1 },
 *   tasks: { periodic: { loop: 3, run: 2000, timer: { ref: "unique", period: 10000 } } },
 * });
 * const it = topology("core2-2x2").workload(wl).runSync().iteration("baseline", 0);
 * console.log(wl.format(it.metrics, it.series));
 * ```
 * Prints:
 * ```text
 * ==> rt-app-periodic-0.log <==
 * #idx     perf      run   period           start             end          rel_st      slack c_duration   c_period     wu_lat
 *    0     2000     2000    10000               5           10006               2       7997       2000      10000          3
 *    0     2000     2000    10000           10006           20006           10003       7996       2000      10000          3
 *    0     2000     2000    10000           20006           30006           20003       7996       2000      10000          3
 * ```
 */
export function rtApp(json: unknown): BenchmarkWorkload {
  const where = "workload.rtApp";
  let raw = json;
  if (typeof json === "string") {
    try {
      raw = JSON.parse(json);
    } catch (e) {
      throw new Error(`${where}: not JSON (${(e as Error).message})`);
    }
  }
  const spec = parseWith(rtAppSchema, raw, where);
  plan(spec, Number.POSITIVE_INFINITY); // priorities now; CPUs once the machine is known
  const duration = spec.global?.duration ?? -1;
  const calibration = spec.global?.calibration ?? "CPU0";
  const nsPerLoop = typeof calibration === "number" ? calibration : DEFAULT_NS_PER_LOOP;
  const calibCpu = typeof calibration === "string" ? Number(calibration.slice(3)) : 0;
  const seconds = duration > 0 ? duration : UNBOUNDED_SECONDS;
  return {
    name: "rt-app",
    params: spec as Record<string, unknown>,
    defaultDurationNs: seconds * 1e9,
    defaultWarmupNs: 0,
    format: (_metrics, series) => formatRtApp(series ?? {}, spec.global?.log_basename ?? "rt-app"),
    setup(ctx: WorkloadContext): WorkloadRun {
      const k = ctx.kernel;
      const threads = plan(spec, ctx.ncpus);
      if (calibCpu >= ctx.ncpus)
        throw new Error(
          `${where}: global.calibration names CPU${calibCpu}; the machine has ${ctx.ncpus}`,
        );
      // "run" is loops calibrated on the calibration CPU: that CPU's work per usec
      const workPerUs = (1000 * k.machine.cpus[calibCpu].capacity) / 1024;
      const timers = new Map<string, { init: boolean; next: number }>();
      const mutexes = new Map<string, { owner: number; waiters: number[] }>();
      const logs = new Map<string, number[]>();
      let tZero = -1;

      function* instance(api: TaskApi, th: Thread, ind: number, key: string) {
        while (tZero < 0) yield wait();
        const log = logs.get(key)!;
        let tFirst = tZero;
        if (th.delayUs > 0) {
          tFirst += th.delayUs * 1000;
          yield sleep(tFirst - api.now());
        }
        yield* applySched(th.sched);
        let cpus: number[] | null = null;
        const cpusEq = (a: number[] | null, b: number[] | null) =>
          JSON.stringify(a) === JSON.stringify(b);
        let phase = 0;
        let phaseLoop = 0;
        let threadLoop = 0;
        while (threadLoop !== th.loop) {
          const p = th.phases[phase];
          const want = p.cpus ?? th.cpus;
          if (want && !cpusEq(want, cpus)) {
            cpus = want;
            yield setAffinity(want);
          }
          if (p.sched) yield* applySched(p.sched);
          const ld = { perf: 0, duration: 0, cDuration: 0, cPeriod: 0, slack: 0, wuLat: 0 };
          const tStart = api.now();
          for (const ev of p.events) yield* event(api, ev, ld, tFirst, key);
          const tEnd = api.now();
          log.push(
            ind,
            Math.floor(ld.perf),
            Math.floor(ld.duration / 1000),
            Math.floor((tEnd - tStart) / 1000),
            Math.floor(tStart / 1000),
            Math.floor(tEnd / 1000),
            Math.floor((tStart - tZero) / 1000),
            Math.trunc(ld.slack / 1000),
            ld.cDuration,
            ld.cPeriod,
            Math.floor(ld.wuLat / 1000),
          );
          if (++phaseLoop === p.loop) {
            phaseLoop = 0;
            if (++phase === th.phases.length) {
              phase = 0;
              threadLoop++;
            }
          }
        }
      }

      function* applySched(s: Sched) {
        if (s.policy === "fifo" || s.policy === "rr") yield setPolicy(s.policy, s.prio);
        else {
          yield setPolicy(s.policy);
          yield setNice(s.prio);
        }
      }

      type LoopData = {
        perf: number;
        duration: number;
        cDuration: number;
        cPeriod: number;
        slack: number;
        wuLat: number;
      };
      function* event(api: TaskApi, ev: Ev, ld: LoopData, tFirst: number, key: string) {
        if (ev.type === "run" || ev.type === "runtime") {
          ld.cDuration += ev.us;
          const t0 = api.now();
          if (ev.type === "run") {
            yield run(ev.us * workPerUs);
            ld.perf += (ev.us * workPerUs) / nsPerLoop;
          } else {
            do {
              yield run(RUNTIME_CHUNK_US * workPerUs);
              ld.perf += (RUNTIME_CHUNK_US * workPerUs) / nsPerLoop;
            } while (api.now() - t0 < ev.us * 1000);
          }
          ld.duration += api.now() - t0;
        } else if (ev.type === "sleep") {
          if (ev.us > 0) yield sleep(ev.us * 1000);
        } else if (ev.type === "timer") {
          const id = ev.ref.startsWith("unique") ? `${key}/${ev.ref}` : ev.ref;
          const tm = timers.get(id) ?? { init: false, next: 0 };
          timers.set(id, tm);
          ld.cPeriod += ev.periodUs;
          if (!tm.init) {
            tm.init = true;
            tm.next = tFirst;
          }
          tm.next += ev.periodUs * 1000;
          const now = api.now();
          ld.slack = tm.next - now;
          if (now < tm.next) {
            yield sleep(tm.next - now);
            ld.wuLat += api.now() - tm.next;
          } else {
            if (ev.relative) tm.next = now;
            ld.wuLat = 0;
          }
        } else if (ev.type === "lock") {
          const m = mutexes.get(ev.name) ?? { owner: 0, waiters: [] };
          mutexes.set(ev.name, m);
          while (m.owner !== 0) {
            m.waiters.push(api.pid);
            yield wait();
          }
          m.owner = api.pid;
        } else if (ev.type === "unlock") {
          const m = mutexes.get(ev.name);
          if (!m || m.owner !== api.pid)
            throw new Error(`${where}: unlock of "${ev.name}" by a thread that does not hold it`);
          m.owner = 0;
          const next = m.waiters.shift();
          if (next !== undefined) yield wake(next);
        }
      }

      ctx.at(0, () => {
        ctx.spawn({
          comm: "rt-app",
          role: "main",
          program: function* (api) {
            const pids: number[] = [];
            let ind = 0;
            for (const th of threads)
              for (let i = 0; i < th.instances; i++) {
                const key = `${th.name}-${ind}`;
                const idx = ind++;
                logs.set(key, []);
                pids.push(
                  (yield fork({
                    comm: th.name,
                    role: th.name,
                    program: (t) => instance(t, th, idx, key),
                  })) as number,
                );
              }
            tZero = api.now();
            for (const pid of pids) yield wake(pid);
          },
        });
      });

      return {
        metrics() {
          const out: Record<string, number> = {};
          let wuSum = 0;
          let wuMax = 0;
          let rows = 0;
          let missed = 0;
          for (const [key, log] of logs) {
            const n = log.length / ROW;
            let s = 0;
            let mx = 0;
            let slackMin = Infinity;
            let period = 0;
            for (let r = 0; r < n; r++) {
              const row = log.slice(r * ROW, (r + 1) * ROW);
              s += row[10];
              mx = Math.max(mx, row[10]);
              slackMin = Math.min(slackMin, row[7]);
              period += row[3];
              if (row[9] > 0 && row[7] < 0) missed++;
            }
            out[`${key}.loops`] = n;
            out[`${key}.wu_lat_avg_us`] = n ? s / n : NaN;
            out[`${key}.wu_lat_max_us`] = mx;
            out[`${key}.slack_min_us`] = n ? slackMin : NaN;
            out[`${key}.period_avg_us`] = n ? period / n : NaN;
            wuSum += s;
            wuMax = Math.max(wuMax, mx);
            rows += n;
          }
          out.wu_lat_avg_us = rows ? wuSum / rows : NaN;
          out.wu_lat_max_us = wuMax;
          out.missed_timers = missed;
          return out;
        },
        series() {
          const out: Record<string, number[]> = {};
          for (const [key, log] of logs) out[`log.${key}`] = log;
          return out;
        },
      };
    },
  };
}

/** rt-app's log files (one per thread: the header, then log_timing's rows), each under its name. */
export function formatRtApp(series: Record<string, number[]>, basename = "rt-app"): string {
  const out: string[] = [];
  const p = (v: number | string, w: number) => String(v).padStart(w);
  for (const [name, log] of Object.entries(series)) {
    if (!name.startsWith("log.")) continue;
    if (out.length) out.push("");
    out.push(`==> ${basename}-${name.slice(4)}.log <==`);
    out.push(
      `#idx ${p("perf", 8)} ${p("run", 8)} ${p("period", 8)} ${p("start", 15)} ${p("end", 15)} ${p("rel_st", 15)} ${p("slack", 10)} ${p("c_duration", 10)} ${p("c_period", 10)} ${p("wu_lat", 10)}`,
    );
    for (let i = 0; i < log.length; i += ROW) {
      const r = log.slice(i, i + ROW);
      out.push(
        `${p(r[0], 4)} ${p(r[1], 8)} ${p(r[2], 8)} ${p(r[3], 8)} ${p(r[4], 15)} ${p(r[5], 15)} ${p(r[6], 15)} ${p(r[7], 10)} ${p(r[8], 10)} ${p(r[9], 10)} ${p(r[10], 10)}`,
      );
    }
  }
  return out.join("\n");
}
