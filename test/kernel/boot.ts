// Shared test fixture: a kernel booted on a machine with nothing running, no patches and a fixed
// seed, as most hand-built kernel tests need.
import { buildKernel } from "../../src/experiment/run";
import type { Kernel } from "../../src/kernel/core/core";
import type { Era } from "../../src/kernel/features";
import type { Machine } from "../../src/machine/types";
import type { Patch } from "../../src/patch/patch";

/** buildKernel for machine `m` with every CPU it marks online, era `era`, `patches` (none), seed "t". */
export function boot(m: Machine, era: Era = "5.19", seed = "t", patches: Patch[] = []): Kernel {
  return buildKernel({ machine: m, online: m.online, era, patches, seed, trace: false });
}
