// Where the queue lives: no password on a command line (it comes from SCHEDLAB_REDIS_URL, for the
// same server only), and a server that cannot be reached fails the sweep at once, naming it,
// with nothing written.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { checkRedis, redisTarget } from "../../src/sweeps/redis";
import { SMALL, runCli, tempDir } from "../support/sweep";
import { freePort } from "../support/redis";

test("--queue names the server; the password comes from SCHEDLAB_REDIS_URL for that server only", () => {
  const t = redisTarget("redis://10.0.0.5:6380/2", {});
  assert.deepEqual(
    [t.host, t.port, t.db, t.tls, t.password, t.display],
    ["10.0.0.5", 6380, 2, false, undefined, "redis://10.0.0.5:6380/2"],
  );
  const withPw = redisTarget("redis://10.0.0.5:6380", {
    SCHEDLAB_REDIS_URL: "redis://sweeper:p%40ss@10.0.0.5:6380",
  });
  assert.deepEqual([withPw.username, withPw.password], ["sweeper", "p@ss"]);
  assert.equal(redisTarget("rediss://h", {}).tls, true);
  assert.equal(redisTarget("redis://h", {}).port, 6379);
  assert.throws(
    () => redisTarget("redis://:hunter2@10.0.0.5:6380", {}),
    (e: Error) =>
      /--queue must not carry credentials .* put the URL with the password in SCHEDLAB_REDIS_URL/.test(
        e.message,
      ) && !e.message.includes("hunter2"),
  );
  assert.throws(
    () => redisTarget("redis://10.0.0.5:6380", { SCHEDLAB_REDIS_URL: "redis://:pw@10.0.0.6:6380" }),
    /SCHEDLAB_REDIS_URL names 10\.0\.0\.6:6380 but --queue names 10\.0\.0\.5:6380/,
  );
  assert.throws(
    () => redisTarget("http://h:1", {}),
    /--queue must start with redis:\/\/ or rediss:\/\/ \(got "http"\)/,
  );
  assert.throws(
    () => redisTarget("nope", {}),
    /--queue must be a URL redis:\/\/HOST:PORT \(got "nope"\)/,
  );
});

test("a server that never answers is given up after the timeout, naming it", async () => {
  // a loopback listener that accepts and says nothing
  const silent = net.createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  const port = (silent.address() as net.AddressInfo).port;
  try {
    await assert.rejects(
      checkRedis(redisTarget(`redis://127.0.0.1:${port}`, {}), 500),
      new RegExp(
        `cannot reach Redis at redis://127\\.0\\.0\\.1:${port}/0: no answer within 0\\.5 s`,
      ),
    );
  } finally {
    silent.close();
  }
});

test("sweep --queue to a port where no Redis listens fails at once and writes nothing", {
  timeout: 120_000,
}, async () => {
  const dir = tempDir("noredis");
  const db = path.join(dir, "q.duckdb");
  const port = await freePort();
  const r = await runCli(["sweep", SMALL, "--db", db, "--queue", `redis://127.0.0.1:${port}`]);
  assert.equal(r.code, 2, r.output);
  assert.match(
    r.output,
    new RegExp(
      `cannot reach Redis at redis://127\\.0\\.0\\.1:${port}/0: .*ECONNREFUSED.*; nothing was written`,
    ),
  );
  assert.deepEqual(fs.readdirSync(dir), []);
});
