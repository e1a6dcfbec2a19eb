// Trace pictures: which task ran on which CPU over time (migrations marked), and runqueue length.
import type { TraceRecord } from "../kernel/trace";
import { binMean, byTime, cpuSegments, runqueueSteps } from "../analysis/trace";
import { baseLayout, colorOf, type CommonPlotOptions, type Figure, type PlotTrace } from "./types";

export interface TimelineOptions extends CommonPlotOptions {
  /** Window in ns (trace time); default the whole trace. */
  start?: number;
  end?: number;
  /** CPUs to show; default every CPU seen in the trace. */
  cpus?: number[];
  /** Tasks beyond this many (by total runtime) share one grey "other" colour; default 12. */
  maxTasks?: number;
  /** Mark sched_migrate_task records; default true. */
  migrations?: boolean;
}

const NS_PER_MS = 1e6;
const cpuLabel = (cpu: number) => `CPU ${cpu}`;

/**
 * Per-CPU timeline: a horizontal bar per run segment, one colour (and legend entry) per task;
 * migrations as markers on the destination CPU, one legend entry per reason.
 * The time axis is in ms of trace time.
 */
export function cpuTimeline(records: readonly TraceRecord[], opts: TimelineOptions = {}): Figure {
  const recs = byTime(records);
  const start = opts.start ?? (recs.length ? recs[0].t : 0);
  const end = opts.end ?? (recs.length ? recs[recs.length - 1].t : 0);
  const wanted = opts.cpus ? new Set(opts.cpus) : null;
  const segs = cpuSegments(recs, { start, end }).filter((s) => !wanted || wanted.has(s.cpu));
  const cpus = [
    ...new Set([
      ...(opts.cpus ?? []),
      ...segs.map((s) => s.cpu),
      ...recs.filter((r) => !wanted || wanted.has(r.cpu)).map((r) => r.cpu),
    ]),
  ].sort((a, b) => a - b);

  // Rank tasks by runtime so the busiest keep their own colour.
  const runtime = new Map<number, { comm: string; ns: number }>();
  for (const s of segs) {
    const e = runtime.get(s.pid) ?? { comm: s.comm, ns: 0 };
    e.ns += s.end - s.start;
    runtime.set(s.pid, e);
  }
  const maxTasks = opts.maxTasks ?? 12;
  const ranked = [...runtime.entries()].sort((a, b) => b[1].ns - a[1].ns || a[0] - b[0]);
  const own = new Map(ranked.slice(0, maxTasks).map(([pid], i) => [pid, i]));

  const groups = new Map<string, { name: string; color: string; segs: typeof segs }>();
  for (const s of segs) {
    const idx = own.get(s.pid);
    const key = idx === undefined ? "other" : `pid${s.pid}`;
    if (!groups.has(key))
      groups.set(key, {
        name: idx === undefined ? "other tasks" : `${s.comm}-${s.pid}`,
        color: idx === undefined ? "#bbbbbb" : colorOf(idx),
        segs: [],
      });
    groups.get(key)!.segs.push(s);
  }
  const data: PlotTrace[] = [...groups.values()].map((g) => ({
    type: "bar",
    orientation: "h",
    name: g.name,
    y: g.segs.map((s) => cpuLabel(s.cpu)),
    base: g.segs.map((s) => (s.start - start) / NS_PER_MS),
    x: g.segs.map((s) => (s.end - s.start) / NS_PER_MS),
    marker: { color: g.color, line: { width: 0 } },
    hovertext: g.segs.map(
      (s) =>
        `${s.comm}-${s.pid} on CPU ${s.cpu}: ${((s.start - start) / NS_PER_MS).toFixed(3)}–${((s.end - start) / NS_PER_MS).toFixed(3)} ms`,
    ),
    hoverinfo: "text",
  }));

  if (opts.migrations !== false) {
    const byReason = new Map<string, Extract<TraceRecord, { type: "sched_migrate_task" }>[]>();
    for (const r of recs) {
      if (r.type !== "sched_migrate_task" || r.t < start || r.t > end) continue;
      if (wanted && !wanted.has(r.destCpu)) continue;
      if (!byReason.has(r.reason)) byReason.set(r.reason, []);
      byReason.get(r.reason)!.push(r);
    }
    let i = 0;
    for (const [reason, ms] of byReason) {
      data.push({
        type: "scatter",
        mode: "markers",
        name: `migrate: ${reason}`,
        x: ms.map((m) => (m.t - start) / NS_PER_MS),
        y: ms.map((m) => cpuLabel(m.destCpu)),
        marker: {
          symbol: MIGRATION_SYMBOLS[i++ % MIGRATION_SYMBOLS.length],
          size: 10,
          color: "black",
          line: { width: 1, color: "white" },
        },
        hovertext: ms.map(
          (m) => `${m.comm}-${m.pid}: CPU ${m.origCpu} → ${m.destCpu} (${m.reason})`,
        ),
        hoverinfo: "text",
      });
    }
  }
  return {
    data,
    layout: baseLayout(opts, {
      barmode: "overlay",
      bargap: 0.25,
      xaxis: { title: { text: "time (ms)" }, range: [0, (end - start) / NS_PER_MS] },
      yaxis: {
        type: "category",
        categoryorder: "array",
        categoryarray: cpus.map(cpuLabel).reverse(),
        automargin: true,
      },
      height: opts.height ?? Math.max(220, 60 + 28 * cpus.length),
      legend: { orientation: "v" },
    }),
  };
}

