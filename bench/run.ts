// Simulator speed: events per second and simulated seconds per wall second.
// Prints figures and asserts none. `npm run bench -- --json` prints one JSON object.
import type { Workload } from "../src/workload/workload";
import type { Experiment } from "../src/experiment/experiment";

// The benchmark measures the compiled library (npm run build), as users' scripts and the CLI run
// it; tsx's on-the-fly transpilation adds getter indirection to every cross-module call.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const lib = require("../dist/index") as typeof import("../src/index");
const { topology } = lib;
const { pingpong, hogs } = lib.workload;

interface Case {
  name: string;
  tasks: number;
  duration: number; // simulated seconds
  make(): Experiment;
  workload: Workload;
}

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
];

function main(): void {
  const json = process.argv.includes("--json");
  const results = [];
  for (const c of cases) {
    const exp = c.make().workload(c.workload);
    const cpus = exp.machine().cpus.length;
    const t0 = process.hrtime.bigint();
    const res = exp.runSync({ iterations: 1, seed: 1, duration: c.duration, warmup: 0 });
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const events = res.data.iterations[0].events;
    const row = {
      name: c.name,
      cpus,
      tasks: c.tasks,
      events,
      wall_s: +wall.toFixed(3),
      events_per_s: Math.round(events / wall),
      sim_s_per_wall_s: +(c.duration / wall).toFixed(4),
    };
    results.push(row);
    if (!json) {
      console.log(
        `${row.name.padEnd(18)} ${String(cpus).padStart(4)} cpus ${String(c.tasks).padStart(4)} tasks  ${String(events).padStart(10)} events in ${row.wall_s.toFixed(2)} s  ` +
          `${(row.events_per_s / 1e6).toFixed(2)} M events/s  ${row.sim_s_per_wall_s} sim s / wall s`,
      );
    }
  }
  if (json) console.log(JSON.stringify({ cases: results }));
}

main();
