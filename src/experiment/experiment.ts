// The fluent API: topology(...).workload(w).variants({...}).run({...}).
import type { Machine } from "../machine/types";
import { preset } from "../machine/presets";
import { machineBuilder, type MachineBuilder } from "../machine/builder";
import { ERAS, isEra, type Era } from "../kernel/features";
import { Patch } from "../patch/patch";
import type { Workload } from "../workload/workload";
import { iterationSeed } from "../sim/random";
import { buildKernel, runIteration, type HotplugEvent } from "./run";
import type { DomainTree } from "../kernel/topology/sched_domain";
import { Results } from "./results";
import type { ExperimentSpec, IterationResult, ResultsData } from "./types";
import { VERSION } from "../version";

export interface RunOptions {
  /** Iterations per variant (default 1). */
  iterations?: number;
  /** Master seed; iteration i of every variant uses the same derived seed (default 1). */
  seed?: number | string;
  /** Simulated seconds per iteration (default: the workload's). */
  duration?: number;
  /** Simulated seconds excluded from the metrics (default: the workload's). */
  warmup?: number;
  /** Record sched_switch/wakeup/migrate records for trace export and timelines. */
  trace?: boolean;
  /** Called after each iteration (progress lines). */
  onProgress?: (done: number, total: number, last: IterationResult) => void;
  /** Check kernel invariants every this many simulated seconds (default: at the end only). */
  checkEvery?: number;
}

/** One (variant, iteration) of an experiment. */
export interface IterationJob {
  variant: string;
  iteration: number;
}

type MachineSource =
  | { kind: "preset"; name: string }
  | { kind: "machine"; machine: Machine }
  | { kind: "builder"; builder: MachineBuilder };

export class Experiment {
  private offlineCpus: number[] = [];
  private eraName: Era = "6.19";
  private wl: Workload | null = null;
  private variantMap: Record<string, Patch[]> | null = null;
  private patches: Patch[] = [];
  private tunableOverrides: Record<string, number> = {};
  private hotplugEvents: HotplugEvent[] = [];

  constructor(private readonly source: MachineSource) {}

  /** The machine as configured so far (a fresh object each call). */
  machine(): Machine {
    switch (this.source.kind) {
      case "preset":
        return preset(this.source.name);
      case "machine":
        return structuredClone(this.source.machine);
      case "builder":
        return this.source.builder.build();
    }
  }

  /** Builder steps for topology() without a preset: delegated to the machine builder. */
  private b(): MachineBuilder {
    if (this.source.kind !== "builder") {
      throw new Error(
        "topology: machine-builder steps (sockets, cores, ...) apply to topology() without a preset",
      );
    }
    return this.source.builder;
  }
  sockets(n: number): this {
    this.b().sockets(n);
    return this;
  }
  diesPerSocket(n: number): this {
    this.b().diesPerSocket(n);
    return this;
  }
  cores(n: number): this {
    this.b().cores(n);
    return this;
  }
  threads(n: number): this {
    this.b().threads(n);
    return this;
  }
  l2SharedBy(n: number): this {
    this.b().l2SharedBy(n);
    return this;
  }
  llc(span: Parameters<MachineBuilder["llc"]>[0]): this {
    this.b().llc(span);
    return this;
  }
  nodes(n: number): this {
    this.b().nodes(n);
    return this;
  }
  distance(m: number[][]): this {
    this.b().distance(m);
    return this;
  }
  costs(c: Parameters<MachineBuilder["costs"]>[0]): this {
    this.b().costs(c);
    return this;
  }
  name(s: string): this {
    this.b().name(s);
    return this;
  }

  /** Take CPUs offline before boot (echo 0 > /sys/devices/system/cpu/cpuN/online). */
  offline(...cpus: number[]): this {
    const m = this.machine();
    for (const c of cpus) {
      if (!Number.isInteger(c) || c < 0 || c >= m.cpus.length) {
        throw new Error(
          `offline: cpu must be an integer from 0 to ${m.cpus.length - 1} (got ${c})`,
        );
      }
      if (c === 0)
        throw new Error("offline: cpu0 cannot be taken offline (as on x86 without cpu0 hotplug)");
      if (!this.offlineCpus.includes(c)) this.offlineCpus.push(c);
    }
    this.offlineCpus.sort((a, b) => a - b);
    return this;
  }

