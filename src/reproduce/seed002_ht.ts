// Seed 002's hyper-threading box, whose topology the mail does not give ("hyper-threading x86_64
// box", four logical CPUs, cpu3 offlined). The candidates are the x86_64 parts with
// Hyper-Threading that make a 4-CPU box by April 2009, in the two numberings firmware used, each
// a machine built from preset ht-2x1x2 (the NetBurst figures; what changes is the topology and
// the cost figures of the levels the new shape has). Two unknowns come out of it: which box
// (`ht_machine`) and how fast a thread runs beside a busy sibling (`smt_sibling_speed`).
import type { Machine } from "../machine/types";
import { machineFromSpec, presetSpec, type MachineSpec } from "../machine/presets";
import type { Experiment } from "../experiment/experiment";
import { unknown } from "../experiment/declare";

/** A candidate HT box: its machine and what supports it. */
export interface HtBox {
  /** The machine name (the unknown's choice). */
  name: string;
  /** Sockets x cores x threads, and how Linux numbers the CPUs. */
  shape: string;
  /** The SMT sibling pairs, in Linux CPU numbers. */
  siblings: [number, number][];
  /** The 2009 x86_64 parts with this shape, with their sources. */
  parts: string;
  /** The preset, or a function that builds the machine from the ht-2x1x2 preset. */
  machine: () => string | Machine;
}

/**
 * Linux numbers CPUs in the order the ACPI MADT lists them (2.6.29 arch/x86/kernel/acpi/boot.c:
 * acpi_parse_lapic -> acpi_register_lapic -> generic_processor_info, the next free CPU number).
 */
const THREAD_MAJOR =
  "thread-major numbering: the ACPI specification's MADT rule (ACPI 3.0 onwards; section 5.2.12.1 in ACPI 6) asks that \"platform firmware should list the first logical processor of each of the individual multi-threaded processors in the MADT before listing any of the second logical processors\", and Linux numbers the CPUs in MADT order (2.6.29 arch/x86/kernel/acpi/boot.c, acpi_parse_lapic -> acpi_register_lapic -> generic_processor_info); hwloc's Linux test topology tests/hwloc/linux/16em64t-4s2c2t (open-mpi/hwloc; four dual-core NetBurst Xeons with Hyper-Threading, 2.60 GHz, 1 MB L2 per core, 4 MB L3: Tulsa) numbers thread 0 of every core (cpu0-7) before any thread 1 (cpu8-15)";
const CORE_MAJOR =
  "core-major numbering: choice: firmware that lists the MADT in APIC-ID order (the SMT ID is the lowest bit of a Hyper-Threading part's APIC ID: Intel 64 and IA-32 Architectures Software Developer's Manual, Vol. 3A, \"Identifying Logical Processors in an MP System\") puts a core's two threads next to each other; that breaks the ACPI guideline above, so it is the less likely numbering, kept as a choice";

const PARTS_2S =
  "two single-core NetBurst Xeons with Hyper-Threading and EM64T (x86_64) in a two-socket server: Nocona (2004, 1 MB L2) or Irwindale (2005, 2 MB L2); hwloc's Linux test topology tests/hwloc/linux/2i386-2t (open-mpi/hwloc) is such a server (Dell PowerEdge 1850, Xeon 3.00 GHz, its two threads sharing a 2 MB L2) with one socket filled";
const PARTS_1S =
  "one dual-core part with Hyper-Threading whose cores share no cache: Pentium Extreme Edition 840 (Smithfield, 2005, 2 x 1 MB L2) and 955/965 (Presler, 2006, 2 x 2 MB L2), dual-core Xeon 5000 (Dempsey, 2006) or 7000 (Paxville MP, 2005) in one socket, Atom 330 (Diamondville, September 2008, 2 x 512 KB L2); all x86_64 (EM64T / Intel 64), per Intel's product specifications";
const PARTS_L3 =
  "one dual-core part with Hyper-Threading whose cores share the last-level cache: the dual-core Xeon 7100 (Tulsa, 2006; hwloc's tests/hwloc/linux/16em64t-4s2c2t has four of them: 1 MB L2 per core, one 4 MB L3 per package) in one socket. The Nehalem dual cores with Hyper-Threading and a shared L3 (hwloc's tests/hwloc/linux/4em64t-2c2t: 256 KB L2 per core, 4 MB L3, thread-major) came in January 2010, after the mail";

const FSB_LEVEL =
  "choice: the two cores of this package share no cache (Smithfield, Presler, Dempsey, Paxville, Atom 330), so a line moves between them over the front-side bus as between sockets: set to the same_node figure";

/** The ht-2x1x2 preset's spec with another shape, name, description and level figures. */
function variantOf(
  name: string,
  description: string,
  topology: Partial<MachineSpec["topology"]> & { source: string },
  edit: (spec: MachineSpec) => void = () => {},
): () => Machine {
  return () => {
    const spec = structuredClone(presetSpec("ht-2x1x2")) as MachineSpec;
    spec.name = name;
    spec.description = description;
    spec.topology = { ...spec.topology, ...topology };
    edit(spec);
    return machineFromSpec(spec, `seed 002-ht box ${name} (built from preset ht-2x1x2)`);
  };
}

