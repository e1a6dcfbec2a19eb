// What a notebook cell shows, from schedlab rather than helpers pasted into the notebook:
// HTML tables, the reproduction ledger, figures, and one number format for tables and prose.
// Everything is drawn through tslab's display, as plot.display() draws figures.
import { showHtml } from "../plot/display";
import { tableHtml, type TableOptions, type TableRows } from "../plot/table";
import { LEDGER_CSS, ledgerTable } from "../report/html";
import { escapeHtml } from "../plot/embed";
import type { Ledger } from "../reproduce/ledger";
import { reportRows } from "../reproduce/report";

export { fmt, tableHtml, type TableRows, type TableOptions, type FrameLike } from "../plot/table";
export { display as figure, showHtml as html, resetDisplay } from "../plot/display";

/**
 * Show a table in the cell's output: records (columns from their keys), rows of cells with
 * `columns`, or a danfojs DataFrame. Non-integer numbers go through fmt(x, digits).
 *
 * @example
 * ```ts
 * import { display } from "schedlab";
 * const rows = [{ cpu: 0, share: 0.75351 }, { cpu: 1, share: 0.24649 }];
 * console.log(display.tableHtml(rows, { digits: 2 }).includes(">0.75</td>"));
 * // in a notebook: display.table(rows, { caption: "CPU shares", digits: 2 });
 * ```
 * Prints:
 * ```text
 * true
 * ```
 */
export function table(rows: TableRows, opts: TableOptions = {}): void {
  showHtml(tableHtml(rows, opts));
}

/** The ledger as HTML: one table per experiment, out-of-band rows marked, as the report shows it. */
export function ledgerHtml(l: Ledger): string {
  const parts = l.experiments.map((e) => {
    const table = ledgerTable({ ...e, rows: reportRows(e), figures: [] });
    const today = e.today
      ? `\n<p class="meta"><b>Today (${escapeHtml(e.today.era)}, no patch).</b> ${escapeHtml(e.today.note)}</p>`
      : "";
    return `<h4>${escapeHtml(e.id)}: ${escapeHtml(e.title)}</h4>\n${table}${today}`;
  });
  return `<style>${LEDGER_CSS}</style>\n<p class="meta">schedlab ${escapeHtml(l.version)}</p>\n${parts.join("\n")}`;
}

/**
 * Show the reproduction ledger in the cell's output (formatLedger() prints it as text).
 *
 * @example
 * ```ts
 * import { display, ledgerEntry, newLedger, reproduction, runReproduction } from "schedlab";
 * const demo = reproduction("demo");
 * const res = runReproduction(demo, { iterations: 2, duration: 0.5, warmup: 0.1 });
 * const html = display.ledgerHtml(newLedger([ledgerEntry(demo, res)]));
 * console.log((html.match(/<tr class="(in|out)">/g) ?? []).length, "judged rows");
 * // in a notebook: display.ledger(newLedger([ledgerEntry(demo, res)]));
 * ```
 * Prints:
 * ```text
 * 2 judged rows
 * ```
 */
export function ledger(l: Ledger): void {
  showHtml(ledgerHtml(l));
}
