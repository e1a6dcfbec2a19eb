// `schedlab unknowns`, `schedlab calibrate` and `schedlab sweep`: the declared unknowns of the
// reproductions, a calibration on their named targets (frozen with --write), and a sweep over
// their ranges (a table of each figure at each point, or JSON).
import * as fs from "node:fs";
import * as path from "node:path";
import type { Command } from "commander";
import {
  calibrateReproduction,
  reproductionUnknowns,
  sweepReproduction,
} from "./reproduce/unknowns";
import { expandReproductionIds, reproduction, reproductionIds } from "./reproduce/registry";
import { calibrationFileOf, calibrationPath } from "./reproduce/calibration_file";
import { spanOf, type UnknownValue } from "./experiment/unknown";
import type { SweepGrid } from "./experiment/sweep";
import { writeFileAtomic } from "./report/files";
import { VERSION } from "./version";
import { runSpecSweep } from "./cli_sweep";

/** Flags of `schedlab calibrate`. */
interface CalibrateFlags {
  budget?: string;
  iterations?: string;
  duration?: string;
  seed?: string;
  write?: boolean;
  json?: boolean;
}

/** Flags of `schedlab sweep`. */
interface SweepFlags {
  design?: string;
  iterations?: string;
  duration?: string;
  seed?: string;
  jobs?: string;
  json?: boolean;
  db?: string;
  queue?: string;
}

function posInt(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`--${flag} must be a positive integer (got ${v})`);
  return n;
}

function posNum(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`--${flag} must be a positive number (got ${v})`);
  return n;
}

/** One experiment's unknowns as text lines. */
function unknownsText(id: string): string[] {
  const us = reproductionUnknowns(id);
  if (!us.length) return [`${id}: no declared unknowns`];
  return [
    `${id}:`,
    ...us.map(
      (u) =>
        `  ${u.name} = ${u.value}${u.kind === "numeric" ? ` ${u.unit}` : ""} (${u.calibrated ? "calibrated" : "default"}); ${u.range ? `range ${u.range[0]}..${u.range[1]}` : `choices ${u.choices!.join(", ")}`}; default ${u.default}\n    source: ${u.source}`,
    ),
  ];
}

/**
 * A grid from NAME=V1,V2,... arguments; NAME=span:N spreads N values over the unknown's range
 * (every choice of a choice: NAME=all).
 */
export function parseGrid(id: string, args: readonly string[]): SweepGrid {
  const declared = reproduction(id).experiment().declaredUnknowns();
  if (!args.length)
    throw new Error(
      `sweep ${id}: give NAME=V1,V2,... for each unknown to sweep (declared: ${declared.map((u) => u.name).join(", ") || "none"})`,
    );
  const grid: SweepGrid = {};
  for (const a of args) {
    const eq = a.indexOf("=");
    if (eq <= 0) throw new Error(`sweep ${id}: expected NAME=V1,V2,... (got ${JSON.stringify(a)})`);
    const name = a.slice(0, eq);
    const u = declared.find((x) => x.name === name);
    if (!u)
      throw new Error(
        `sweep ${id}: "${name}" is not a declared unknown (declared: ${declared.map((x) => x.name).join(", ") || "none"})`,
      );
    const rest = a.slice(eq + 1);
    const span = /^span:(\d+)$/.exec(rest);
    let values: UnknownValue[];
    if (span) values = spanOf(u, Number(span[1]));
    else if (rest === "all") values = spanOf(u);
    else values = rest.split(",").map((s) => (u.kind === "choice" ? s : Number(s)));
    grid[name] = values;
  }
  return grid;
}