const MIGRATION_SYMBOLS = [
  "triangle-right",
  "diamond",
  "star",
  "x",
  "cross",
  "circle-open",
  "square-open",
  "triangle-up",
  "hexagon",
  "bowtie",
];

export interface RunqueueOptions extends CommonPlotOptions {
  start?: number;
  end?: number;
  cpus?: number[];
  /** "lines": one step line per CPU; "heatmap": CPUs x time bins of mean nr_running.
   *  Default lines up to 8 CPUs, heatmap beyond. */
  mode?: "lines" | "heatmap";
  /** Number of time bins for the heatmap; default 200. */
  bins?: number;
}

/** Runqueue length (nr_running, running + queued) per CPU over time, rebuilt from the trace. */
export function runqueueLength(
  records: readonly TraceRecord[],
  opts: RunqueueOptions = {},
): Figure {
  const recs = byTime(records);
  const start = opts.start ?? (recs.length ? recs[0].t : 0);
  const end = opts.end ?? (recs.length ? recs[recs.length - 1].t : 0);
  const steps = runqueueSteps(recs, opts.cpus);
  const mode = opts.mode ?? (steps.length > 8 ? "heatmap" : "lines");
  const ms = (t: number) => (t - start) / NS_PER_MS;
  if (mode === "lines") {
    const data: PlotTrace[] = steps.map((s, i) => {
      const xs: number[] = [];
      const ys: number[] = [];
      // Value holding at `start`, then every change inside the window, then hold to `end`.
      let k = 0;
      while (k + 1 < s.t.length && s.t[k + 1] <= start) k++;
      xs.push(0);
      ys.push(s.t.length && s.t[k] <= start ? s.n[k] : 0);
      for (let j = 0; j < s.t.length; j++)
        if (s.t[j] > start && s.t[j] <= end) {
          xs.push(ms(s.t[j]));
          ys.push(s.n[j]);
        }
      xs.push(ms(end));
      ys.push(ys[ys.length - 1]);
      return {
        type: "scatter",
        mode: "lines",
        line: { shape: "hv", color: colorOf(i) },
        name: cpuLabel(s.cpu),
        x: xs,
        y: ys,
      };
    });
    return {
      data,
      layout: baseLayout(opts, {
        xaxis: { title: { text: "time (ms)" } },
        yaxis: { title: { text: "nr_running" }, rangemode: "tozero", dtick: 1 },
      }),
    };
  }
  const bins = Math.max(1, opts.bins ?? 200);
  const width = (end - start) / bins;
  const x = Array.from({ length: bins }, (_, b) => ms(start + (b + 0.5) * width));
  const z = steps.map((s) =>
    Array.from({ length: bins }, (_, b) =>
      width > 0 ? binMean(s, start + b * width, start + (b + 1) * width) : 0,
    ),
  );
  return {
    data: [
      {
        type: "heatmap",
        x,
        y: steps.map((s) => cpuLabel(s.cpu)),
        z,
        colorscale: "Viridis",
        colorbar: { title: { text: "nr_running" } },
      },
    ],
    layout: baseLayout(opts, {
      xaxis: { title: { text: "time (ms)" } },
      yaxis: { type: "category", autorange: "reversed" },
    }),
  };
}
