import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { renderReport, writeReport, ledgerRows, type ReportInput } from "../../src/report";
import { replayLatencyCdf } from "../../src/experiment/replay_run";
import {
  barCi,
  box,
  cdf,
  cpuTimeline,
  domainTree,
  percentileCurve,
  runqueueLength,
  strip,
  violin,
} from "../../src/plot";
import { abResults, smallTrace } from "../analysis/fixtures";
import { chromiumUnavailable, figuresInDom, renderHtml } from "./chromium";

function input(): ReportInput {
  const data = abResults();
  const tput = (v: string) =>
    data.iterations.filter((i) => i.variant === v).map((i) => i.metrics.throughput_mbps);
  return {
    title: "A/B <report> & test",
    version: "0.1.0",
    experiments: [
      {
        id: "idle-imbalance",
        title: "netperf UDP_STREAM on a 2-socket Xeon",
        machine: "xeon-x5472",
        rows: [
          {
            metric: "throughput_mbps",
            variant: "pre",
            published: 100,
            simulated: 100,
            iterations: tput("pre"),
            band: [90, 110],
            unit: "Mb/s",
          },
          {
            metric: "throughput_mbps",
            variant: "post",
            published: 130,
            simulated: 110,
            iterations: tput("post"),
            band: [120, 140],
          },
          {
            metric: "migrations",
            variant: "post",
            published: null,
            simulated: 3,
            iterations: [3, 3],
          },
        ],
        figures: [
          box(data, "throughput_mbps", { published: { pre: 100, post: 130 } }),
          strip(data, "throughput_mbps"),
          violin(data, "throughput_mbps"),
          barCi(data, "throughput_mbps"),
        ],
        spec: data.spec,
        notes: "First paragraph <b>not bold</b>.\n\nSecond paragraph.",
      },
      {
        id: "latency",
        title: "latency and trace pictures",
        machine: "test-2cpu",
        rows: [],
        figures: [
          percentileCurve(data, "latency_us", { unit: "us" }),
          cdf(data, "latency_us"),
          cpuTimeline(smallTrace()),
          runqueueLength(smallTrace()),
          runqueueLength(smallTrace(), { mode: "heatmap", bins: 8 }),
          domainTree([
            { cpu: 0, levels: [{ level: "MC", span: [0, 1], groups: [[0], [1]] }] },
            { cpu: 1, levels: [{ level: "MC", span: [0, 1], groups: [[1], [0]] }] },
          ]),
        ],
      },
    ],
  };
}

test("ledger: ratio and band", () => {
  const rows = ledgerRows(input().experiments);
  assert.deepEqual(
    rows.map((r) => [r.ratio === null ? null : Math.round(r.ratio * 1000) / 1000, r.inBand]),
    [
      [1, true],
      [0.846, false],
      [null, null],
    ],
  );
});

