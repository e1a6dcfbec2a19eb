// Simulator speed: events per second and simulated seconds per wall second, beside a bare
// binary-heap event loop timed in the same process (the cost floor of any event-driven run).
// Prints figures and asserts none. `npm run bench -- --json` prints one JSON object.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import type { Workload } from "../src/workload/workload";
import type { Experiment } from "../src/experiment/experiment";

// The benchmark measures the compiled library (npm run build), as users' scripts and the CLI run
// it; tsx's on-the-fly transpilation adds getter indirection to every cross-module call.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const lib = require("../dist/index") as typeof import("../src/index");
const { topology } = lib;
const { pingpong, hogs, hackbench } = lib.workload;

interface Case {
  name: string;
  tasks: number;
  duration: number; // simulated seconds
  make(): Experiment;
  workload: Workload;
}

/** 8 NUMA nodes (one per socket) as a cube of UPI links: 21 one hop away, 31 two, 41 three. */
const cubeDistance = Array.from({ length: 8 }, (_, i) =>
  Array.from({ length: 8 }, (_, j) => {
    let hops = 0;
    for (let x = i ^ j; x; x >>= 1) hops += x & 1;
    return hops === 0 ? 10 : 11 + 10 * hops;
  }),
);

/** A trace recorded on the project's 2-CPU guest (data/traces), and the machine it ran on. */
function recorded(name: string) {
  const dir = path.join(__dirname, "..", "data", "traces", name);
  const text = zlib
    .gunzipSync(new Uint8Array(fs.readFileSync(path.join(dir, "trace.txt.gz"))))
    .toString("utf8");
  return {
    trace: lib.analysis.importTraceText(text),
    machine: lib.machineFromFile(path.join(dir, "machine.json")),
  };
}
const messaging = recorded("messaging-procs");

const cases: Case[] = [
  {
    name: "pingpong-2cpu",
    tasks: 2,
    duration: 2,
    workload: pingpong({ pairs: 1 }),
    make: () => topology().name("bench-2cpu").sockets(1).cores(2).threads(1).l2SharedBy(2),
  },
  {
    name: "pingpong-104cpu",
    tasks: 208,
    duration: 0.1,
    workload: pingpong({ pairs: 104 }),
    make: () => topology("x86-104t").era("5.19"),
  },
  {
    name: "hogs-104cpu",
    tasks: 208,
    duration: 2,
    workload: hogs({ n: 208 }),
    make: () => topology("x86-104t").era("5.19"),
  },
  {
    // perf bench sched messaging -g 40 -l 100: 1600 tasks through unix sockets, on today's
    // kernel (EEVDF); it prints about 0.057 s, so 0.06 s of simulated time covers the run
    name: "hackbench-104cpu",
    tasks: 1600,
    duration: 0.06,
    workload: hackbench({ groups: 40, loops: 100 }),
    make: () => topology("x86-104t").era("6.19"),
  },
  {
    // the recorded perf bench sched messaging (processes) replayed on its own machine
    name: "replay-messaging-2cpu",
    tasks: lib.analysis.replayPlan(messaging.trace.records).tasks.length,
    duration: 1,
    workload: lib.workload.replay(messaging.trace),
    make: () => topology(messaging.machine).era("6.19"),
  },
  {
    // the same command from the factory, on the same machine and era
    name: "hackbench-messaging-2cpu",
    tasks: 80,
    duration: 1,
    workload: hackbench({ groups: 2, loops: 50 }),
    make: () => topology(messaging.machine).era("6.19"),
  },
  {
    // 60 cache hogs (2 MiB, 4 B/ns each: footprints) on 48 CPUs over two nodes: every switch of
    // a hog re-times the CPUs sharing its caches and node (kernel/contention.ts), and a hog the
    // balancer moves to the other node reads its memory over the QPI links
    name: "cachehog-48cpu",
    tasks: 60,
    duration: 1,
    workload: lib.workload.cacheHog({ copies: 60 }),
    make: () => topology("numa-2x12x2").era("6.19"),
  },
  {
    // 8 sockets x 64 cores x 2 threads, one LLC per socket, one node per socket
    name: "pingpong-1024cpu",
    tasks: 2048,
    duration: 0.006, // boot alone (sched domains of 1024 CPUs) takes several seconds
    workload: pingpong({ pairs: 1024 }),
    make: () =>
      topology()
        .name("bench-1024cpu")
        .sockets(8)
        .cores(64)
        .threads(2)
        .llc("package")
        .nodes(8)
        .distance(cubeDistance)
        .era("5.19"),
  },
];

