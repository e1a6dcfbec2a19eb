// select_task_rq_fair per era, on hand-built situations through a real Kernel.
import { WF_TTWU } from "../../../src/kernel/sched";
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildKernel } from "../../../src/experiment/run";
import { preset } from "../../../src/machine/presets";
import { fork, recv, run, send, sleep, wait, wake } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { idleCpu, wakeState } from "../../../src/kernel/fair/wake/select";
import { groupPower2009 } from "../../../src/patch/seeds/group_power_2009";
import { patch, type Patch } from "../../../src/patch/patch";
import { Channel } from "../../../src/kernel/channel";
import { SD_WAKE_AFFINE } from "../../../src/kernel/topology/sched_domain";

function kernel(
  machine: string,
  era: Era,
  opts: { offline?: number[]; patches?: Patch[] } = {},
): Kernel {
  const m = preset(machine);
  const off = opts.offline ?? [];
  const online = m.online.map((o, i) => o && !off.includes(i));
  return buildKernel({
    machine: m,
    online,
    era,
    patches: opts.patches ?? [],
    seed: "t",
    trace: false,
  });
}

const forever = function* () {
  yield run(Infinity);
};
const sleeper = function* () {
  for (;;) yield wait();
};

/** A hog pinned to `cpu`. */
function hog(k: Kernel, cpu: number): Task {
  return k.spawn({ comm: `hog${cpu}`, cpu, cpus: [cpu], program: forever });
}

/** A task that waits on `cpu` until woken, and a waker on `wakerCpu` that wakes it at `atNs`. */
function wakeScenario(
  k: Kernel,
  wakeeCpu: number,
  wakerCpu: number,
  atNs: number,
  sync: boolean,
  zeroResidue = false,
): { wakee: Task; waker: Task } {
  const wakee = k.spawn({ comm: "wakee", cpu: wakeeCpu, program: sleeper });
  const waker = k.spawn({
    comm: "waker",
    cpu: wakerCpu,
    cpus: [wakerCpu],
    program: function* () {
      yield run(atNs);
      // 4.x: hand-set the sync residue (runnable_load_avg - the waker's load_avg) to 0, which
      // the two PELT averages reach only at some instants (each is recomputed at its own period
      // boundaries); wake_affine48's own test covers both signs
      const rl = k.rqs[wakerCpu].cfs.runnableLoad;
      if (zeroResidue && rl) rl.avg = waker.se.avg.loadAvg;
      yield wake(wakee.pid, sync);
      yield run(Infinity);
    },
  });
  return { wakee, waker };
}

test("4.8 X5472: a sync wakeup from a CPU running only the waker lands on the waker's idle L2 partner", () => {
  const k = kernel("xeon-x5472", "4.8");
  const { wakee } = wakeScenario(k, 4, 0, 2_000_000, true, true);
  k.runUntil(1_000_000);
  assert.equal(wakee.cpu, 4, "the wakee sleeps on cpu4, in another L2 pair");
  k.runUntil(3_000_000);
  // wake_affine: this_load minus the waker is 0, so cpu0 is the target; cpu0 is busy and cpu4
  // does not share its cache, so select_idle_sibling scans sd_llc(cpu0) = {0,1}: cpu1 is idle.
  assert.equal(wakee.cpu, 1);
  assert.deepEqual(k.counters.wakePlacement, { idle_sibling: 1 });
});

test("4.8 X5472: with the L2 partner busy the sync wakee stacks on the waker's CPU", () => {
  const k = kernel("xeon-x5472", "4.8");
  hog(k, 1);
  const { wakee } = wakeScenario(k, 4, 0, 2_000_000, true, true);
  k.runUntil(2_100_000);
  assert.equal(wakee.cpu, 0);
  assert.deepEqual(k.counters.wakePlacement, { affine_busy: 1 });
});

