// npm run lab: the notebook server starts on loopback with a token, lists the project's tslab
// kernel, shows a notebook written by `schedlab new-notebook`, and runs a cell in that kernel.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { startLab } from "../scripts/lab";
import { newNotebook } from "../src/notebook/template";

const JUPYTER = "/usr/bin/jupyter-notebook";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

test("npm run lab serves the notebooks with the tslab kernel on loopback and runs a cell in it", {
  skip: fs.existsSync(JUPYTER)
    ? false
    : `${JUPYTER} is not installed (.ci/run installs jupyter-notebook)`,
  timeout: 180_000,
}, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-lab-"));
  const nb = newNotebook("first-try", dir);
  const port = await freePort();
  const token = randomBytes(12).toString("hex");
  const server = startLab(
    { port, token, build: false, dir, runtimeDir: path.join(dir, "runtime") },
    "pipe",
  );
  const base = `http://127.0.0.1:${port}`;
  let log = "";
  server.stderr?.on("data", (d) => {
    log = (log + String(d)).slice(-2000);
  });
  server.stdout?.resume();
  try {
    // wait for the server to answer
    let up = false;
    for (let i = 0; i < 120 && !up; i++) {
      try {
        up = (await fetch(`${base}/api/status`, { headers: { Authorization: `token ${token}` } }))
          .ok;
      } catch {
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    assert.ok(up, `the server did not answer within 60 s (exit ${server.exitCode}): ${log}`);
    // without the token it refuses
    assert.equal((await fetch(`${base}/api/kernelspecs`)).status, 403);
    const content = (await (
      await fetch(`${base}/api/contents/${path.basename(nb)}`, {
        headers: { Authorization: `token ${token}` },
      })
    ).json()) as { type: string; content: { metadata: { kernelspec: { name: string } } } };
    assert.equal(content.type, "notebook");
    assert.equal(content.content.metadata.kernelspec.name, "tslab");
    // one TypeScript cell through the server's tslab kernel (Node's WebSocket: Node 20 needs the flag)
    const probe = spawnSync(
      process.execPath,
      [
        "--experimental-websocket",
        "--no-warnings",
        "--import",
        "tsx",
        path.join(__dirname, "..", "scripts", "lab-probe.ts"),
        base,
        token,
        "tslab",
        'const x: number = 6 * 7;\nconsole.log("answer " + x);',
      ],
      { encoding: "utf8", timeout: 150_000 },
    );
    assert.equal(probe.status, 0, probe.stderr);
    const r = JSON.parse(probe.stdout);
    assert.ok(r.kernelspecs.includes("tslab"), `kernelspecs: ${r.kernelspecs}`);
    assert.equal(r.status, "ok", r.output);
    assert.match(r.output, /answer 42/);
  } finally {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
  }
});

test("new-notebook refuses a path-like name and an existing notebook", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-nb-"));
  assert.throws(() => newNotebook("../escape", dir), /NAME must be a plain file name/);
  newNotebook("one", dir);
  assert.throws(() => newNotebook("one.ipynb", dir), /one.ipynb exists; pick another NAME/);
});
