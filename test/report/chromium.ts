// Headless Chromium for render checks: load a page, let its scripts run on virtual time, and
// return the final DOM plus the browser's console log lines.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { spawnSync } from "node:child_process";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Skip reason when Chromium is missing locally; under CI a missing Chromium is a failure. */
export function chromiumUnavailable(): string | null {
  if (fs.existsSync(CHROMIUM)) return null;
  const msg = `${CHROMIUM} not found: apt-get install -y --no-install-recommends chromium`;
  if (process.env.CI === "true" || process.env.CI === "1")
    throw new Error(`${msg} (CI must run the render check, not skip it)`);
  return msg;
}

/**
 * Records page errors into a <pre id="__page_errors"> that --dump-dom shows. Injected first in
 * <head> so it sees errors of every later script, including console.error and rejections.
 */
export const ERROR_CAPTURE = `<script>(function(){var errs=[];function write(){
var el=document.getElementById("__page_errors");if(!el){el=document.createElement("pre");el.id="__page_errors";
(document.body||document.documentElement).appendChild(el);}el.textContent=JSON.stringify(errs);}
function put(s){errs.push(String(s));write();}
window.addEventListener("error",function(e){put("error: "+e.message);});
window.addEventListener("unhandledrejection",function(e){put("rejection: "+(e.reason&&e.reason.message||e.reason));});
var ce=console.error;console.error=function(){put("console.error: "+Array.prototype.join.call(arguments," "));return ce.apply(console,arguments);};
document.addEventListener("DOMContentLoaded",write);})();</script>`;

export interface RenderResult {
  dom: string;
  console: string[];
  pageErrors: string[] | null;
  status: number | null;
  stderr: string;
}

/** Render an HTML string (error capture injected) and dump the DOM after `budgetMs` of virtual time. */
export function renderHtml(html: string, budgetMs = 30000): RenderResult {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-chromium-"));
  try {
    const page = path.join(dir, "page.html");
    fs.writeFileSync(page, html.replace(/<head>/i, `<head>${ERROR_CAPTURE}`));
    const r = spawnSync(
      CHROMIUM,
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        `--user-data-dir=${path.join(dir, "profile")}`,
        "--enable-logging=stderr",
        "--v=0",
        `--virtual-time-budget=${budgetMs}`,
        "--dump-dom",
        `file://${page}`,
      ],
      { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, timeout: 180_000 },
    );
    const stderr = r.stderr ?? "";
    const consoleLines = stderr.split("\n").filter((l) => /CONSOLE/.test(l));
    const m = /<pre id="__page_errors">([\s\S]*?)<\/pre>/.exec(r.stdout ?? "");
    const decodeEntities = (s: string) =>
      s
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&");
    return {
      dom: r.stdout ?? "",
      console: consoleLines,
      pageErrors: m ? JSON.parse(decodeEntities(m[1])) : null,
      status: r.status,
      stderr,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Each schedlab figure div in a DOM dump: its id, data-drawn and whether plotly built its container. */
export function figuresInDom(
  dom: string,
): Array<{ id: string; drawn: number | null; hasPlot: boolean }> {
  const out: Array<{ id: string; drawn: number | null; hasPlot: boolean }> = [];
  const re = /<div ([^>]*class="[^"]*\bschedlab-figure\b[^"]*"[^>]*)>/g;
  for (const m of dom.matchAll(re)) {
    const attrs = m[1];
    const id = /\bid="([^"]+)"/.exec(attrs)?.[1] ?? "?";
    const drawn = /\bdata-drawn="(\d+)"/.exec(attrs)?.[1];
    const end = (m.index ?? 0) + m[0].length;
    const rest = dom.slice(end, end + 400);
    out.push({
      id,
      drawn: drawn === undefined ? null : Number(drawn),
      hasPlot: /class="[^"]*\bjs-plotly-plot\b/.test(attrs) && /plot-container/.test(rest),
    });
  }
  return out;
}
