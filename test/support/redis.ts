// A real redis-server for the queue tests: started on a free loopback port with a password
// (so every test also goes through SCHEDLAB_REDIS_URL), no persistence, and stopped at the end,
// on failure too. When redis-server is not installed the tests fail saying so: .ci/run installs
// it from Debian (apt-get install redis-server).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as net from "node:net";

export interface TestRedis {
  port: number;
  /** redis://127.0.0.1:PORT, as --queue takes it. */
  url: string;
  /** The environment that carries the password (SCHEDLAB_REDIS_URL). */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

const PASSWORD = "sweep-test-secret";
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const p of live) p.kill("SIGKILL");
});

/** Starts redis-server; throws with the install line when it is missing. */
export async function startRedis(): Promise<TestRedis> {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (probe.error)
    throw new Error(
      `redis-server is not installed (${probe.error.message}): the queue tests need it; apt-get install redis-server (.ci/run does)`,
    );
  const port = await freePort();
  const proc = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--requirepass",
      PASSWORD,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  live.add(proc);
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start within 20 s:\n${out}`)),
      20_000,
    );
    proc.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${out}`));
    });
  });
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    env: { ...process.env, SCHEDLAB_REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${port}` },
    stop: async () => {
      if (proc.exitCode !== null) return;
      const gone = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      await gone;
      live.delete(proc);
    },
  };
}