test("report HTML: self-contained, escaped, spec embedded, deterministic", () => {
  const html = renderReport(input());
  assert.equal(html, renderReport(input()), "same input, same bytes");
  assert.equal((html.match(/window\.Plotly = Plotly/g) ?? []).length, 1, "plotly inlined once");
  assert.ok(
    !/<script[^>]+src=/i.test(html) && !/<link[^>]+href=/i.test(html),
    "nothing loaded from outside",
  );
  assert.match(html, /<title>A\/B &lt;report&gt; &amp; test<\/title>/);
  assert.match(html, /First paragraph &lt;b&gt;not bold&lt;\/b&gt;\./);
  assert.match(
    html,
    /How to rerun: <code>npx schedlab reproduce idle-imbalance latency --report &lt;dir&gt;<\/code>/,
  );
  const spec = /<script type="application\/json" id="schedlab-spec">([\s\S]*?)<\/script>/.exec(
    html,
  );
  assert.ok(spec);
  const embedded = JSON.parse(spec[1]);
  assert.equal(embedded.schedlab, "0.1.0");
  assert.deepEqual(embedded.experiments[0].spec, abResults().spec);
  assert.equal((html.match(/class="schedlab-figure-data"/g) ?? []).length, 10);
  assert.match(html, /<tr class="out">/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-report-"));
  const file = writeReport(path.join(dir, "out"), input());
  assert.equal(fs.readFileSync(file, "utf8"), html);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("report renders in headless Chromium: every figure drew, no script error", {
  timeout: 240_000,
}, (t) => {
  const skip = chromiumUnavailable(); // throws under CI when Chromium is missing
  if (skip) return t.skip(skip);
  const html = renderReport(input());
  const r = renderHtml(html);
  assert.equal(r.status, 0, `chromium exited ${r.status}: ${r.stderr.slice(-2000)}`);
  assert.ok(r.pageErrors !== null, "error capture ran");
  assert.deepEqual(r.pageErrors ?? [], [], "page errors");
  const errorLines = r.console.filter((l) => /Uncaught|Error|error/.test(l));
  assert.deepEqual(errorLines, [], "console errors");
  const figs = figuresInDom(r.dom);
  assert.equal(figs.length, 10, "every figure div is in the DOM");
  for (const f of figs) {
    assert.ok(f.hasPlot, `${f.id}: no plotly container`);
    assert.ok(
      f.drawn !== null && f.drawn > 0,
      `${f.id}: plotly built no traces (data-drawn=${f.drawn})`,
    );
  }
});

test("a broken figure is caught by the render check", { timeout: 240_000 }, (t) => {
  const skip = chromiumUnavailable();
  if (skip) return t.skip(skip);
  const bad = input();
  bad.experiments = [
    {
      ...bad.experiments[1],
      figures: [{ data: [{ type: "scatter", x: [1], y: [1] }], layout: {} }],
    },
  ];
  // Break drawing: remove plotly from the page after it loads.
  const html = renderReport(bad).replace(
    "</head>",
    "<script>window.Plotly=undefined;Object.defineProperty(window,'Plotly',{value:undefined,writable:false});</script></head>",
  );
  const r = renderHtml(html, 15000);
  const figs = figuresInDom(r.dom);
  assert.equal(figs.length, 1);
  assert.equal(figs[0].drawn, null);
  assert.ok(
    (r.pageErrors ?? []).some((e) => /plotly\.js is not loaded/.test(e)),
    JSON.stringify(r.pageErrors),
  );
});

test("the report's replay section: each recording's figures, real beside the closed and open replays, escaped", () => {
  const html = renderReport({
    ...input(),
    replays: [
      {
        name: "pipe<1>",
        command: "perf bench sched pipe -l 20000",
        kernel: "6.18.44",
        era: "6.19",
        rows: [
          { figure: "context switches", unit: "count", real: 40033, closed: 39252, open: 40026 },
        ],
      },
    ],
  });
  assert.match(html, /<section id="replays">\n<h2>Real kernel traces replayed<\/h2>/);
  assert.match(html, /<h3>pipe&lt;1&gt;<\/h3>/);
  assert.match(
    html,
    /<td>context switches<\/td><td>count<\/td><td class="num">40033<\/td><td class="num">39252<\/td><td class="num">40026<\/td>/,
  );
  assert.doesNotMatch(renderReport(input()), /id="replays"/, "no recordings, no section");
});

test("a replay's figures are drawn under its table, and bring plotly into a page that had no other figure", () => {
  const bare = { ...input(), experiments: input().experiments.map((e) => ({ ...e, figures: [] })) };
  const replay = {
    name: "pipe",
    command: "perf bench sched pipe",
    kernel: "6.18.44",
    era: "6.19",
    rows: [],
    latencyUs: { real: [5, 11, 40], closed: [4, 11, 12], open: [0, 9, 30] },
  };
  const fig = replayLatencyCdf({
    ...replay,
    era: "6.19",
    events: 0,
    tasks: 0,
    kthreads: 0,
    lostEvents: 0,
    stretch: { closed: 1, open: 1 },
    unfinished: { closed: 0, open: 0 },
  });
  assert.deepEqual(
    fig.data.map((t) => t.name),
    ["real", "closed replay", "open replay"],
  );
  assert.doesNotMatch(renderReport({ ...bare, replays: [replay] }), /plotly/);
  const html = renderReport({ ...bare, replays: [{ ...replay, figures: [fig] }] });
  assert.match(html, /<\/table>\n<div id="fig-replay-0-0"/);
  assert.match(html, /wakeup latency, pipe/);
  assert.match(html, /plotly/);
});