  /** Take a CPU offline (or bring it back) `at` simulated seconds into each run. */
  hotplug(at: number, cpu: number, state: "offline" | "online"): this {
    const m = this.machine();
    if (!(typeof at === "number" && at >= 0 && Number.isFinite(at)))
      throw new Error(`hotplug: at must be a number of seconds >= 0 (got ${at})`);
    if (!Number.isInteger(cpu) || cpu < 1 || cpu >= m.cpus.length)
      throw new Error(
        `hotplug: cpu must be an integer from 1 to ${m.cpus.length - 1} (got ${cpu})`,
      );
    if (state !== "offline" && state !== "online")
      throw new Error(
        `hotplug: state must be "offline" or "online" (got ${JSON.stringify(state)})`,
      );
    this.hotplugEvents.push({ atNs: Math.round(at * 1e9), cpu, online: state === "online" });
    return this;
  }

  /** The kernel baseline whose scheduler logic and defaults are modelled. */
  era(e: Era): this {
    if (!isEra(e))
      throw new Error(`era must be one of ${ERAS.join(", ")} (got ${JSON.stringify(e)})`);
    this.eraName = e;
    return this;
  }

  workload(w: Workload): this {
    if (!w || typeof w.setup !== "function")
      throw new Error("workload: expected a Workload (e.g. workload.hogs({...}))");
    this.wl = w;
    return this;
  }

  /** Apply patches to the single-variant form. */
  patch(...ps: Patch[]): this {
    for (const p of ps)
      if (!(p instanceof Patch))
        throw new Error("patch: expected Patch objects made with patch(...)");
    this.patches.push(...ps);
    return this;
  }

  /** A/B form: variant name -> patches on the baseline. */
  variants(map: Record<string, Patch[]>): this {
    if (!map || typeof map !== "object" || Object.keys(map).length === 0)
      throw new Error("variants: expected an object of variant name -> Patch[]");
    for (const [name, ps] of Object.entries(map)) {
      if (!Array.isArray(ps)) throw new Error(`variants: "${name}" must be an array of patches`);
      for (const p of ps)
        if (!(p instanceof Patch))
          throw new Error(`variants: "${name}" holds something that is not a Patch`);
    }
    this.variantMap = { ...map };
    return this;
  }

  /** The sched domains this experiment's kernel builds at boot (era, offline CPUs, and the
   *  given patches, e.g. a variant's). */
  domains(patches: Patch[] = []): DomainTree {
    const machine = this.machine();
    const online = machine.online.map((on, i) => on && !this.offlineCpus.includes(i));
    return buildKernel({
      machine,
      online,
      era: this.eraName,
      patches: [...this.patches, ...patches],
      seed: "domains",
      trace: false,
    }).domains;
  }

  /** Override sysctls for every variant (e.g. { hz: 1000 }). */
  tunables(t: Record<string, number>): this {
    Object.assign(this.tunableOverrides, t);
    return this;
  }

  spec(opts: RunOptions = {}): ExperimentSpec {
    const wl = this.requireWorkload();
    const { durationNs, warmupNs } = this.times(opts);
    const variants = this.variantList();
    return {
      machine:
        this.source.kind === "preset"
          ? this.source.name
          : (this.machine() as unknown as Record<string, unknown>),
      offline: [...this.offlineCpus],
      era: this.eraName,
      workload: { name: wl.name, params: wl.params },
      variants: Object.fromEntries(variants.map(([n, ps]) => [n, ps.map((p) => p.name)])),
      iterations: this.iterations(opts),
      seed: String(opts.seed ?? 1),
      durationNs,
      warmupNs,
      tunables: { ...this.tunableOverrides },
      hotplug: this.hotplugEvents.map((h) => ({ ...h })),
    };
  }

  /** Every (variant, iteration) this experiment runs, in the order runSync runs them. */
  jobs(opts: RunOptions = {}): IterationJob[] {
    const out: IterationJob[] = [];
    const n = this.iterations(opts);
    for (let i = 0; i < n; i++)
      for (const [variant] of this.variantList()) out.push({ variant, iteration: i });
    return out;
  }

