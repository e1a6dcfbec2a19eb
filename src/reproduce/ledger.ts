// The reproduction ledger: for each experiment, each published number beside the simulated one.
import { mean } from "../analysis/stats";
import { ledgerRow as judgeRow, kindText, runCostText } from "../report/ledger";
import { VERSION } from "../version";
import type { Results } from "../experiment/results";
import type { FigureKind, LedgerRow } from "./types";
import {
  judgeRow as verdictOf,
  verdictContext,
  verdictCounts,
  type VerdictCounts,
} from "./verdict";
import { reproductionUnknowns, type UnknownEntry } from "./unknowns";
import { frozenCalibration, type CalibrationFile } from "./calibration_file";
import { calibrationSource, reproductionIds } from "./registry";

export type { FigureKind, LedgerRow } from "./types";

/** One reproduction's part of the ledger: what ran, and its rows. */
export interface LedgerExperiment {
  id: string;
  title: string;
  machine: string;
  /** Seed file the published numbers come from. */
  source: string;
  rows: LedgerRow[];
  /**
   * Simulated seconds per iteration, iterations, seed: enough to rerun. What the runs cost:
   * `events`, the simulated events over all of them, and `wall_s`, the wall-clock seconds they
   * took (it varies from run to run: strip it before comparing ledgers).
   */
  run: {
    iterations: number;
    durationS: number;
    seed: string;
    era: string;
    wall_s?: number;
    events?: number;
  };
  notes?: string;
  /** The experiment's declared unknowns: range, source, default, the value used, whether fitted. */
  unknowns?: UnknownEntry[];
  /** The frozen calibration the runs used (values, targets, residuals, method), if any. */
  calibration?: Omit<CalibrationFile, "id">;
  /** How many rows got each verdict. */
  verdicts?: VerdictCounts;
  /**
   * The today run (rows with variant `today`): what became of the patch (`note`), the era, and
   * what it cost; `fromVariant` when the rows come from a variant of the main run.
   */
  today?: {
    note: string;
    era: string;
    iterations: number;
    durationS: number;
    wall_s?: number;
    events?: number;
    fromVariant?: string;
  };
}

/** The reproduction ledger: every experiment's published and simulated numbers. */
export interface Ledger {
  version: string;
  experiments: LedgerExperiment[];
}

/**
 * A ledger row from a published value (or null) and the simulated per-iteration values. A
 * calibrated or derived row is never judged in band (inBand null).
 */
export function ledgerRow(
  metric: string,
  variant: string,
  published: number | null,
  iterations: number[],
  band: [number, number] | null = null,
  kind: FigureKind = "independent",
): LedgerRow {
  const simulated = iterations.length ? mean(iterations) : NaN;
  // ratio and in-band judgement as the HTML report computes them
  const judged = judgeRow("", {
    metric,
    variant,
    published,
    simulated,
    iterations,
    kind,
    ...(band ? { band } : {}),
  });
  return {
    metric,
    variant,
    published,
    simulated,
    iterations,
    ratio: judged.ratio,
    band,
    inBand: judged.inBand,
    kind,
  };
}

/** A ledger of these experiments, stamped with this schedlab version. */
export function newLedger(experiments: LedgerExperiment[]): Ledger {
  return { version: VERSION, experiments };
}

function fmt(x: number | null): string {
  if (x === null || Number.isNaN(x)) return "-";
  const a = Math.abs(x);
  if (a !== 0 && (a < 0.01 || a >= 1e6)) return x.toExponential(3);
  return a >= 100 ? x.toFixed(1) : x.toFixed(4);
}

/** The ledger as a readable table. */
export function formatLedger(l: Ledger): string {
  const out: string[] = [`schedlab ${l.version} reproduction ledger`];
  for (const e of l.experiments) {
    out.push(
      "",
      `${e.id}  ${e.title}`,
      `    machine ${e.machine}, era ${e.run.era}, ${e.run.iterations} iterations x ${e.run.durationS} s, seed ${e.run.seed}${runCostText(e.run.wall_s, e.run.events, ", ")}; source ${e.source}`,
    );
    const head = [
      "metric",
      "variant",
      "role",
      "published",
      "simulated",
      "ratio",
      "band",
      "verdict",
    ];
    const rows = e.rows.map((r) => [
      r.metric,
      r.variant,
      r.role ?? kindText(r.kind),
      fmt(r.published),
      fmt(r.simulated),
      r.ratio === null ? "-" : r.ratio.toFixed(3),
      r.band ? `${fmt(r.band[0])}..${fmt(r.band[1])}` : "-",
      r.verdict ?? (r.inBand === null ? "-" : r.inBand ? "yes" : "NO"),
    ]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]) =>
      "    " +
      cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
    out.push(line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line));
    const v = e.verdicts;
    if (v)
      out.push(
        `    predicted in band: ${v.reproduced + v.reproducedAfterCalibration} of ${v.predicted} (reproduced ${v.reproduced}, after calibration ${v.reproducedAfterCalibration}, missed ${v.missed}, not comparable ${v.notComparable}); calibration targets ${v.calibrationTargets}`,
      );
    for (const u of e.unknowns ?? [])
      out.push(
        `    unknown ${u.name} = ${u.value}${u.kind === "numeric" ? ` ${u.unit}` : ""} (${u.calibrated ? "calibrated" : "default"}; ${u.range ? `range ${u.range[0]}..${u.range[1]}` : `choices ${u.choices!.join(", ")}`}; ${u.source})`,
      );
    if (e.notes) out.push(`    note: ${e.notes}`);
    if (e.today) {
      const t = e.today;
      const how = t.fromVariant
        ? `from variant ${t.fromVariant} of the run above`
        : `${t.iterations} iterations x ${t.durationS} s${runCostText(t.wall_s, t.events, ", ")}`;
      out.push(`    today (${t.era}, no patch; ${how}): ${t.note}`);
    }
  }
  return out.join("\n");
}

/** The parts of a Reproduction a ledger entry needs (typed here so registry.ts, which imports
 *  LedgerRow, is not imported back). */
export interface LedgerSource {
  /** The reproduction's id ("002"). */
  id: string;
  /** One line saying what is reproduced. */
  title: string;
  /** The machine preset it runs on. */
  machine: string;
  /** The seed message the published numbers come from. */
  source: string;
  /** Ledger rows from results. */
  rows(res: Results): LedgerRow[];
  /** Caveats printed under the entry. */
  notes?: string;
}

/**
 * One experiment's ledger entry from its reproduction and results; `wallS`, the wall-clock
 * seconds the runs took, when the caller timed them.
 */
export function ledgerEntry(r: LedgerSource, res: Results, wallS?: number): LedgerExperiment {
  const spec = res.data.spec;
  let events = 0;
  for (const it of res.data.iterations) events += it.events;
  const ctx = verdictContext(r.id);
  const rows = r.rows(res).map((row) => verdictOf(row, ctx));
  const registered = reproductionIds().includes(r.id);
  const cal = registered ? frozenCalibration(calibrationSource(r.id)) : null;
  return {
    id: r.id,
    title: r.title,
    machine: r.machine,
    source: r.source,
    rows,
    unknowns: registered ? reproductionUnknowns(r.id) : [],
    ...(cal ? { calibration: (({ id: _id, ...rest }) => rest)(cal) } : {}),
    verdicts: verdictCounts(rows),
    run: {
      iterations: spec.iterations,
      durationS: spec.durationNs / 1e9,
      seed: spec.seed,
      era: spec.era,
      ...(wallS === undefined ? {} : { wall_s: +wallS.toFixed(3) }),
      events,
    },
    notes: r.notes,
  };
}
