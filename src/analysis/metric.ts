// Looking up a named figure in an iteration's result, and grouping results by variant.
import type { IterationResult, ResultsData } from "../experiment/types";

/**
 * The value of `metric` in one iteration. Resolution order:
 * 1. `it.metrics[metric]` (the workload's own figures: "throughput_mbps", "score"...);
 * 2. a path into the scheduler counters, with or without a leading "sched.":
 *    "sched.contextSwitches", "migrations.active_balance", "balance.MC.activeBalances",
 *    "rqLock.wakeup.waitNs". A missing key inside an existing counter record is 0 (the kernel
 *    counted none), a missing record is an error;
 * 3. "durationNs", "events", or "tasks.<field>" / "cpus.<field>" (summed over tasks or CPUs),
 *    "tasks.counters.<name>" likewise.
 * Throws with the available names when nothing matches, so a typo is caught at once.
 */
export function metricValue(it: IterationResult, metric: string): number {
  if (Object.hasOwn(it.metrics, metric)) return it.metrics[metric];
  const v = lookupPath(it, metric);
  if (v === undefined) {
    throw new Error(
      `unknown metric "${metric}" in ${it.variant}#${it.iteration}; workload metrics: ${Object.keys(it.metrics).join(", ") || "(none)"}; ` +
        `counter paths look like sched.contextSwitches, migrations.<reason>, balance.<level>.<field>, tasks.runtimeNs`,
    );
  }
  return v;
}

function lookupPath(it: IterationResult, metric: string): number | undefined {
  const parts = metric.split(".");
  if (parts[0] === "sched") parts.shift();
  if (parts.length === 0) return undefined;
  if (parts.length === 1 && (parts[0] === "durationNs" || parts[0] === "events"))
    return it[parts[0]];
  if (parts[0] === "tasks" || parts[0] === "cpus") {
    const list: ReadonlyArray<object> = parts[0] === "tasks" ? it.tasks : it.cpus;
    let total = 0;
    for (const item of list) {
      const v = walk(item, parts.slice(1), true);
      if (v === undefined) return undefined;
      total += v;
    }
    return total;
  }
  return walk(it.sched, parts, true);
}

/** Follow `parts` through nested records; a missing last key under a record counts as 0. */
function walk(root: unknown, parts: string[], zeroIfMissingLeaf: boolean): number | undefined {
  let cur: unknown = root;
  for (let i = 0; i < parts.length; i++) {
    if (cur === null || typeof cur !== "object") return undefined;
    const rec = cur as Record<string, unknown>;
    if (!Object.hasOwn(rec, parts[i])) {
      // Counter records only hold keys that happened: absence means zero. Only at depth >= 1,
      // so an unknown top-level name is still reported as unknown.
      return zeroIfMissingLeaf && i === parts.length - 1 && i > 0 ? 0 : undefined;
    }
    cur = rec[parts[i]];
  }
  return typeof cur === "number" ? cur : undefined;
}

/** Variant names in the spec's order, then any others in order of appearance. */
export function variantNames(data: ResultsData): string[] {
  const names = Object.keys(data.spec?.variants ?? {});
  const seen = new Set(names);
  const present = new Set<string>();
  for (const it of data.iterations) {
    present.add(it.variant);
    if (!seen.has(it.variant)) {
      seen.add(it.variant);
      names.push(it.variant);
    }
  }
  // Drop spec variants with no iterations (a partial run) so tables do not show empty rows.
  return names.filter((n) => present.has(n));
}

/** Iterations of one variant, sorted by iteration index. */
export function iterationsOf(data: ResultsData, variant: string): IterationResult[] {
  return data.iterations
    .filter((it) => it.variant === variant)
    .sort((a, b) => a.iteration - b.iteration);
}

/** A variant's values of one metric, one per iteration. */
/** One variant's values of a metric, one per iteration. */
export interface VariantValues {
  variant: string;
  values: number[];
}

/** Each variant's per-iteration values of a metric (all variants, or the given ones in order). */
export function valuesByVariant(
  data: ResultsData,
  metric: string,
  variants?: readonly string[],
): VariantValues[] {
  return (variants ?? variantNames(data)).map((variant) => ({
    variant,
    values: iterationsOf(data, variant).map((it) => metricValue(it, metric)),
  }));
}

/** A variant's pooled samples of one series (e.g. latency samples) over all its iterations. */
export function seriesByVariant(
  data: ResultsData,
  series: string,
  variants?: readonly string[],
): VariantValues[] {
  return (variants ?? variantNames(data)).map((variant) => {
    const values: number[] = [];
    for (const it of iterationsOf(data, variant)) {
      const s = it.series?.[series];
      if (!s)
        throw new Error(
          `no series "${series}" in ${variant}#${it.iteration}; series: ${Object.keys(it.series ?? {}).join(", ") || "(none)"}`,
        );
      for (const x of s) values.push(x);
    }
    return { variant, values };
  });
}

/**
 * The values of series "sample.<key>" (a `run({ sample })` probe's figure) whose sample time
 * "sample.t" lies in [from, to): simulated seconds, the unit of `sample.every`. Refuses, naming
 * the sampled range, a window that selects no sample (ns given for seconds, or outside the run),
 * so a windowed mean is never a silent NaN.
 *
 * @example
 * ```ts
 * import { analysis, topology, workload } from "schedlab";
 * const it = topology("core2-2x2")
 *   .workload(workload.hogs({ n: 3, seconds: 0.05 }))
 *   .runSync({ sample: { every: 0.01, fn: (k) => ({ nr0: k.rqs[0].nrRunning }) } })
 *   .iteration("baseline", 0);
 * console.log(it.series["sample.t"], analysis.sampleWindow(it, "nr0", 0.02, 0.04));
 * ```
 * Prints:
 * ```text
 * [ 0.01, 0.02, 0.03, 0.04 ] [ 1, 1 ]
 * ```
 */
export function sampleWindow(it: IterationResult, key: string, from: number, to: number): number[] {
  const name = key.startsWith("sample.") ? key : `sample.${key}`;
  const t = it.series?.["sample.t"];
  const values = it.series?.[name];
  if (!t || !values) {
    const keys = Object.keys(it.series ?? {}).filter(
      (k) => k.startsWith("sample.") && k !== "sample.t",
    );
    throw new Error(
      `sampleWindow: no series "${name}" in ${it.variant}#${it.iteration} (sampled: ${keys.join(", ") || "none; run with { sample: { every, fn } }"})`,
    );
  }
  if (!(Number.isFinite(from) && Number.isFinite(to) && to > from))
    throw new Error(
      `sampleWindow: the window must have from < to, in seconds (got ${from}..${to})`,
    );
  const out: number[] = [];
  for (let i = 0; i < t.length; i++) if (t[i] >= from && t[i] < to) out.push(values[i]);
  if (out.length === 0)
    throw new Error(
      `sampleWindow: no sample of "${name}" in ${from}..${to} s; the samples run from ${t[0]} to ${t[t.length - 1]} s (sample.t is in simulated seconds)`,
    );
  return out;
}