test("4.8: a 1:1 waker/wakee pair is not wake_wide; a dispatcher waking many workers is", () => {
  const k = kernel("xeon-x5472", "4.8");
  const ab = new Channel("ab", "pipe", 65536);
  const ba = new Channel("ba", "pipe", 65536);
  const a = k.spawn({
    comm: "a",
    cpu: 0,
    program: function* () {
      for (;;) {
        yield send(ab, 8);
        yield recv(ba);
        yield run(5_000);
      }
    },
  });
  const b = k.spawn({
    comm: "b",
    cpu: 4,
    program: function* () {
      for (;;) {
        yield recv(ab);
        yield run(5_000);
        yield send(ba, 8);
      }
    },
  });
  // 1:N: a dispatcher wakes 8 workers in turn; each worker wakes two sinks in turn.
  const sinks = [0, 1].map((i) => k.spawn({ comm: `sink${i}`, program: sleeper }).pid);
  const workers: number[] = [];
  for (let i = 0; i < 8; i++) {
    workers.push(
      k.spawn({
        comm: `w${i}`,
        program: function* () {
          for (;;) {
            yield wait();
            yield run(20_000);
            yield wake(sinks[0]);
            yield wake(sinks[1]);
          }
        },
      }).pid,
    );
  }
  const disp = k.spawn({
    comm: "disp",
    program: function* () {
      for (;;)
        for (const w of workers) {
          yield wake(w);
          yield run(5_000);
        }
    },
  });
  k.runUntil(50_000_000);
  const wakeWide = k.hooks.get("fair.wake_wide");
  const factor = k.domains.sdLlcSize[0];
  assert.equal(factor, 2);
  assert.ok(a.wakeeFlips <= 1 && b.wakeeFlips <= 1, `1:1 flips ${a.wakeeFlips}/${b.wakeeFlips}`);
  assert.ok(a.stats.wakeups > 100 && b.stats.wakeups > 100);
  assert.equal(wakeWide({ k, p: b, waker: a, factor }), false);
  const w0 = k.taskByPid(workers[0])!;
  assert.ok(
    disp.wakeeFlips >= factor * w0.wakeeFlips && w0.wakeeFlips >= factor,
    `flips ${disp.wakeeFlips}/${w0.wakeeFlips}`,
  );
  assert.equal(wakeWide({ k, p: w0, waker: disp, factor }), true);
});

test("4.8: a wide wakeup is not pulled to the waker: the wakee stays on its idle prev", () => {
  const k = kernel("xeon-x5472", "4.8");
  const { wakee, waker } = wakeScenario(k, 4, 0, 2_000_000, true);
  waker.wakeeFlips = 40; // a waker flipping between many wakees ...
  wakee.wakeeFlips = 4; // ... and a wakee that itself wakes several tasks
  waker.wakeeFlipDecayTs = 1e12;
  k.runUntil(2_100_000);
  assert.equal(wakee.cpu, 4);
  assert.deepEqual(k.counters.wakePlacement, { prev: 1 });
});

test("4.8 X5472: forking 4 hogs spreads them one per L2 pair (find_idlest_group)", () => {
  const k = kernel("xeon-x5472", "4.8");
  const kids: number[] = [];
  k.spawn({
    comm: "parent",
    cpu: 0,
    program: function* () {
      for (let i = 0; i < 4; i++)
        kids.push((yield fork({ comm: `hog${i}`, program: forever })) as number);
      for (;;) yield wait();
    },
  });
  k.runUntil(100_000);
  const cpus = kids.map((pid) => k.taskByPid(pid)!.cpu);
  const pairs = new Set(cpus.map((c) => k.domains.sdLlcId[c]));
  assert.equal(pairs.size, 4, `hogs on ${cpus.join(",")}`);
  assert.equal(k.counters.wakePlacement.fork_idlest_group, 4);
});

