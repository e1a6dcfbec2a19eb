// display(figure) for tslab notebooks: draws a plotly figure inline. The plotly bundle is
// inlined into the first output of each running kernel, so an exported notebook (nbconvert
// --to html) carries it and works offline; later figures only add a div and a script.
import * as fs from "node:fs";
import * as path from "node:path";
import { figureHtml, plotlyScriptTag } from "./embed";
import type { Figure } from "./types";

interface TslabDisplay {
  html(s: string): void;
}

let bundleSent = false;

/** Inline the plotly bundle again with the next figure (after clearing all outputs, say). */
export function resetDisplay(): void {
  bundleSent = false;
}

/**
 * tslab's display object, from the tslab that runs this kernel: resolving "tslab" from
 * schedlab's own folder could load a second copy whose display is not wired to the kernel.
 */
function tslabDisplay(): TslabDisplay {
  const candidates: string[] = [];
  const main = process.argv[1];
  if (main && /tslab[\\/]bin[\\/]tslab(\.js)?$/.test(main)) {
    try {
      candidates.push(path.join(path.dirname(fs.realpathSync(main)), "..", "dist", "public.js"));
    } catch {
      /* fall through to the package name */
    }
  }
  candidates.push("tslab");
  for (const c of candidates) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-var-requires
      const mod = require(c) as { display?: TslabDisplay };
      if (mod.display) return mod.display;
    } catch {
      /* try the next */
    }
  }
  throw notInTslab();
}

function notInTslab(): Error {
  return new Error(
    "display() draws figures inside a tslab Jupyter kernel and none is running here; " +
      "outside a notebook write figures to a file with renderReport() (schedlab/report) or figureHtml(), " +
      "and tables with display.tableHtml().",
  );
}

/** Show HTML in the current notebook cell's output (tables, ledgers; figures use display()). */
export function showHtml(html: string): void {
  const d = tslabDisplay();
  try {
    d.html(html);
  } catch (e) {
    // tslab's display throws "Not ready" when loaded outside a running kernel.
    if (e instanceof Error && /not ready/i.test(e.message)) throw notInTslab();
    throw e;
  }
}

/** Draw one or more figures in the current notebook cell's output. */
export function display(figure: Figure | Figure[]): void {
  const figs = Array.isArray(figure) ? figure : [figure];
  const html =
    (bundleSent ? "" : `${plotlyScriptTag()}\n`) + figs.map((f) => figureHtml(f)).join("\n");
  showHtml(html);
  bundleSent = true;
}
