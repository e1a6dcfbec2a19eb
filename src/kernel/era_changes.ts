// What each era contains that a later release merged and the model implements: the change, its
// release and commit, and how a variant turns it back (a feature switch, a tunable or a hook).
// Built from the code's own tables: FEATURES' per-era defaults (features.ts) decide which era
// holds a switched change, FOLDED (features_folded.ts) gives the folded-in changes. `schedlab era
// E`, `schedlab eras` and docs/eras.md (scripts/eras-doc.ts) print this table.
import { ERAS, type Era, eraAtLeast, FEATURES, type FeatureName, isEra } from "./features";
import { FOLDED } from "./features_folded";
import type { HookName } from "./hooks";
import { eraModelNote } from "./era_model";

/** How a variant turns a change back. */
export type TurnBack =
  | { readonly kind: "feature"; readonly features: Readonly<Partial<Record<FeatureName, boolean>>> }
  | {
      readonly kind: "tunable";
      readonly name: string;
      readonly value: number;
      readonly note: string;
    }
  | { readonly kind: "hook"; readonly hook: HookName; readonly replacement: string }
  | { readonly kind: "none"; readonly why: string };

/** One merged change the model implements. */
export interface EraChange {
  /** The first mainline release with it ("5.18"). */
  readonly release: string;
  /** Commit id(s), or the quoted subject where no id was checked. */
  readonly commit: string;
  readonly what: string;
  readonly turnBack: TurnBack;
  /** The first modelled era that runs it, when that is not the first era at or after `release`. */
  readonly fromEra?: Era;
  /** The last modelled era that runs it, when a later release removed it. */
  readonly toEra?: Era;
}

const feature = (name: FeatureName, on = false): TurnBack => ({
  kind: "feature",
  features: { [name]: on },
});

