// A SCHED_FIFO hog beside a CFS hog on one CPU of core2-2x2: the situation of RT throttling
// (rt_throttle.test.ts) and of the v6.12+ fair server (fair_server.test.ts).
import type { Era, Patch } from "../../../src/index";
import { preset } from "../../../src/index";
import { boot } from "../boot";
import type { Kernel } from "../../../src/kernel/core/core";
import { run } from "../../../src/kernel/ops";
import type { Task } from "../../../src/kernel/sched";

export const MS = 1_000_000;

export const hog = function* () {
  yield run(Infinity);
};

/** A core2-2x2 kernel of `era` with `patches`, seed "t", no trace. */
export function kernel(era: Era, patches: Patch[] = []): Kernel {
  return boot(preset("core2-2x2"), era, "t", patches);
}

/** A SCHED_FIFO hog and a CFS hog, both pinned to cpu0, spawned at `at`. */
export function rtAndCfs(k: Kernel, at = 0): { r: Task; c: Task } {
  if (at > 0) k.runUntil(at);
  const r = k.spawn({ comm: "r", program: hog, policy: "fifo", rtPriority: 50, cpu: 0, cpus: [0] });
  const c = k.spawn({ comm: "c", program: hog, cpu: 0, cpus: [0] });
  return { r, c };
}

/** Runs to `until`, checking the kernel's invariants every 10 ms. */
export function runChecked(k: Kernel, until: number): void {
  for (let t = k.now + 10 * MS; t < until; t += 10 * MS) {
    k.runUntil(t);
    k.checkInvariants();
  }
  k.runUntil(until);
  k.flushAccounting();
}

/** A task's CPU time so far, ms. */
export const ms = (p: Task) => p.se.sumExecRuntime / MS;
