// Named, runnable reproductions of published experiments.
import * as fs from "node:fs";
import * as path from "node:path";
import type { Experiment, RunOptions } from "../experiment/experiment";
import type { Results } from "../experiment/results";
import type { Figure } from "../plot/types";
import type { LedgerRow } from "./types";

export interface RunProfile {
  iterations: number;
  /** Simulated seconds per iteration. */
  duration: number;
  warmup?: number;
}

export interface Reproduction {
  id: string;
  title: string;
  machine: string;
  /** The seed message the published numbers come from. */
  source: string;
  /** The experiment, ready to run. */
  experiment(): Experiment;
  /** What `schedlab reproduce` runs. */
  full: RunProfile;
  /** Shorter runs for tests, still long enough for stable checks. */
  quick: RunProfile;
  /** Ledger rows from results (published figures come from data/published/<id>.json). */
  rows(res: Results): LedgerRow[];
  figures?(res: Results): Figure[];
  notes?: string;
}

const REGISTRY = new Map<string, Reproduction>();

export function defineReproduction(r: Reproduction): Reproduction {
  if (REGISTRY.has(r.id)) throw new Error(`reproduction ${r.id} is defined twice`);
  REGISTRY.set(r.id, r);
  return r;
}

export function reproductionIds(): string[] {
  return [...REGISTRY.keys()];
}

export function reproduction(id: string): Reproduction {
  const r = REGISTRY.get(id);
  if (!r) throw new Error(`unknown experiment "${id}" (accepted: ${reproductionIds().join(", ")})`);
  return r;
}

export function runReproduction(
  r: Reproduction,
  profile: RunProfile,
  opts: Pick<RunOptions, "seed" | "onProgress" | "trace"> = {},
): Results {
  return r.experiment().runSync({
    iterations: profile.iterations,
    duration: profile.duration,
    warmup: profile.warmup,
    ...opts,
  });
}

export interface PublishedFigure {
  metric: string;
  variant: string;
  value: number | null;
  band?: [number, number];
  /** How the value was derived from the source text. */
  derivation?: string;
}

export interface PublishedFile {
  id: string;
  source: string;
  figures: PublishedFigure[];
}

/** data/published/<id>.json */
export function publishedFor(id: string): PublishedFile {
  const file = path.join(__dirname, "..", "..", "data", "published", `${id}.json`);
  if (!fs.existsSync(file)) throw new Error(`no published figures for ${id} (expected ${file})`);
  return JSON.parse(fs.readFileSync(file, "utf8")) as PublishedFile;
}

export function publishedValue(
  pub: PublishedFile,
  metric: string,
  variant: string,
): PublishedFigure {
  const f = pub.figures.find((x) => x.metric === metric && x.variant === variant);
  if (!f) throw new Error(`data/published/${pub.id}.json has no figure for ${metric}/${variant}`);
  return f;
}
