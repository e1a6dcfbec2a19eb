// One self-contained HTML report: plotly inlined once, every figure drawn from JSON embedded in
// the page, the ledger, and the specs/seeds/version as JSON so a reader can rerun the runs.
// No network access is needed to view it.
import { prepareOutputDir, writeFileAtomic } from "./files";
import * as path from "node:path";
import {
  drawAllScript,
  escapeHtml,
  figureDataHtml,
  htmlSafeJson,
  plotlyScriptTag,
} from "../plot/embed";
import { fmtNum } from "../analysis/compare";
import type { Figure } from "../plot/types";
import {
  bandText,
  inBandText,
  kindText,
  ledgerRow,
  ledgerRows,
  ledgerTotals,
  runCostText,
  type ReportExperiment,
} from "./ledger";

export type { ReportExperiment, LedgerRowInput } from "./ledger";

export interface ReportInput {
  /** Page title; default "schedlab report". */
  title?: string;
  /** schedlab version that produced the numbers. */
  version: string;
  experiments: ReportExperiment[];
  /** Timestamp text to print; omitted by default so the same runs give a byte-identical report. */
  generatedAt?: string;
  /** The rerun command line; default `npx schedlab reproduce <ids> --report <dir>`. */
  rerun?: string;
  /** Extra JSON-able facts to embed with the specs (node version, machine...). */
  meta?: Record<string, unknown>;
  /** Real kernel traces beside their replays on the model (a section after the experiments). */
  replays?: ReportReplay[];
}

/** One recording beside its closed and open replays (experiment/replay_run.ts ReplayTable). */
export interface ReportReplay {
  name: string;
  command: string;
  kernel: string | null;
  era: string;
  rows: Array<{ figure: string; unit: string; real: number; closed: number; open: number }>;
  /** Plots drawn under the table (the report of `schedlab reproduce`: the latency CDFs). */
  figures?: Figure[];
}

function replaySection(replays: readonly ReportReplay[]): string {
  if (replays.length === 0) return "";
  const n = (x: number) =>
    Number.isNaN(x)
      ? "–"
      : Number.isInteger(x) || Math.abs(x) >= 100
        ? x.toFixed(0)
        : x.toPrecision(3);
  const tables = replays.map((r, ri) =>
    [
      `<h3>${escapeHtml(r.name)}</h3>`,
      `<p class="meta"><code>${escapeHtml(r.command)}</code> on Linux ${escapeHtml(r.kernel ?? "?")}, replayed at era ${escapeHtml(r.era)}</p>`,
      `<table class="ledger"><tr><th>figure</th><th>unit</th><th>real</th><th>closed replay</th><th>open replay</th></tr>`,
      ...r.rows.map(
        (x) =>
          `<tr><td>${escapeHtml(x.figure)}</td><td>${escapeHtml(x.unit)}</td><td class="num">${n(x.real)}</td><td class="num">${n(x.closed)}</td><td class="num">${n(x.open)}</td></tr>`,
      ),
      "</table>",
      ...(r.figures ?? []).map((f, fi) => figureDataHtml(f, `fig-replay-${ri}-${fi}`)),
    ].join("\n"),
  );
  return [
    `<section id="replays">`,
    "<h2>Real kernel traces replayed</h2>",
    "<p>Traces recorded on the project's own Linux guest (data/traces), replayed on the model of the same machine; what each mode can answer and why the figures differ: docs/validation.md.</p>",
    ...tables,
    "</section>",
  ].join("\n");
}

/** The ledger table's rules, shared by the report page and a notebook's display.ledger(). */
export const LEDGER_CSS = `table.ledger{border-collapse:collapse;font-size:.9em;margin:.8em 0}
table.ledger th,table.ledger td{border:1px solid #ccc;padding:.25em .6em}
table.ledger td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.out td{background:#fde8e8}tr.in td.flag{color:#176f2c;font-weight:bold}tr.out td.flag{color:#b00;font-weight:bold}
.meta{color:#555;font-size:.9em}`;

const CSS = `
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
${LEDGER_CSS.replace(/\n\.meta\{.*$/, "")}
code,pre{background:#f5f5f5;padding:.1em .3em}pre{padding:.6em;overflow-x:auto}
.meta{color:#555;font-size:.9em}.notes{white-space:normal}
`;

/** One experiment's ledger rows as an HTML table (class "ledger"; style it with LEDGER_CSS). */
export function ledgerTable(e: ReportExperiment): string {
  const rows = e.rows.map((r) => ledgerRow(e.id, r));
  if (rows.length === 0) return `<p class="meta">No ledger rows.</p>`;
  const head = [
    "metric",
    "variant",
    "role",
    "published",
    "simulated",
    "±95% CI",
    "n",
    "ratio",
    "band",
    "verdict",
  ];
  const body = rows.map((r) => {
    const cls = r.inBand === null ? "" : r.inBand ? "in" : "out";
    const title = r.iterations.length
      ? ` title="iterations: ${escapeHtml(r.iterations.map((x) => fmtNum(x)).join(", "))}"`
      : "";
    return (
      `<tr class="${cls}">` +
      `<td>${escapeHtml(r.metric)}${r.unit ? ` <span class="meta">(${escapeHtml(r.unit)})</span>` : ""}</td>` +
      `<td>${escapeHtml(r.variant)}</td>` +
      `<td class="kind">${escapeHtml(r.role ?? kindText(r.kind))}</td>` +
      `<td class="num">${r.published === null ? "-" : fmtNum(r.published)}</td>` +
      `<td class="num"${title}>${fmtNum(r.simulated)}</td>` +
      `<td class="num">${fmtNum(r.ci95)}</td>` +
      `<td class="num">${r.n}</td>` +
      `<td class="num">${r.ratio === null ? "-" : r.ratio.toFixed(3)}</td>` +
      `<td class="num">${escapeHtml(bandText(r.band))}</td>` +
      `<td class="flag"${r.reason ? ` title="${escapeHtml(r.reason)}"` : ""}>${escapeHtml(r.verdict ?? inBandText(r.inBand))}</td></tr>`
    );
  });
  return `<table class="ledger"><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>\n${body.join("\n")}\n</tbody></table>`;
}