  /** Runs one (variant, iteration): the unit runSync and the parallel runner share. */
  runJob(opts: RunOptions, job: IterationJob): IterationResult {
    const spec = this.spec(opts);
    const machine = this.machine();
    const online = machine.online.map((on, i) => on && !this.offlineCpus.includes(i));
    const ps = this.variantList().find(([n]) => n === job.variant);
    if (!ps)
      throw new Error(
        `unknown variant "${job.variant}" (variants: ${this.variantList()
          .map(([n]) => n)
          .join(", ")})`,
      );
    return runIteration({
      machine,
      online,
      era: this.eraName,
      patches: [...this.patches, ...ps[1]],
      workload: this.requireWorkload(),
      variant: job.variant,
      iteration: job.iteration,
      seed: iterationSeed(spec.seed, job.iteration),
      durationNs: spec.durationNs,
      warmupNs: spec.warmupNs,
      trace: !!opts.trace,
      checkEveryNs: opts.checkEvery ? Math.round(opts.checkEvery * 1e9) : 0,
      tunables: this.tunableOverrides,
      hotplug: this.hotplugEvents,
    }).result;
  }

  /** Results from iteration results in any order (sorted by variant, then iteration). */
  assemble(opts: RunOptions, results: IterationResult[]): Results {
    const order = new Map(this.variantList().map(([n], i) => [n, i]));
    const out = [...results].sort(
      (a, b) => order.get(a.variant)! - order.get(b.variant)! || a.iteration - b.iteration,
    );
    const data: ResultsData = { schedlab: VERSION, spec: this.spec(opts), iterations: out };
    return new Results(data);
  }

  /** Runs every variant x iteration in this thread. */
  runSync(opts: RunOptions = {}): Results {
    this.spec(opts); // validates the options before any run
    const jobs = this.jobs(opts);
    const out: IterationResult[] = [];
    for (const job of jobs) {
      const result = this.runJob(opts, job);
      out.push(result);
      opts.onProgress?.(out.length, jobs.length, result);
    }
    return this.assemble(opts, out);
  }

  async run(opts: RunOptions = {}): Promise<Results> {
    return this.runSync(opts);
  }

  private variantList(): Array<[string, Patch[]]> {
    if (this.variantMap) return Object.entries(this.variantMap);
    return [[this.patches.length ? this.patches.map((p) => p.name).join("+") : "baseline", []]];
  }

  private requireWorkload(): Workload {
    if (!this.wl) throw new Error("run: no workload; call .workload(...) first");
    return this.wl;
  }

  private iterations(opts: RunOptions): number {
    const n = opts.iterations ?? 1;
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`run: iterations must be a positive integer (got ${n})`);
    return n;
  }

  private times(opts: RunOptions): { durationNs: number; warmupNs: number } {
    const wl = this.requireWorkload();
    if (
      opts.duration !== undefined &&
      !(typeof opts.duration === "number" && opts.duration > 0 && Number.isFinite(opts.duration))
    ) {
      throw new Error(`run: duration must be a positive number of seconds (got ${opts.duration})`);
    }
    if (
      opts.warmup !== undefined &&
      !(typeof opts.warmup === "number" && opts.warmup >= 0 && Number.isFinite(opts.warmup))
    ) {
      throw new Error(`run: warmup must be a number of seconds >= 0 (got ${opts.warmup})`);
    }
    const durationNs =
      opts.duration !== undefined ? Math.round(opts.duration * 1e9) : wl.defaultDurationNs;
    const warmupNs = opts.warmup !== undefined ? Math.round(opts.warmup * 1e9) : wl.defaultWarmupNs;
    if (warmupNs >= durationNs)
      throw new Error(
        `run: warmup (${warmupNs / 1e9} s) must be shorter than the duration (${durationNs / 1e9} s)`,
      );
    return { durationNs, warmupNs };
  }
}

/** Start an experiment on a preset name, a Machine, or (no argument) a machine built step by step. */
export function topology(machine?: string | Machine): Experiment {
  if (machine === undefined) return new Experiment({ kind: "builder", builder: machineBuilder() });
  if (typeof machine === "string") {
    preset(machine); // validates the name now, with the list of accepted presets
    return new Experiment({ kind: "preset", name: machine });
  }
  if (typeof machine === "object" && Array.isArray((machine as Machine).cpus))
    return new Experiment({ kind: "machine", machine });
  throw new Error(
    `topology: expected a preset name, a Machine or nothing (got ${JSON.stringify(machine)})`,
  );
}
