// A machine file from what Linux says about a real machine (sysfs.ts's CPU table): the topology
// parameters of the preset schema, inferred and then checked CPU by CPU against the machine
// they build, and the costs of a chosen profile, each marked as not measured on this machine.
import { NUMBERINGS, type LlcSpan } from "./builder";
import { machineFromSpec, presetSpec } from "./presets";
import { profilePreset } from "./profiles";
import type { MachineSpec } from "./schema";
import type { CpuRecord, CpuTable } from "./sysfs";
import type { Machine } from "./types";

/** Options of an import: the machine's name and the preset whose costs it borrows. */
export interface ImportOptions {
  /** The machine's name (default "imported"). */
  name?: string;
  /**
   * The cost profile (profiles.ts: x86-server-2019, arm64-a53-2016, ...) or preset whose cost
   * figures, idle states and (where the source has none) cache sizes are used (default "x86-104t").
   */
  profile?: string;
}

/** The machine file, what could not be read and was defaulted, and the CPUs that were offline. */
export interface ImportResult {
  spec: MachineSpec;
  /** The machine `spec` builds (already built to check it against the source). */
  machine: Machine;
  /** One line per default taken or figure borrowed: print them, they are guesses. */
  warnings: string[];
  /** Present CPUs that were offline when read (place them offline with `.offline(...)`). */
  offline: number[];
}

/** The preset whose costs an import borrows unless told otherwise: a recent x86 server. */
export const DEFAULT_PROFILE = "x86-104t";

/** A machine file for the CPUs of `t`; throws, naming the source and the field, where the
 * layout is not one the preset schema can describe. */
