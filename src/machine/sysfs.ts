// What Linux says about a machine's CPUs, read from a sysfs tree (/sys/devices/system) or from
// lscpu's parseable output, as one table of CPU records. import.ts turns the table into a
// machine file. Files and fields are those of Documentation/ABI/stable/sysfs-devices-system-cpu
// and Documentation/ABI/testing/sysfs-devices-system-cpu (topology/, cache/index*/) and
// drivers/base/node.c (node*/cpulist, node*/distance).
import * as fs from "node:fs";
import * as path from "node:path";
import type { Machine } from "./types";

/** One logical CPU as sysfs or lscpu describes it; null where the source says nothing. */
export interface CpuRecord {
  cpu: number;
  online: boolean;
  package: number | null;
  die: number | null;
  /** topology/core_id: the core's number within its package (sysfs only). */
  coreId?: number | null;
  /** The CPUs of this CPU's core (thread_siblings_list / core_cpus_list). */
  coreCpus: number[] | null;
  /** The CPUs of this CPU's cluster (topology/cluster_cpus_list, v5.16+). */
  clusterCpus?: number[] | null;
  node: number | null;
  /** CPUs sharing this CPU's unified L2 (cache/indexN, level 2), and its size in bytes. */
  l2Cpus: number[] | null;
  l2Bytes: number | null;
  /** CPUs sharing this CPU's last-level cache (the highest-level unified cache). */
  llcCpus: number[] | null;
  llcBytes: number | null;
  llcLevel: number | null;
  /** cpu_capacity (asymmetric arm64 and hybrid x86), SCHED_CAPACITY_SCALE units. */
  capacity: number | null;
}

/** Every CPU the source lists, the node distance table if given, and what was missing. */
export interface CpuTable {
  source: string;
  cpus: CpuRecord[];
  nodeDistance: number[][] | null;
  /** Parts of the tree that were absent (each becomes a stated default, never a silent guess). */
  missing: string[];
  /** cpu/cpuidle/current_driver ("none": no cpuidle driver, the CPUs halt); absent: not read. */
  cpuidleDriver?: string;
}

/** Parses a kernel cpulist ("0-3,8,10-11"); `where` names the file in the error. */
export function parseCpuList(text: string, where: string): number[] {
  const s = text.trim();
  if (s === "") return [];
  const out: number[] = [];
  for (const part of s.split(",")) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m)
      throw new Error(
        `${where}: not a CPU list: ${JSON.stringify(text.trim())} (expected e.g. 0-3,8)`,
      );
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi < lo) throw new Error(`${where}: range ${part} runs backwards`);
    for (let c = lo; c <= hi; c++) out.push(c);
  }
  return out;
}

