// What a hook replacement may return. A patch's replacement runs where the kernel would trust its
// own code, so an illegal answer (an offline CPU, a CPU outside the task's affinity, NaN, a
// negative capacity) would corrupt the run silently. Replacements are checked at every call; the
// era's own implementations are not, so unpatched runs pay nothing.
import type { Task } from "./sched";

/** Hooks that answer with the CPU a task is placed on: online and allowed for the task. */
const PLACEMENT = new Set(["fair.select_task_rq", "rt.select_task_rq"]);
/** Hooks that answer with a CPU number on the way to a placement. */
const CPU = new Set(["fair.wake_affine", "fair.select_idle_sibling"]);
/** Hooks that answer with a count, capacity or interval: finite and >= 0. */
const NON_NEGATIVE = new Set([
  "fair.idle_imbalance_slack",
  "fair.numa_imbalance",
  "fair.get_sd_balance_interval",
  "topology.group_capacity",
]);
/** Hooks that answer yes or no. */
const BOOLEAN = new Set([
  "core.ttwu_queue_cond",
  "fair.can_migrate_task",
  "fair.task_hot",
  "fair.need_active_balance",
  "fair.wake_wide",
  "rt.wakeup_push_cond",
  "rt.target_feasible",
]);

interface KernelView {
  rqs: ReadonlyArray<{ online: boolean }>;
}

function show(v: unknown): string {
  return typeof v === "number" || typeof v === "boolean"
    ? String(v)
    : (JSON.stringify(v) ?? String(v));
}

/** Why `cpu` is not a CPU of this machine, or null when it is. */
function notACpu(k: KernelView, cpu: unknown): string | null {
  if (typeof cpu !== "number" || !Number.isInteger(cpu) || cpu < 0 || cpu >= k.rqs.length)
    return `${show(cpu)}, not a CPU (accepted: an integer from 0 to ${k.rqs.length - 1})`;
  return null;
}

/**
 * Why `result` is not a legal answer of hook `name` for context `ctx`, or null when it is.
 * Hooks not listed here (group and imbalance answers) are not checked.
 */
export function illegalHookResult(name: string, result: unknown, ctx: unknown): string | null {
  const c = ctx as { k?: KernelView; p?: Task; task?: Task };
  if (BOOLEAN.has(name))
    return typeof result === "boolean" ? null : `${show(result)} (accepted: true or false)`;
  if (NON_NEGATIVE.has(name)) {
    if (typeof result === "number" && Number.isFinite(result) && result >= 0) return null;
    return `${show(result)} (accepted: a finite number >= 0)`;
  }
  const k = c.k;
  if (!k) return null;
  if (CPU.has(name)) return notACpu(k, result);
  if (name === "rt.find_lowest_rq" && result === -1) return null;
  if (PLACEMENT.has(name) || name === "rt.find_lowest_rq") {
    const bad = notACpu(k, result);
    if (bad) return bad;
    const cpu = result as number;
    if (!k.rqs[cpu].online) return `cpu${cpu}, which is offline`;
    const p = c.p ?? c.task;
    if (p && !p.cpusAllowed[cpu])
      return `cpu${cpu}, outside the affinity of ${p.comm}/${p.pid} (allowed: ${[...p.cpusAllowed.keys()].filter((i) => p.cpusAllowed[i]).join(",")})`;
  }
  return null;
}

/** An error a hook replacement caused: names the hook and the patch. */
export class HookError extends Error {}

/** Wraps a patch's replacement so an illegal answer, or an exception, stops the run naming both. */
export function checkedReplacement(
  hook: string,
  patch: string,
  fn: (ctx: unknown) => unknown,
): (ctx: unknown) => unknown {
  return (ctx: unknown) => {
    let out: unknown;
    try {
      out = fn(ctx);
    } catch (err) {
      if (err instanceof HookError) throw err;
      const msg = err instanceof Error ? err.message : String(err);
      throw new HookError(`hook ${hook} (patch "${patch}") threw: ${msg}`);
    }
    const bad = illegalHookResult(hook, out, ctx);
    if (bad) throw new HookError(`hook ${hook} (patch "${patch}") returned ${bad}`);
    return out;
  };
}
