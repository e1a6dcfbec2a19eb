// `schedlab reproduce --report DIR`: the ledger and each experiment's figures as one HTML page.
import { writeReport as writeHtml, type ReportReplay } from "../report/html";
import type { Results } from "../experiment/results";
import type { LedgerRowInput } from "../report/ledger";
import type { Ledger, LedgerExperiment } from "./ledger";
import type { Reproduction } from "./registry";
import { VERSION } from "../version";
import { TODAY_MEANING, TODAY_VARIANT } from "./today";

/** Rows with each metric's `today` row right after that metric's published variants. */
function besideToday(rows: LedgerExperiment["rows"]): LedgerExperiment["rows"] {
  const today = rows.filter((r) => r.variant === TODAY_VARIANT);
  const rest = rows.filter((r) => r.variant !== TODAY_VARIANT);
  const out: LedgerExperiment["rows"] = [];
  rest.forEach((r, i) => {
    out.push(r);
    const lastOfMetric = !rest.slice(i + 1).some((x) => x.metric === r.metric);
    if (lastOfMetric) out.push(...today.filter((t) => t.metric === r.metric));
  });
  return [...out, ...today.filter((t) => !rest.some((x) => x.metric === t.metric))];
}

/** A ledger entry's rows in the form the HTML report's ledger table takes (today rows beside
 *  the published variants of their metric). */
export function reportRows(e: LedgerExperiment): LedgerRowInput[] {
  return besideToday(e.rows).map((r) => ({
    metric: r.metric,
    variant: r.variant,
    published: r.published,
    simulated: r.simulated,
    iterations: r.iterations,
    kind: r.kind,
    ...(r.band ? { band: r.band } : {}),
    ...(r.role ? { role: r.role } : {}),
    ...(r.verdict ? { verdict: r.verdict } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
  }));
}

/** Writes the ledger and each experiment's figures as one HTML page under dir. */
export function writeReport(
  dir: string,
  ledger: Ledger,
  runs: Array<{ repro: Reproduction; res: Results }>,
  replays: ReportReplay[] = [],
): string {
  const experiments = ledger.experiments.map((e) => {
    const run = runs.find((r) => r.repro.id === e.id);
    return {
      id: e.id,
      title: e.title,
      machine: e.machine,
      source: e.source,
      notes: e.notes,
      rows: reportRows(e),
      unknowns: e.unknowns ?? [],
      figures: run?.repro.figures ? run.repro.figures(run.res) : [],
      spec: run?.res.data.spec,
      wallS: e.run.wall_s,
      events: e.run.events,
      ...(e.today ? { todayNote: `${TODAY_MEANING} ${e.today.note}` } : {}),
    };
  });
  const ids = ledger.experiments.map((e) => e.id).join(" ");
  return writeHtml(dir, {
    version: VERSION,
    experiments,
    rerun: `npx schedlab reproduce ${ids} --report ${dir}`,
    replays,
  });
}
