// The fluent API: topology(...).workload(w).variants({...}).run({...}).
import type { Machine } from "../machine/types";
import { importMachine, type ImportOptions } from "../machine/import";
import { readSysfsDir } from "../machine/sysfs";
import { withCosts } from "../machine/with_costs";
import type { CostOverrides } from "../machine/builder";
import {
  applyEdits,
  buildMachine,
  sourceOf,
  type MachineEdit,
  withBuilderStep,
  withIdle,
  type BuilderStep,
  type MachineSource,
} from "./machine_source";
import { ERAS, isEra, type Era } from "../kernel/features";
import { Patch, checkTunable } from "../patch/patch";
import type { Workload } from "../workload/workload";
import { mix } from "../workload/mix";
import { iterationSeed } from "../sim/random";
import { buildKernel, runIteration, type HotplugEvent } from "./run";
import { checkRunLimits, runIterations, runTimes, type RunOptions } from "./options";
import { hotplugEvent, offlineList, type OfflineOptions } from "./cpu_steps";
import type { DomainTree } from "../kernel/topology/sched_domain";
import { Results } from "./results";
import { warnIfIdentical } from "../analysis/variation";
import type { ExperimentSpec, IterationResult, ResultsData } from "./types";
import { VERSION } from "../version";
import type { Unknown, UnknownValue } from "./unknown";
import { Variant } from "./variant";
import { UnknownSteps, type UnknownState } from "./unknown_steps";

export type { RunOptions } from "./options";

/** One (variant, iteration) of an experiment. */
export interface IterationJob {
  variant: string;
  iteration: number;
}

export type { OfflineOptions } from "./cpu_steps";

/** Everything an Experiment holds; frozen, and replaced (never changed) by each builder step. */
interface ExperimentProps {
  readonly source: MachineSource;
  /** CPUs taken offline through sysfs right after boot (before the workload starts). */
  readonly offline: readonly number[];
  /** CPUs not brought up at boot (maxcpus= / not present): boot-time scaling counts without them. */
  readonly offlineAtBoot: readonly number[];
  readonly era: Era;
  readonly workload: Workload | null;
  readonly variants: Readonly<Record<string, readonly Patch[] | Variant<Experiment>>> | null;
  readonly patches: readonly Patch[];
  readonly tunables: Readonly<Record<string, number>>;
  readonly hotplug: readonly HotplugEvent[];
  /** Changes made to a preset's or a Machine's figures (costs(), editMachine()), in order. */
  readonly machineEdits: readonly MachineEdit[];
  /** Declared unknowns, in declaration order (their apply steps run in this order). */
  readonly unknowns: readonly Unknown<Experiment>[];
  /** Values assumed (or calibrated) for some of them; the others take their defaults. */
  readonly assumed: Readonly<Record<string, UnknownValue>>;
}

/** A variant: a list of patches on the baseline, or a Variant (another machine, era, ...). */
export type VariantDef = Patch[] | Variant<Experiment>;

const freeze = Object.freeze;

/**
 * An experiment: a machine, a kernel era, a workload and the variants (patch sets) to compare.
 * Start one with topology(). Every step returns a new Experiment and leaves the one it was
 * called on unchanged, so a base experiment can be shared and extended in several directions.
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const base = topology("core2-2x2").workload(workload.hogs({ n: 2, seconds: 0.2 }));
 * const old = base.era("2.6.29");
 * console.log(base.spec().era, old.spec().era);
 * ```
 * Prints:
 * ```text
 * 6.19 2.6.29
 * ```
 */
export class Experiment extends UnknownSteps<Experiment> {
  // Kysely's pattern: the props are frozen here and every step returns a new Experiment, so a
  // base experiment can be shared (reproductions, notebook cells) without one use changing another.
  readonly #props: ExperimentProps;

  /** @internal Use topology() to start an experiment. */
  constructor(props: ExperimentProps) {
    super();
    this.#props = freeze({ ...props });
    freeze(this);
  }