/** " · predicted figures in band: X of Y ..." when the rows carry verdicts, else "". */
function verdictSummary(es: readonly ReportExperiment[]): string {
  const rows = es.flatMap((e) => e.rows).filter((r) => r.verdict);
  if (!rows.length) return "";
  const predicted = rows.filter((r) => r.role === "predicted").length;
  const hits = rows.filter((r) => r.verdict?.startsWith("reproduced")).length;
  const targets = rows.filter((r) => r.verdict === "calibration target").length;
  return ` · predicted figures in band: ${hits} of ${predicted}; calibration targets (never counted as reproduced): ${targets}`;
}

/** The experiment's unknowns: each value, calibrated or default, its range and source. */
function unknownsList(e: ReportExperiment): string {
  if (!e.unknowns?.length) return "";
  const items = e.unknowns.map(
    (u) =>
      `<li><code>${escapeHtml(u.name)}</code> = ${escapeHtml(String(u.value))}${u.unit !== "choice" ? ` ${escapeHtml(u.unit)}` : ""} ` +
      `(<b>${u.calibrated ? "calibrated" : "default"}</b>; ${escapeHtml(u.range ? `range ${u.range[0]}..${u.range[1]}` : `choices ${u.choices?.join(", ")}`)}; ${escapeHtml(u.source)})</li>`,
  );
  return `<p class="meta">Declared unknowns:</p><ul class="unknowns">${items.join("")}</ul>`;
}

function paragraphs(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p class="notes">${escapeHtml(p)}</p>`)
    .join("\n");
}

const anchor = (id: string) => `exp-${id.replace(/[^A-Za-z0-9_-]/g, "_")}`;

/** Render the whole report as one HTML string. */
export function renderReport(input: ReportInput): string {
  const title = input.title ?? "schedlab report";
  const ids = input.experiments.map((e) => e.id);
  const rerun =
    input.rerun ?? `npx schedlab reproduce ${ids.join(" ")} --report <dir>`.replace(/\s+/g, " ");
  const totals = ledgerTotals(ledgerRows(input.experiments));
  const anyFigures =
    input.experiments.some((e) => e.figures.length > 0) ||
    (input.replays ?? []).some((r) => (r.figures?.length ?? 0) > 0);
  const embedded = {
    schedlab: input.version,
    generatedAt: input.generatedAt ?? null,
    rerun,
    meta: input.meta ?? {},
    experiments: input.experiments.map((e) => ({
      id: e.id,
      title: e.title,
      machine: e.machine,
      spec: e.spec ?? null,
      rows: e.rows,
    })),
  };

  const sections = input.experiments.map((e, ei) => {
    // Ids from positions, not random, so the same input renders byte-identically.
    const figs = e.figures.map((f, fi) => figureDataHtml(f, `fig-${ei}-${fi}`)).join("\n");
    return [
      `<section id="${anchor(e.id)}">`,
      `<h2>${escapeHtml(e.id)}: ${escapeHtml(e.title)}</h2>`,
      `<p class="meta">machine <b>${escapeHtml(e.machine)}</b>${e.source ? ` · source: ${escapeHtml(e.source)}` : ""}${escapeHtml(runCostText(e.wallS, e.events, " · "))}</p>`,
      e.notes ? paragraphs(e.notes) : "",
      ledgerTable(e),
      unknownsList(e),
      e.todayNote ? `<p class="notes today"><b>Today.</b> ${escapeHtml(e.todayNote)}</p>` : "",
      figs,
      `</section>`,
    ]
      .filter(Boolean)
      .join("\n");
  });

  return `${[
    "<!DOCTYPE html>",
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta name="generator" content="schedlab ${escapeHtml(input.version)}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${CSS}</style>`,
    anyFigures ? plotlyScriptTag() : "",
    `</head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="meta">schedlab ${escapeHtml(input.version)}${input.generatedAt ? ` · ${escapeHtml(input.generatedAt)}` : ""} · ` +
      `${totals.inBand}/${totals.judged} judged numbers in band${totals.outOfBand ? `, <b>${totals.outOfBand} out of band</b>` : ""}${verdictSummary(input.experiments)}</p>`,
    `<p>How to rerun: <code>${escapeHtml(rerun)}</code> (the specs, seeds and version are embedded in this page as JSON, ` +
      `<code>script#schedlab-spec</code>).</p>`,
    input.experiments.length > 1
      ? `<ul>${input.experiments.map((e) => `<li><a href="#${anchor(e.id)}">${escapeHtml(e.id)}</a>: ${escapeHtml(e.title)}</li>`).join("")}</ul>`
      : "",
    ...sections,
    replaySection(input.replays ?? []),
    `<script type="application/json" id="schedlab-spec">${htmlSafeJson(embedded)}</script>`,
    anyFigures ? drawAllScript() : "",
    `</body></html>`,
  ]
    .filter((s) => s !== "")
    .join("\n")}\n`;
}

/**
 * Write the report as `dir/name` (default index.html), creating dir; returns the file path.
 * The page is written to a temporary file and renamed, so a reader never sees half of it.
 */
export function writeReport(dir: string, input: ReportInput, name = "index.html"): string {
  const file = path.join(prepareOutputDir(dir, "report directory"), name);
  writeFileAtomic(file, renderReport(input));
  return file;
}