/**
 * The reference loop: an array-backed binary min-heap of (time, seq) holding a steady `pending`
 * events; each pop schedules one new event at a random future time (0..1 ms). No simulation
 * work at all, so its events/s bounds what any event-driven simulator can reach here.
 */
function bareHeap(pending: number, events: number): { events: number; wall: number } {
  const cap = pending + 1;
  const time = new Float64Array(cap);
  const seq = new Float64Array(cap);
  let size = 0;
  let nextSeq = 0;
  let rng = 0x9e3779b9; // xorshift32, fixed seed
  const rand = () => {
    rng ^= rng << 13;
    rng ^= rng >>> 17;
    rng ^= rng << 5;
    return (rng >>> 0) / 4294967296;
  };
  const less = (i: number, j: number) =>
    time[i] < time[j] || (time[i] === time[j] && seq[i] < seq[j]);
  const swap = (i: number, j: number) => {
    const t = time[i];
    time[i] = time[j];
    time[j] = t;
    const s = seq[i];
    seq[i] = seq[j];
    seq[j] = s;
  };
  const push = (t: number) => {
    let i = size++;
    time[i] = t;
    seq[i] = nextSeq++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(i, p)) break;
      swap(i, p);
      i = p;
    }
  };
  const pop = (): number => {
    const t = time[0];
    size--;
    time[0] = time[size];
    seq[0] = seq[size];
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const m = l + 1 < size && less(l + 1, l) ? l + 1 : l;
      if (!less(m, i)) break;
      swap(i, m);
      i = m;
    }
    return t;
  };
  for (let k = 0; k < pending; k++) push(Math.floor(rand() * 1e6));
  const t0 = process.hrtime.bigint();
  let now = 0;
  for (let k = 0; k < events; k++) {
    now = pop();
    push(now + Math.floor(rand() * 1e6));
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (now < 0) throw new Error("unreachable"); // keeps the loop's result live
  return { events, wall };
}

interface Row {
  name: string;
  cpus: number | null;
  tasks: number;
  events: number;
  wall_s: number;
  events_per_s: number;
  ns_per_event: number;
  sim_s_per_wall_s?: number;
  vs_bare_heap?: number;
  /** Wall seconds to boot the kernel (sched domains, before the workload starts); in wall_s. */
  boot_s?: number;
  /** Events per second after the boot: the event loop's own rate. */
  run_events_per_s?: number;
  /** Events per second of the untimed first run (JIT warm-up included; a fresh process's rate). */
  cold_events_per_s?: number;
  /** Events per second of the bare heap timed in the case's own process (vs_bare_heap's base). */
  bare_heap_events_per_s?: number;
  /** Median events per second of the timed runs (`events_per_s` is their best). */
  median_events_per_s?: number;
}

/** Untimed runs of each case before the timed ones (the first is also reported as `cold`). */
const WARMUP_RUNS = 2;
/** Timed runs of each case; the fastest is reported, as the reference's best of 5. */
const TIMED_RUNS = 3;

