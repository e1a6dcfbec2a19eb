// Random machines, eras, workloads and patches for property tests (npm test) and `npm run fuzz`.
// A case is plain JSON, so a failing one prints as a counterexample that can be run again with
// runFuzzCase. Every case runs with the invariant checker on and must conserve CPU time and be
// deterministic.
import fc from "fast-check";
import {
  ERAS,
  exit,
  fork,
  patch,
  recv,
  run,
  send,
  setAffinity,
  setNice,
  setPolicy,
  sleep,
  topology,
  yieldCpu,
  type Era,
  type IterationResult,
  type Op,
  type Patch,
  type Workload,
  type WorkloadContext,
} from "../../src/index";
import type { Channel } from "../../src/kernel/channel";

export type Step =
  | { op: "run"; us: number }
  | { op: "sleep"; us: number }
  | { op: "send"; ch: number; bytes: number; sync: boolean }
  | { op: "recv"; ch: number }
  | { op: "yield" }
  | { op: "nice"; nice: number }
  | { op: "policy"; policy: "normal" | "batch" | "idle" | "fifo" | "rr"; prio: number }
  | { op: "affinity"; cpus: number[] }
  | { op: "fork"; steps: Step[] }
  | { op: "exit" };

export interface FuzzTask {
  policy: "normal" | "batch" | "idle" | "fifo" | "rr";
  nice: number;
  prio: number;
  /** CPU indices (taken modulo the machine's CPUs; cpu0 always added, it never goes offline). */
  cpus: number[] | null;
  steps: Step[];
}

export interface FuzzCase {
  machine: {
    sockets: number;
    dies: number;
    coresPerDie: number;
    threads: number;
    l2By: number;
    llc: "l2" | "die" | "package";
    nodes: number;
  };
  era: Era;
  hz: number;
  /** sched_rt_period_us and sched_rt_runtime_us: short periods throttle RT within a case. */
  rt: { periodUs: number; runtimeUs: number };
  /** fair_server_period_ns and fair_server_runtime_ns (6.19): short periods run the server within a case. */
  fairServer: { periodNs: number; runtimeNs: number };
  /** CPUs (modulo the machine, never cpu0) offline after boot. */
  offline: number[];
  /** Hotplug toggles: at ms, cpu (modulo, never cpu0). */
  hotplug: Array<{ atMs: number; cpu: number }>;
  channels: number;
  tasks: FuzzTask[];
  patch: (typeof PATCH_NAMES)[number];
  seed: number;
  durationMs: number;
}

const POLICIES = ["normal", "batch", "idle", "fifo", "rr"] as const;

