// HTML tables for notebook cells: rows of records, rows of cells with column names, or a
// danfojs DataFrame, with numbers formatted one way (fmt) so tables and prose agree.
import { fmtNum } from "../analysis/compare";
import { escapeHtml } from "./embed";

/** A danfojs DataFrame as far as a table needs it (no danfo import: it is slow to load). */
export interface FrameLike {
  /** Column names. */
  columns: string[];
  /** Rows of cells. */
  values: unknown[][];
}

/** What table() accepts: records (columns from their keys), rows of cells, or a DataFrame. */
export type TableRows =
  | ReadonlyArray<Record<string, unknown>>
  | ReadonlyArray<readonly unknown[]>
  | FrameLike;

/** Options of table() and tableHtml(). */
export interface TableOptions {
  /** A line above the table. */
  caption?: string;
  /** Decimals for non-integer numbers (default 3; numbers >= 100 get 1). */
  digits?: number;
  /** Column names: required for rows of cells, and picks/orders the columns of records. */
  columns?: string[];
}

/**
 * A number for reading: "–" for null, undefined or NaN, one decimal from 100 up, else `digits`
 * decimals. (fmtNum picks decimals by magnitude for compare tables; here the caller chooses.)
 *
 * @example
 * ```ts
 * import { display } from "schedlab";
 * console.log(display.fmt(0.123456), display.fmt(1234.5678), display.fmt(2 / 3, 1), display.fmt(NaN));
 * ```
 * Prints:
 * ```text
 * 0.123 1234.6 0.7 –
 * ```
 */
export function fmt(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  return fmtNum(x, Math.abs(x) >= 100 ? 1 : digits);
}

function cellText(c: unknown, digits: number): string {
  if (typeof c === "number") return Number.isInteger(c) ? String(c) : fmt(c, digits);
  if (c === null || c === undefined) return "–";
  return String(c);
}

// Numbers, percentages, ranges ("1.2..3.4") and runs of numbers line up on the right.
const NUMERIC = /^([-+]?[\d.]+(%|\.\.[\d.]+)?|–)( [\d.]+)*$/;

function isFrame(rows: TableRows): rows is FrameLike {
  return !Array.isArray(rows) && Array.isArray((rows as FrameLike).columns);
}

/** The column names and rows of cells of any TableRows. */
function grid(rows: TableRows, columns?: string[]): { head: string[]; cells: unknown[][] } {
  if (isFrame(rows)) return { head: rows.columns, cells: rows.values };
  const list = rows as ReadonlyArray<unknown>;
  if (list.length > 0 && !Array.isArray(list[0])) {
    const records = list as ReadonlyArray<Record<string, unknown>>;
    const head = columns ?? [...new Set(records.flatMap((r) => Object.keys(r)))];
    return { head, cells: records.map((r) => head.map((k) => r[k])) };
  }
  if (!columns) throw new Error("table: rows of cells need opts.columns (the column names)");
  return { head: columns, cells: list as unknown[][] };
}

/** The table as an HTML string (what table() displays). */
export function tableHtml(rows: TableRows, opts: TableOptions = {}): string {
  const { head, cells } = grid(rows, opts.columns);
  const digits = opts.digits ?? 3;
  const td = (c: unknown, tag: "td" | "th") => {
    const s = tag === "th" ? String(c) : cellText(c, digits);
    const right = tag === "td" && NUMERIC.test(s);
    return `<${tag} style="text-align:${right ? "right" : "left"};padding:2px 10px;border-bottom:1px solid #ddd">${escapeHtml(s)}</${tag}>`;
  };
  return (
    `<table style="border-collapse:collapse;font-family:monospace;font-size:12px;margin:4px 0">` +
    (opts.caption
      ? `<caption style="text-align:left;font-weight:bold;padding:4px 0">${escapeHtml(opts.caption)}</caption>`
      : "") +
    `<tr>${head.map((h) => td(h, "th")).join("")}</tr>` +
    cells.map((row) => `<tr>${row.map((c) => td(c, "td")).join("")}</tr>`).join("") +
    `</table>`
  );
}
