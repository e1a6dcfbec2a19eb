// npm run lab: Debian's Jupyter notebook server on notebooks/ with the project's tslab kernel.
//
//   node --import tsx scripts/lab.ts [--port N] [--token T] [--no-build]
//
// Builds src/ to dist/, links notebooks/node_modules/schedlab and writes the kernelspec (as
// `npm run notebooks` does), then runs `jupyter notebook` on 127.0.0.1 and prints the address.
// New notebooks: `npx schedlab new-notebook NAME` writes notebooks/NAME.ipynb ready to run.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { build, linkPackage, writeKernelspec } from "./notebooks";

const ROOT = path.resolve(__dirname, "..");
const APT_HINT = "apt-get install -y --no-install-recommends jupyter-notebook";

/** How to start the server: the jupyter command line and its environment. */
export interface LabOptions {
  port: number;
  token: string;
  build: boolean;
  /** Where Jupyter keeps connection files (default: its own). */
  runtimeDir?: string;
  /** The folder served (default notebooks/). */
  dir?: string;
}

/** Prepares dist/, the package link and the kernelspec, and starts `jupyter notebook`. */
export function startLab(o: LabOptions, stdio: "inherit" | "pipe" = "inherit"): ChildProcess {
  const jupyter = "/usr/bin/jupyter-notebook";
  if (!fs.existsSync(jupyter))
    throw new Error(`${jupyter} not found; install it with: ${APT_HINT}`);
  if (o.build) build();
  linkPackage();
  const jupyterPath = writeKernelspec();
  const env = {
    ...process.env,
    JUPYTER_PATH: [jupyterPath, process.env.JUPYTER_PATH].filter(Boolean).join(path.delimiter),
    ...(o.runtimeDir ? { JUPYTER_RUNTIME_DIR: o.runtimeDir } : {}),
  };
  const args = [
    "--no-browser",
    "--ip=127.0.0.1",
    `--port=${o.port}`,
    "--port-retries=0",
    `--NotebookApp.token=${o.token}`,
    `--notebook-dir=${o.dir ?? path.join(ROOT, "notebooks")}`,
  ];
  // CI and containers run as root, which the server refuses without being told
  if (process.getuid?.() === 0) args.push("--allow-root");
  return spawn(jupyter, args, { env, stdio });
}

function main(argv: string[]): void {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const port = Number(get("--port") ?? 8888);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`--port must be an integer from 1 to 65535 (got ${get("--port")})`);
  const token = get("--token") ?? randomBytes(24).toString("hex");
  const child = startLab({ port, token, build: !argv.includes("--no-build") });
  console.log(`schedlab lab: http://127.0.0.1:${port}/tree?token=${token}  (Ctrl-C stops it)`);
  child.on("exit", (code) => process.exit(code ?? 0));
  process.on("SIGINT", () => child.kill("SIGINT"));
}

if (require.main === module) main(process.argv.slice(2));
