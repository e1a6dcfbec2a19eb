// Run-to-run variation: whether a variant's iterations differ at all. In the model, iterations
// differ only through the random draws of their seeds (docs/variation.md); a workload that draws
// none gives identical iterations, and averaging them averages nothing, so the run says so.
import type { ResultsData } from "../experiment/types";
import { iterationsOf, variantNames } from "./metric";

/** The variants whose iterations (two or more) all report identical metrics. */
export function identicalIterations(data: ResultsData): string[] {
  const out: string[] = [];
  for (const variant of variantNames(data)) {
    const its = iterationsOf(data, variant);
    if (its.length < 2) continue;
    const first = JSON.stringify(its[0].metrics);
    if (its.every((it) => it.events === its[0].events && JSON.stringify(it.metrics) === first))
      out.push(variant);
  }
  return out;
}

/**
 * A warning naming the experiment when some variant's iterations are all identical, else null.
 * `name` defaults to the workload, machine and era of the spec.
 *
 * @example
 * ```ts
 * import { analysis, topology, workload } from "schedlab";
 * const res = topology("core2-2x2").workload(workload.hogs({ n: 2, seconds: 0.05 })).runSync({ iterations: 3 });
 * console.log(analysis.variationWarning(res.data));
 * ```
 * Prints:
 * ```text
 * experiment hogs on core2-2x2, era 6.19: the 3 iterations of variant baseline are identical (iterations differ only through the random numbers their seeds give, and this run depends on none: more iterations average nothing; docs/variation.md)
 * ```
 */
export function variationWarning(data: ResultsData, name?: string): string | null {
  const same = identicalIterations(data);
  if (same.length === 0) return null;
  const spec = data.spec;
  const machine =
    typeof spec.machine === "string" ? spec.machine : String(spec.machine.name ?? "a machine");
  const label = name ?? `${spec.workload.name} on ${machine}, era ${spec.era}`;
  const n = iterationsOf(data, same[0]).length;
  const which = same.length === 1 ? `variant ${same[0]}` : `variants ${same.join(", ")}`;
  return `experiment ${label}: the ${n} iterations of ${which} are identical (iterations differ only through the random numbers their seeds give, and this run depends on none: more iterations average nothing; docs/variation.md)`;
}

/** Emits variationWarning as a process warning ("SchedlabWarning") when it applies; returns `res`. */
export function warnIfIdentical<R extends { data: ResultsData }>(res: R): R {
  const w = variationWarning(res.data);
  if (w) process.emitWarning(w, "SchedlabWarning");
  return res;
}