  #with(changes: Partial<ExperimentProps>): Experiment {
    return new Experiment({ ...this.#props, ...changes });
  }

  /** @internal The declared unknowns and assumed values. */
  protected unknownState(): UnknownState<Experiment> {
    return { unknowns: this.#props.unknowns, assumed: this.#props.assumed };
  }

  /** @internal A new experiment with these unknowns and assumed values. */
  protected withUnknownState(
    unknowns: readonly Unknown<Experiment>[],
    assumed: Readonly<Record<string, UnknownValue>>,
  ): this {
    return this.#with({ unknowns, assumed }) as this;
  }

  /** @internal The cpuidle limit step (idle()). */
  protected idleStep(limit: unknown): this {
    return this.#with({ source: withIdle(this.#props.source, limit) }) as this;
  }

  /** @internal A machine-builder step (sockets(), costs(), ...); costs() also edits a preset. */
  protected builderStep(step: BuilderStep): this {
    if (this.#props.source.kind !== "builder" && step[0] === "costs") {
      const c = structuredClone(step[1][0]) as CostOverrides;
      return this.editMachine(`costs ${JSON.stringify(c)}`, (m) =>
        withCosts(m, c, "set by the experiment (costs())"),
      ) as this;
    }
    return this.#with({
      source: withBuilderStep(this.#props.source, structuredClone(step)),
    }) as this;
  }

  /** @internal Records a machine edit (editMachine()). */
  protected editStep(edit: MachineEdit): this {
    return this.#with({ machineEdits: freeze([...this.#props.machineEdits, edit]) }) as this;
  }

  /** @internal Another machine source (onMachine()); machine edits made so far are dropped. */
  protected sourceStep(source: MachineSource): this {
    return this.#with({ source: freeze(source), machineEdits: [] }) as this;
  }

  /**
   * The machine as configured so far (a fresh object each call).
   *
   * @example
   * ```ts
   * import { topology } from "schedlab";
   * const m = topology("core2-2x2").machine();
   * console.log(m.name, m.cpus.length, "CPUs in", new Set(m.cpus.map((c) => c.package)).size, "packages");
   * ```
   * Prints:
   * ```text
   * core2-2x2 4 CPUs in 2 packages
   * ```
   */
  machine(): Machine {
    const r = this.#resolved();
    return applyEdits(buildMachine(r.#props.source), r.#props.machineEdits);
  }

  /**
   * Take CPUs offline right after boot (echo 0 > /sys/devices/system/cpu/cpuN/online), before
   * the workload starts. The kernel booted with them, so what it sized at boot stays as it was
   * in eras that do not rescale on hotplug (2.6.29: sched_latency and the granularities keep the
   * 1 + ilog2(ncpus) factor of every CPU). With `{ atBoot: true }` the CPUs are not brought up
   * at boot at all (maxcpus=, or not present), and the kernel sizes itself without them.
   *
   * @example
   * ```ts
   * import { describeDomains, topology } from "schedlab";
   * const text = describeDomains(topology("core2-2x2").era("2.6.29").offline(3).domains());
   * console.log(text.split("\ncpu1")[0]); // cpu0's domains: the package-level groups weigh the same
   * ```
   * Prints:
   * ```text
   * cpu0: sd_llc_size=2 sd_llc_id=0 sd_numa=none
   *   domain-0: MC span=0-1 weight=2
   *     interval=1..4ms balance_interval=1ms busy_factor=64 imbalance_pct=125 cache_nice_tries=1 idx(busy/idle/newidle/wake/forkexec)=2/0/0/1/1
   *     flags: SD_LOAD_BALANCE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_SHARE_PKG_RESOURCES SD_WAKE_BALANCE
   *     groups: {0} cap=1024, {1} cap=1024
   *   domain-1: CPU span=0-2 weight=3
   *     interval=1..4ms balance_interval=1ms busy_factor=64 imbalance_pct=125 cache_nice_tries=1 idx(busy/idle/newidle/wake/forkexec)=2/1/2/1/1
   *     flags: SD_LOAD_BALANCE SD_BALANCE_EXEC SD_BALANCE_FORK SD_WAKE_AFFINE SD_WAKE_BALANCE
   *     groups: {0-1} cap=1024, {2} cap=1024
   * ```
   */
  offline(...args: Array<number | OfflineOptions>): Experiment {
    const { key, list } = offlineList(args, this.machine().cpus.length, this.#props);
    return this.#with({ [key]: freeze(list) });
  }

  /**
   * Take a CPU offline (or bring it back) `at` simulated seconds into each run.
   *
   * @example
   * ```ts
   * import { topology, workload } from "schedlab";
   * const res = await topology("core2-2x2")
   *   .hotplug(0.1, 3, "offline")
   *   .workload(workload.hogs({ n: 4, seconds: 0.2 }))
   *   .run();
   * const offlineMs = res.iteration("baseline", 0).cpus.map((c) => (c.offlineNs / 1e6).toFixed(0));
   * console.log(offlineMs.join(" "), "ms offline");
   * ```
   * Prints:
   * ```text
   * 0 0 0 100 ms offline
   * ```
   */
  hotplug(at: number, cpu: number, state: "offline" | "online"): Experiment {
    const event = hotplugEvent(at, cpu, state, this.machine().cpus.length);
    return this.#with({ hotplug: freeze([...this.#props.hotplug, event]) });
  }

  /**
   * The kernel baseline whose scheduler logic and defaults are modelled (default "6.19").
   *
   * @example
   * ```ts
   * import { ERAS, topology, workload } from "schedlab";
   * const exp = topology("core2-2x2").era("2.6.29").workload(workload.hogs({ n: 2 }));
   * console.log(exp.spec().era, "of", ERAS.join(", "));
   * ```
   * Prints:
   * ```text
   * 2.6.29 of 2.6.29, 3.19, 4.8, 5.6, 5.10, 5.19, 6.6, 6.19
   * ```
   */
  era(e: Era): Experiment {
    if (!isEra(e))
      throw new Error(`era must be one of ${ERAS.join(", ")} (got ${JSON.stringify(e)})`);
    return this.#with({ era: e });
  }

  /**
   * What runs on the machine: a Workload from the `workload` factories or your own. Several
   * run together as `workload.mix(w, ...more)`: w's figures keep their names, the others' are
   * prefixed with their workload's name.
   *
   * @example
   * ```ts
   * import { topology, workload } from "schedlab";
   * const exp = topology("core2-2x2").workload(workload.pingpong({ pairs: 2, seconds: 0.5 }));
   * const s = exp.spec();
   * console.log(s.workload.name, JSON.stringify(s.workload.params), s.durationNs / 1e9, "s");
   * ```
   * Prints:
   * ```text
   * pingpong {"pairs":2,"seconds":0.5} 0.5 s
   * ```
   */
  workload(w: Workload, ...more: Workload[]): Experiment {
    if (!w || typeof w.setup !== "function")
      throw new Error("workload: expected a Workload (e.g. workload.hogs({...}))");
    return this.#with({ workload: more.length ? mix(w, ...more) : w });
  }

  /**
   * Apply patches (in order) to the single-variant form; the variant is named after them.
   *
   * @example
   * ```ts
   * import { patch, topology, workload } from "schedlab";
   * const hz100 = patch("hz100").tunable("hz", 100);
   * const exp = topology("core2-2x2").patch(hz100).workload(workload.hogs({ n: 2, seconds: 0.2 }));
   * const res = await exp.run();
   * console.log(res.variants);
   * ```
   * Prints:
   * ```text
   * [ 'hz100' ]
   * ```
   */
  patch(...ps: Patch[]): Experiment {
    for (const p of ps)
      if (!(p instanceof Patch))
        throw new Error("patch: expected Patch objects made with patch(...)");
    return this.#with({ patches: freeze([...this.#props.patches, ...ps]) });
  }

  /**
   * The A/B form: variant name -> the patches applied to the era's baseline. Iteration i of every
   * variant uses the same seed, so the variants are compared pairwise.
   *
   * @example
   * ```ts
   * import { patch, topology, workload } from "schedlab";
   * const noNextBuddy = patch("no-next-buddy").feature("NEXT_BUDDY", false);
   * const res = await topology("core2-2x2")
   *   .workload(workload.hogs({ n: 3, seconds: 0.2 }))
   *   .variants({ base: [], patched: [noNextBuddy] })
   *   .run({ iterations: 2 });
   * console.log(res.variants.join(" vs "), res.data.iterations.length, "runs");
   * ```
   * Prints:
   * ```text
   * base vs patched 4 runs
   * ```
   */
  variants(map: Record<string, VariantDef>): Experiment {
    if (!map || typeof map !== "object" || Object.keys(map).length === 0)
      throw new Error("variants: expected an object of variant name -> Patch[] or variant({...})");
    for (const [name, ps] of Object.entries(map)) {
      if (ps instanceof Variant) continue;
      if (!Array.isArray(ps))
        throw new Error(
          `variants: "${name}" must be an array of patches or a variant({ machine, era, patches, ... })`,
        );
      for (const p of ps)
        if (!(p instanceof Patch))
          throw new Error(`variants: "${name}" holds something that is not a Patch`);
    }
    const copy = Object.fromEntries(
      Object.entries(map).map(([n, ps]) => [n, ps instanceof Variant ? ps : freeze([...ps])]),
    );
    return this.#with({ variants: freeze(copy) });
  }

  /** This experiment with every unknown's value applied (itself when it declares none). */
  #resolved(): Experiment {
    if (this.#props.unknowns.length === 0) return this;
    const hit = RESOLVED.get(this);
    if (hit) return hit;
    let e: Experiment = this.#with({ unknowns: [], assumed: {} });
    for (const u of this.#props.unknowns) {
      const v = this.#props.assumed[u.name] ?? u.default;
      const next = u.apply(e, v);
      if (!(next instanceof Experiment))
        throw new Error(`unknown ${u.name}: apply must return an Experiment`);
      if (next.#props.unknowns.length)
        throw new Error(`unknown ${u.name}: apply must not declare unknowns`);
      e = next;
    }
    RESOLVED.set(this, e);
    return e;
  }

  /**
   * The sched domains this experiment's kernel builds at boot (era, offline CPUs, and the
   * given patches, e.g. a variant's).
   */
  domains(patches: Patch[] = []): DomainTree {
    const r = this.#resolved();
    const machine = r.machine();
    const online = machine.online.map((on, i) => on && !r.#props.offlineAtBoot.includes(i));
    return buildKernel({
      machine,
      online,
      offlineAfterBoot: r.#props.offline,
      era: r.#props.era,
      patches: [...r.#props.patches, ...patches],
      tunables: r.#props.tunables,
      seed: "domains",
      trace: false,
    }).domains;
  }

  /** Override sysctls for every variant (e.g. { hz: 1000 }), after the patches. */
  tunables(t: Record<string, number>): Experiment {
    for (const [name, value] of Object.entries(t)) checkTunable("tunables", name, value);
    return this.#with({ tunables: freeze({ ...this.#props.tunables, ...t }) });
  }

  /** A JSON description of what run(opts) would run: enough to run it again. */
  spec(opts: RunOptions = {}): ExperimentSpec {
    const r = this.#resolved();
    const spec = r.#specOf(opts);
    if (this.#props.unknowns.length) spec.unknowns = this.unknownValues();
    return spec;
  }

  #specOf(opts: RunOptions): ExperimentSpec {
    const wl = this.#requireWorkload();
    const { durationNs, warmupNs } = runTimes(opts, this.#requireWorkload());
    checkRunLimits(opts);
    const variants = this.#variantList();
    return {
      machine:
        this.#props.source.kind === "preset" &&
        this.#props.machineEdits.length === 0 &&
        !this.#props.source.idle
          ? this.#props.source.name
          : (this.machine() as unknown as Record<string, unknown>),
      ...(this.#props.machineEdits.length
        ? { machineEdits: this.#props.machineEdits.map((e) => e.label) }
        : {}),
      offline: [...this.#props.offline],
      offlineAtBoot: [...this.#props.offlineAtBoot],
      era: this.#props.era,
      workload: { name: wl.name, params: wl.params },
      variants: Object.fromEntries(
        variants.map(([n, ps]) => [n, ps instanceof Variant ? ps.toJSON() : ps.map((p) => p.name)]),
      ),
      iterations: runIterations(opts),
      seed: String(opts.seed ?? 1),
      durationNs,
      warmupNs,
      tunables: { ...this.#props.tunables },
      hotplug: this.#props.hotplug.map((h) => ({ ...h })),
    };
  }

  /** Every (variant, iteration) this experiment runs, in the order runSync runs them. */
  jobs(opts: RunOptions = {}): IterationJob[] {
    const out: IterationJob[] = [];
    const n = runIterations(opts);
    const variants = this.#resolved().#variantList();
    for (let i = 0; i < n; i++)
      for (const [variant] of variants) out.push({ variant, iteration: i });
    return out;
  }

  /** Runs one (variant, iteration): the unit runSync and the parallel runner share. */
  runJob(opts: RunOptions, job: IterationJob): IterationResult {
    const spec = this.spec(opts);
    const base = this.#resolved();
    const ps = base.#variantList().find(([n]) => n === job.variant);
    if (!ps)
      throw new Error(
        `unknown variant "${job.variant}" (variants: ${base
          .#variantList()
          .map(([n]) => n)
          .join(", ")})`,
      );
    // A Variant runs its own experiment (another machine, era, ...); seeds stay the variant-free ones.
    const v = ps[1];
    const e = v instanceof Variant ? base.#applyVariant(v) : base;
    const props = e.#props;
    const machine = e.machine();
    const online = machine.online.map((on, i) => on && !props.offlineAtBoot.includes(i));
    return runIteration({
      machine,
      online,
      offlineAfterBoot: props.offline,
      era: props.era,
      patches: [...props.patches, ...(v instanceof Variant ? v.patches : v)],
      workload: e.#requireWorkload(),
      variant: job.variant,
      iteration: job.iteration,
      seed: iterationSeed(spec.seed, job.iteration),
      durationNs: spec.durationNs,
      warmupNs: spec.warmupNs,
      trace: !!opts.trace,
      traceLimit: opts.traceLimit,
      maxEvents: opts.maxEvents,
      maxHeapMb: opts.maxHeapMb,
      checkEveryNs: opts.checkEvery ? Math.round(opts.checkEvery * 1e9) : 0,
      onKernel: opts.onKernel ? (k) => opts.onKernel!(k, job.variant, job.iteration) : undefined,
      sample: opts.sample
        ? { everyNs: Math.round(opts.sample.every * 1e9), fn: opts.sample.fn }
        : undefined,
      tunables: props.tunables,
      hotplug: props.hotplug,
    }).result;
  }

  /** The baseline with a Variant's changes: machine, era, tunables, then its further step. */
  #applyVariant(v: Variant<Experiment>): Experiment {
    let e = this.#with({ variants: null });
    if (v.machine !== undefined) e = e.onMachine(v.machine);
    if (v.era !== undefined) e = e.era(v.era);
    if (v.tunables) e = e.tunables({ ...v.tunables });
    if (v.apply) {
      const next = v.apply(e);
      if (!(next instanceof Experiment))
        throw new Error(`variant "${v.description}": apply must return an Experiment`);
      e = next.#resolved();
    }
    return e;
  }

  /** Results from iteration results in any order (sorted by variant, then iteration). */
  assemble(opts: RunOptions, results: IterationResult[]): Results {
    const order = new Map(
      this.#resolved()
        .#variantList()
        .map(([n], i) => [n, i]),
    );
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
    // identical iterations average nothing: say so, naming the experiment (analysis/variation.ts)
    return warnIfIdentical(this.assemble(opts, out));
  }

  /**
   * Runs every variant x iteration and resolves to their Results (runSync does the same in one call).
   *
   * @example
   * ```ts
   * import { topology, workload } from "schedlab";
   * const res = await topology("core2-2x2")
   *   .workload(workload.hogs({ n: 2, nice: [0, 5], cpus: [0], seconds: 0.5 }))
   *   .run({ iterations: 2, seed: 1 });
   * console.log(res.values("share_hog0", "baseline").map((x) => x.toFixed(3)));
   * ```
   * Prints:
   * ```text
   * [ '0.750', '0.750' ]
   * ```
   */
  async run(opts: RunOptions = {}): Promise<Results> {
    return this.runSync(opts);
  }

  #variantList(): Array<[string, readonly Patch[] | Variant<Experiment>]> {
    if (this.#props.variants) return Object.entries(this.#props.variants);
    return [
      [
        this.#props.patches.length ? this.#props.patches.map((p) => p.name).join("+") : "baseline",
        [],
      ],
    ];
  }

  #requireWorkload(): Workload {
    if (!this.#props.workload) throw new Error("run: no workload; call .workload(...) first");
    return this.#props.workload;
  }
}

/**
 * Start an experiment on a preset name, a Machine, or (no argument) a machine built step by
 * step with sockets(), cores(), threads()... The experiment runs era "6.19" until told otherwise.
 *
 * @example
 * ```ts
 * import { presetNames, topology, workload } from "schedlab";
 * console.log(presetNames().includes("core2-2x2"));
 * const res = await topology("core2-2x2").workload(workload.hogs({ n: 2, seconds: 0.2 })).run();
 * console.log(res.variants, res.mean("share_hog0", "baseline").toFixed(2));
 * ```
 * Prints:
 * ```text
 * true
 * [ 'baseline' ] 0.50
 * ```
 */
export function topology(machine?: string | Machine): Experiment {
  return start(sourceOf(machine));
}

/**
 * The machine this code runs on (or any sysfs tree copied elsewhere), imported as
 * `schedlab machine import` does; its costs are borrowed from `opts.profile` (a preset).
 */
topology.fromSysfs = (dir = "/sys/devices/system", opts: ImportOptions = {}): Experiment =>
  topology(importMachine(readSysfsDir(dir), opts).machine);

function start(source: MachineSource): Experiment {
  return new Experiment({
    source: freeze(source),
    offline: [],
    offlineAtBoot: [],
    era: "6.19",
    workload: null,
    variants: null,
    patches: [],
    tunables: {},
    hotplug: [],
    machineEdits: [],
    unknowns: [],
    assumed: {},
  });
}

/** Each experiment with unknowns, resolved once (experiments are immutable). */
const RESOLVED = new WeakMap<Experiment, Experiment>();