test("fork with cpu and cpus starts the child where clone + sched_setaffinity would, skipping fork placement", () => {
  const k = kernel("xeon-x5472", "4.8");
  const kids: number[] = [];
  k.spawn({
    comm: "parent",
    cpu: 0,
    program: function* () {
      // all four children forced onto cpu 0, the parent's CPU: fork balancing would spread them
      for (let i = 0; i < 4; i++)
        kids.push(
          (yield fork({ comm: `hog${i}`, cpu: 0, cpus: [0, 1], program: forever })) as number,
        );
      for (;;) yield wait();
    },
  });
  k.runUntil(50_000);
  const tasks = kids.map((pid) => k.taskByPid(pid)!);
  assert.deepEqual(
    tasks.map((t) => t.cpu),
    [0, 0, 0, 0],
  );
  assert.equal(k.counters.wakePlacement.fork_idlest_group ?? 0, 0);
  for (const t of tasks) assert.deepEqual(Array.from(t.cpusAllowed), [1, 1, 0, 0, 0, 0, 0, 0]);
  // a starting CPU outside the affinity is refused, naming the child
  const k2 = kernel("xeon-x5472", "4.8");
  k2.spawn({
    comm: "parent",
    cpu: 0,
    program: function* () {
      yield fork({ comm: "bad", cpu: 3, cpus: [0, 1], program: forever });
    },
  });
  assert.throws(() => k2.runUntil(50_000), /spawn bad: cpu 3 is outside its affinity/);
});

test("2.6.29 core2-2x2 with cpu3 offline: fork balancing weighs groups by __cpu_power", () => {
  const place = (patches: Patch[]) => {
    const k = kernel("core2-2x2", "2.6.29", { offline: [3], patches });
    for (const c of [0, 1, 2]) k.spawn({ comm: `hog${c}`, cpu: c, program: forever });
    k.runUntil(50_000_000); // cpu_load[] catches up at the tick
    // fork from cpu0: the CPU-level groups are {0,1} and {2}
    const child = k.spawn({ comm: "child", program: forever });
    return {
      cpu: child.cpu,
      counters: k.counters.wakePlacement,
      powers: k.domains.domains[0].at(-1)!.groups.map((g) => g.capacity),
    };
  };
  // 2.6.29: both groups are worth 1024, so the pair's 2 hogs look like twice cpu2's one.
  const pre = place([]);
  assert.deepEqual(pre.powers, [1024, 1024]);
  assert.equal(pre.cpu, 2);
  assert.deepEqual(pre.counters, { fork_idlest_group: 1 });
  // With the pair worth 2048 (Miao Xie's patch) the groups are even and the child stays local.
  const post = place([groupPower2009]);
  assert.deepEqual(post.powers, [2048, 1024]);
  assert.equal(post.cpu, 0);
  assert.deepEqual(post.counters, { fork_local: 1 });
});

test("2.6.29: a sync wakeup is pulled onto the waker's CPU by wake_affine (no idle search)", () => {
  const k = kernel("core2-2x2", "2.6.29");
  const { wakee } = wakeScenario(k, 2, 0, 20_000_000, true);
  k.runUntil(20_500_000);
  assert.equal(wakee.cpu, 0);
  assert.deepEqual(k.counters.wakePlacement, { affine_busy: 1 });
});

/** x86-104t, LLC of cpu0 (0-25, 52-77) busy except cpu3 (its sibling 55 busy) and core 10 (10, 62). */
function busyLlc(k: Kernel, free: number[]): void {
  for (const c of k.domains.sdLlc[0]!.span) if (!free.includes(c)) hog(k, c);
}

test("5.19 x86-104t: a wakeup prefers an idle core over an idle SMT sibling of a busy core", () => {
  for (const era of ["5.6", "5.19", "6.19"] as Era[]) {
    const k = kernel("x86-104t", era);
    const { wakee } = wakeScenario(k, 20, 0, 1_000_000, true);
    busyLlc(k, [0, 3, 10, 62]);
    k.runUntil(500_000);
    assert.equal(wakee.cpu, 20, `${era}: the wakee sleeps on cpu20`);
    assert.ok(idleCpu(k, 3) && !idleCpu(k, 55) && idleCpu(k, 10) && idleCpu(k, 62));
    k.runUntil(2_000_000); // the waker's 1 ms of work, slowed by its busy SMT sibling
    // target = cpu0 (sync, the waker alone there), prev cpu20 busy: select_idle_cpu scans for
    // whole idle cores and passes cpu3, whose sibling runs a hog.
    assert.equal(wakee.cpu, 10, `${era}: woke on cpu${wakee.cpu}`);
    assert.deepEqual(k.counters.wakePlacement, { idle_core: 1 }, era);
  }
});