const leafStep: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant("run" as const),
      us: fc.integer({ min: 1, max: 5000 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("sleep" as const),
      us: fc.integer({ min: 1, max: 8000 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant("send" as const),
      ch: fc.nat(3),
      bytes: fc.integer({ min: 0, max: 70000 }),
      sync: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("recv" as const), ch: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("yield" as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("nice" as const),
      nice: fc.integer({ min: -20, max: 19 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("policy" as const),
      policy: fc.constantFrom(...POLICIES),
      prio: fc.integer({ min: 1, max: 99 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("affinity" as const),
      cpus: fc.uniqueArray(fc.nat(63), { maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("exit" as const) }) },
);

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 12, arbitrary: leafStep },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("fork" as const),
      steps: fc.array(leafStep, { minLength: 1, maxLength: 4 }),
    }),
  },
);

const task: fc.Arbitrary<FuzzTask> = fc.record({
  policy: fc.oneof(
    { weight: 8, arbitrary: fc.constant("normal" as const) },
    { weight: 3, arbitrary: fc.constantFrom(...POLICIES) },
  ),
  nice: fc.integer({ min: -20, max: 19 }),
  prio: fc.integer({ min: 1, max: 99 }),
  cpus: fc.option(fc.uniqueArray(fc.nat(63), { minLength: 1, maxLength: 4 }), { freq: 4 }),
  steps: fc.array(step, { minLength: 1, maxLength: 6 }),
});

/** Hook replacements that give legal but unusual answers. */
export const PATCH_NAMES = [
  "none",
  "last-allowed-cpu",
  "slack-0",
  "slack-4",
  "capacity-small",
  "always-hot",
  "never-hot",
  "always-wide",
  "always-active",
  "interval-1",
  "push-always",
  "push-never",
  "wakelist-always",
] as const;

function fuzzPatch(name: FuzzCase["patch"]): Patch[] {
  const p = patch(`fuzz-${name}`);
  switch (name) {
    case "none":
      return [];
    case "last-allowed-cpu":
      return [
        p.replace("fair.select_task_rq", (ctx) => {
          for (let c = ctx.k.rqs.length - 1; c >= 0; c--)
            if (ctx.k.rqs[c].online && ctx.p.cpusAllowed[c]) return c;
          return ctx.prevCpu;
        }),
      ];
    case "slack-0":
      return [p.replace("fair.idle_imbalance_slack", () => 0)];
    case "slack-4":
      return [p.replace("fair.idle_imbalance_slack", () => 4)];
    case "capacity-small":
      return [p.replace("topology.group_capacity", () => 1)];
    case "always-hot":
      return [p.replace("fair.task_hot", () => true)];
    case "never-hot":
      return [p.replace("fair.task_hot", () => false)];
    case "always-wide":
      return [p.replace("fair.wake_wide", () => true)];
    case "always-active":
      return [p.replace("fair.need_active_balance", () => true)];
    case "interval-1":
      return [p.replace("fair.get_sd_balance_interval", () => 1)];
    case "push-always":
      return [p.replace("rt.wakeup_push_cond", () => true)];
    case "push-never":
      return [p.replace("rt.wakeup_push_cond", () => false)];
    case "wakelist-always":
      return [p.replace("core.ttwu_queue_cond", () => true)];
  }
}

const machine = fc
  .record({
    sockets: fc.integer({ min: 1, max: 2 }),
    dies: fc.integer({ min: 1, max: 2 }),
    coresPerDie: fc.integer({ min: 1, max: 4 }),
    threads: fc.integer({ min: 1, max: 2 }),
    l2Pick: fc.nat(3),
    llc: fc.constantFrom("l2" as const, "die" as const, "package" as const),
    numa: fc.boolean(),
  })
  .map(({ l2Pick, numa, ...m }) => {
    const divisors = [1, 2, 3, 4].filter((d) => m.coresPerDie % d === 0);
    return { ...m, l2By: divisors[l2Pick % divisors.length], nodes: numa ? m.sockets : 1 };
  });

/** A random case: machine, era, workload, patch, hotplug, seed. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.record({
  machine,
  era: fc.constantFrom(...ERAS),
  hz: fc.constantFrom(100, 250, 1000),
  rt: fc.constantFrom(
    { periodUs: 1_000_000, runtimeUs: 950_000 },
    { periodUs: 10_000, runtimeUs: 9_500 },
    { periodUs: 10_000, runtimeUs: 4_000 },
    { periodUs: 4_000, runtimeUs: 500 },
    { periodUs: 10_000, runtimeUs: 0 },
    { periodUs: 10_000, runtimeUs: -1 },
  ),
  fairServer: fc.constantFrom(
    { periodNs: 1_000_000_000, runtimeNs: 50_000_000 },
    { periodNs: 10_000_000, runtimeNs: 500_000 },
    { periodNs: 4_000_000, runtimeNs: 1_000_000 },
    { periodNs: 10_000_000, runtimeNs: 0 },
  ),
  offline: fc.uniqueArray(fc.nat(63), { maxLength: 3 }),
  hotplug: fc.array(fc.record({ atMs: fc.integer({ min: 1, max: 59 }), cpu: fc.nat(63) }), {
    maxLength: 4,
  }),
  channels: fc.integer({ min: 1, max: 4 }),
  tasks: fc.array(task, { minLength: 1, maxLength: 10 }),
  patch: fc.constantFrom(...PATCH_NAMES),
  seed: fc.nat(1_000_000),
  durationMs: fc.integer({ min: 5, max: 60 }),
});

function opOf(s: Step, chans: Channel[], n: number, forkChild: (steps: Step[]) => Op): Op {
  switch (s.op) {
    case "run":
      return run(s.us * 1000);
    case "sleep":
      return sleep(s.us * 1000);
    case "send":
      return send(chans[s.ch % chans.length], s.bytes, s.sync);
    case "recv":
      return recv(chans[s.ch % chans.length]);
    case "yield":
      return yieldCpu();
    case "nice":
      return setNice(s.nice);
    case "policy":
      return s.policy === "fifo" || s.policy === "rr"
        ? setPolicy(s.policy, s.prio)
        : setPolicy(s.policy);
    case "affinity":
      return setAffinity(cpuSet(s.cpus, n));
    case "fork":
      return forkChild(s.steps);
    case "exit":
      return exit();
  }
}

/** CPU indices taken modulo n, with cpu0 (never offline) added so the mask always has an online CPU. */
function cpuSet(cpus: number[], n: number): number[] {
  return [...new Set([0, ...cpus.map((c) => c % n)])].sort((a, b) => a - b);
}

/** The case's tasks as a workload: each loops over its steps; a task forks at most once. */
function fuzzWorkload(c: FuzzCase): Workload {
  return {
    name: "fuzz",
    params: {},
    defaultDurationNs: c.durationMs * 1e6,
    defaultWarmupNs: 0,
    setup(ctx: WorkloadContext) {
      const n = ctx.ncpus;
      const chans = Array.from({ length: c.channels }, (_, i) =>
        ctx.channel(`ch${i}`, "pipe", 65536),
      );
      const program = (steps: Step[], mayFork: boolean) =>
        function* () {
          let forked = !mayFork;
          for (;;) {
            for (const s of steps) {
              if (s.op === "fork") {
                if (forked) continue;
                forked = true;
              }
              yield opOf(s, chans, n, (childSteps) =>
                fork({ comm: "child", program: program(childSteps, false) }),
              );
            }
            // every pass takes time, so a program of instant steps still advances the clock
            yield run(10_000);
          }
        };
      c.tasks.forEach((t, i) => {
        const rt = t.policy === "fifo" || t.policy === "rr";
        ctx.spawn({
          comm: `t${i}`,
          program: program(t.steps, true),
          policy: t.policy,
          nice: rt ? undefined : t.nice,
          rtPriority: rt ? t.prio : undefined,
          cpus: t.cpus ? cpuSet(t.cpus, n) : undefined,
        });
      });
      return { metrics: () => ({}) };
    },
  };
}

/** Runs a case with the invariant checker every millisecond; returns its result. */
export function runFuzzCase(c: FuzzCase): IterationResult {
  const m = c.machine;
  let exp = topology()
    .name("fuzz")
    .sockets(m.sockets)
    .diesPerSocket(m.dies)
    .cores(m.dies * m.coresPerDie)
    .threads(m.threads)
    .l2SharedBy(m.l2By)
    .llc(m.llc)
    .nodes(m.nodes)
    .era(c.era)
    .tunables({
      hz: c.hz,
      sched_rt_period_us: c.rt.periodUs,
      sched_rt_runtime_us: c.rt.runtimeUs,
      fair_server_period_ns: c.fairServer.periodNs,
      fair_server_runtime_ns: c.fairServer.runtimeNs,
    });
  const mach = exp.machine();
  const n = mach.cpus.length;
  const offline = [...new Set(c.offline.map((x) => x % n).filter((x) => x !== 0))];
  if (offline.length) exp = exp.offline(...offline);
  // toggles per CPU alternate from the state after boot
  const state = new Map<number, boolean>();
  for (const h of [...c.hotplug].sort((a, b) => a.atMs - b.atMs)) {
    const cpu = h.cpu % n;
    if (cpu === 0 || h.atMs >= c.durationMs) continue;
    const on = state.get(cpu) ?? !offline.includes(cpu);
    exp = exp.hotplug(h.atMs / 1000, cpu, on ? "offline" : "online");
    state.set(cpu, !on);
  }
  exp = exp.workload(fuzzWorkload(c)).patch(...fuzzPatch(c.patch));
  const opts = {
    iterations: 1,
    duration: c.durationMs / 1000,
    seed: String(c.seed),
    checkEvery: 0.001,
  };
  return exp.runJob(opts, exp.jobs(opts)[0]);
}

/** CPU time is conserved: task runtime + idle + kernel overhead + offline = CPUs x duration. */
export function checkConservation(r: IterationResult): void {
  const runtime = r.tasks.reduce((s, t) => s + t.runtimeNs, 0);
  let rest = 0;
  for (const cpu of r.cpus) rest += cpu.idleNs + cpu.overheadNs + cpu.offlineNs;
  const want = r.cpus.length * r.durationNs;
  if (Math.abs(runtime + rest - want) > r.cpus.length)
    throw new Error(
      `CPU time not conserved: runtime ${runtime} + idle/overhead/offline ${rest} != ${want}`,
    );
}

/** One property: the case runs with every invariant holding, conserves CPU time, and a second
 *  run with the same seed gives the identical result. */
export function checkCase(c: FuzzCase): void {
  const a = runFuzzCase(c);
  checkConservation(a);
  const b = runFuzzCase(c);
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error("same seed, different results");
}
