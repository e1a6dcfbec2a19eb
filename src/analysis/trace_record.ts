// `schedlab trace record`: runs a command with the kernel's sched events on and writes a trace
// directory: trace.txt (tracefs's trace file, streamed), machine.json (this box as `schedlab
// machine import` reads it) and meta.json (trace_meta.ts). Every tracefs setting it changes is
// saved first and written back afterwards: after the command, when it fails, and on SIGINT /
// SIGTERM (forwarded to the command first). The directory is written under a temporary name
// and renamed at the end, so it is whole or absent.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import type { EventEmitter } from "node:events";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DEFAULT_PROFILE, importMachine } from "../machine/import";
import { readSysfsDir } from "../machine/sysfs";
import { VERSION } from "../version";
import type { TraceMeta } from "./trace_meta";
import {
  applySettings,
  parseSchedEvents,
  perCpuLost,
  restoreSettings,
  saveSettings,
  selectedClock,
  TRACEFS,
  tracefsMounted,
  tracingOn,
} from "./tracefs";

/** What `recordTrace` needs; the defaults are this box's. */
export interface RecordOptions {
  /** The command and its arguments. */
  command: string[];
  /** The trace directory to write (must not exist, or be empty). */
  out: string;
  /** Comma list of events/sched names (default DEFAULT_SCHED_EVENTS). */
  events?: string;
  /** buffer_size_kb per CPU during the recording (default: as it is). */
  bufferKb?: number;
  /** tracefs's root (default /sys/kernel/tracing). */
  tracefs?: string;
  /** The sysfs tree machine.json is read from (default /sys/devices/system). */
  sysfs?: string;
  /** The effective uid (default process.getuid()). */
  uid?: number;
  /** Mounts tracefs at a directory; throws if it cannot (default: mount -t tracefs). */
  mount?: (dir: string) => void;
  /** Where SIGINT / SIGTERM come from (default process). */
  signals?: EventEmitter;
  /** Messages for the user (default stderr). */
  log?: (line: string) => void;
  /** Called with the command's process once it is spawned. */
  onSpawn?: (child: ChildProcess) => void;
}

/** What a recording wrote. */
export interface RecordResult {
  /** The command's exit status (128 + signal number if a signal ended it; 127 if it did not start). */
  status: number;
  dir: string;
  meta: TraceMeta;
}

/** trace_clock during a recording. choice: `local` (sched_clock per CPU, tracefs's default and
 * the cheapest; on a box with a stable TSC its CPUs agree). */
export const RECORD_CLOCK = "local";

function mountTracefs(dir: string): void {
  const r = spawnSync("mount", ["-t", "tracefs", "nodev", dir], { encoding: "utf8" });
  if (r.status !== 0)
    throw new Error(
      `trace record: tracefs is not mounted at ${dir} and mounting it failed (${(r.stderr || r.error?.message || `status ${r.status}`).trim()}); mount it with: mount -t tracefs nodev ${dir}`,
    );
}

/** Refuses an --out that exists and holds anything: a recording never overwrites. */
export function checkOutDir(out: string): void {
  if (!fs.existsSync(out)) return;
  if (!fs.statSync(out).isDirectory())
    throw new Error(`trace record: --out ${out} is a file (give a new directory)`);
  if (fs.readdirSync(out).length > 0)
    throw new Error(
      `trace record: --out ${out} exists and is not empty (give a new directory; a recording is never written over another)`,
    );
}

/** Passes chunks through unchanged, adding up the `[LOST N EVENTS]` lines it sees. */
class LostCounter extends Transform {
  lost = 0;
  #carry = "";
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null) => void) {
    const text = this.#carry + chunk.toString("latin1");
    const cut = text.lastIndexOf("\n");
    this.#scan(cut < 0 ? "" : text.slice(0, cut));
    this.#carry = cut < 0 ? text : text.slice(cut + 1);
    this.push(chunk);
    done();
  }
  override _flush(done: (e?: Error | null) => void) {
    this.#scan(this.#carry);
    done();
  }
  #scan(s: string) {
    for (const m of s.matchAll(/\[LOST (\d+) EVENTS?\]/g)) this.lost += Number(m[1]);
  }
}

