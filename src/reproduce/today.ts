// The `today` variant of a reproduction: its machine and workload on today's kernel (the newest
// era: EEVDF, that release's balancer and wakeup path), with no patch applied, because today's
// kernel already holds whatever of the patch was merged. Built from the reproduction's own
// experiment, so no experiment writes it by hand; its rows carry no published value.
import type { Experiment, RunOptions } from "../experiment/experiment";
import type { Results } from "../experiment/results";
import type { Era } from "../kernel/features";
import { ledgerRow, type LedgerExperiment } from "./ledger";
import { reproduction, reproductionAt, type Reproduction, type RunProfile } from "./registry";
import type { LedgerRow } from "./types";
import { parseSweepJobId, sweepJobExperiment } from "./sweep_job";

/** The kernel a `today` variant runs. */
export const TODAY_ERA: Era = "6.19";
/** The variant name of today's rows. */
export const TODAY_VARIANT = "today";
/** How a today run is named to worker threads: `<id>@today`. */
const SUFFIX = "@today";

/** What the today rows are, said once for every reproduction (the report and the ledger print it). */
export const TODAY_MEANING =
  `Rows with variant ${TODAY_VARIANT} run the same machine and workload on ${TODAY_ERA} ` +
  "(EEVDF, today's balancer and wakeup path) with no patch applied: today's kernel holds what was merged. " +
  "Nothing was published for them (published -, never judged); they answer whether the effect still happens.";

function spec(r: Reproduction) {
  if (!r.today) throw new Error(`reproduction ${r.id} has no today variant`);
  return r.today;
}

/**
 * The today experiment of `r`: its experiment on TODAY_ERA with one unpatched variant `today`;
 * null when one of its own variants already is that (`today.fromVariant`).
 */
export function todayExperiment(r: Reproduction): Experiment | null {
  if (spec(r).fromVariant !== undefined) return null;
  return r
    .experiment()
    .era(TODAY_ERA)
    .variants({ [TODAY_VARIANT]: [] });
}

/** The today run of `r` as the thread pool takes it: id `<id>@today`, the today experiment. */
export function todayRun(r: Reproduction): Pick<Reproduction, "id" | "experiment"> {
  const exp = todayExperiment(r);
  if (!exp) throw new Error(`reproduction ${r.id} takes its today rows from its own run`);
  return { id: `${r.id}${SUFFIX}`, experiment: () => todayExperiment(r)! };
}

/**
 * A worker's experiment by id: a reproduction's, (`<id>@today`) its today experiment, or
 * (`<id>|<values as JSON>`) either with those values assumed for its unknowns, or (a JSON object)
 * one job of a sweep spec (sweep_job.ts).
 */
export function experimentById(id: string): Experiment {
  if (id.startsWith("{")) return sweepJobExperiment(parseSweepJobId(id));
  // `<id>|{"unknown":value}`: a point of a sweep over the reproduction's unknowns
  const bar = id.indexOf("|");
  if (bar >= 0) {
    const base = id.slice(0, bar);
    const values = JSON.parse(id.slice(bar + 1));
    // a reproduction's closed-form calibration is refitted at the point (reproductionAt)
    return base.endsWith(SUFFIX)
      ? experimentById(base).assume(values)
      : reproductionAt(base, values);
  }
  if (!id.endsWith(SUFFIX)) return reproduction(id).experiment();
  const exp = todayExperiment(reproduction(id.slice(0, -SUFFIX.length)));
  if (!exp) throw new Error(`reproduction ${id} takes its today rows from its own run`);
  return exp;
}

/**
 * Run r's today variant in this thread with a profile (r.full, r.quick or your own); null when
 * its today rows come from r's own run (`today.fromVariant`).
 *
 * @example
 * ```ts
 * import { reproduction, runToday, todayRows } from "schedlab";
 * const r = reproduction("002");
 * const res = runToday(r, { iterations: 1, duration: 10.01 });
 * console.log(todayRows(r, res!).map((x) => `${x.metric} ${x.variant} ${x.published}`).join("\n"));
 * ```
 * Prints:
 * ```text
 * avg_loops today null
 * stddev_loops today null
 * cv_loops today null
 * ```
 */
export function runToday(
  r: Reproduction,
  profile: RunProfile,
  opts: Pick<RunOptions, "seed" | "onProgress" | "trace"> = {},
): Results | null {
  const exp = todayExperiment(r);
  if (!exp) return null;
  return exp.runSync({
    iterations: profile.iterations,
    duration: profile.duration,
    warmup: profile.warmup,
    ...opts,
  });
}

/**
 * The today rows of `r`: one per headline metric, variant `today`, published null, from `res`
 * (the today run, or r's own run when its today rows come from one of its variants).
 */
export function todayRows(r: Reproduction, res: Results): LedgerRow[] {
  const t = spec(r);
  const variant = t.fromVariant ?? TODAY_VARIANT;
  return t.metrics.map((metric) => {
    const values = t.values ? t.values(res, metric, variant) : res.values(metric, variant);
    return {
      ...ledgerRow(metric, TODAY_VARIANT, null, values),
      role: "reported" as const,
      verdict: "not judged" as const,
      reason: "today's kernel: nothing published",
    };
  });
}

/**
 * r's ledger entry with its today rows appended (existing rows untouched) and what they mean:
 * `today` is the today run (null when r's rows come from its own run `res`), `wallS` its wall
 * time.
 */
export function withToday(
  entry: LedgerExperiment,
  r: Reproduction,
  res: Results,
  today: Results | null,
  wallS?: number,
): LedgerExperiment {
  if (!r.today) return entry;
  const run = today ?? res;
  const spec = run.data.spec;
  let events = 0;
  for (const it of run.data.iterations) events += it.events;
  return {
    ...entry,
    rows: [...entry.rows, ...todayRows(r, run)],
    today: {
      note: r.today.note,
      era: spec.era,
      iterations: spec.iterations,
      durationS: spec.durationNs / 1e9,
      ...(today && wallS !== undefined ? { wall_s: +wallS.toFixed(3) } : {}),
      ...(today ? { events } : { fromVariant: r.today.fromVariant }),
    },
  };
}
