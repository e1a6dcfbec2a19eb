// Where a sweep's job queue lives: `--queue redis://HOST:PORT[/DB]` names the server, and a
// password comes only from the environment (SCHEDLAB_REDIS_URL, the same server with its
// credentials), never from a command line that `ps` and shell history keep. Before anything is
// written, the server is asked for a PING with a short timeout, so a wrong address fails in
// seconds with a message that says so.
import type { RedisOptions } from "bullmq";

/** The Redis server a sweep's queue lives on. */
export interface RedisTarget {
  host: string;
  port: number;
  db: number;
  tls: boolean;
  username?: string;
  password?: string;
  /** redis://HOST:PORT/DB, without credentials: safe to print. */
  display: string;
}

/** The environment variable a password comes from. */
export const REDIS_URL_ENV = "SCHEDLAB_REDIS_URL";

function parse(text: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new Error(`${what} must be a URL redis://HOST:PORT (got ${JSON.stringify(text)})`);
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:")
    throw new Error(
      `${what} must start with redis:// or rediss:// (got ${JSON.stringify(u.protocol.replace(/:$/, ""))})`,
    );
  if (!u.hostname) throw new Error(`${what} must name a host: redis://HOST:PORT`);
  return u;
}

function dbOf(u: URL, what: string): number {
  const p = u.pathname.replace(/^\//, "");
  if (p === "") return 0;
  const n = Number(p);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(
      `${what}: the database after the port must be a number (got ${JSON.stringify(p)})`,
    );
  return n;
}

/**
 * The server `--queue` names, with the credentials of SCHEDLAB_REDIS_URL when that names the
 * same host and port. A password in `--queue` itself is refused.
 */
export function redisTarget(queue: string, env: NodeJS.ProcessEnv = process.env): RedisTarget {
  const u = parse(queue, "--queue");
  if (u.password || u.username)
    throw new Error(
      `--queue must not carry credentials (a command line shows in ps and shell history): give --queue ${u.protocol}//${u.host} and put the URL with the password in ${REDIS_URL_ENV}`,
    );
  const port = u.port ? Number(u.port) : 6379;
  const t: RedisTarget = {
    host: u.hostname.replace(/^\[|\]$/g, ""),
    port,
    db: dbOf(u, "--queue"),
    tls: u.protocol === "rediss:",
    display: `${u.protocol}//${u.hostname}:${port}/${dbOf(u, "--queue")}`,
  };
  const envUrl = env[REDIS_URL_ENV];
  if (envUrl) {
    const e = parse(envUrl, REDIS_URL_ENV);
    const ePort = e.port ? Number(e.port) : 6379;
    if (e.hostname !== u.hostname || ePort !== port)
      throw new Error(
        `${REDIS_URL_ENV} names ${e.hostname}:${ePort} but --queue names ${u.hostname}:${port}: they must name the same server`,
      );
    if (e.username) t.username = decodeURIComponent(e.username);
    if (e.password) t.password = decodeURIComponent(e.password);
  }
  return t;
}

/**
 * ioredis options for BullMQ. BullMQ's workers block on Redis, so requests are retried
 * without limit once the server was reached (a restart of Redis is waited out).
 */
export function connectionOptions(t: RedisTarget): RedisOptions {
  return {
    host: t.host,
    port: t.port,
    db: t.db,
    ...(t.username ? { username: t.username } : {}),
    ...(t.password ? { password: t.password } : {}),
    ...(t.tls ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    connectTimeout: 5000,
  };
}

/** A plain client of the server (for the few keys schedlab keeps beside BullMQ's). */
export function redisClient(t: RedisTarget): import("ioredis").default {
  const IORedis = (require("ioredis") as { default: typeof import("ioredis").default }).default;
  const client = new IORedis(connectionOptions(t));
  client.on("error", () => {}); // BullMQ's own connections report connection trouble
  return client;
}

/** Asks the server for a PING within `timeoutMs`; throws a message naming the server otherwise. */
export async function checkRedis(t: RedisTarget, timeoutMs = 3000): Promise<void> {
  const IORedis = (require("ioredis") as { default: typeof import("ioredis").default }).default;
  const client = new IORedis({
    ...connectionOptions(t),
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // reported below, once: the socket's own error says more than "Connection is closed"
  let socketError: Error | null = null;
  client.on("error", (e: Error) => {
    socketError ??= e;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      (async () => {
        await client.connect();
        await client.ping();
      })(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (err) {
    const msg = (socketError ?? (err as Error)).message;
    if (/NOAUTH|WRONGPASS|invalid password|AUTH/i.test(msg))
      throw new Error(
        `Redis at ${t.display} refused the credentials (${msg}); set ${REDIS_URL_ENV}=redis://:PASSWORD@${t.host}:${t.port}`,
      );
    throw new Error(`cannot reach Redis at ${t.display}: ${msg}`);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