/** Runs `opts.command` under the sched events and writes the trace directory. */
export async function recordTrace(opts: RecordOptions): Promise<RecordResult> {
  const root = opts.tracefs ?? TRACEFS;
  const log = opts.log ?? ((s: string) => process.stderr.write(`${s}\n`));
  const signals = opts.signals ?? process;
  if (opts.command.length === 0)
    throw new Error("trace record: no command (give it after --, e.g. trace record -- sleep 1)");
  const uid = opts.uid ?? process.getuid?.() ?? -1;
  if (uid !== 0)
    throw new Error(
      `trace record: needs root to change tracefs settings (running as uid ${uid}); run it as root, e.g. with sudo`,
    );
  if (opts.bufferKb !== undefined && !(Number.isInteger(opts.bufferKb) && opts.bufferKb > 0))
    throw new Error(
      `trace record: --buffer-kb ${opts.bufferKb} (accepted: a positive integer, kB per CPU)`,
    );
  const out = path.resolve(opts.out);
  checkOutDir(out);
  if (!tracefsMounted(root)) {
    if (!fs.existsSync(root))
      throw new Error(`trace record: ${root} does not exist (no tracefs mount point)`);
    (opts.mount ?? mountTracefs)(root);
    if (!tracefsMounted(root))
      throw new Error(`trace record: ${root} holds no tracefs after mounting it`);
  }
  const events = parseSchedEvents(opts.events, root);
  const loadavgStart = fs.existsSync("/proc/loadavg")
    ? fs.readFileSync("/proc/loadavg", "utf8").trim()
    : "";
  const saved = saveSettings(root, events);
  const tmp = `${out}.tmp-${process.pid}`;
  fs.mkdirSync(tmp, { recursive: true });
  let child: ChildProcess | undefined;
  let signal: NodeJS.Signals | undefined;
  const abort = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    signal ??= sig;
    if (child && child.exitCode === null && child.signalCode === null) child.kill(sig);
    else abort.abort(new Error(`trace record: stopped by ${sig}`));
  };
  const onInt = () => onSignal("SIGINT");
  const onTerm = () => onSignal("SIGTERM");
  signals.on("SIGINT", onInt);
  signals.on("SIGTERM", onTerm);
  let renamed = false;
  try {
    applySettings(root, { clock: RECORD_CLOCK, bufferKb: opts.bufferKb, events });
    const clock = selectedClock(fs.readFileSync(path.join(root, "trace_clock"), "utf8"));
    const bufferSizeKb = Number(
      /^\d+/.exec(fs.readFileSync(path.join(root, "buffer_size_kb"), "utf8"))?.[0] ?? 0,
    );
    const date = new Date().toISOString();
    const t0 = process.hrtime.bigint();
    tracingOn(root, true);
    const status = await new Promise<number>((resolve) => {
      child = spawn(opts.command[0], opts.command.slice(1), { stdio: "inherit" });
      child.on("error", (e) => {
        log(`trace record: ${opts.command[0]}: ${e.message}`);
        resolve(127);
      });
      child.on("exit", (code, sig) =>
        resolve(code ?? 128 + (sig ? (os.constants.signals[sig] ?? 0) : 0)),
      );
      opts.onSpawn?.(child);
    });
    tracingOn(root, false);
    const durationS = Number(process.hrtime.bigint() - t0) / 1e9;
    const lostByCpu = perCpuLost(root);
    const counter = new LostCounter();
    await pipeline(
      fs.createReadStream(path.join(root, "trace")),
      counter,
      fs.createWriteStream(path.join(tmp, "trace.txt")),
      { signal: abort.signal },
    );
    const overrun = Object.values(lostByCpu).reduce((a, b) => a + b, 0);
    const lostEvents = Math.max(overrun, counter.lost);
    const machine = importMachine(readSysfsDir(opts.sysfs ?? "/sys/devices/system"), {
      profile: DEFAULT_PROFILE,
    });
    fs.writeFileSync(path.join(tmp, "machine.json"), `${JSON.stringify(machine.spec, null, 2)}\n`);
    const meta: TraceMeta = {
      kernelRelease: os.release(),
      command: [...opts.command],
      ...(child?.pid !== undefined ? { pid: child.pid } : {}),
      exitStatus: status,
      ...(signal ? { signal } : {}),
      traceClock: clock,
      nrCpus: os.cpus().length,
      events,
      bufferSizeKb,
      lostEvents,
      lostByCpu,
      durationS: Math.round(durationS * 1e6) / 1e6,
      loadavgStart,
      schedlab: VERSION,
      date,
    };
    fs.writeFileSync(path.join(tmp, "meta.json"), `${JSON.stringify(meta, null, 2)}\n`);
    if (lostEvents > 0)
      log(
        `trace record: the ring buffer lost ${lostEvents} events (${bufferSizeKb} kB per CPU); the trace has gaps. Record again with a larger buffer, e.g. --buffer-kb ${bufferSizeKb * 4}`,
      );
    checkOutDir(out);
    if (fs.existsSync(out)) fs.rmdirSync(out);
    fs.renameSync(tmp, out);
    renamed = true;
    return { status, dir: out, meta };
  } finally {
    const errors = restoreSettings(root, saved);
    signals.off("SIGINT", onInt);
    signals.off("SIGTERM", onTerm);
    for (const e of errors) log(`trace record: could not restore ${e}`);
    if (!renamed) fs.rmSync(tmp, { recursive: true, force: true });
  }
}
