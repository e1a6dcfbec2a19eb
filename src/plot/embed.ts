// HTML embedding of figures, shared by display() (notebooks) and the report. Everything is
// inlined (plotly bundle, figure JSON) so the output works offline and needs no CDN.
import * as fs from "node:fs";
import type { Figure } from "./types";

let bundleCache: string | null = null;

/** Path of the plotly.js-dist-min bundle the project depends on. */
export function plotlyBundlePath(): string {
  return require.resolve("plotly.js-dist-min/plotly.min.js");
}

/** The plotly bundle as script text (~4.8 MB), escaped for an inline <script>. Read once. */
export function plotlyBundle(): string {
  if (bundleCache === null) bundleCache = scriptSafe(fs.readFileSync(plotlyBundlePath(), "utf8"));
  return bundleCache;
}

/** `<script>` element defining window.Plotly. */
export function plotlyScriptTag(): string {
  return `<script type="text/javascript">/* plotly.js-dist-min, inlined for offline use */\n${plotlyBundle()}\n</script>`;
}

/**
 * Make JS text safe inside an inline <script>: "</script" would close the element and "<!--"
 * can switch the HTML parser into script-escape mode. Both only occur inside string or regex
 * literals in minified code, where "\x3C" means the same "<".
 */
export function scriptSafe(js: string): string {
  return js.replace(/<(\/script|!--)/gi, "\\x3C$1");
}

/** JSON for embedding in HTML: "<", U+2028 and U+2029 escaped so no sequence can end the script. */
export function htmlSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Text made safe inside HTML elements and attribute values (& < > " '). */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

let idCounter = 0;
const idSalt = Math.floor(Math.random() * 0x7fffffff).toString(36);

/** A DOM id unique within a page, even when outputs of several kernel runs share one page. */
export function newFigureId(prefix = "schedlab-fig"): string {
  return `${prefix}-${idSalt}-${++idCounter}`;
}

/** The plotly config every figure is drawn with: resizes with the page, no plotly logo. */
export const DEFAULT_CONFIG = { responsive: true, displaylogo: false };

function figureStyle(fig: Figure): string {
  const height = typeof fig.layout?.height === "number" ? `${fig.layout.height}px` : "450px";
  return `width:100%;height:${height};`;
}

function figurePayload(fig: Figure): unknown {
  return {
    data: fig.data,
    layout: fig.layout,
    config: { ...DEFAULT_CONFIG, ...(fig.config ?? {}) },
  };
}

/**
 * Browser-side drawing function (as source): waits for window.Plotly (the bundle may sit in an
 * earlier output that the page parses first), draws, then marks the div with
 * data-drawn=<number of traces plotly built> so a headless check can see the plot exists.
 * A failure is shown in the div and thrown to the console, so a broken figure is visible.
 */
const DRAW_FN =
  `function(id,f){var n=0;function draw(){var gd=document.getElementById(id);` +
  `if(!window.Plotly){if(++n<400){return setTimeout(draw,25);}throw new Error("schedlab: plotly.js is not loaded (figure "+id+")");}` +
  `window.Plotly.newPlot(gd,f.data,f.layout,f.config).then(function(){gd.setAttribute("data-drawn",String((gd._fullData||[]).length));},` +
  `function(e){gd.textContent="figure failed: "+e;console.error("schedlab figure "+id+": "+e);});}draw();}`;

/** A div plus the script that draws `fig` into it (the notebook form: one output per figure). */
export function figureHtml(fig: Figure, id = newFigureId()): string {
  return (
    `<div id="${id}" class="schedlab-figure" style="${figureStyle(fig)}"></div>\n` +
    `<script type="text/javascript">(${DRAW_FN})("${id}",${htmlSafeJson(figurePayload(fig))});</script>`
  );
}

/** A div plus its figure as <script type="application/json"> (the report form, see drawAllScript). */
export function figureDataHtml(fig: Figure, id = newFigureId()): string {
  return (
    `<div id="${id}" class="schedlab-figure" style="${figureStyle(fig)}"></div>\n` +
    `<script type="application/json" class="schedlab-figure-data" data-for="${id}">${htmlSafeJson(figurePayload(fig))}</script>`
  );
}

/** One script that draws every figureDataHtml() block of the page. Put it after them. */
export function drawAllScript(): string {
  return (
    `<script type="text/javascript">(function(){var draw=${DRAW_FN};` +
    `var blocks=document.querySelectorAll("script.schedlab-figure-data");` +
    `for(var i=0;i<blocks.length;i++){var b=blocks[i];var f;` +
    `try{f=JSON.parse(b.textContent);}catch(e){console.error("schedlab figure "+b.getAttribute("data-for")+": bad JSON "+e);continue;}` +
    `draw(b.getAttribute("data-for"),f);}})();</script>`
  );
}
