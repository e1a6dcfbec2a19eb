// The big.LITTLE machine of the capacity tests: 4 little CPUs (capacity 462) and 4 big ones
// (1024), an L2 per cluster of 4 and no L3, numbered core-major. One copy for the topology, import, misfit, wakeup
// capacity and PELT invariance tests.
import { machineBuilder } from "../../src/machine/builder";
import type { Era } from "../../src/kernel/features";
import type { Kernel } from "../../src/kernel/core/core";
import type { Machine } from "../../src/machine/types";
import { boot } from "../kernel/boot";

export const BIG_LITTLE_CAPACITIES = [462, 462, 462, 462, 1024, 1024, 1024, 1024];

export function bigLittleMachine(capacities: number[] = BIG_LITTLE_CAPACITIES): Machine {
  return machineBuilder()
    .name("bl")
    .cores(8)
    .l2SharedBy(4)
    .llc("l2")
    .numbering("core-major")
    .capacities(capacities)
    .build();
}

/** A booted kernel of `era` on the machine, no patches, no trace. */
export function bigLittleKernel(era: Era, capacities?: number[]): Kernel {
  return boot(bigLittleMachine(capacities), era);
}
