import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder, topology, workload } from "../../src/index";

const runOn = (wl: ReturnType<typeof workload.rtApp>, m = topology("core2-2x2")) =>
  m.workload(wl).runSync().iteration("baseline", 0);

test("rtApp: bad descriptions are refused naming the field and what is accepted", () => {
  assert.throws(
    () => workload.rtApp({ tasks: { t: { policy: "SCHED_DEADLINE", run: 10 } } }),
    /workload\.rtApp: tasks\.t\.policy must be one of SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_RR, SCHED_FIFO \(got "SCHED_DEADLINE"\)/,
  );
  assert.throws(
    () => workload.rtApp({ tasks: { t: { run0: -1 } } }),
    /tasks\.t\.run0 must be >= 0 \(usec\) \(got -1\)/,
  );
  assert.throws(
    () => workload.rtApp({ tasks: { t: { run: 10, barrier: "x" } } }),
    /tasks\.t\.barrier is a "barrier" event, which schedlab does not model \(modelled: lock, unlock, sleep, runtime, run, timer\)/,
  );
  assert.throws(
    () => workload.rtApp({ tasks: { t: { run: 10, util_min: 100 } } }),
    /tasks\.t\.util_min is neither a property \(loop, policy, priority, cpus, instance, delay, phases\) nor an event/,
  );
  assert.throws(
    () => workload.rtApp({ tasks: { t: { timer: { ref: "a" } } } }),
    /tasks\.t\.timer\.period must be an integer \(usec\) \(missing\)/,
  );
  assert.throws(
    () => workload.rtApp({ global: { pi_enabled: true }, tasks: { t: { run: 1 } } }),
    /global\.pi_enabled must be false \(priority inheritance is not modelled\)/,
  );
  assert.throws(
    () => workload.rtApp({ tasks: { t: { policy: "SCHED_FIFO", priority: 0, run: 1 } } }),
    /tasks\.t\.priority must be from 1 to 99 \(an RT priority\) for SCHED_FIFO \(got 0\)/,
  );
  assert.throws(() => workload.rtApp("{ not json"), /workload\.rtApp: not JSON/);
  // a CPU the machine lacks is found when the machine is known
  const wl = workload.rtApp({ global: { duration: 1 }, tasks: { t: { cpus: [7], run: 10 } } });
  assert.throws(() => runOn(wl), /tasks\.t\.cpus has CPU 7; the machine has CPUs 0-3/);
});

test("rtApp: a periodic timer task logs rt-app's rows, one per period", () => {
  const json = JSON.stringify({
    global: { duration: 1 },
    tasks: { p: { loop: 20, run: 2000, timer: { ref: "unique", period: 10000 } } },
  });
  const wl = workload.rtApp(json);
  const it = runOn(wl);
  assert.equal(it.metrics["p-0.loops"], 20);
  assert.equal(it.metrics["p-0.period_avg_us"], 10000);
  assert.equal(it.metrics.missed_timers, 0);
  const lines = wl.format(it.metrics, it.series).split("\n");
  assert.equal(lines[0], "==> rt-app-p-0.log <==");
  assert.equal(
    lines[1],
    "#idx     perf      run   period           start             end          rel_st      slack c_duration   c_period     wu_lat",
  );
  assert.equal(lines.length, 22);
  for (const row of lines.slice(2)) {
    // "%4d %8lu %8lu %8lu %15llu %15llu %15llu %10ld %10lu %10lu %10lu"
    assert.equal(row.length, lines[1].length, row);
    const f = row.trim().split(/ +/).map(Number);
    assert.equal(f.length, 11);
    assert.equal(f[2], 2000); // run: 2 ms of work on an idle CPU
    assert.equal(f[8], 2000); // c_duration
    assert.equal(f[9], 10000); // c_period
    assert.ok(f[7] > 7900 && f[7] <= 8000, `slack ${f[7]}`);
  }
});

test("rtApp: a run longer than the period misses the timer; relative mode restarts from now", () => {
  const mk = (mode: "relative" | "absolute") =>
    workload.rtApp({
      global: { duration: 1 },
      tasks: {
        p: {
          phases: {
            late: { loop: 2, run: 15000, timer: { ref: "t", period: 10000, mode } },
            ok: { loop: 4, run: 1000, timer: { ref: "t", period: 10000, mode } },
          },
          loop: 1,
        },
      },
    });
  const rows = (mode: "relative" | "absolute") => {
    const it = runOn(mk(mode));
    const log = it.series["log.p-0"];
    return Array.from({ length: log.length / 11 }, (_, i) => log.slice(i * 11, i * 11 + 11));
  };
  const rel = rows("relative");
  const abs = rows("absolute");
  // both: the 15 ms runs overrun their 10 ms timer (negative slack, no sleep)
  for (const r of [rel, abs]) assert.ok(r[0][7] < 0 && r[1][7] < 0);
  // relative: t_next restarts at the late end, so the short phase is on time again at once
  assert.ok(rel[2][7] > 0, `relative slack ${rel[2][7]}`);
  // absolute: t_next keeps its 10 ms grid from t_first, 10 ms behind after two 15 ms runs
  assert.ok(abs[2][7] < 0, `absolute slack ${abs[2][7]}`);
});

test("rtApp: a mutex serialises its holders; a competitor stretches a run's wall time", () => {
  const wl = workload.rtApp({
    global: { duration: 1 },
    tasks: { t: { instance: 2, loop: 10, lock: "m", run: 5000, unlock: "m" } },
  });
  const it = runOn(wl);
  // two holders on four CPUs: never both inside, so 20 sections of 5 ms take >= 100 ms
  const ends = [it.series["log.t-0"], it.series["log.t-1"]].flatMap((log) =>
    Array.from({ length: log.length / 11 }, (_, i) => log[i * 11 + 5]),
  );
  assert.equal(ends.length, 20);
  assert.ok(
    Math.max(...ends) - Math.min(...ends) >= 95_000,
    `${Math.max(...ends) - Math.min(...ends)}`,
  );
  // two CFS threads sharing CPU 0: a 30 ms run outlasts the time slice, so it takes longer
  // than 30 ms of wall time (the "run" column is wall time; c_duration stays 30000)
  const shared = runOn(
    workload.rtApp({
      global: { duration: 1 },
      tasks: { c: { instance: 2, cpus: [0], loop: 5, run: 30000, sleep: 100 } },
    }),
  );
  const runs = shared.series["log.c-0"].filter((_, i) => i % 11 === 2);
  assert.ok(Math.min(...runs) > 40000, `${runs}`);
});

test("rtApp: a costlier context switch delays every timer wakeup", () => {
  const wl = workload.rtApp({
    global: { duration: 1 },
    tasks: { p: { loop: 20, run: 1000, timer: { ref: "unique", period: 5000 } } },
  });
  const on = (contextSwitchNs: number) =>
    runOn(wl, topology(machineBuilder().cores(2).costs({ contextSwitchNs }).build())).metrics;
  const cheap = on(1000);
  const dear = on(21000);
  assert.ok(
    dear.wu_lat_avg_us >= cheap.wu_lat_avg_us + 15,
    `${dear.wu_lat_avg_us} vs ${cheap.wu_lat_avg_us}`,
  );
});
