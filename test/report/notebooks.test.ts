import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { cellFailures, writeKernelspec, type NbCell } from "../../scripts/notebooks";

const ROOT = path.resolve(__dirname, "..", "..");
const code = (
  source: string,
  status?: string,
  outputs: NbCell["outputs"] = [],
  tags?: string[],
): NbCell => ({
  cell_type: "code",
  source,
  metadata: { ...(status ? { schedlab: { status } } : {}), ...(tags ? { tags } : {}) },
  outputs,
});

test("cellFailures reads the failing cell's stderr text from the executed notebook", () => {
  const nb = {
    cells: [
      { cell_type: "markdown", source: "# t" },
      code("console.error('warn')", "ok", [
        { output_type: "stream", name: "stderr", text: ["warn\n"] },
      ]),
      code("throw new Error('x')", "error", [
        { output_type: "stream", name: "stdout", text: "out\n" },
        {
          output_type: "stream",
          name: "stderr",
          text: ["Error: \u001b[31mx\u001b[0m\n", "    at f\n"],
        },
      ]),
      code("next()", "abort"),
      code("expected()", "error", [], ["raises-exception"]),
    ],
  };
  const f = cellFailures(nb);
  assert.equal(f.length, 2);
  assert.match(
    f[0],
    /^cell 2 \(code cell 2\) failed \(status error\):\n {4}\| throw new Error\('x'\)\n {2}error:\n {4}Error: x\n {8}at f$/,
  );
  assert.match(f[1], /cell 3 \(code cell 3\) was aborted/);
  assert.deepEqual(cellFailures({ cells: [code("a", "ok")] }), []);
  assert.match(cellFailures({ cells: [code("a")] })[0], /no execution record/);
});

test("kernelspec: tslab kernel with absolute paths, kept out of git", () => {
  const dir = writeKernelspec();
  const spec = JSON.parse(
    fs.readFileSync(path.join(dir, "kernels", "tslab", "kernel.json"), "utf8"),
  );
  assert.deepEqual(spec.argv.slice(2), ["kernel", "--config-path", "{connection_file}"]);
  assert.ok(path.isAbsolute(spec.argv[0]) && path.isAbsolute(spec.argv[1]));
  assert.equal(spec.argv[1], path.join(ROOT, "node_modules", "tslab", "bin", "tslab"));
  assert.equal(fs.readFileSync(path.join(dir, ".gitignore"), "utf8"), "*\n");
});

test("a missing Jupyter fails with the install command, also under CI", () => {
  const r = spawnSync(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "scripts", "notebooks.ts"), "--no-build"],
    {
      cwd: ROOT,
      env: { ...process.env, JUPYTER: "/nonexistent/jupyter", CI: "true" },
      encoding: "utf8",
    },
  );
  assert.equal(r.status, 1);
  assert.match(r.stderr, /apt-get install -y --no-install-recommends jupyter-nbconvert/);
});
