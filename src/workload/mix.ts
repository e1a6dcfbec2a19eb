// Several workloads on one machine at once: a benchmark with background activity beside it, or
// two benchmarks competing. Each part sets its tasks up on the same kernel; the first part's
// figures keep their names, the others' are prefixed with the part's name.
import type { Workload, WorkloadRun } from "./workload";

/**
 * Runs `main` and `others` together in each iteration. Metrics and series of `main` keep their
 * names; those of every other part are named `<part name>.<metric>` (with `#2`, `#3`... after the
 * name when two parts share one). The run length and warm-up are `main`'s.
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const exp = topology("core2-2x2").workload(
 *   workload.pingpong({ pairs: 1, seconds: 0.05 }),
 *   workload.hogs({ n: 1 }),
 * );
 * const it = exp.runSync().data.iterations[0];
 * console.log(Object.keys(it.metrics).filter((m) => m.startsWith("hogs.")).length > 0);
 * ```
 * Prints:
 * ```text
 * true
 * ```
 */
export function mix(main: Workload, ...others: Workload[]): Workload {
  const parts = [main, ...others];
  parts.forEach((w, i) => {
    if (!w || typeof w.setup !== "function")
      throw new Error(`workload.mix: part ${i + 1} is not a Workload (e.g. workload.hogs({...}))`);
  });
  if (others.length === 0) return main;
  const prefixes = prefixesOf(parts);
  return {
    name: parts.map((w) => w.name).join("+"),
    params: { parts: parts.map((w) => ({ name: w.name, params: w.params })) },
    defaultDurationNs: main.defaultDurationNs,
    defaultWarmupNs: main.defaultWarmupNs,
    setup(ctx) {
      const runs: WorkloadRun[] = parts.map((w) => w.setup(ctx));
      return {
        metrics: () =>
          merged(
            runs.map((r) => r.metrics()),
            prefixes,
          ),
        series: () =>
          merged(
            runs.map((r) => (r.series ? r.series() : {})),
            prefixes,
          ),
      };
    },
  };
}

/** "" for the first part, "<name>." for the others, numbered when names repeat. */
function prefixesOf(parts: Workload[]): string[] {
  const seen = new Map<string, number>();
  return parts.map((w, i) => {
    const n = (seen.get(w.name) ?? 0) + 1;
    seen.set(w.name, n);
    if (i === 0) return "";
    return n === 1 ? `${w.name}.` : `${w.name}#${n}.`;
  });
}

function merged<T>(records: Array<Record<string, T>>, prefixes: string[]): Record<string, T> {
  const out: Record<string, T> = {};
  records.forEach((r, i) => {
    for (const [key, v] of Object.entries(r)) out[prefixes[i] + key] = v;
  });
  return out;
}