test("5.19 x86-104t: without an idle core, an idle SMT sibling of prev is taken", () => {
  const k = kernel("x86-104t", "5.19");
  const { wakee } = wakeScenario(k, 20, 0, 1_000_000, true);
  busyLlc(k, [0, 72]); // 72 is cpu20's sibling
  k.runUntil(2_000_000); // the waker's 1 ms of work, slowed by its busy SMT sibling
  assert.equal(wakee.cpu, 72);
  assert.deepEqual(k.counters.wakePlacement, { idle_smt: 1 });
});

test("5.6 NUMA: a sync wakeup pulls the wakee across nodes (the NUMA domain keeps SD_WAKE_AFFINE)", () => {
  const k = kernel("numa-2x12x2", "5.6");
  const node = (c: number) => k.machine.cpus[c].node;
  const far = k.machine.cpus.find((c) => c.node === 1)!.id;
  const { wakee } = wakeScenario(k, far, 0, 1_000_000, true);
  k.runUntil(500_000);
  assert.equal(node(wakee.cpu), 1);
  const numa = k.domains.sdNuma[0]!;
  assert.ok(
    numa.span.includes(far) && (numa.flags & SD_WAKE_AFFINE) !== 0,
    "the NUMA domain spans both nodes and is SD_WAKE_AFFINE",
  );
  k.runUntil(1_500_000);
  // wake_affine_idle: sync and cpu0 runs only the waker, so target = cpu0; prev is idle but in
  // another LLC, so select_idle_sibling looks for an idle core in cpu0's LLC.
  assert.equal(node(wakee.cpu), 0);
  assert.deepEqual(k.counters.wakePlacement, { idle_core: 1 });
});

test("6.6/6.19 SIS_UTIL stops the LLC scan when the LLC is saturated; 5.19 SIS_PROP (or SIS_UTIL off) still finds cpu3", () => {
  const noSisUtil = patch("no SIS_UTIL").feature("SIS_UTIL", false);
  for (const [era, patches] of [
    ["5.19", []],
    ["6.6", []],
    ["6.19", []],
    ["6.19", [noSisUtil]],
  ] as [Era, Patch[]][]) {
    const k = kernel("x86-104t", era, { patches });
    const { wakee } = wakeScenario(k, 20, 0, 200_000_000, true);
    busyLlc(k, [0, 3]); // cpu3 idle, its sibling busy: no idle core; ~98% util elsewhere
    k.runUntil(310_000_000); // 200 ms of work beside a busy SMT sibling (x0.65) takes ~308 ms
    if (era !== "5.19" && patches.length === 0) {
      // nr_idle_scan = llc_weight * (1 - (util / capacity)^2 * 1.17^2), floored at 0: no scan.
      assert.equal(wakeState(k).nrIdleScan[k.domains.sdLlcId[0]], 0);
      assert.equal(wakee.cpu, 0);
      assert.deepEqual(k.counters.wakePlacement, { affine_busy: 1 });
    } else {
      assert.equal(wakee.cpu, 3);
      assert.deepEqual(k.counters.wakePlacement, { idle_sibling: 1 });
    }
  }
});

