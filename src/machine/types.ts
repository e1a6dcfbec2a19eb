// The hardware model: which logical CPUs exist, what they share, and what things cost.

/** How close two CPUs are, from the cache/fabric point of view (nearest first). */
export type ShareLevel =
  | "same_cpu" // the same logical CPU
  | "same_core" // SMT siblings: share L1/L2
  | "shared_l2" // different cores sharing an L2 (Core 2 pairs)
  | "shared_llc" // different L2s, same last-level cache
  | "same_package" // same package, no shared cache (Core 2 MCM dies)
  | "same_node" // other package, same NUMA node (FSB/UMA boxes)
  | "other_node"; // another NUMA node

export const SHARE_LEVELS: readonly ShareLevel[] = [
  "same_cpu",
  "same_core",
  "shared_l2",
  "shared_llc",
  "same_package",
  "same_node",
  "other_node",
];

/**
 * The instruction-set architecture: it decides arch-specific kernel code the model follows, such
 * as the spinlock implementation behind the rq locks (kernel/features.ts, spinlockKind).
 */
export type Arch = "x86_64" | "arm64";

/** Every Arch. */
export const ARCHS: readonly Arch[] = ["x86_64", "arm64"];

/** Where one logical CPU sits in the machine: its thread, core, die, package, node and caches. */
export interface CpuInfo {
  id: number; // logical CPU number, as Linux numbers it
  thread: number; // SMT thread index within its core
  core: number; // global core id
  die: number; // global die id (an MCM package has several dies)
  package: number; // socket
  node: number; // NUMA node
  l2: number; // id of the L2 instance this CPU uses
  llc: number; // id of the last-level cache instance this CPU uses
  capacity: number; // arch capacity, 1024 = the biggest CPU at max frequency
}

/** One cpuidle state, with the figures the idle governor and the wakeup path use. */
export interface IdleState {
  name: string; // "POLL", "C1", "C1E", "C6", ...
  exitLatencyNs: number; // worst-case exit latency the governor uses
  targetResidencyNs: number;
  polling: boolean; // TIF_POLLING_NRFLAG set (poll loop, MWAIT): woken by need_resched, no IPI
  /**
   * Measured exit of the core state alone, where the driver's table figure is the package
   * state's worst case (intel_idle: C6 = PC6). Charged unless every CPU of `packageScope` sits in
   * this state or deeper; absent = the table figure is always charged.
   */
  coreExitLatencyNs?: number;
  /** Which CPUs must all be idle for the package state: one package, or the whole system. */
  packageScope?: "package" | "system";
  /**
   * Exit times drawn per exit, where the table figure is a package state's worst case (instead
   * of the constant coreExitLatencyNs): `core` is the core state's own exit with the package
   * awake, `packageExtra` what waking the package from its package state adds before it. Each CPU
   * draws from its own seeded stream; the table figure caps the sum (the driver's worst case).
   * Needs `packageScope`.
   */
  exitDraw?: IdleExitDraw;
  /**
   * A virtual CPU's halt under a host that polls for its wakeup for a while (KVM halt polling,
   * `virt/kvm/kvm_main.c` `kvm_vcpu_halt`, up to `halt_poll_ns`) and then puts the vCPU thread to
   * sleep: a wakeup after more than `pollNs` of halt pays `exitNs` (the host scheduler waking
   * the vCPU thread, then the entry into the guest) instead of exitLatencyNs.
   */
  haltPoll?: { pollNs: number; exitNs: number };
}

/** A lognormal exit time: its median and the standard deviation of its natural log. */
export interface ExitTimeDraw {
  medianNs: number;
  logSd: number;
}

/** The two exit-time draws of a state whose table figure is a package state's worst case. */
export interface IdleExitDraw {
  /** The core state's exit while its package is awake. */
  core: ExitTimeDraw;
  /** What a wakeup adds when it has to wake the package from its package state first. */
  packageExtra: ExitTimeDraw;
}

/** Physical costs of one machine. Every experiment on the machine uses the same figures. */
export interface CostModel {
  contextSwitchNs: number; // switch_to + mm switch, one direction
  syscallNs: number; // kernel entry/exit round trip
  wakeupNs: number; // try_to_wake_up bookkeeping on the waker, excluding locks/IPIs
  ipiSendNs: number; // cost on the sender
  ipiDeliveryNs: number; // sender to handler running on the target
  rqLockLocalNs: number; // uncontended acquisition of the local rq lock
  /** Extra cost of acquiring a remote rq lock (line transfer of lock + hot rq lines), by distance. */
  rqLockRemoteNs: Record<ShareLevel, number>;
  /** Latency of moving one modified cache line between CPUs at this distance. */
  cacheLineNs: Record<ShareLevel, number>;
  /** Bandwidth for copying data last written at this distance, in bytes per ns (= GB/s). */
  copyBytesPerNs: Record<ShareLevel, number>;
  /** Refill bandwidth for a working set that must come from memory (bytes per ns). */
  memoryBytesPerNs: number;
  /**
   * Speed of an SMT thread while a sibling of its core also runs, relative to the thread running
   * alone on the core (0 < s <= 1; 1 on machines without SMT). Two busy siblings give the core
   * 2 x s of a lone thread's throughput.
   */
  smtSiblingSpeed: number;
}

/** Cache sizes that decide how much of a task's working set survives a migration. */
export interface CacheSizes {
  l2Bytes: number; // size of one L2 instance
  llcBytes: number; // size of one LLC instance
}

/** A machine: topology + costs. `online` is the boot-time hotplug state. */
export interface Machine {
  name: string;
  description: string;
  /** The architecture (arch-specific kernel code: the spinlock kind of the rq locks). */
  arch: Arch;
  cpus: CpuInfo[];
  /** node x node distance matrix (LOCAL_DISTANCE 10, REMOTE_DISTANCE 20 ...). */
  nodeDistance: number[][];
  online: boolean[];
  costs: CostModel;
  idleStates: IdleState[];
  caches: CacheSizes;
  /** Where each cost figure came from (figure name -> source text). */
  sources: Record<string, string>;
  /** What the shared levels sustain under load (contention.ts); absent: the stand-ins in docs. */
  bandwidth?: SharedBandwidth;
}

/** Sustained bandwidth of the shared levels, all CPUs together, bytes per ns (= GB/s). */
export interface SharedBandwidth {
  /**
   * One memory controller (one NUMA node): bytes it moves, write-allocate reads included (STREAM
   * does not count those: its Triad reports 3/4 of this where stores allocate).
   */
  nodeBytesPerNs: number;
  /** One LLC instance (absent: the LLC does not limit). */
  llcBytesPerNs?: number;
  /**
   * The links between two NUMA nodes (QPI, UPI, xGMI): bytes they carry between the pair, all
   * links together (absent: they do not limit; one thread's remote rate still does).
   */
  interconnectBytesPerNs?: number;
}

/**
 * A set of machine figures to start from (profiles.ts: costProfile(name)): every cost figure,
 * the idle states and the cache sizes, each with its source.
 */
export interface CostProfile {
  name: string;
  description: string;
  /** The architecture of the profile's machine; a machine built from the profile takes it. */
  arch: Arch;
  costs: CostModel;
  idleStates: IdleState[];
  caches: CacheSizes;
  /** Source per figure name ("costs.cacheLineNs.shared_l2", "idle.C1.exitLatencyNs", ...). */
  sources: Record<string, string>;
}