/** Cross-core figures of a one-socket box whose cores meet over the FSB (same_package). */
function fsbPackage(spec: MachineSpec): void {
  const c = spec.costs;
  c.cacheLineNs.same_package = { value: c.cacheLineNs.same_node.value, source: FSB_LEVEL };
  c.rqLockRemoteNs.same_package = {
    value: c.rqLockRemoteNs.same_node.value,
    source: `${FSB_LEVEL} (3 cache-line transfers)`,
  };
  c.copyBytesPerNs.same_package = { value: c.copyBytesPerNs.same_node.value, source: FSB_LEVEL };
}

/** Cross-core figures of a one-socket box whose cores share an L3 (shared_llc). */
function sharedL3(spec: MachineSpec): void {
  const c = spec.costs;
  const l3 =
    "estimate: an L3 hit, about 40 cycles at 3 GHz (no measurement of the Tulsa L3 was found)";
  c.cacheLineNs.shared_llc = { value: 13, source: l3 };
  c.cacheLineNs.same_package = {
    value: 13,
    source: "level does not occur on this machine (the L3 spans the package); set to shared_llc",
  };
  c.rqLockRemoteNs.shared_llc = { value: 39, source: `${l3}; 3 cache-line transfers` };
  c.rqLockRemoteNs.same_package = {
    value: 39,
    source: "level does not occur on this machine (the L3 spans the package); set to shared_llc",
  };
  c.copyBytesPerNs.shared_llc = {
    value: c.copyBytesPerNs.shared_l2.value,
    source: "choice: lines fed from the shared L3: set to the L2-fed copy figure",
  };
  spec.caches.l2Bytes = {
    value: 1024 * 1024,
    source: "Xeon 7100 (Tulsa): 1 MB L2 per core (hwloc's tests/hwloc/linux/16em64t-4s2c2t)",
  };
  spec.caches.llcBytes = {
    value: 4 * 1024 * 1024,
    source:
      "Xeon 7100 (Tulsa): one L3 per package, 4 MB on the 2.60 GHz part of hwloc's tests/hwloc/linux/16em64t-4s2c2t",
  };
}

const ONE_SOCKET = { sockets: 1, coresPerSocket: 2, threadsPerCore: 2 } as const;

/** The candidate HT boxes, the preset (today's default choice) first. */
export const HT_BOXES: readonly HtBox[] = [
  {
    name: "ht-2x1x2",
    shape: "2 sockets x 1 core x 2 threads, thread-major",
    siblings: [
      [0, 2],
      [1, 3],
    ],
    parts: `${PARTS_2S}; ${THREAD_MAJOR}`,
    machine: () => "ht-2x1x2",
  },
  {
    name: "ht-2x1x2-coremajor",
    shape: "2 sockets x 1 core x 2 threads, core-major",
    siblings: [
      [0, 1],
      [2, 3],
    ],
    parts: `${PARTS_2S}; ${CORE_MAJOR}`,
    machine: variantOf(
      "ht-2x1x2-coremajor",
      "2 x single-core NetBurst Xeon with Hyper-Threading (the ht-2x1x2 box) numbered core-major: SMT siblings (0,1) and (2,3), so cpu3's sibling is cpu2 and with cpu3 offline the CPU-level groups are {0,1} and {2}. Figures of preset ht-2x1x2.",
      { numbering: "core-major", source: `${PARTS_2S}; ${CORE_MAJOR}` },
    ),
  },
  {
    name: "ht-1x2x2",
    shape: "1 socket x 2 cores x 2 threads, private L2 per core, thread-major",
    siblings: [
      [0, 2],
      [1, 3],
    ],
    parts: `${PARTS_1S}; ${THREAD_MAJOR}`,
    machine: variantOf(
      "ht-1x2x2",
      "1 x dual-core part with Hyper-Threading, a private L2 per core and no L3 (Pentium Extreme Edition, Xeon 5000/7000 dual core, Atom 330 class), thread-major: SMT siblings (0,2) and (1,3); cpu3's sibling is cpu1. 2.6.29's MC level spans a core's threads (cpu_coregroup_mask is the L2 sharers) and degenerates, so the CPU level's groups are the cores, {0,2} and {1}. Figures of preset ht-2x1x2 except the cross-core level.",
      { ...ONE_SOCKET, source: `${PARTS_1S}; ${THREAD_MAJOR}` },
      fsbPackage,
    ),
  },
  {
    name: "ht-1x2x2-coremajor",
    shape: "1 socket x 2 cores x 2 threads, private L2 per core, core-major",
    siblings: [
      [0, 1],
      [2, 3],
    ],
    parts: `${PARTS_1S}; ${CORE_MAJOR}`,
    machine: variantOf(
      "ht-1x2x2-coremajor",
      "The ht-1x2x2 box numbered core-major: SMT siblings (0,1) and (2,3); cpu3's sibling is cpu2, and the CPU level's groups are {0,1} and {2}. Figures of preset ht-2x1x2 except the cross-core level.",
      { ...ONE_SOCKET, numbering: "core-major", source: `${PARTS_1S}; ${CORE_MAJOR}` },
      fsbPackage,
    ),
  },
  {
    name: "ht-1x2x2-l3",
    shape: "1 socket x 2 cores x 2 threads, shared L3, thread-major",
    siblings: [
      [0, 2],
      [1, 3],
    ],
    parts: `${PARTS_L3}; ${THREAD_MAJOR}`,
    machine: variantOf(
      "ht-1x2x2-l3",
      "1 x dual-core part with Hyper-Threading whose cores share an L3 (Xeon 7100 Tulsa class), thread-major: SMT siblings (0,2) and (1,3); cpu3's sibling is cpu1. 2.6.29's MC level spans the package (cpu_coregroup_mask is the L3 sharers) with the cores {0,2} and {1} as groups, and the CPU level degenerates: the two-thread group meets the lone thread at MC (SD_SHARE_PKG_RESOURCES, imbalance_pct 125), not at the CPU level. Figures of preset ht-2x1x2 except the cross-core level and the caches.",
      { ...ONE_SOCKET, llc: "package", source: `${PARTS_L3}; ${THREAD_MAJOR}` },
      sharedL3,
    ),
  },
  {
    name: "ht-1x2x2-l3-coremajor",
    shape: "1 socket x 2 cores x 2 threads, shared L3, core-major",
    siblings: [
      [0, 1],
      [2, 3],
    ],
    parts: `${PARTS_L3}; ${CORE_MAJOR}`,
    machine: variantOf(
      "ht-1x2x2-l3-coremajor",
      "The ht-1x2x2-l3 box numbered core-major: SMT siblings (0,1) and (2,3); cpu3's sibling is cpu2, and the MC level's groups are {0,1} and {2}. Figures of preset ht-2x1x2 except the cross-core level and the caches.",
      {
        ...ONE_SOCKET,
        llc: "package",
        numbering: "core-major",
        source: `${PARTS_L3}; ${CORE_MAJOR}`,
      },
      sharedL3,
    ),
  },
];

