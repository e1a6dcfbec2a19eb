// Shared fixture of the 5.x wakeup tests (wake_scan_rules, wake_scan_edges): a small SMT machine
// with two LLCs, a sleeping task p, and helpers that set runqueues busy by hand.
import { machineBuilder } from "../../../src/machine/builder";
import { wait } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { wakeState } from "../../../src/kernel/fair/wake/common";
import { selectIdleSibling5x } from "../../../src/kernel/fair/wake/v5x";
import { boot } from "../boot";

// 2 packages x 4 cores x 2 threads, thread-major: cpu c and c + 8 are SMT siblings.
// LLC 0 = {0, 1, 2, 3, 8, 9, 10, 11} (scan order from cpu0), LLC 1 = {4-7, 12-15}.
export const box = () => machineBuilder().sockets(2).cores(4).threads(2).llc("package").build();

/** A kernel of `era` with one sleeping task p (prev = cpu1), every CPU idle, no idle-core hint. */
export function setup(era: Era, cpus?: number[]): { k: Kernel; p: Task } {
  const k = boot(box(), era);
  const p = k.spawn({
    comm: "p",
    cpu: cpus?.[0] ?? 1,
    cpus,
    program: function* () {
      for (;;) yield wait();
    },
  });
  k.runUntil(1_000_000); // p ran and sleeps; now = 1 ms
  const st = wakeState(k);
  st.hasIdleCores.fill(0);
  st.setRecentUsedCpu(p, -1);
  return { k, p };
}

/** nr_running = 1 on each CPU: not idle_cpu(), not sched_idle_cpu(). */
export function busy(k: Kernel, ...cpus: number[]): void {
  for (const c of cpus) k.rqs[c].nrRunning = 1;
}

/** Every CPU of LLC 0 but `idle` busy. */
export function llc0BusyBut(k: Kernel, ...idle: number[]): void {
  busy(k, ...[0, 1, 2, 3, 8, 9, 10, 11].filter((c) => !idle.includes(c)));
}

export const sis = (k: Kernel, p: Task, prev: number, target: number, thisCpu = target) =>
  selectIdleSibling5x({ k, p, prev, target, thisCpu });
