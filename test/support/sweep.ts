// Helpers of the sweep tests: the example spec, a schedlab process whose output can be waited on,
// and a sweep database's rows in a form two databases can be compared by.
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { SweepStore } from "../../src/sweeps/store";

export const ROOT = path.join(__dirname, "..", "..");
export const BIN = path.join(ROOT, "bin", "schedlab.js");
/** The example the docs use: 2 unknowns x 3 values x 2 variants x 2 iterations. */
export const SMALL = path.join(ROOT, "examples", "sweeps", "small.json");

/** A fresh directory under the system's temporary directory. */
export function tempDir(name: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `schedlab-${name}-`));
}

/** A running `schedlab ...`: its output so far, waits on it, its exit. */
export interface CliProcess {
  proc: ChildProcess;
  output(): string;
  /** Resolves with the first match of `re` in the output (stdout and stderr together). */
  waitFor(re: RegExp, what: string, timeoutMs?: number): Promise<RegExpMatchArray>;
  exit: Promise<number | null>;
}

const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const p of live) p.kill("SIGKILL");
});

/** Starts `schedlab args...`; it is killed when the test process exits. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = process.env): CliProcess {
  const proc = spawn(process.execPath, [BIN, ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(proc);
  let out = "";
  const waiters: Array<() => void> = [];
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of [...waiters]) w();
  };
  proc.stdout!.on("data", onData);
  proc.stderr!.on("data", onData);
  const exit = new Promise<number | null>((resolve) =>
    proc.once("exit", (code, signal) => {
      live.delete(proc);
      for (const w of [...waiters]) w();
      resolve(code ?? (signal ? 128 : null));
    }),
  );
  return {
    proc,
    output: () => out,
    exit,
    waitFor: (re, what, timeoutMs = 120_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            done();
            resolve(m);
          } else if (proc.exitCode !== null || proc.signalCode !== null) {
            done();
            reject(new Error(`schedlab ${args.join(" ")} exited before ${what}:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${what} within ${timeoutMs / 1000} s:\n${out}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          const i = waiters.indexOf(check);
          if (i >= 0) waiters.splice(i, 1);
        };
        waiters.push(check);
        check();
      }),
  };
}

/** Runs `schedlab args...` to its end. */
export async function runCli(
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  const p = startCli(args, env);
  const code = await p.exit;
  return { code, output: p.output() };
}

/**
 * Everything a sweep database holds that does not depend on where and when a job ran: the
 * runs (wall time, worker and finish time left out), the metrics and the planned jobs, sorted.
 */
export async function comparable(db: string): Promise<string> {
  const s = await SweepStore.open(db, { readOnly: true });
  try {
    const runs = await s.rows(
      `SELECT key, experiment, point_values, variant, iteration, seed, duration_ns, events,
         schedlab, model, result FROM runs ORDER BY key`,
    );
    const metrics = await s.rows("SELECT key, metric, value FROM metrics ORDER BY key, metric");
    const jobs = await s.rows(
      "SELECT sweep_id, key, point, point_values, variant, iteration FROM jobs ORDER BY sweep_id, key",
    );
    return JSON.stringify({ runs, metrics, jobs });
  } finally {
    await s.close();
  }
}

/** The rows of one query on a sweep database. */
export async function queryDb(db: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const s = await SweepStore.open(db, { readOnly: true });
  try {
    return await s.rows(sql);
  } finally {
    await s.close();
  }
}