/** Adds `unknowns`, `calibrate` and `sweep` to the command line. */
export function addUnknownCommands(sub: (name: string) => Command, status: { code: number }): void {
  sub("unknowns")
    .description("the declared unknowns of experiments: range, source, default, value used")
    .argument("[ids...]", "experiments (default: all)")
    .option("--json", "as JSON")
    .action((ids: string[], flags: { json?: boolean }) => {
      const list = ids.length ? expandReproductionIds(ids) : reproductionIds();
      for (const id of list) reproduction(id); // unknown ids fail before any output
      if (flags.json) {
        const out = Object.fromEntries(list.map((id) => [id, reproductionUnknowns(id)]));
        process.stdout.write(`${JSON.stringify(out)}\n`);
      } else process.stdout.write(`${list.flatMap(unknownsText).join("\n")}\n`);
    });
  sub("calibrate")
    .description(
      "fit an experiment's unknowns on its named calibration targets; --write freezes them",
    )
    .argument("<id>", `an experiment (${reproductionIds().join(", ")})`)
    .option("--budget <N>", "simulation runs the search may spend", "24")
    .option("--iterations <N>", "iterations per evaluation (default: the quick profile's)")
    .option("--duration <S>", "simulated seconds per iteration (default: the quick profile's)")
    .option("--seed <S>", "master seed of the fit (held-out seeds derive from it)", "1")
    .option("--write", "freeze the values into data/calibration/<id>.json")
    .option("--json", "print the record as JSON")
    .action((id: string, flags: CalibrateFlags) => {
      const r = reproduction(id);
      const profile = {
        ...r.quick,
        iterations: posInt("iterations", flags.iterations) ?? r.quick.iterations,
        duration: posNum("duration", flags.duration) ?? r.quick.duration,
      };
      const record = calibrateReproduction(id, {
        budget: posInt("budget", flags.budget),
        profile,
        seed: flags.seed,
        onEvaluation: (n, budget, values, obj) =>
          process.stderr.write(
            `[calibrate ${id}] ${n}/${budget} ${JSON.stringify(values)} objective ${obj.toPrecision(4)}\n`,
          ),
      });
      if (flags.json) process.stdout.write(`${JSON.stringify(record)}\n`);
      else {
        process.stdout.write(
          `${id}: ${JSON.stringify(record.values)} after ${record.evaluations} runs\n`,
        );
        for (const t of record.targets)
          process.stdout.write(
            `  ${t.id}: published ${t.published}, simulated ${+t.simulated.toPrecision(5)} (held-out seeds ${+t.heldOut.toPrecision(5)})\n`,
          );
        process.stdout.write(
          `  objective ${record.objective.toPrecision(4)}, on held-out seeds ${record.heldOutObjective.toPrecision(4)}\n`,
        );
      }
      if (flags.write) {
        const file = calibrationPath(id);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        writeFileAtomic(
          file,
          `${JSON.stringify(calibrationFileOf(id, record, VERSION), null, 2)}\n`,
        );
        process.stderr.write(`frozen in ${file}\n`);
      }
      status.code = 0;
    });
  sub("sweep")
    .description(
      "run an experiment across its unknowns' values: each figure at each point (a SPEC.json sweep spec writes a sweep database)",
    )
    .argument(
      "<target>",
      `a sweep spec (FILE.json) or an experiment (${reproductionIds().join(", ")})`,
    )
    .argument(
      "[grid...]",
      "with an experiment: NAME=V1,V2,... or NAME=span:N (N values over its range) or NAME=all",
    )
    .option("--design <D>", "grid (every combination, default) or one-at-a-time")
    .option("--iterations <N>", "iterations per point (default: the quick profile's)")
    .option("--duration <S>", "simulated seconds per iteration (default: the quick profile's)")
    .option("--seed <S>", "master seed (default 1)")
    .option("--jobs <N>", "threads on this machine (default 1)")
    .option(
      "--db <FILE>",
      "write the runs into this sweep database (DuckDB); a spec's default: SPEC.duckdb",
    )
    .option(
      "--queue <URL>",
      "redis://HOST:PORT: run the jobs on schedlab worker processes (password from SCHEDLAB_REDIS_URL)",
    )
    .option("--json", "one JSON row per point x figure (with a database: the run's summary)")
    .action(async (target: string, args: string[], flags: SweepFlags) => {
      if (target.endsWith(".json")) {
        const given = (["design", "iterations", "duration", "seed"] as const).filter(
          (f) => flags[f] !== undefined,
        );
        if (given.length)
          throw new Error(
            `sweep ${target}: --${given[0]} is a field of the spec (give "${given[0] === "duration" ? "profile" : given[0]}" in ${target})`,
          );
        if (args.length)
          throw new Error(
            `sweep ${target}: a spec takes no NAME=V1,V2 arguments (its grid is in the file)`,
          );
        status.code = await runSpecSweep(target, flags);
        return;
      }
      const id = target;
      const r = reproduction(id);
      const design = flags.design ?? "grid";
      if (design !== "grid" && design !== "one-at-a-time")
        throw new Error(`--design must be grid or one-at-a-time (got ${design})`);
      const profile = {
        ...r.quick,
        iterations: posInt("iterations", flags.iterations) ?? r.quick.iterations,
        duration: posNum("duration", flags.duration) ?? r.quick.duration,
      };
      if (flags.db !== undefined || flags.queue !== undefined) {
        status.code = await runSpecSweep(
          {
            experiment: id,
            grid: Object.fromEntries(
              Object.entries(parseGrid(id, args)).map(([k, v]) => [k, [...v]]),
            ),
            design,
            iterations: profile.iterations,
            seed: flags.seed ?? "1",
            profile: { duration: profile.duration, warmup: profile.warmup },
          },
          flags,
        );
        return;
      }
      const sw = await sweepReproduction(id, parseGrid(id, args), {
        design,
        profile,
        seed: flags.seed ?? "1",
        jobs: posInt("jobs", flags.jobs) ?? 1,
        onPoint: (n, total, values) =>
          process.stderr.write(`[sweep ${id}] ${n}/${total} ${JSON.stringify(values)}\n`),
      });
      const rows = sw.figureRows();
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(rows)}\n`);
        return;
      }
      const names = Object.keys(sw.grid);
      for (const p of sw.points) {
        process.stdout.write(`${names.map((n) => `${n}=${p.values[n]}`).join(" ")}\n`);
        for (const f of p.figures.filter((x) => x.published !== null))
          process.stdout.write(
            `  ${f.id.padEnd(28)} ${String(+f.simulated.toPrecision(5)).padStart(10)}  published ${f.published}${f.band ? ` band ${f.band[0]}..${f.band[1]}` : ""}${f.role === "calibrated" ? " (calibration target)" : ""}\n`,
          );
      }
    });
}