export function importMachine(t: CpuTable, opts: ImportOptions = {}): ImportResult {
  const where = t.source;
  const profile = opts.profile ?? DEFAULT_PROFILE;
  const profileSource = profilePreset(profile); // throws naming the accepted profiles
  const warnings = t.missing.map((m) => `${where}: missing ${m}`);
  const present = t.cpus.map((c) => c.cpu);
  if (present.length === 0) throw new Error(`${where}: no CPUs listed`);
  present.forEach((c, i) => {
    if (c !== i)
      throw new Error(
        `${where}: present CPUs must be 0..${present.length - 1} (cpu ${i} is missing); sparse numbering is not modelled`,
      );
  });
  const known = t.cpus.filter((c) => c.online && c.package !== null);
  const placed = known.length > 0 ? known : t.cpus.filter((c) => c.online);
  const offline = t.cpus.filter((c) => !c.online).map((c) => c.cpu);
  if (offline.length)
    warnings.push(
      `cpu ${offline.join(",")}: offline when read; placed by the regular layout of the others (take them offline with .offline(${offline.join(", ")}))`,
    );

  const pkgOf = (c: CpuRecord) => c.package ?? 0;
  const dieKey = (c: CpuRecord) => `${pkgOf(c)}:${c.die ?? 0}`;
  const coreOf = (c: CpuRecord) => c.coreCpus ?? [c.cpu];
  const sockets = new Set(placed.map(pkgOf)).size;
  const dies = new Set(placed.map(dieKey)).size / sockets;
  const threads = Math.max(...placed.map((c) => coreOf(c).length));
  const total = present.length;
  const coresPerSocket = total / (sockets * threads);
  if (!Number.isInteger(dies))
    throw new Error(
      `${where}: topology/die_id: packages have different numbers of dies; not modelled`,
    );
  if (!Number.isInteger(coresPerSocket))
    throw new Error(
      `${where}: ${total} CPUs do not divide into ${sockets} package(s) of cores with ${threads} thread(s) each; irregular machines are not modelled`,
    );
  const first = placed[0];
  const l2SharedBy = first.l2Cpus ? first.l2Cpus.length / threads : 1;
  if (!Number.isInteger(l2SharedBy) || l2SharedBy < 1)
    throw new Error(
      `${where}: cpu${first.cpu}/cache L2 shared_cpu_list ${first.l2Cpus} is not whole cores`,
    );
  const nodes = new Set(placed.map((c) => c.node ?? 0)).size;
  // Clusters (CLS, 5.16+) are modelled as the CPUs sharing an L2; say so where Linux differs.
  const odd = placed.find((c) => c.clusterCpus && c.l2Cpus && !sameSet(c.clusterCpus, c.l2Cpus));
  if (odd)
    warnings.push(
      `cpu${odd.cpu}: topology/cluster_cpus_list ${odd.clusterCpus!.join(",")} differs from its L2 sharing ${odd.l2Cpus!.join(",")}; the model's clusters (the CLS level) follow the L2`,
    );

  let llc: LlcSpan = "package";
  if (first.llcCpus) {
    const same = (a: number[]) => sameSet(a, first.llcCpus!);
    const pkgCpus = placed.filter((c) => pkgOf(c) === pkgOf(first)).map((c) => c.cpu);
    const dieCpus = placed.filter((c) => dieKey(c) === dieKey(first)).map((c) => c.cpu);
    const online = (list: number[]) => list.filter((c) => t.cpus[c]?.online);
    if (first.l2Cpus && same(first.l2Cpus)) llc = "l2";
    else if (same(online(dieCpus)) && dies > 1) llc = "die";
    else if (same(online(pkgCpus)) || same(pkgCpus)) llc = "package";
    else
      throw new Error(
        `${where}: cpu${first.cpu}'s last-level cache (L${first.llcLevel}, CPUs ${first.llcCpus.join(",")}) spans neither its L2, its die nor its package; accepted: LLC per l2, die or package`,
      );
  }

  const caps = new Set(placed.map((c) => c.capacity ?? 1024));
  const capacity = Math.max(...caps);
  // Asymmetric (arm64 big.LITTLE): one capacity per CPU, as cpu_capacity gives it.
  let capacities: number[] | undefined;
  if (caps.size > 1) {
    capacities = t.cpus.map((c) => c.capacity ?? capacity);
    const unknown = t.cpus.filter((c) => c.capacity === null).map((c) => c.cpu);
    if (unknown.length)
      warnings.push(
        `cpu ${unknown.join(",")}: no cpu_capacity (offline?); taken as ${capacity}, the largest`,
      );
  }

  const prof = presetSpec(profileSource);
  const borrowed = (what: string) => `profile ${profile}, not measured on this machine: ${what}`;
  type Draw = {
    medianNs: { value: number; source: string };
    logSd: { value: number; source: string };
  };
  const borrowedDraw = (d: Draw): Draw => ({
    medianNs: { ...d.medianNs, source: borrowed(d.medianNs.source) },
    logSd: { ...d.logSd, source: borrowed(d.logSd.source) },
  });
  const costs = JSON.parse(JSON.stringify(prof.costs)) as MachineSpec["costs"];
  for (const fig of Object.values(costs) as Array<Record<string, unknown>>) {
    if (typeof fig.source === "string") fig.source = borrowed(fig.source);
    else
      for (const lv of Object.values(fig) as Array<{ source: string }>)
        lv.source = borrowed(lv.source);
  }
  const idleStates =
    t.cpuidleDriver === "none"
      ? haltState(where)
      : prof.idleStates.map((s) => ({
          name: s.name,
          polling: s.polling,
          exitLatencyNs: { ...s.exitLatencyNs, source: borrowed(s.exitLatencyNs.source) },
          targetResidencyNs: {
            ...s.targetResidencyNs,
            source: borrowed(s.targetResidencyNs.source),
          },
          ...(s.coreExitLatencyNs && {
            coreExitLatencyNs: {
              ...s.coreExitLatencyNs,
              source: borrowed(s.coreExitLatencyNs.source),
            },
          }),
          ...(s.packageScope && {
            packageScope: { ...s.packageScope, source: borrowed(s.packageScope.source) },
          }),
          ...(s.exitDraw && {
            exitDraw: {
              core: borrowedDraw(s.exitDraw.core),
              packageExtra: borrowedDraw(s.exitDraw.packageExtra),
            },
          }),
        }));
  warnings.push(
    t.cpuidleDriver === "none"
      ? `costs: every figure borrowed from profile ${profile} (guesses for this machine); idle: no cpuidle driver, so the CPUs halt (HLT), exit latency a choice to calibrate`
      : `costs and idle states: every figure borrowed from profile ${profile} (guesses for this machine)`,
  );
  const cacheFigure = (bytes: number | null, kind: "l2Bytes" | "llcBytes", file: string) => {
    if (bytes !== null)
      return { value: bytes, source: `${where}: cpu${first.cpu}/cache ${file} size` };
    warnings.push(
      `caches.${kind}: not in the source; profile ${profile}'s ${prof.caches[kind].value} bytes used`,
    );
    return { value: prof.caches[kind].value, source: borrowed(prof.caches[kind].source) };
  };

  const name = opts.name ?? "imported";
  const base: Omit<MachineSpec, "topology"> & {
    topology: Omit<MachineSpec["topology"], "numbering">;
  } = {
    name,
    description: `Imported from ${where}: ${sockets} package(s) x ${coresPerSocket} core(s) x ${threads} thread(s), ${nodes} NUMA node(s); costs from profile ${profile}`,
    topology: {
      sockets,
      diesPerSocket: dies,
      coresPerSocket,
      threadsPerCore: threads,
      l2SharedBy,
      llc,
      nodes,
      // sysfs does not say; the profile's machine does (the rq spinlock kind follows it)
      ...(prof.topology.arch ? { arch: prof.topology.arch } : {}),
      capacity,
      ...(capacities ? { capacities } : {}),
      source: `imported from ${where} (physical_package_id, die_id, thread_siblings_list, cache/index*/shared_cpu_list, node*/cpulist)`,
    },
    caches: {
      l2Bytes: cacheFigure(first.l2Bytes, "l2Bytes", "L2"),
      llcBytes: cacheFigure(first.llcBytes, "llcBytes", `L${first.llcLevel ?? "?"}`),
    },
    costs,
    idleStates,
  };
  if (t.nodeDistance && t.nodeDistance.length === nodes)
    base.nodeDistance = { value: t.nodeDistance, source: `${where}: node*/distance` };
  else if (nodes > 1)
    warnings.push(
      `nodeDistance: not in the source; the builder's default (10 local, 21 remote) used`,
    );

  // the numbering whose machine puts every listed CPU where the source says it is
  const mismatches: string[] = [];
  for (const numbering of NUMBERINGS) {
    const spec = { ...base, topology: { ...base.topology, numbering } } as MachineSpec;
    let machine: Machine;
    try {
      machine = machineFromSpec(spec, `${where} (as ${numbering})`);
    } catch (e) {
      mismatches.push(`${numbering}: ${(e as Error).message}`);
      continue;
    }
    const diff = firstDifference(machine, placed, t);
    if (diff === null) return { spec, machine, warnings, offline };
    mismatches.push(`${numbering}: ${diff}`);
  }
  throw new Error(
    `${where}: the CPU numbering is neither of ${NUMBERINGS.join(", ")} (${mismatches.join("; ")}); irregular numbering is not modelled`,
  );
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((x) => s.has(x));
}

