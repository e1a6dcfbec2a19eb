// Picture of the sched-domain hierarchy: one row per level (SMT at the bottom), a box per
// distinct domain span, and inside it the domain's groups. CPUs are laid out so that every
// span is contiguous (SMT siblings numbered 0 and 4 sit side by side).
import { cpulist } from "../kernel/topology/topology";
import { baseLayout, colorOf, type CommonPlotOptions, type Figure, type PlotTrace } from "./types";

/**
 * Input of domainTree(): per CPU, its domains bottom-up. Defined here (not taken from
 * src/kernel) so a picture can be drawn from any source: a DomainTree via
 * domainPictureFromTree(), /proc/schedstat, or a hand-written example.
 */
export type DomainPicture = Array<{
  cpu: number;
  levels: Array<{ level: string; span: number[]; groups: number[][] }>;
}>;

/** Anything shaped like src/kernel's DomainTree (structural, so this layer does not pin it). */
export interface DomainTreeLike {
  domains: ReadonlyArray<
    ReadonlyArray<{
      cpu: number;
      level: string;
      span: readonly number[];
      groups: ReadonlyArray<{ cpus: readonly number[] }>;
    }>
  >;
}

/** The levels and groups of a built DomainTree, in the form domainTree() draws. */
export function domainPictureFromTree(tree: DomainTreeLike): DomainPicture {
  const out: DomainPicture = [];
  tree.domains.forEach((doms, cpu) => {
    if (!doms || doms.length === 0) return;
    out.push({
      cpu,
      levels: doms.map((d) => ({
        level: d.level,
        span: [...d.span],
        groups: d.groups.map((g) => [...g.cpus]),
      })),
    });
  });
  return out;
}

const rangeText = cpulist; // the kernel's cpulist format: "0-3,8-11"

/** Draw the sched-domain tree. */
export function domainTree(picture: DomainPicture, opts: CommonPlotOptions = {}): Figure {
  const cpus = picture.map((p) => p.cpu);
  // Rows: level names ordered by their lowest position in any CPU's hierarchy.
  const pos = new Map<string, number>();
  for (const p of picture)
    p.levels.forEach((l, i) => {
      pos.set(l.level, Math.min(pos.get(l.level) ?? Infinity, i));
    });
  const levels = [...pos.keys()].sort((a, b) => pos.get(a)! - pos.get(b)!);

  // CPU order: sort by (top span's first CPU, next span's first CPU, ..., cpu) so spans are contiguous.
  const key = new Map<number, number[]>();
  for (const p of picture) {
    const k = levels.map((name) => {
      const l = p.levels.find((x) => x.level === name);
      return l ? Math.min(...l.span) : p.cpu;
    });
    key.set(p.cpu, [...k.reverse(), p.cpu]);
  }
  const order = [...cpus].sort((a, b) => {
    const ka = key.get(a)!;
    const kb = key.get(b)!;
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
    return 0;
  });
  const xOf = new Map(order.map((c, i) => [c, i]));
  const extent = (span: readonly number[]) => {
    const xs = span.map((c) => xOf.get(c)).filter((x): x is number => x !== undefined);
    return xs.length ? [Math.min(...xs), Math.max(...xs)] : null;
  };

  const shapes: unknown[] = [];
  const hx: number[] = [];
  const hy: number[] = [];
  const htext: string[] = [];
  levels.forEach((name, row) => {
    const y = row + 1; // row 0 is the CPUs themselves
    const seen = new Set<string>();
    for (const p of picture) {
      const l = p.levels.find((x) => x.level === name);
      if (!l) continue;
      const id = [...l.span].sort((a, b) => a - b).join(",");
      if (seen.has(id)) continue;
      seen.add(id);
      const ext = extent(l.span);
      if (!ext) continue;
      shapes.push({
        type: "rect",
        x0: ext[0] - 0.45,
        x1: ext[1] + 0.45,
        y0: y - 0.4,
        y1: y + 0.4,
        line: { color: colorOf(row), width: 2 },
        fillcolor: "rgba(0,0,0,0)",
      });
      l.groups.forEach((g) => {
        const ge = extent(g);
        if (!ge) return;
        shapes.push({
          type: "rect",
          x0: ge[0] - 0.35,
          x1: ge[1] + 0.35,
          y0: y - 0.28,
          y1: y + 0.28,
          line: { width: 0 },
          fillcolor: colorOf(row),
          opacity: 0.25,
        });
      });
      hx.push((ext[0] + ext[1]) / 2);
      hy.push(y);
      htext.push(
        `${name} span ${rangeText(l.span)}<br>groups: ${l.groups.map((g) => `{${rangeText(g)}}`).join(" ")}`,
      );
    }
  });

  const data: PlotTrace[] = [
    {
      type: "scatter",
      mode: "markers+text",
      name: "CPUs",
      x: order.map((c) => xOf.get(c)!),
      y: order.map(() => 0),
      text: order.map(String),
      textposition: "middle center",
      marker: { symbol: "square", size: 22, color: "#e8e8e8", line: { color: "#555", width: 1 } },
      hovertemplate: "CPU %{text}<extra></extra>",
    },
    {
      type: "scatter",
      mode: "markers",
      name: "domains",
      x: hx,
      y: hy,
      text: htext,
      hoverinfo: "text",
      marker: { size: 6, color: "rgba(0,0,0,0.35)" },
    },
  ];
  return {
    data,
    layout: baseLayout(opts, {
      shapes,
      showlegend: false,
      height: opts.height ?? 120 + 70 * (levels.length + 1),
      xaxis: { visible: false, range: [-0.8, order.length - 0.2] },
      yaxis: {
        tickvals: [0, ...levels.map((_, i) => i + 1)],
        ticktext: ["CPU", ...levels],
        range: [-0.7, levels.length + 0.7],
        zeroline: false,
        showgrid: false,
      },
    }),
  };
}
