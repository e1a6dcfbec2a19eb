// Shared fixture of the hand-built RT push/pull rule tests (rt_push_rules, rt_entry_rules): a
// core2-2x2 kernel whose find_lowest_rq the test steers, so that nothing is pushed while a
// situation is built, and the situations themselves.
import assert from "node:assert/strict";
import { buildKernel, patch, preset } from "../../../src/index";
import type { Era, Patch } from "../../../src/index";
import { run } from "../../../src/kernel/ops";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";

export const MS = 1_000_000;
export const hog = function* () {
  yield run(Infinity);
};

/** What the steered find_lowest_rq answers: a fixed CPU, a function of the task, or the real one. */
export interface Steer {
  target: number;
  fn: ((t: Task) => number) | null;
  real: boolean;
  calls: Task[];
  /** Run between find_lowest_rq and the lock (as if it happened while our lock was dropped). */
  beforeLock: (() => void) | null;
}

export function kernel(era: Era, patches: Patch[] = []): { k: Kernel; steer: Steer } {
  const steer: Steer = { target: -1, fn: null, real: false, calls: [], beforeLock: null };
  const steered = patch("find_lowest_rq steered by the test").replace(
    "rt.find_lowest_rq",
    (ctx, base) => {
      if (steer.real) return base(ctx);
      steer.calls.push(ctx.task);
      return steer.fn ? steer.fn(ctx.task) : steer.target;
    },
  );
  const meanwhile = patch("changes while the lock is dropped").replace(
    "rt.target_feasible",
    (ctx, base) => {
      if (ctx.site === "find_lock_lowest_rq" && steer.beforeLock) steer.beforeLock();
      return base(ctx);
    },
  );
  const m = preset("core2-2x2");
  const k = buildKernel({
    machine: m,
    online: m.online,
    era,
    patches: [steered, meanwhile, ...patches],
    seed: "t",
    trace: false,
  });
  return { k, steer };
}

/** A SCHED_FIFO hog at rtPriority started on cpu (pinned there unless pin is false). */
export function rt(k: Kernel, comm: string, rtPriority: number, cpu: number, pin = true): Task {
  return k.spawn({
    comm,
    program: hog,
    policy: "fifo",
    rtPriority,
    cpu,
    cpus: pin ? [cpu] : undefined,
  });
}

export function cfs(k: Kernel, comm: string, cpu: number): Task {
  return k.spawn({ comm, program: hog, cpu, cpus: [cpu] });
}

export const noIpi = patch("pull by locking").feature("RT_PUSH_IPI", false);

export function locks(k: Kernel, path: string): number {
  return k.counters.rqLock[path]?.acquisitions ?? 0;
}

export function other(k: Kernel, key: string): number {
  return k.counters.other[key] ?? 0;
}

/** No rq lock held at this context's clock (the hand-built runs leave some held a little past now). */
export function quiet(k: Kernel): void {
  for (const r of k.rqs) r.lockFreeAt = 0;
  k.rqLockHolder.fill(-1);
}

/** Makes rq's lock look held by `holder` for the next millisecond of this context's clock. */
export function holdLock(k: Kernel, cpu: number, holder: number): void {
  k.rqs[cpu].lockFreeAt = k.now + k.chargeNs + MS;
  k.rqLockHolder[cpu] = holder;
}

/** cpu0 CFS, cpu1 rt 30 (pinned), cpu2 rt 50 (pinned); cpu3 runs rt 90 with x (rt 50) and y (rt 40) waiting. */
export function overloaded3(era: Era = "3.19", patches: Patch[] = []) {
  const { k, steer } = kernel(era, patches);
  cfs(k, "f0", 0);
  const r30 = rt(k, "r30", 30, 1, true);
  rt(k, "r50", 50, 2, true);
  const h = rt(k, "h90", 90, 3, true);
  k.runUntil(MS);
  const x = rt(k, "x50", 50, 3, false);
  const y = rt(k, "y40", 40, 3, false);
  k.runUntil(2 * MS);
  const rq3 = k.rqs[3];
  assert.equal(rq3.curr, h);
  assert.deepEqual(rq3.rt.pushable, [x, y]);
  assert.equal(rq3.rt.overloaded, true);
  steer.calls.length = 0;
  quiet(k);
  return { k, steer, x, y, h, r30, rq3 };
}

/** cpu0: rt 90 with x (rt 50) waiting (overloaded); cpu1 `one`; cpu2 rt 60 pinned; cpu3 CFS. */
export function pullable(era: Era, one: "cfs" | "rt50" | "h90", patches: Patch[] = []) {
  const { k, steer } = kernel(era, patches);
  const h = rt(k, "h90", 90, 0, true);
  const t1 = one === "cfs" ? cfs(k, "f1", 1) : rt(k, one, one === "rt50" ? 50 : 90, 1, true);
  rt(k, "r60", 60, 2, true);
  cfs(k, "f3", 3);
  k.runUntil(MS);
  const x = rt(k, "x50", 50, 0, false);
  k.runUntil(2 * MS);
  assert.equal(k.rqs[0].rt.overloaded, true);
  assert.deepEqual(k.rqs[0].rt.pushable, [x]);
  quiet(k);
  return { k, steer, h, t1, x, rq1: k.rqs[1] };
}