/** The first CPU whose core, L2, LLC, package or node in `m` differs from the source, or null. */
function firstDifference(m: Machine, placed: CpuRecord[], t: CpuTable): string | null {
  const online = (list: number[]) => list.filter((c) => t.cpus[c]?.online);
  const members = (key: (i: Machine["cpus"][number]) => number, cpu: number) =>
    online(m.cpus.filter((x) => key(x) === key(m.cpus[cpu])).map((x) => x.id));
  const pkgCpus = (r: CpuRecord) =>
    placed.filter((x) => (x.package ?? 0) === (r.package ?? 0)).map((x) => x.cpu);
  const nodeCpus = (r: CpuRecord) =>
    placed.filter((x) => (x.node ?? 0) === (r.node ?? 0)).map((x) => x.cpu);
  for (const r of placed) {
    const checks: Array<[string, number[] | null, (i: Machine["cpus"][number]) => number]> = [
      ["core", r.coreCpus ?? [r.cpu], (i) => i.core],
      ["L2", r.l2Cpus, (i) => i.l2],
      ["LLC", r.llcCpus, (i) => i.llc],
      ["package", pkgCpus(r), (i) => i.package],
      ["node", nodeCpus(r), (i) => i.node],
    ];
    for (const [what, want, key] of checks) {
      if (want === null) continue;
      const got = members(key, r.cpu);
      if (!sameSet(online(want), got))
        return `cpu${r.cpu}'s ${what} would be ${got.join(",")}, the source says ${online(want).join(",")}`;
    }
  }
  return null;
}

/**
 * The one idle state of a machine with no cpuidle driver (cpu/cpuidle/current_driver "none", a
 * guest without exposed C-states): do_idle -> default_idle_call -> arch_cpu_idle (kernel/sched/
 * idle.c; x86 default_idle is HLT, arch/x86/kernel/process.c), which does not poll, so every
 * wakeup of an idle CPU is an IPI. How long the halted CPU takes to run again is not in sysfs.
 */
function haltState(where: string): MachineSpec["idleStates"] {
  return [
    {
      name: "HLT",
      polling: {
        value: false,
        source: `${where}/cpu/cpuidle/current_driver is none: default_idle_call -> arch_cpu_idle halts (HLT on x86, arch/x86/kernel/process.c default_idle), no TIF_POLLING_NRFLAG, so a wakeup sends an IPI`,
      },
      exitLatencyNs: {
        value: 2000,
        source:
          "choice: not in sysfs; a halted vCPU runs again 2-133 us after the IPI depending on the host (KVM halt polling to the host CPU's deepest C-state); calibrate it on a recorded trace (docs/validation.md)",
      },
      targetResidencyNs: {
        value: 0,
        source: "no cpuidle governor: the idle loop halts whatever the expected idle time",
      },
    },
  ];
}