/** Changes whose switch is a kernel feature or one of our older LB_* switches. */
const SWITCHED: readonly EraChange[] = [
  {
    release: "2.6.32",
    commit: "51e0304ce6e5",
    what: "GENTLE_FAIR_SLEEPERS: a waking sleeper is credited at most half a latency period",
    turnBack: feature("GENTLE_FAIR_SLEEPERS"),
    toEra: "5.19", // EEVDF places by lag instead
  },
  {
    release: "3.0",
    commit: "317f394160e9",
    what: "TTWU_QUEUE: remote wakeups are queued on the target's wakelist and activated there",
    turnBack: feature("TTWU_QUEUE"),
  },
  {
    release: "4.1",
    commit: '"sched/rt: Use IPI to trigger RT task push migration instead of pulling"',
    what: "RT_PUSH_IPI: an idle-ish CPU asks overloaded CPUs by IPI to push RT tasks",
    turnBack: feature("RT_PUSH_IPI"),
  },
  {
    release: "4.17",
    commit: "7f65ea42eb00",
    what: "UTIL_EST: a task's utilization estimate survives its sleeps",
    turnBack: feature("UTIL_EST"),
  },
  {
    release: "5.5",
    commit: "b8c96361402a",
    what: "UTIL_EST_FASTUP: util_est's EWMA jumps to a larger sample at once (always so from v6.8)",
    turnBack: feature("UTIL_EST_FASTUP"),
  },
  {
    release: "5.10",
    commit: "16b0a7a1a0af",
    what: "LB_LLC_SPREAD: within an LLC an overloaded busiest group is relieved by task count",
    turnBack: feature("LB_LLC_SPREAD"),
  },
  {
    release: "5.10",
    commit: "2586af1ac187",
    what: "RT_RUNTIME_SHARE off by default: an RT rt_rq no longer borrows runtime from other CPUs",
    turnBack: feature("RT_RUNTIME_SHARE", true),
  },
  {
    release: "5.16",
    commit: "c5b0a7eefc70, e60b56e46b38",
    what: "LB_NEWIDLE_COST: newidle balance skipped while avg_idle is below max_newidle_lb_cost",
    turnBack: feature("LB_NEWIDLE_COST"),
  },
  {
    release: "6.0",
    commit: "70fb5ccf2ebb",
    what: "SIS_UTIL: select_idle_cpu scans nr_idle_scan CPUs from the LLC's utilization; SIS_PROP off",
    turnBack: { kind: "feature", features: { SIS_UTIL: false, SIS_PROP: true } },
  },
  {
    release: "6.6",
    commit: "5fd6d7f43958, fee1759e4f04, 450e749707bc",
    what: "LB_SMT_BALANCE: group_smt_balance, SMT groups with 2+ tasks relieved by an idle CPU",
    turnBack: feature("LB_SMT_BALANCE"),
  },
  {
    release: "6.6",
    commit: "7ff1693236f5, 450e749707bc",
    what: "LB_SIBLING_IMBALANCE: prefer-sibling spreading by tasks per core (sibling_imbalance)",
    turnBack: feature("LB_SIBLING_IMBALANCE"),
  },
  {
    release: "6.6",
    commit: "147f3efaa241",
    what: "EEVDF: RUN_TO_PARITY (curr keeps the CPU to its deadline while eligible)",
    turnBack: feature("RUN_TO_PARITY"),
  },
  {
    release: "6.6",
    commit: "86bfbb7ce4f6",
    what: "EEVDF: PLACE_LAG (an entity keeps its lag across sleep and migration)",
    turnBack: feature("PLACE_LAG"),
  },
  {
    release: "6.6",
    commit: "147f3efaa241",
    what: "EEVDF: PLACE_DEADLINE_INITIAL (a new task starts half a slice from its deadline)",
    turnBack: feature("PLACE_DEADLINE_INITIAL"),
  },
  {
    release: "6.12",
    commit: "85e511df3cec",
    what: "PREEMPT_SHORT: a wakee with a shorter slice can preempt curr",
    turnBack: feature("PREEMPT_SHORT"),
  },
  {
    release: "6.12",
    commit: "152e11f6df29",
    what: "DELAY_DEQUEUE: a sleeper with negative lag stays queued until picked or woken",
    turnBack: feature("DELAY_DEQUEUE"),
  },
  {
    release: "6.12",
    commit: "54a58a787791",
    what: "DELAY_ZERO: a delayed entity's lag is clipped to 0 at its dequeue or wakeup",
    turnBack: feature("DELAY_ZERO"),
  },
  {
    release: "6.12",
    commit: "(id not checked)",
    what: "EEVDF: PLACE_REL_DEADLINE (deadline kept relative to vruntime across migration)",
    turnBack: feature("PLACE_REL_DEADLINE"),
  },
  {
    release: "6.12",
    commit: "(id not checked)",
    what: "EEVDF: PICK_BUDDY (an eligible next buddy is picked before the earliest deadline)",
    turnBack: feature("PICK_BUDDY"),
  },
  {
    release: "6.12",
    commit: "63ba8422f876, a110a81c52a9",
    what: "the fair server: a deferred deadline server per CPU runs fair tasks starved by RT",
    turnBack: {
      kind: "tunable",
      name: "fair_server_runtime_ns",
      value: 0,
      note: "turns the server off; the root rt_rq throttling that v6.12 removed (5f6bd380c7bd) is not restored",
    },
  },
  {
    release: "6.19",
    commit: "33cf66d88306",
    what: "NI_RANDOM: each domain's newidle pass runs with a probability that follows its success rate",
    turnBack: feature("NI_RANDOM"),
  },
  {
    release: "6.19",
    commit: "522fb20fbdbe",
    what: "LB_SERIALIZE_NEWIDLE: a newidle pass of an SD_SERIALIZE domain takes sched_balance_running",
    turnBack: feature("LB_SERIALIZE_NEWIDLE"),
  },
];

/** Changes the model runs by hook default or without a switch. */
const OTHERS: readonly EraChange[] = [
  {
    release: "5.6",
    commit: "b396f52326de",
    what: "a small NUMA imbalance is allowed: imbalance 0 while busiest runs at most 2 tasks (the model's 5.6 is the tree before it: seed 003's patch)",
    fromEra: "5.10",
    turnBack: {
      kind: "hook",
      hook: "fair.numa_imbalance",
      replacement: "(ctx) => ctx.imbalance (with LB_IMB_NUMA_NR off from 5.19)",
    },
  },
  {
    release: "5.8",
    commit: "c6e7bd7afaeb",
    what: "try_to_wake_up's p->on_cpu handling and its split of the wakeup work between waker and target",
    turnBack: { kind: "none", why: "the wakeup path asks the era's trait (ttwuOnCpu)" },
  },
  {
    release: "5.10",
    commit: '2208cdaa56c9, "sched/fair: Reduce busy load balance interval"',
    what: "sd_init: imbalance_pct 117 (SMT 110), busy_factor 16",
    turnBack: { kind: "none", why: "domain parameters set when the domains are built" },
  },
  {
    release: "5.13",
    commit: "68d7a190682a, b89997aa88f0",
    what: "util_est: the flag in the top bit, a sample stored when it moved 1% from the last one",
    turnBack: { kind: "none", why: "util_est's form follows the era (fair/util_est.ts)" },
  },
  {
    release: "6.8",
    commit: "11137d384996",
    what: "util_est as one EWMA, no update while the task did not get the CPU it wanted",
    turnBack: { kind: "none", why: "util_est's form follows the era (fair/util_est.ts)" },
  },
  {
    release: "6.17",
    commit: "052c3d87c82e, 74eec63661d4, 0b9ca2dcabc3, 9de74a9850b9",
    what: "RUN_TO_PARITY limited to the shortest queued slice",
    turnBack: { kind: "none", why: "the protected period's form follows the era (fair/eevdf.ts)" },
  },
];

