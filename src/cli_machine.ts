// `schedlab machine import [DIR|FILE|-]`: a machine file from a sysfs tree (default
// /sys/devices/system) or from lscpu output (a file, or - for stdin), printed on stdout or
// written with -o. What could not be read, and every borrowed figure, is said on stderr.
import * as fs from "node:fs";
import { DEFAULT_PROFILE, importMachine } from "./machine/import";
import { machineFigures } from "./machine/profiles";
import { readLscpu, readSysfsDir } from "./machine/sysfs";
import { writeFileAtomic } from "./report/files";

/** Flags of `schedlab machine import`. */
export interface MachineImportFlags {
  profile?: string;
  name?: string;
  output?: string;
}

/** Runs `machine import`; returns the exit status. */
export function machineImportCmd(source: string | undefined, flags: MachineImportFlags): number {
  const src = source ?? "/sys/devices/system";
  let table: ReturnType<typeof readLscpu>;
  if (src === "-") table = readLscpu(fs.readFileSync(0, "utf8"), "lscpu (stdin)");
  else if (!fs.existsSync(src))
    throw new Error(
      `machine import: ${src} does not exist (give a sysfs directory such as /sys/devices/system, an lscpu output file, or - for stdin)`,
    );
  else if (fs.statSync(src).isDirectory()) table = readSysfsDir(src);
  else table = readLscpu(fs.readFileSync(src, "utf8"), src);
  const res = importMachine(table, { profile: flags.profile ?? DEFAULT_PROFILE, name: flags.name });
  for (const w of res.warnings) process.stderr.write(`warning: ${w}\n`);
  const t = res.spec.topology;
  process.stderr.write(
    `imported ${t.sockets} package(s) x ${t.coresPerSocket} core(s) x ${t.threadsPerCore} thread(s), LLC per ${t.llc}, ${t.nodes} node(s), ${t.numbering} numbering\n`,
  );
  // Which figures were chosen, and which of them are guesses even for the profile's own machine.
  const figures = machineFigures(res.machine);
  const guesses = figures.filter((f) => f.startsWith("guess")).length;
  const profile = flags.profile ?? DEFAULT_PROFILE;
  process.stderr.write(
    `figures chosen (costs and idle states from profile ${profile}, not measured here; ${figures.length - guesses} cite a source, ${guesses} are guesses):\n`,
  );
  for (const f of figures) process.stderr.write(`  ${f}\n`);
  const json = `${JSON.stringify(res.spec, null, 2)}\n`;
  if (flags.output) writeFileAtomic(flags.output, json);
  else process.stdout.write(json);
  return 0;
}