/** Formats CPUs as a kernel cpulist ("0-3,8"). */
export function formatCpuList(cpus: readonly number[]): string {
  const s = [...cpus].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < s.length; ) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j] + 1) j++;
    parts.push(i === j ? `${s[i]}` : `${s[i]}-${s[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

/** "48K", "2048K", "30M" (cache/indexN/size) in bytes. */
function parseSize(text: string, where: string): number {
  const m = /^(\d+)([KMG]?)$/.exec(text.trim());
  if (!m)
    throw new Error(
      `${where}: not a cache size: ${JSON.stringify(text.trim())} (expected e.g. 48K)`,
    );
  const unit = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2] as "" | "K" | "M" | "G"];
  return Number(m[1]) * unit;
}

/** A sysfs integer file ("3\n", "-1\n"); anything else (empty, "0x3", "3x", "3.0") is refused. */
function parseIntFile(text: string, where: string): number {
  const t = text.trim();
  if (!/^-?\d+$/.test(t))
    throw new Error(`${where}: not an integer: ${JSON.stringify(t)} (expected a decimal integer)`);
  return Number(t);
}

/** Reads files relative to a root; a missing file is undefined, any other error throws. */
export type FileReader = (rel: string) => string | undefined;

/** A FileReader on a directory of the real filesystem. */
export function dirReader(root: string): FileReader {
  return (rel) => {
    try {
      return fs.readFileSync(path.join(root, rel), "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw new Error(`${path.join(root, rel)}: ${(e as Error).message}`);
    }
  };
}

/** A FileReader on an in-memory tree (tests, and trees exported from a Machine). */
export function mapReader(files: Record<string, string>): FileReader {
  return (rel) => files[rel];
}

/**
 * Reads the CPU table of a sysfs tree rooted at `system` (normally /sys/devices/system, holding
 * cpu/ and node/). CPUs come from cpu/present (else cpu/possible, else the topology dirs found).
 */
export function readSysfs(
  read: FileReader,
  where = "/sys/devices/system",
  listDir?: (rel: string) => string[],
): CpuTable {
  const missing: string[] = [];
  const presentText = read("cpu/present") ?? read("cpu/possible");
  let present: number[];
  if (presentText !== undefined) present = parseCpuList(presentText, `${where}/cpu/present`);
  else {
    const dirs = listDir?.("cpu") ?? [];
    present = dirs
      .map((d) => /^cpu(\d+)$/.exec(d))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    if (present.length === 0)
      throw new Error(`${where}/cpu/present: missing, and no cpu*/ directories to count`);
    missing.push("cpu/present (CPUs counted from the cpu*/ directories)");
  }
  const onlineText = read("cpu/online");
  const online = new Set(
    onlineText === undefined ? present : parseCpuList(onlineText, `${where}/cpu/online`),
  );
  if (onlineText === undefined) missing.push("cpu/online (every present CPU taken as online)");

  const nodeOf = new Map<number, number>();
  const distances: number[][] = [];
  for (let n = 0; ; n++) {
    const list = read(`node/node${n}/cpulist`);
    if (list === undefined) break;
    for (const c of parseCpuList(list, `${where}/node/node${n}/cpulist`)) nodeOf.set(c, n);
    const d = read(`node/node${n}/distance`);
    if (d !== undefined) {
      const row = d
        .trim()
        .split(/\s+/)
        .map((x) => parseIntFile(x, `${where}/node/node${n}/distance`));
      distances.push(row);
    }
  }
  if (nodeOf.size === 0) missing.push("node/node*/cpulist (one NUMA node assumed)");

  const cpus: CpuRecord[] = [];
  let noCache = false;
  let noTopology = false;
  for (const cpu of present) {
    const base = `cpu/cpu${cpu}`;
    const f = (name: string) => read(`${base}/${name}`);
    const w = (name: string) => `${where}/${base}/${name}`;
    const pkg = f("topology/physical_package_id");
    const siblings = f("topology/thread_siblings_list") ?? f("topology/core_cpus_list");
    if (pkg === undefined && online.has(cpu)) noTopology = true;
    const rec: CpuRecord = {
      cpu,
      online: online.has(cpu),
      package: pkg === undefined ? null : parseIntFile(pkg, w("topology/physical_package_id")),
      die: (() => {
        const d = f("topology/die_id");
        return d === undefined ? null : parseIntFile(d, w("topology/die_id"));
      })(),
      coreId: (() => {
        // not needed to rebuild the machine (the sibling lists are), but a malformed one is a
        // malformed tree: refused naming the file and the value, as every other file read here
        const c = f("topology/core_id");
        return c === undefined ? null : parseIntFile(c, w("topology/core_id"));
      })(),
      coreCpus:
        siblings === undefined ? null : parseCpuList(siblings, w("topology/thread_siblings_list")),
      clusterCpus: (() => {
        const id = f("topology/cluster_id");
        if (id !== undefined) parseIntFile(id, w("topology/cluster_id"));
        const c = f("topology/cluster_cpus_list");
        return c === undefined ? null : parseCpuList(c, w("topology/cluster_cpus_list"));
      })(),
      node: nodeOf.get(cpu) ?? null,
      l2Cpus: null,
      l2Bytes: null,
      llcCpus: null,
      llcBytes: null,
      llcLevel: null,
      capacity: (() => {
        const c = f("cpu_capacity");
        return c === undefined ? null : parseIntFile(c, w("cpu_capacity"));
      })(),
    };
    let sawCache = false;
    for (let i = 0; i < 16; i++) {
      const level = f(`cache/index${i}/level`);
      if (level === undefined) continue;
      sawCache = true;
      const type = (f(`cache/index${i}/type`) ?? "").trim();
      if (type !== "Unified") continue;
      const lv = parseIntFile(level, w(`cache/index${i}/level`));
      const sharedText = f(`cache/index${i}/shared_cpu_list`);
      if (sharedText === undefined)
        throw new Error(`${w(`cache/index${i}/shared_cpu_list`)}: missing`);
      const shared = parseCpuList(sharedText, w(`cache/index${i}/shared_cpu_list`));
      const sizeText = f(`cache/index${i}/size`);
      const size = sizeText === undefined ? null : parseSize(sizeText, w(`cache/index${i}/size`));
      if (lv === 2) {
        rec.l2Cpus = shared;
        rec.l2Bytes = size;
      }
      if (rec.llcLevel === null || lv > rec.llcLevel) {
        rec.llcLevel = lv;
        rec.llcCpus = shared;
        rec.llcBytes = size;
      }
    }
    if (!sawCache && rec.online) noCache = true;
    cpus.push(rec);
  }
  if (noTopology) missing.push("cpu*/topology/ (each CPU taken as its own core in one package)");
  if (noCache) missing.push("cpu*/cache/ (one L2 per core and one LLC per package assumed)");
  const driver = read("cpu/cpuidle/current_driver")?.trim();
  return {
    source: where,
    cpus,
    nodeDistance: distances.length ? distances : null,
    missing,
    ...(driver ? { cpuidleDriver: driver } : {}),
  };
}

/** Reads a sysfs tree from a directory (normally /sys/devices/system). */
export function readSysfsDir(dir = "/sys/devices/system"): CpuTable {
  if (!fs.existsSync(path.join(dir, "cpu")))
    throw new Error(`${dir}: no cpu/ directory here (expected a tree like /sys/devices/system)`);
  return readSysfs(dirReader(dir), dir, (rel) => fs.readdirSync(path.join(dir, rel)));
}

/**
 * Reads `lscpu -p=CPU,CORE,SOCKET,NODE,CACHE` (or plain `lscpu -p`) or `lscpu -e` output. The
 * cache column gives, per level, the id of the cache instance a CPU uses (L1d:L1i:L2:L3), so
 * CPUs with the same id share it. lscpu prints no cache sizes: they are left to the profile.
 */
export function readLscpu(text: string, where = "lscpu"): CpuTable {
  const lines = text
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "");
  const headerAt = lines.findIndex((l) =>
    l.startsWith("#") ? /CPU/.test(l) && l.includes(",") : /^\s*CPU\s/.test(l),
  );
  if (headerAt < 0)
    throw new Error(
      `${where}: no header line (expected the output of lscpu -p=CPU,CORE,SOCKET,NODE,CACHE or lscpu -e)`,
    );
  const header = lines[headerAt];
  const parseable = header.startsWith("#");
  const cols = parseable
    ? header
        .replace(/^#\s*/, "")
        .split(",")
        .map((c) => c.trim().toUpperCase())
    : header
        .trim()
        .split(/\s+/)
        .map((c) => c.toUpperCase());
  const col = (name: string) => cols.indexOf(name);
  const iCpu = col("CPU");
  if (iCpu < 0) throw new Error(`${where}: the header has no CPU column (got ${header})`);
  // -p puts the cache ids after an empty column, one column per level; -e joins them with ':'
  const cacheCols = parseable
    ? cols.map((c, i) => [c, i] as const).filter(([c]) => /^L\d/.test(c))
    : [];
  const iCacheE = parseable ? -1 : cols.findIndex((c) => /^L1D:/.test(c));
  const cacheNames = parseable
    ? cacheCols.map(([c]) => c)
    : iCacheE >= 0
      ? cols[iCacheE].split(":")
      : [];
  const cpus: CpuRecord[] = [];
  const byLevel = new Map<string, Map<string, number[]>>();
  const rows: Array<{ cpu: number; caches: Record<string, string>; core: string | null }> = [];
  const iCore = col("CORE");
  for (const line of lines.slice(headerAt + 1)) {
    if (line.startsWith("#")) continue;
    const f = parseable ? line.split(",") : line.trim().split(/\s+/);
    const num = (name: string): number | null => {
      const i = col(name);
      if (i < 0 || f[i] === undefined || f[i] === "" || f[i] === "-") return null;
      const v = Number(f[i]);
      if (!Number.isInteger(v))
        throw new Error(
          `${where}: ${name} must be an integer (got ${JSON.stringify(f[i])} in "${line}")`,
        );
      return v;
    };
    const cpu = num("CPU");
    if (cpu === null) throw new Error(`${where}: a line without a CPU number: "${line}"`);
    const caches: Record<string, string> = {};
    if (parseable) for (const [c, i] of cacheCols) caches[c] = f[i] ?? "";
    else if (iCacheE >= 0)
      for (const [k, id] of (f[iCacheE] ?? "").split(":").entries()) caches[cacheNames[k]] = id;
    const onlineCol = col("ONLINE");
    cpus.push({
      cpu,
      online: onlineCol < 0 ? true : f[onlineCol] === "yes",
      package: num("SOCKET"),
      die: null,
      coreCpus: null,
      node: num("NODE"),
      l2Cpus: null,
      l2Bytes: null,
      llcCpus: null,
      llcBytes: null,
      llcLevel: null,
      capacity: null,
    });
    rows.push({ cpu, caches, core: iCore >= 0 ? (f[iCore] ?? null) : null });
    for (const [name, id] of Object.entries(caches)) {
      if (id === "" || id === "-") continue;
      let m = byLevel.get(name);
      if (!m) {
        m = new Map();
        byLevel.set(name, m);
      }
      const list = m.get(id);
      if (list) list.push(cpu);
      else m.set(id, [cpu]);
    }
  }
  // cores: CPUs with the same (SOCKET, CORE)
  if (iCore >= 0) {
    const groups = new Map<string, number[]>();
    const keyOf = new Map<number, string>();
    rows.forEach(({ cpu, core }, k) => {
      const key = `${cpus[k].package}:${core}`;
      keyOf.set(cpu, key);
      const g = groups.get(key);
      if (g) g.push(cpu);
      else groups.set(key, [cpu]);
    });
    for (const r of cpus) r.coreCpus = groups.get(keyOf.get(r.cpu)!)!;
  }
  const levels = [...byLevel.keys()].filter((n) => /^L\d$/.test(n)).sort();
  const llcName = levels.at(-1);
  for (const { cpu, caches } of rows) {
    const r = cpus.find((x) => x.cpu === cpu)!;
    if (caches.L2 && byLevel.get("L2")?.get(caches.L2))
      r.l2Cpus = byLevel.get("L2")!.get(caches.L2)!;
    if (llcName && caches[llcName] && byLevel.get(llcName)?.get(caches[llcName])) {
      r.llcCpus = byLevel.get(llcName)!.get(caches[llcName])!;
      r.llcLevel = Number(llcName.slice(1));
    }
  }
  // node distances are not printed either; import says so when there is more than one node
  const missing = [
    "cache sizes (lscpu does not print them: the profile's are used)",
    "die ids (lscpu prints no die ids: one die per package assumed)",
  ];
  if (iCore < 0) missing.push("CORE column (each CPU taken as its own core)");
  if (!llcName) missing.push("CACHE column (one L2 per core and one LLC per package assumed)");
  return { source: where, cpus: cpus.sort((a, b) => a.cpu - b.cpu), nodeDistance: null, missing };
}

/**
 * The sysfs files (relative to /sys/devices/system) that Linux would show for `m`: topology/,
 * cache/index2 and index3 (the L2 and the LLC, as unified caches), nodeN/cpulist and distance,
 * cpu/present and cpu/online. Offline CPUs keep no topology/ or cache/ directory, as on Linux.
 */
export function sysfsFilesOf(m: Machine): Record<string, string> {
  const files: Record<string, string> = {};
  const all = m.cpus.map((c) => c.id);
  files["cpu/present"] = `${formatCpuList(all)}\n`;
  files["cpu/possible"] = `${formatCpuList(all)}\n`;
  files["cpu/online"] = `${formatCpuList(all.filter((c) => m.online[c]))}\n`;
  const group = (key: (c: Machine["cpus"][number]) => number, cpu: number) => {
    const k = key(m.cpus[cpu]);
    // offline CPUs leave the sibling and cache masks, as remove_siblinginfo does
    return formatCpuList(m.cpus.filter((c) => key(c) === k && m.online[c.id]).map((c) => c.id));
  };
  const llcIsL2 = m.cpus.every((c) => m.cpus.every((d) => (c.l2 === d.l2) === (c.llc === d.llc)));
  for (const c of m.cpus) {
    if (!m.online[c.id]) continue;
    const b = `cpu/cpu${c.id}`;
    files[`${b}/topology/physical_package_id`] = `${c.package}\n`;
    files[`${b}/topology/die_id`] = `${c.die}\n`;
    files[`${b}/topology/core_id`] = `${c.core}\n`;
    files[`${b}/topology/thread_siblings_list`] = `${group((x) => x.core, c.id)}\n`;
    files[`${b}/topology/core_cpus_list`] = `${group((x) => x.core, c.id)}\n`;
    files[`${b}/topology/package_cpus_list`] = `${group((x) => x.package, c.id)}\n`;
    files[`${b}/topology/die_cpus_list`] = `${group((x) => x.die, c.id)}\n`;
    // the model's cluster is the L2 instance (x86: cpu_l2c_id; arm64 A53/A55: the L2 cluster)
    files[`${b}/topology/cluster_id`] = `${c.l2}\n`;
    files[`${b}/topology/cluster_cpus_list`] = `${group((x) => x.l2, c.id)}\n`;
    files[`${b}/cpu_capacity`] = `${c.capacity}\n`;
    files[`${b}/cache/index0/level`] = "1\n";
    files[`${b}/cache/index0/type`] = "Data\n";
    files[`${b}/cache/index0/shared_cpu_list`] = `${group((x) => x.core, c.id)}\n`;
    files[`${b}/cache/index0/size`] = "32K\n";
    files[`${b}/cache/index2/level`] = "2\n";
    files[`${b}/cache/index2/type`] = "Unified\n";
    files[`${b}/cache/index2/shared_cpu_list`] = `${group((x) => x.l2, c.id)}\n`;
    files[`${b}/cache/index2/size`] = `${m.caches.l2Bytes / 1024}K\n`;
    if (!llcIsL2) {
      files[`${b}/cache/index3/level`] = "3\n";
      files[`${b}/cache/index3/type`] = "Unified\n";
      files[`${b}/cache/index3/shared_cpu_list`] = `${group((x) => x.llc, c.id)}\n`;
      files[`${b}/cache/index3/size`] = `${m.caches.llcBytes / 1024}K\n`;
    }
  }
  const nodes = [...new Set(m.cpus.map((c) => c.node))].sort((a, b) => a - b);
  for (const n of nodes) {
    files[`node/node${n}/cpulist`] =
      `${formatCpuList(m.cpus.filter((c) => c.node === n).map((c) => c.id))}\n`;
    files[`node/node${n}/distance`] = `${m.nodeDistance[n].join(" ")}\n`;
  }
  return files;
}