test("5.19 SIS_PROP: a waker CPU that has not idled for jiffies scans 3 CPUs past target, so a sync wakee with a busy prev stacks on it; one back from idle scans the LLC", () => {
  // The waker has run for 200 ms without idling: wake_avg_idle halved every jiffy to 0, nr = 4,
  // and `!--nr` lets select_idle_cpu look at cpu1..cpu3 only (for_each_cpu_wrap from target + 1).
  for (const [free, want, placed] of [
    [3, 3, "idle_sibling"],
    [4, 0, "affine_busy"],
  ] as const) {
    const k = kernel("x86-104t", "5.19");
    const { wakee } = wakeScenario(k, 20, 0, 200_000_000, true);
    busyLlc(k, [0, free]); // no idle core (free's sibling is busy); prev cpu20 and its sibling busy
    k.runUntil(310_000_000); // 200 ms of work beside a busy SMT sibling
    assert.equal(k.rqs[0].wakeAvgIdle, 0, `cpu${free}`);
    assert.equal(wakee.cpu, want, `idle cpu${free}: woke on cpu${wakee.cpu}`);
    assert.deepEqual(k.counters.wakePlacement, { [placed]: 1 }, `idle cpu${free}`);
  }
  // The same LLC, but the waker's CPU has just left a 1 ms idle period: ttwu_do_wakeup set
  // wake_avg_idle = avg_idle / 2, so nr covers the LLC and cpu4 is found.
  const k = kernel("x86-104t", "5.19");
  const wakee = k.spawn({ comm: "wakee", cpu: 20, program: sleeper });
  k.spawn({
    comm: "waker",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(100_000);
      yield sleep(1_000_000);
      yield wake(wakee.pid, true);
      yield run(Infinity);
    },
  });
  busyLlc(k, [0, 4]);
  k.runUntil(5_000_000);
  assert.ok(k.rqs[0].wakeAvgIdle > 0);
  assert.equal(wakee.cpu, 4);
  assert.deepEqual(k.counters.wakePlacement, { idle_sibling: 1 });
});

test("6.19: a CPU with a pending wakelist entry (ttwu_pending) is not idle", () => {
  const k = kernel("x86-104t", "6.19");
  const wakee = k.spawn({ comm: "wakee", cpu: 20, program: sleeper });
  hog(k, 0);
  k.runUntil(500_000);
  assert.equal(idleCpu(k, 20), true);
  k.rqs[20].ttwuPending = 1; // another waker queued a task on cpu20's wakelist
  assert.equal(idleCpu(k, 20), false);
  const sis = k.hooks.get("fair.select_idle_sibling");
  const cpu = sis({ k, p: wakee, prev: 20, target: 20, thisCpu: 0 });
  assert.notEqual(cpu, 20);
  assert.ok(idleCpu(k, cpu) && k.domains.sdLlcId[cpu] === k.domains.sdLlcId[20]);
  const viaSelect = k.hooks.get("fair.select_task_rq")({
    k,
    p: wakee,
    prevCpu: 20,
    wakerCpu: 0,
    wakeFlags: WF_TTWU,
  });
  assert.notEqual(viaSelect, 20);
  k.rqs[20].ttwuPending = 0;
  assert.equal(
    k.hooks.get("fair.select_task_rq")({
      k,
      p: wakee,
      prevCpu: 20,
      wakerCpu: 0,
      wakeFlags: WF_TTWU,
    }),
    20,
  );
});

test("5.6 / 5.19: recent_used_cpu is tried before scanning the LLC, and then replaced by prev", () => {
  for (const era of ["5.6", "5.19"] as Era[]) {
    const k = kernel("x86-104t", era);
    const { wakee, waker } = wakeScenario(k, 20, 0, 1_000_000, true);
    busyLlc(k, [0, 3, 7]); // cpu3 and cpu7 idle (their siblings busy), cpu20 busy
    k.runUntil(500_000);
    const st = wakeState(k);
    st.setRecentUsedCpu(wakee, 7); // as if the wakee had last run there
    k.runUntil(2_000_000); // the waker's 1 ms of work, slowed by its busy SMT sibling
    // select_idle_cpu would find cpu3 first (scanning from cpu0); recent_used_cpu wins.
    assert.equal(wakee.cpu, 7, era);
    assert.deepEqual(k.counters.wakePlacement, { recent_used: 1 }, era);
    assert.equal(st.recentUsedCpu(wakee), 20, `${era}: replaced by prev`);
    // 5.6 also records the waking CPU as current->recent_used_cpu after an affine wakeup.
    assert.equal(st.recentUsedCpu(waker), era === "5.6" ? 0 : -1, era);
  }
});

