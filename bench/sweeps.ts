// Sweep throughput: jobs per minute of a sweep spec on this machine's threads and through a Redis
// queue with 1 and 2 `schedlab worker` processes (also with 300 s runs instead of the spec's),
// and the queue's overhead per job from a sweep of trivial jobs (the same jobs locally and
// through the queue, one thread each). Starts its own
// redis-server on a loopback port (apt-get install redis-server). Prints figures, asserts none.
//   node --import tsx bench/sweeps.ts [--spec FILE] [--workers 1,2] [--json]
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import "../src/index";
import { loadSweepSpec, planSweep, type SweepSpec } from "../src/sweeps/spec";
import { runSweep, type SweepRunSummary } from "../src/sweeps/run";
import { openSweep } from "../src/sweeps/open";
import { ReproductionPool } from "../src/reproduce/parallel";

const ROOT = path.join(__dirname, "..");
const BIN = path.join(ROOT, "bin", "schedlab.js");
const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const specFile = flag("spec") ?? path.join(ROOT, "examples", "sweeps", "small.json");
const workerCounts = (flag("workers") ?? "1,2").split(",").map(Number);
const json = args.includes("--json");

/** The trivial sweep: 100 points of the demo, 2 iterations, 1 ms simulated per run. */
const TRIVIAL: SweepSpec = {
  experiment: "demo",
  grid: { hz: "span:10", context_switch_scale: "span:10" },
  iterations: 2,
  profile: { duration: 0.001, warmup: 0 },
};

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function startRedis(): Promise<{ url: string; proc: ChildProcess }> {
  if (spawnSync("redis-server", ["--version"]).error)
    throw new Error("redis-server is not installed (apt-get install redis-server)");
  const port = await freePort();
  const proc = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve) =>
    proc.stdout!.on("data", (d: Buffer) => {
      if (/Ready to accept/.test(d.toString())) resolve();
    }),
  );
  return { url: `redis://127.0.0.1:${port}`, proc };
}

async function startWorkers(url: string, n: number): Promise<ChildProcess[]> {
  const ws = Array.from({ length: n }, () =>
    spawn(process.execPath, [BIN, "worker", "--queue", url], {
      stdio: ["ignore", "ignore", "pipe"],
    }),
  );
  await Promise.all(
    ws.map(
      (w) =>
        new Promise<void>((resolve) => {
          let out = "";
          w.stderr!.on("data", (d: Buffer) => {
            out += d.toString();
            if (/serving redis:/.test(out)) resolve();
          });
        }),
    ),
  );
  return ws;
}

async function stop(ps: ChildProcess[]): Promise<void> {
  await Promise.all(
    ps.map((p) => {
      const gone = new Promise((r) => p.once("exit", r));
      p.kill("SIGTERM");
      return gone;
    }),
  );
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-bench-sweeps-"));
let n = 0;
const fresh = () => path.join(tmp, `s${n++}.duckdb`);

interface Row {
  sweep: string;
  where: string;
  jobs: number;
  wall_s: number;
  jobs_per_min: number;
  ms_per_job: number;
  /** Mean wall time of one job's run on its thread (from the runs table). */
  run_ms: number;
}

/** The mean time a job's run took on its thread, from the database. */
async function runMs(db: string): Promise<number> {
  const d = await openSweep(db);
  try {
    const [r] = await d.query("SELECT avg(wall_ms) AS ms FROM runs");
    return Number(r.ms);
  } finally {
    await d.close();
  }
}

async function row(sweep: string, where: string, db: string, s: SweepRunSummary): Promise<Row> {
  if (s.failed.length || s.ran + s.reused !== s.total)
    process.stderr.write(
      `${sweep} ${where}: ${s.ran} ran, ${s.reused} reused, ${s.failed.length} failed of ${s.total}${s.failed.length ? `; first: ${s.failed[0].job}: ${s.failed[0].error}` : ""}\n`,
    );
  return {
    sweep,
    where,
    jobs: s.ran,
    wall_s: +s.wallS.toFixed(2),
    jobs_per_min: +((s.ran / s.wallS) * 60).toFixed(1),
    ms_per_job: +((s.wallS * 1000) / s.ran).toFixed(1),
    run_ms: +(await runMs(db)).toFixed(1),
  };
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const redis = await startRedis();
  try {
    const spec = loadSweepSpec(specFile);
    const sweeps: Array<[string, SweepSpec]> = [
      [path.basename(specFile), spec],
      // the same jobs, 150 times longer (about a second each): the queue and the JIT warm-up of each
      // thread no longer dominate
      [
        `${path.basename(specFile)}, 300 s runs`,
        { ...spec, profile: { duration: 300, warmup: 0.2 } },
      ],
      ["trivial (1 ms runs)", TRIVIAL],
    ];
    for (const [name, spec] of sweeps) {
      const plan = planSweep(spec, name);
      const counts = name === "trivial (1 ms runs)" ? [1] : workerCounts;
      for (const t of counts) {
        const db = fresh();
        const s = await runSweep(plan, { db, jobs: t, progress: false });
        rows.push(await row(name, `local, ${t} thread(s)`, db, s));
      }
      for (const w of counts) {
        spawnSync("redis-cli", ["-u", redis.url, "FLUSHALL"]);
        const ws = await startWorkers(redis.url, w);
        try {
          const db = fresh();
          const s = await runSweep(plan, { db, queue: redis.url, progress: false, pollMs: 500 });
          rows.push(await row(name, `queue, ${w} worker(s)`, db, s));
        } finally {
          await stop(ws);
        }
      }
    }
  } finally {
    redis.proc.kill("SIGTERM");
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  // with one worker the jobs run one after another: what a job costs beyond its run is overhead
  const queued = rows.find((r) => r.sweep.startsWith("trivial") && r.where.startsWith("queue"))!;
  const local = rows.find((r) => r.sweep.startsWith("trivial") && r.where.startsWith("local"))!;
  const overhead = +(queued.ms_per_job - queued.run_ms).toFixed(1);
  // a local sweep starts its thread inside its wall time (a worker's is started before)
  const pool = new ReproductionPool(1);
  const t0 = Date.now();
  await pool.warm();
  const startMs = Date.now() - t0;
  await pool.close();
  const localOverhead = +(local.ms_per_job - local.run_ms - startMs / local.jobs).toFixed(1);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ rows, queue_overhead_ms_per_job: overhead, loadavg: os.loadavg() })}\n`,
    );
    return;
  }
  for (const r of rows)
    process.stdout.write(
      `${r.sweep.padEnd(22)} ${r.where.padEnd(22)} ${String(r.jobs).padStart(4)} jobs ${r.wall_s.toFixed(1).padStart(7)} s ${r.jobs_per_min.toFixed(0).padStart(6)} jobs/min ${r.ms_per_job.toFixed(0).padStart(6)} ms/job (run ${r.run_ms.toFixed(0)} ms)\n`,
    );
  process.stdout.write(
    `overhead per job beyond its run (trivial jobs, one at a time): queue ${overhead} ms, local thread ${localOverhead} ms (less its thread's start-up, ${(startMs / 1000).toFixed(1)} s); load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
