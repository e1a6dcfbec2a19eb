import { test } from "node:test";
import assert from "node:assert/strict";
import {
  barCi,
  box,
  boxFromValues,
  cdf,
  cpuTimeline,
  domainPictureFromTree,
  domainTree,
  percentileCurve,
  runqueueLength,
  strip,
  violin,
  type DomainPicture,
  type Figure,
} from "../../src/plot";
import { abResults, smallTrace } from "../analysis/fixtures";

/** Figures must be plain JSON (they travel into notebooks and reports as JSON). */
function plain(fig: Figure): void {
  assert.deepEqual(JSON.parse(JSON.stringify(fig)), fig);
  assert.ok(fig.data.length > 0, "figure has traces");
}

test("box: a trace per variant over iterations, published line and per-variant markers", () => {
  const fig = box(abResults(), "throughput_mbps", { published: 105, title: "t" });
  plain(fig);
  assert.deepEqual(
    fig.data.map((d) => [d.type, d.name]),
    [
      ["box", "pre"],
      ["box", "post"],
    ],
  );
  assert.deepEqual(fig.data[0].y, [100, 102, 98, 101, 99]);
  const shapes = fig.layout.shapes as Array<Record<string, unknown>>;
  assert.equal(shapes.length, 1);
  assert.equal(shapes[0].y0, 105);
  assert.equal((fig.layout.yaxis as { title: { text: string } }).title.text, "throughput_mbps");

  const per = boxFromValues(
    [
      { variant: "pre", values: [1, 2] },
      { variant: "post", values: [3, 4] },
    ],
    { published: { pre: 1.5, post: null } },
  );
  const marker = per.data[per.data.length - 1];
  assert.deepEqual([marker.name, marker.x, marker.y], ["published", ["pre"], [1.5]]);
});

test("strip, violin, bar with 95% CI", () => {
  const s = strip(abResults(), "throughput_mbps");
  plain(s);
  assert.equal(s.data[0].boxpoints, "all");
  const v = violin(abResults(), "sched.contextSwitches");
  plain(v);
  assert.equal(v.data[1].type, "violin");
  const b = barCi(abResults(), "throughput_mbps");
  plain(b);
  const bar = b.data[0];
  assert.deepEqual(bar.y, [100, 110]);
  const err = bar.error_y as { array: number[] };
  assert.ok(Math.abs(err.array[0] - 2.776445 * Math.sqrt(0.5)) < 1e-5);
  assert.deepEqual(bar.text, ["baseline", "+10.0%*"]);
});

test("latency percentile curve and CDF from a series", () => {
  const fig = percentileCurve(abResults(), "latency_us", {
    unit: "us",
    published: { post: { 99: 105 } },
  });
  plain(fig);
  const pre = fig.data.find((d) => d.name === "pre")!;
  assert.deepEqual(pre.x, ["p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9"]);
  // pre pools 5 iterations of 10 + k/10, k < 1000: p50 of the pooled sample is 10 + 49.95.
  assert.ok(Math.abs((pre.y as number[])[0] - 59.95) < 1e-9, String((pre.y as number[])[0]));
  assert.ok(fig.data.some((d) => d.name === "post published"));
  const c = cdf(abResults(), "latency_us", { maxPoints: 100 });
  plain(c);
  const ys = c.data[0].y as number[];
  assert.ok(ys.length <= 102);
  assert.equal(ys[ys.length - 1], 1);
  assert.throws(() => cdf(abResults(), "nosuch"), /no series "nosuch"/);
});

test("per-CPU timeline: bars per task, migrations marked", () => {
  const fig = cpuTimeline(smallTrace());
  plain(fig);
  const a = fig.data.find((d) => d.name === "a-1")!;
  assert.deepEqual([a.type, a.orientation, a.y, a.base, a.x], ["bar", "h", ["CPU 0"], [0], [3]]);
  const b = fig.data.find((d) => d.name === "b-2")!;
  assert.deepEqual(b.y, ["CPU 0", "CPU 1"]);
  const mig = fig.data.find((d) => d.name === "migrate: load_balance")!;
  assert.deepEqual(mig.y, ["CPU 0"]);
  assert.match((mig.hovertext as string[])[0], /b-2: CPU 1 → 0/);
  assert.equal(
    cpuTimeline(smallTrace(), { maxTasks: 1 }).data.filter((d) => d.name === "other tasks").length,
    1,
  );
});

test("runqueue length: step lines or heatmap", () => {
  const fig = runqueueLength(smallTrace());
  plain(fig);
  const c0 = fig.data[0];
  assert.equal(c0.name, "CPU 0");
  assert.deepEqual(c0.y, [1, 2, 1, 0, 0]);
  const hm = runqueueLength(smallTrace(), { mode: "heatmap", bins: 4 });
  plain(hm);
  const z = hm.data[0].z as number[][];
  assert.equal(z.length, 2);
  assert.deepEqual(
    z[0].map((v) => Math.round(v * 1000) / 1000),
    [1, 1, 2, 1],
  );
});

test("sched-domain tree: spans made contiguous, a box per distinct span", () => {
  // 2 packages x 2 cores x 2 threads, Intel-style numbering: SMT siblings are n and n+4.
  const smt = (c: number) => [c % 4, (c % 4) + 4];
  const mc = (c: number) => (c % 4 < 2 ? [0, 1, 4, 5] : [2, 3, 6, 7]);
  const pic: DomainPicture = [0, 1, 2, 3, 4, 5, 6, 7].map((cpu) => ({
    cpu,
    levels: [
      { level: "SMT", span: smt(cpu), groups: smt(cpu).map((c) => [c]) },
      {
        level: "MC",
        span: mc(cpu),
        groups: [smt(cpu), smt(mc(cpu).find((c) => !smt(cpu).includes(c))!)],
      },
      {
        level: "DIE",
        span: [0, 1, 2, 3, 4, 5, 6, 7],
        groups: [mc(cpu), mc(cpu)[0] === 0 ? [2, 3, 6, 7] : [0, 1, 4, 5]],
      },
    ],
  }));
  const fig = domainTree(pic);
  plain(fig);
  const cpusTrace = fig.data[0];
  assert.deepEqual(
    cpusTrace.text,
    ["0", "4", "1", "5", "2", "6", "3", "7"],
    "siblings side by side",
  );
  const shapes = fig.layout.shapes as unknown[];
  // SMT: 4 spans x (1 box + 2 groups); MC: 2 x (1 + 2); DIE: 1 x (1 + 2).
  assert.equal(shapes.length, 12 + 6 + 3);
  assert.deepEqual((fig.layout.yaxis as { ticktext: string[] }).ticktext, [
    "CPU",
    "SMT",
    "MC",
    "DIE",
  ]);

  const fromTree = domainPictureFromTree({
    domains: [[{ cpu: 0, level: "MC", span: [0, 1], groups: [{ cpus: [0] }, { cpus: [1] }] }], []],
  });
  assert.deepEqual(fromTree, [
    { cpu: 0, levels: [{ level: "MC", span: [0, 1], groups: [[0], [1]] }] },
  ]);
});