/** The candidate box named `name` (one of HT_BOXES), as a preset name or a Machine. */
export function htBox(name: string): string | Machine {
  const b = HT_BOXES.find((x) => x.name === name);
  if (!b)
    throw new Error(
      `ht_machine: unknown box ${JSON.stringify(name)}; accepted: ${HT_BOXES.map((x) => x.name).join(", ")}`,
    );
  return b.machine();
}

/** Which machine the HT box was: a choice among HT_BOXES. */
export const htMachine = unknown("ht_machine", {
  choices: HT_BOXES.map((b) => b.name),
  default: "ht-2x1x2",
  unit: "choice",
  description:
    "the HT box: sockets x cores x threads and how Linux numbered the CPUs (which CPU is cpu3's sibling)",
  source:
    'the mail says only "hyper-threading x86_64 box" with cpu3 offlined (four logical CPUs); the choices are the x86_64 parts with Hyper-Threading that make such a box by April 2009, each in the numbering the ACPI MADT rule prescribes (thread-major) and in APIC-ID order (core-major); every choice leaves a core with both threads online and one lone thread. Default ht-2x1x2: a two-socket single-core NetBurst Xeon server is the common 2004-2008 x86_64 HT box and the one whose description fits best (the other box of the mail is named by its cores, "2 CPUs * 2 Cores", this one by its Hyper-Threading), numbered as ACPI asks and as hwloc\'s NetBurst Linux topologies show',
  apply: (e: Experiment, v) => e.onMachine(htBox(String(v))),
});

/** How fast a thread runs while its SMT sibling is busy, relative to running alone. */
export const smtSiblingSpeed = unknown("smt_sibling_speed", {
  range: [0.5, 1],
  default: 0.6,
  unit: "share",
  description:
    "costs.smtSiblingSpeed: a thread's speed while its SMT sibling runs a task, relative to the thread alone",
  source:
    "range: 1 is the physical bound (a busy sibling takes nothing: a loop bound by the latency of a dependent chain leaves the core's issue slots to the other thread; Sprunt, \"Pentium 4 Performance-Monitoring Features\", IEEE Micro 22(4), 2002, shows Hyper-Threading taking a Xeon from about twice one benchmark's throughput to about half another's), 0.5 is no core gain at all (both threads on a unit one thread already keeps busy; the square root of NetBurst and Atom is not pipelined, its throughput equal to its latency in the Intel 64 and IA-32 Architectures Optimization Reference Manual, Appendix C; the halving Sprunt also reports needs a working set the hogs do not have). Default 0.6, the ht-2x1x2 preset's estimate: Marr et al., \"Hyper-Threading Technology Architecture and Microarchitecture\", Intel Technology Journal 6(1), 2002, up to ~30% more throughput per core on server workloads and less for compute-bound code, so a core gain of 1.2x. No source measures the sched-fair loop on any candidate",
  apply: (e: Experiment, v) => e.costs({ smtSiblingSpeed: Number(v) }),
});