/** One run of `exp` for `duration` simulated seconds: wall and boot seconds, events. */
function timedRun(
  exp: Experiment,
  duration: number,
): { wall: number; boot: number; events: number } {
  const t0 = process.hrtime.bigint();
  let booted = t0;
  const res = exp.runSync({
    iterations: 1,
    seed: 1,
    duration,
    warmup: 0,
    onKernel: () => {
      booted = process.hrtime.bigint();
    },
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  return { wall, boot: Number(booted - t0) / 1e9, events: res.data.iterations[0].events };
}

/** The reference: bare heap, untimed warm-up, then the best of 5 (the least disturbed run). */
function bareHeapRow(): Row {
  bareHeap(208, 2e6);
  let b = bareHeap(208, 5e6);
  for (let k = 1; k < 5; k++) {
    const again = bareHeap(208, 5e6);
    if (again.wall < b.wall) b = again;
  }
  return {
    name: "bare-heap-104",
    cpus: null,
    tasks: 208,
    events: b.events,
    wall_s: +b.wall.toFixed(3),
    events_per_s: Math.round(b.events / b.wall),
    ns_per_event: +((b.wall / b.events) * 1e9).toFixed(1),
  };
}

/** One case, measured in this process against the bare heap timed here just before. */
function caseRow(c: Case): Row {
  const bare = bareHeapRow();
  const exp = c.make().workload(c.workload);
  const cpus = exp.machine().cpus.length;
  // Measured like the reference: untimed runs warm the JIT, then the least disturbed of the
  // timed runs counts (the box is shared). V8 is still tiering up in the second run of a case
  // (pingpong-104cpu, 7 s of wall each: 1.7, 2.6, 2.8, 2.8 M events/s), so two warm-up runs.
  // The first run's rate is reported too (`cold_events_per_s`): what a fresh process gets over
  // that much simulated time; and the median of the timed runs beside their best.
  const cold = timedRun(exp, c.duration);
  for (let w = 1; w < WARMUP_RUNS; w++) timedRun(exp, c.duration);
  const timed = Array.from({ length: TIMED_RUNS }, () => timedRun(exp, c.duration));
  const rates = timed.map((t) => t.events / t.wall).sort((x, y) => x - y);
  const { wall, boot, events } = timed.reduce((best, t) => (t.wall < best.wall ? t : best));
  return {
    name: c.name,
    cpus,
    tasks: c.tasks,
    events,
    wall_s: +wall.toFixed(3),
    events_per_s: Math.round(events / wall),
    ns_per_event: +((wall / events) * 1e9).toFixed(1),
    sim_s_per_wall_s: +(c.duration / wall).toFixed(4),
    vs_bare_heap: +(events / wall / bare.events_per_s).toFixed(4),
    bare_heap_events_per_s: bare.events_per_s,
    boot_s: +boot.toFixed(3),
    run_events_per_s: Math.round(events / (wall - boot)),
    cold_events_per_s: Math.round(cold.events / cold.wall),
    median_events_per_s: Math.round(rates[Math.floor(rates.length / 2)]),
  };
}

function main(): void {
  const only = process.argv.indexOf("--case");
  if (only >= 0) {
    // a child: one case, its row as JSON on stdout
    const c = cases.find((x) => x.name === process.argv[only + 1]);
    if (!c) throw new Error(`--case must be one of ${cases.map((x) => x.name).join(", ")}`);
    console.log(JSON.stringify(caseRow(c)));
    return;
  }
  const json = process.argv.includes("--json");
  const results: Row[] = [];
  const print = (r: Row) => {
    if (json) return;
    const what =
      r.cpus === null
        ? `${"-".padStart(4)}      ${String(r.tasks).padStart(4)} pending`
        : `${String(r.cpus).padStart(4)} cpus ${String(r.tasks).padStart(4)} tasks  `;
    const tail =
      r.vs_bare_heap === undefined
        ? "(reference)"
        : `${r.sim_s_per_wall_s} sim s / wall s  ${r.vs_bare_heap.toFixed(3)} x bare heap  ` +
          `(boot ${r.boot_s} s, then ${((r.run_events_per_s ?? 0) / 1e6).toFixed(2)} M events/s; ` +
          `median ${((r.median_events_per_s ?? 0) / 1e6).toFixed(2)}, cold ${((r.cold_events_per_s ?? 0) / 1e6).toFixed(2)} M events/s)`;
    console.log(
      `${r.name.padEnd(18)} ${what}${String(r.events).padStart(10)} events in ${r.wall_s.toFixed(2)} s  ` +
        `${(r.events_per_s / 1e6).toFixed(2)} M events/s  ${r.ns_per_event.toFixed(0).padStart(5)} ns/event  ${tail}`,
    );
  };
  const bare = bareHeapRow();
  results.push(bare);
  print(bare);
  // Each case in a fresh process (the way a user runs one experiment): cases sharing a process
  // leave each other's type feedback in the JIT's code (pingpong-104cpu's warm runs were about
  // 4% slower after two pingpong-2cpu runs than alone: best 2.82 / 2.82 against 2.98 / 2.91).
  // Each case's ratio is to a bare heap timed in its own process.
  for (const c of cases) {
    const child = spawnSync(process.execPath, [...process.execArgv, __filename, "--case", c.name], {
      encoding: "utf8",
      maxBuffer: 1 << 20,
    });
    if (child.status !== 0) throw new Error(`bench case ${c.name} failed:\n${child.stderr}`);
    const row = JSON.parse(child.stdout.trim().split("\n").pop() ?? "") as Row;
    results.push(row);
    print(row);
  }
  if (json) console.log(JSON.stringify({ cases: results }));
}

main();
