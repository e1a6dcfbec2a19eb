// A directory with the files of a tracefs mount that a sched recording reads and writes, in the
// formats the kernel prints them (kernel/trace/trace.c): settings that differ from a recording's
// own, so a test sees whether each was changed and written back.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { preset } from "../../src/machine/presets";
import { sysfsFilesOf } from "../../src/machine/sysfs";
import { DEFAULT_SCHED_EVENTS } from "../../src/analysis/tracefs";

export const FAKE_EVENTS = [...DEFAULT_SCHED_EVENTS, "sched_stat_runtime"];

/** The fake's settings before any recording. */
export const FAKE_BEFORE = {
  tracing_on: "1",
  buffer_size_kb: "7 (expanded: 1408)",
  trace_clock: "local [global] counter uptime perf",
  current_tracer: "function",
};

const stats = (overrun: number, dropped: number) =>
  `entries: 0\noverrun: ${overrun}\ncommit overrun: 0\nbytes: 0\noldest event ts: 1.000000\nnow ts: 2.000000\ndropped events: ${dropped}\nread events: 0\n`;

/** A fresh fake tracefs root; sched_stat_runtime is enabled, the others are not. */
export function fakeTracefs(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-tracefs-"));
  for (const [f, v] of Object.entries(FAKE_BEFORE)) fs.writeFileSync(path.join(root, f), `${v}\n`);
  fs.writeFileSync(path.join(root, "trace"), "# tracer: function\nold contents\n");
  for (const e of FAKE_EVENTS) {
    fs.mkdirSync(path.join(root, "events", "sched", e), { recursive: true });
    fs.writeFileSync(
      path.join(root, "events", "sched", e, "enable"),
      e === "sched_stat_runtime" ? "1\n" : "0\n",
    );
  }
  fs.mkdirSync(path.join(root, "per_cpu", "cpu0"), { recursive: true });
  fs.mkdirSync(path.join(root, "per_cpu", "cpu1"), { recursive: true });
  fs.writeFileSync(path.join(root, "per_cpu", "cpu0", "stats"), stats(5, 2));
  fs.writeFileSync(path.join(root, "per_cpu", "cpu1", "stats"), stats(0, 0));
  return root;
}

/** Every file of the fake but `trace` and the stats, as text: compare before and after. */
export function settingsOf(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of Object.keys(FAKE_BEFORE))
    out[f] = fs.readFileSync(path.join(root, f), "utf8").trim();
  for (const e of FAKE_EVENTS)
    out[e] = fs.readFileSync(path.join(root, "events", "sched", e, "enable"), "utf8").trim();
  return out;
}

/** A sysfs tree (relative to /sys/devices/system) of a 4-CPU preset, for machine.json. */
export function fakeSysfs(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-sysfs-"));
  for (const [f, v] of Object.entries(sysfsFilesOf(preset("core2-2x2")))) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), v);
  }
  return root;
}