test("5.19 (89aafd67f28c, before ae2ad293d6be in 6.5): recent_used_cpu's affinity test reads p->recent_used_cpu, already prev, so a disallowed recent CPU is chosen and select_task_rq falls back", () => {
  const where: Record<string, number> = {};
  for (const era of ["5.19", "6.6"] as Era[]) {
    const k = kernel("x86-104t", era);
    const { wakee } = wakeScenario(k, 20, 0, 1_000_000, true);
    busyLlc(k, [0, 3, 7]); // cpu3 and cpu7 idle (their siblings busy), cpu20 busy
    k.runUntil(500_000);
    wakeState(k).setRecentUsedCpu(wakee, 7); // it last ran on cpu7 ...
    wakee.setAffinity(k.rqs.map((_, c) => c).filter((c) => c !== 7)); // ... and may no longer
    k.runUntil(2_000_000);
    where[era] = wakee.cpu;
  }
  // 5.19 tests prev (cpu20, allowed) and returns cpu7; select_fallback_rq then takes the first
  // allowed CPU of the node, cpu0, the waker's. 6.6 tests cpu7 itself and scans on to cpu3.
  assert.deepEqual(where, { "5.19": 0, "6.6": 3 });
});

test("hooks: a patch can replace select_idle_sibling and wake_affine", () => {
  const keepPrev = patch("always prev").replace("fair.select_idle_sibling", (ctx) => ctx.prev);
  const k = kernel("xeon-x5472", "4.8", { patches: [keepPrev] });
  const { wakee } = wakeScenario(k, 4, 0, 2_000_000, true);
  k.runUntil(2_100_000);
  assert.equal(wakee.cpu, 4);
  assert.deepEqual(k.counters.wakePlacement, { prev: 1 });

  const noAffine = patch("never affine").replace("fair.wake_affine", (ctx) => ctx.prevCpu);
  const k2 = kernel("xeon-x5472", "4.8", { patches: [noAffine] });
  const s = wakeScenario(k2, 4, 0, 2_000_000, true);
  k2.runUntil(2_100_000);
  assert.equal(s.wakee.cpu, 4); // prev is idle: select_idle_sibling(p, prev) keeps it
});

test("placement counters add up to the fair wakeups and forks of a mixed run", () => {
  for (const era of ["2.6.29", "4.8", "5.19", "6.19"] as Era[]) {
    const k = kernel("core2-2x2", era);
    const ab = new Channel("ab", "pipe", 65536);
    const ba = new Channel("ba", "pipe", 65536);
    k.spawn({
      comm: "a",
      program: function* () {
        for (;;) {
          yield send(ab, 8);
          yield recv(ba);
          yield run(30_000);
        }
      },
    });
    k.spawn({
      comm: "b",
      program: function* () {
        for (;;) {
          yield recv(ab);
          yield run(10_000);
          yield send(ba, 8);
        }
      },
    });
    k.spawn({ comm: "h", program: forever });
    k.runUntil(100_000_000);
    const wakeups = k.tasks
      .filter((t) => t.schedClass === "fair")
      .reduce((s, t) => s + t.stats.wakeups, 0);
    const placed = Object.entries(k.counters.wakePlacement)
      .filter(([key]) => !key.startsWith("fork_"))
      .reduce((s, [, v]) => s + v, 0);
    assert.equal(placed, wakeups, `${era}: ${JSON.stringify(k.counters.wakePlacement)}`);
    assert.ok(wakeups > 1000, `${era}: ${wakeups} wakeups`);
    k.checkInvariants();
  }
});
