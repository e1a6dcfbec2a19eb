// The declarations a user writes beside an experiment: unknown() and variant(), typed for
// Experiment (their generic cores live in unknown.ts and variant.ts).
import type { Experiment } from "./experiment";
import { declareUnknown, type Unknown, type UnknownOptions } from "./unknown";
import { Variant, type VariantOptions } from "./variant";

/**
 * Declare an unknown: a figure no source gives (a machine cost, a workload rate, a tunable, which
 * machine or era), with the range a source supports, a default, the source, the unit, and how a
 * value enters an experiment. Refused, naming the field: no range or choices, a default outside
 * them, no source, a range outside the unit's physical limits.
 *
 * @example
 * ```ts
 * import { topology, unknown, workload } from "schedlab";
 * const switchNs = unknown("context_switch_ns", {
 *   range: [1000, 4000], default: 2000, unit: "ns",
 *   source: "choice: a context switch on 2008-2019 x86 parts takes 1-4 us",
 *   apply: (exp, v) => exp.costs({ contextSwitchNs: Number(v) }),
 * });
 * const exp = topology("core2-2x2").workload(workload.hogs({ n: 3, seconds: 0.1 })).unknowns(switchNs);
 * console.log(exp.unknownValues(), exp.assume({ context_switch_ns: 3000 }).machine().costs.contextSwitchNs);
 * ```
 * Prints:
 * ```text
 * { context_switch_ns: 2000 } 3000
 * ```
 */
export function unknown(name: string, opts: UnknownOptions<Experiment>): Unknown<Experiment> {
  return declareUnknown(name, opts);
}

/**
 * A variant that changes the machine, the era, tunables, features or any other step, for
 * `variants()`: compared like a patch list (same seeds, same workload).
 *
 * @example
 * ```ts
 * import { topology, variant, workload } from "schedlab";
 * const res = await topology("core2-2x2")
 *   .era("6.19")
 *   .workload(workload.hogs({ n: 3, seconds: 0.2 }))
 *   .variants({ today: [], old: variant({ era: "2.6.29" }) })
 *   .run();
 * console.log(res.variants, res.data.spec.variants.old);
 * ```
 * Prints:
 * ```text
 * [ 'today', 'old' ] { description: 'era 2.6.29', patches: [], era: '2.6.29' }
 * ```
 */
export function variant(opts: VariantOptions<Experiment>): Variant<Experiment> {
  return new Variant(opts);
}
