// The declared unknowns of seed 003: how long a Haswell-EP core takes to leave C6, what waking its
// package from package C6 adds, and which CPUs must all be idle for package C6. No source gives
// them for the E5-2600 v3 box of the 2020 mail; each range below is what the sources support.
// They act on the preset's C6 state (data/machines/numa-2x12x2.json, exitDraw and packageScope),
// whose values are the defaults; experiment 003-1w fits the four numeric ones on its named
// calibration targets (data/published/003-1w.json) and 003-2w reuses them.
import type { Experiment } from "../experiment/experiment";
import { unknown } from "../experiment/declare";
import type { IdleState, Machine } from "../machine/types";
import type { Unknown } from "../experiment/unknown";

/** The preset's C6 state, which draws its exits (exitDraw); throws naming what is missing. */
function c6Of(m: Machine): IdleState & Required<Pick<IdleState, "exitDraw">> {
  const s = m.idleStates.find((x) => x.name === "C6");
  if (!s?.exitDraw)
    throw new Error(
      `seed 003 unknowns: machine ${m.name} has no C6 state with exitDraw (they act on numa-2x12x2's C6)`,
    );
  return s as IdleState & Required<Pick<IdleState, "exitDraw">>;
}

const A472 =
  'Linux commit a472ad2bcea4 (Chen Yu, "intel_idle: Customize IceLake server support"): on an Ice Lake server the ACPI _CST gives C6 an exit of 41 us, "probably due to the _CST uses the exit latency when woken up from PC0+C6", against 128 us measured from PC6+C6';
const SKX =
  "Linux commit 64233338499126c5 (intel_idle, SKX C6 with PC6 disabled): core C6 exits measured with wult over NIC wakeups, 99.99th percentile 92 us (SKX), 96 us (CLX), 89 us (CPX)";

/** Median core C6 exit with the package awake (us). */
export const CORE_C6_EXIT = unknown("core_c6_exit_us", {
  range: [20, 96],
  default: 41,
  unit: "us",
  description: "median exit of a Haswell-EP core from C6 while its package is awake",
  source: `default: ${A472} (the one core-only C6 figure of a Xeon with the package awake); high end: ${SKX}, tail figures that bound a median from above; low end: choice, 20 us, under intel_idle's hsw PC3 worst case of 33 us (commit a138b56800f4), since a core C6 exit with the package awake involves no package state`,
  apply: (e: Experiment, v) =>
    e.editMachine(`C6 core exit median ${v} us`, (m) => {
      c6Of(m).exitDraw.core.medianNs = Math.round(Number(v) * 1000);
    }),
});

/** Spread of the core C6 exit: the sd of its natural log. */
export const CORE_C6_LOGSD = unknown("core_c6_exit_logsd", {
  range: [0.02, 0.4],
  default: 0.2,
  unit: "log-sd",
  limits: [0, 3],
  description: "spread of the core C6 exit (standard deviation of its natural log)",
  source: `estimate: the one Xeon pair of a typical and a tail core C6 exit (41 us from the _CST of an Ice Lake server with the package in PC0, commit a472ad2bcea4; 89-96 us at the 99.99th percentile, commit 64233338499126c5) read as one lognormal gives ln(92/41)/3.72 = 0.22 (default 0.2); the range spans a tenth of that (a nearly fixed exit) to about twice it (choice)`,
  apply: (e: Experiment, v) =>
    e.editMachine(`C6 core exit log-sd ${v}`, (m) => {
      c6Of(m).exitDraw.core.logSd = Number(v);
    }),
});

/** Median extra of a wakeup that has to wake the package from package C6 (us). */
export const PC6_WAKE_EXTRA = unknown("pc6_wake_extra_us", {
  range: [5, 100],
  default: 87,
  unit: "us",
  description: "median time a wakeup adds when it must first wake its package from package C6",
  source: `default: ${A472}, so waking the package added 87 us on ICX; high end: intel_idle's hsw_cstates C6 figure, the PC6 worst case (133 us, commits a138b56800f4 and 64233338499126c5), less a core exit of 33 us; low end: choice, 5 us, a package that only reached a shallow package state (PC2, the ring and L3 clocked) because the platform did not grant a deeper one (Xeon E5 v2 datasheet, Vol. One, "Package C-States": the package state is resolved with the platform's permission)`,
  apply: (e: Experiment, v) =>
    e.editMachine(`package C6 wake median ${v} us`, (m) => {
      c6Of(m).exitDraw.packageExtra.medianNs = Math.round(Number(v) * 1000);
    }),
});

/** Spread of the package wake: the sd of its natural log. */
export const PC6_WAKE_LOGSD = unknown("pc6_wake_extra_logsd", {
  range: [0.05, 1],
  default: 0.3,
  unit: "log-sd",
  limits: [0, 3],
  description: "spread of the package C6 wake (standard deviation of its natural log)",
  source:
    "choice: no source gives the spread of a package C6 wake; from nearly fixed (0.05) to a factor e at one standard deviation (1), default 0.3",
  apply: (e: Experiment, v) =>
    e.editMachine(`package C6 wake log-sd ${v}`, (m) => {
      c6Of(m).exitDraw.packageExtra.logSd = Number(v);
    }),
});

/** Which CPUs must all be in core C6 for package C6: one socket's, or both sockets'. */
export const PC6_SCOPE = unknown("pc6_scope", {
  choices: ["package", "system"],
  unit: "choice",
  default: "package",
  description: "CPUs that must all be in core C6 or deeper for package C6",
  source:
    'package (default): Xeon E5-1600/2600/4600 datasheets, Vol. One, "Package C-States": "A package C-state request is determined by the lowest numerical core C-state amongst all cores" of that package; system: Intel\'s pepc note docs/misc-c6p-c6sp.md (2025): on Xeons from Skylake on PC6 "has global system scope ... entered only when all CPUs across all sockets (packages) have transitioned to CC6"; it does not cover Haswell-EP',
  apply: (e: Experiment, v) =>
    e.editMachine(`package C6 scope ${v}`, (m) => {
      c6Of(m).packageScope = v as "package" | "system";
    }),
});

/** Every unknown 003-1w and 003-2w declare, in this order. */
export const SEED003_UNKNOWNS: readonly Unknown<Experiment>[] = [
  CORE_C6_EXIT,
  CORE_C6_LOGSD,
  PC6_WAKE_EXTRA,
  PC6_WAKE_LOGSD,
  PC6_SCOPE,
];