/** Every change in the table: the switched ones, the folded-in ones, the others, by release. */
export const ERA_CHANGES: readonly EraChange[] = [
  ...SWITCHED,
  ...Object.entries(FOLDED).map(
    ([name, f]): EraChange => ({
      release: f.since,
      commit: f.commit,
      what: f.why.replace(/^ours \(.*?\): /, ""),
      turnBack: feature(name as FeatureName),
    }),
  ),
  ...OTHERS,
].sort((a, b) => releaseCode(a.release) - releaseCode(b.release));

function releaseCode(v: string): number {
  const [maj, min, patch] = v.split(".").map(Number);
  return maj * 1e6 + (min ?? 0) * 1e3 + (patch ?? 0);
}

function featureDefault(name: FeatureName, era: Era): boolean {
  const d: boolean | readonly Era[] = FEATURES[name].default;
  return typeof d === "boolean" ? d : d.includes(era);
}

/** Whether `era` runs `c`: a switched change when the era's defaults differ from its turn-back. */
export function eraHasChange(era: Era, c: EraChange): boolean {
  if (c.toEra && ERAS.indexOf(era) > ERAS.indexOf(c.toEra)) return false;
  if (c.turnBack.kind === "feature")
    return Object.entries(c.turnBack.features).every(
      ([name, back]) => featureDefault(name as FeatureName, era) !== back,
    );
  if (c.fromEra) return ERAS.indexOf(era) >= ERAS.indexOf(c.fromEra);
  return eraAtLeast(era, c.release);
}

/** The changes `era` contains, oldest release first. */
export function eraChanges(era: Era): EraChange[] {
  if (!isEra(era))
    throw new Error(`era must be one of ${ERAS.join(", ")} (got ${JSON.stringify(era)})`);
  return ERA_CHANGES.filter((c) => eraHasChange(era, c));
}

/** How to turn `c` back, as the code a variant holds. */
export function turnBackText(c: EraChange): string {
  const t = c.turnBack;
  switch (t.kind) {
    case "feature":
      return Object.entries(t.features)
        .map(([n, on]) => `.feature("${n}", ${on})`)
        .reduce((s, f) => s + f, 'patch("...")');
    case "tunable":
      return `patch("...").tunable("${t.name}", ${t.value}) (${t.note})`;
    case "hook":
      return `patch("...").replace("${t.hook}", ${t.replacement})`;
    case "none":
      return `no switch: ${t.why}`;
  }
}

/** docs/eras.md: per era, what it runs and the merged changes it contains (scripts/eras-doc.ts). */
export function erasMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const out = [
    "# Eras: what each contains, and how to turn a change back",
    "",
    "Generated by `node --import tsx scripts/eras-doc.ts` from `src/kernel/era_changes.ts`,",
    "`src/kernel/features.ts` (each switch's default per era) and `src/kernel/features_folded.ts`",
    "(the later changes folded into an era, each with its switch). `npx schedlab era E` prints one",
    "era's list, `npx schedlab eras` the eras, both with `--json`.",
    "",
    "An era is a release's scheduler as the model runs it. It also runs the changes merged before",
    "that release which the model implements; each is listed below under the eras that run it, with",
    "its release, its commit and how a variant turns it back: a feature (`patch().feature(NAME,",
    "false)`), a tunable or a hook replacement. A change marked *no switch* is run by the era's",
    "code without one. [balancer-history.md](balancer-history.md) says what each balancer and",
    "wakeup change does and how it was checked; [eevdf.md](eevdf.md) and",
    "[util-est.md](util-est.md) cover EEVDF and util_est.",
    "",
  ];
  for (const era of ERAS) {
    const changes = eraChanges(era);
    out.push(`## ${era}`, "", eraModelNote(era), "");
    if (changes.length === 0) {
      out.push("No later change: the era is a baseline of its own.", "");
      continue;
    }
    out.push("| release | commit | change | turn back |", "|---|---|---|---|");
    for (const c of changes)
      out.push(
        `| ${c.release} | ${cell(c.commit)} | ${cell(c.what)} | ${cell(
          c.turnBack.kind === "none" ? `*no switch*: ${c.turnBack.why}` : `\`${turnBackText(c)}\``,
        )} |`,
      );
    out.push("");
  }
  return out.join("\n");
}
