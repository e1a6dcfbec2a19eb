// What the waker pays (src/kernel/fair/wake/lines.ts and the scans of v5x.ts / v48.ts / v2629.ts)
// on hand-built runqueues: each line of another CPU's runqueue that select_task_rq_fair reads, and
// the old CPU's lines that moving a waking task touches, is one cacheLineNs transfer charged to the
// waker (k.chargeNs); select_idle_cpu's walk costs it a line per CPU looked at, the same time its
// avg_scan_cost measures.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { run, wait } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import type { Kernel } from "../../../src/kernel/core/core";
import type { Task } from "../../../src/kernel/sched";
import { WF_TTWU } from "../../../src/kernel/sched";
import { wakeState } from "../../../src/kernel/fair/wake/common";
import { selectTaskRqFair5x } from "../../../src/kernel/fair/wake/v5x";
import { selectIdleSibling48, wakeAffine48 } from "../../../src/kernel/fair/wake/v48";
import { wakeAffine2629, wakeIdle2629 } from "../../../src/kernel/fair/wake/v2629";
import { migrationLines } from "../../../src/kernel/fair/wake/lines";
import { patch } from "../../../src/patch/patch";
import { boot } from "../boot";

const LINE = 40; // cacheLineNs.shared_llc: one line of another CPU of the LLC
const FAR = 140; // cacheLineNs.other_node
const OWN = 1; // cacheLineNs.same_cpu: a walk that reaches the waker's own CPU reads its cache

/** `cores` cores in one LLC (no SMT, so no idle-core walk), and as many on a second node. */
function kernel(era: Era, cores: number, psi = 0): { k: Kernel; p: Task } {
  const m = machineBuilder()
    .sockets(2)
    .cores(cores)
    .nodes(2)
    .costs({ cacheLineNs: { same_cpu: OWN, shared_llc: LINE, other_node: FAR } })
    .build();
  const k = boot(m, era, "t", psi ? [patch("psi").tunable("psi", 1)] : []);
  const p = k.spawn({
    comm: "p",
    cpu: 0,
    program: function* () {
      for (;;) yield wait();
    },
  });
  k.runUntil(1_000_000); // p ran on cpu0 and sleeps
  wakeState(k).setRecentUsedCpu(p, -1);
  return { k, p };
}

/** Every CPU of the first LLC busy (nr_running 1: not idle_cpu()). */
function busyLlc(k: Kernel, cores: number): void {
  for (let c = 0; c < cores; c++) k.rqs[c].nrRunning = 1;
}

/** The waker's charge for what `fn` does on cpu `waker`. */
function paid(k: Kernel, waker: number, fn: () => void): number {
  k.thisCpu = waker;
  k.chargeNs = 0;
  fn();
  const ns = k.chargeNs;
  k.chargeNs = 0;
  k.thisCpu = -1;
  return ns;
}

const wake5x = (k: Kernel, p: Task, waker: number) =>
  selectTaskRqFair5x({ k, p, prevCpu: p.cpu, wakerCpu: waker, wakeFlags: WF_TTWU });

test("5.19: a waker whose select_idle_cpu walks N busy CPUs pays N lines, the time avg_scan_cost measures", () => {
  for (const cores of [4, 8, 16]) {
    const { k, p } = kernel("5.19", cores);
    busyLlc(k, cores);
    const rq = k.rqs[0];
    rq.wakeAvgIdle = 1e9; // SIS_PROP: the whole LLC
    rq.wakeStamp = Math.floor(k.now / k.tickNs);
    const st = wakeState(k);
    st.avgScanCost[0] = 0;
    let cpu = -1;
    // prev = target = the waking CPU (select_idle_sibling's test of it is free); the walk from
    // target + 1 covers cpu1 .. cpu(N) and wraps to target, in the waker's own cache
    const ns = paid(k, 0, () => {
      cpu = wake5x(k, p, 0);
    });
    const n = cores - 1;
    const walk = n * LINE + OWN;
    assert.equal(cpu, 0, "nothing idle: target");
    assert.equal(ns, walk, `${n} busy CPUs walked`);
    assert.equal(st.avgScanCost[0], Math.trunc(walk / 8), "update_avg with the same time");
    assert.equal(rq.wakeAvgIdle, 1e9 - walk, "wake_avg_idle debited with it");
  }
});

test("5.6: SIS_PROP's depth bounds what the waker pays (nr = 4 looks at 3 CPUs); an idle CPU ends the walk", () => {
  const { k, p } = kernel("5.6", 16);
  busyLlc(k, 16);
  k.rqs[0].avgIdle = 0; // avg_idle / 512 = 0: nr = 4
  // 5.6 walks from target itself (the waker's own CPU here), then cpu1 and cpu2
  assert.equal(
    paid(k, 0, () => wake5x(k, p, 0)),
    OWN + 2 * LINE,
  );
  const again = kernel("5.6", 16);
  busyLlc(again.k, 16);
  again.k.rqs[0].avgIdle = 1e12;
  again.k.rqs[6].nrRunning = 0; // the walk from target (cpu0, its own) finds cpu6
  let cpu = -1;
  const ns = paid(again.k, 0, () => {
    cpu = wake5x(again.k, again.p, 0);
  });
  assert.equal(cpu, 6);
  assert.equal(ns, OWN + 6 * LINE, "cpu0 .. cpu6 looked at");
});

test("5.19: wake_affine reads prev's idle state and load, select_idle_sibling prev's idle state once", () => {
  // waker cpu1, prev cpu0 (the same LLC), both busy: wake_affine_idle reads idle_cpu(prev)
  // (5.11+), wake_affine_weight cpu_load(prev) and keeps prev as target; select_idle_sibling's
  // idle test of target (prev) is a line already read; the walk starts at target + 1.
  const { k, p } = kernel("5.19", 4);
  busyLlc(k, 4);
  k.rqs[1].wakeAvgIdle = 0; // SIS_PROP: nr = 4, three CPUs looked at
  let cpu = -1;
  const ns = paid(k, 1, () => {
    cpu = wake5x(k, p, 1);
  });
  assert.equal(cpu, 0);
  const walk = OWN + 2 * LINE; // cpu1 (the waker's own), cpu2, cpu3
  assert.equal(ns, 2 * LINE + walk, "idle line and load line of prev, then the walk");
});

test("4.8: wake_affine's source_load(prev) is two lines; select_idle_sibling's group walk one per CPU", () => {
  const { k, p } = kernel("4.8", 4);
  busyLlc(k, 4);
  const sd = k.domains.sdLlc[1]!;
  wakeState(k).lines.begin();
  assert.equal(
    paid(k, 1, () => wakeAffine48({ k, p, sd, thisCpu: 1, prevCpu: 0, sync: false })),
    2 * LINE,
  );
  // target 1 is the waker's own; prev 0 busy; the walk of sd_llc's groups: each group is one
  // CPU (no SMT), cpu0 already read, cpu2 and cpu3 new
  wakeState(k).lines.begin();
  const ns = paid(k, 1, () => selectIdleSibling48({ k, p, prev: 0, target: 1, thisCpu: 1 }));
  assert.equal(ns, 3 * LINE, "prev, then cpu2 and cpu3 (prev's line read once)");
});

test("2.6.29: wake_affine's loads of prev and wake_idle's idle_cpu / cfs.nr_running of its CPU", () => {
  const { k, p } = kernel("2.6.29", 4);
  // 2.6.29's idle_cpu() is only curr == idle: cpu0 runs a hog
  k.spawn({
    comm: "hog",
    cpu: 0,
    cpus: [0],
    program: function* () {
      yield run(1e12);
    },
  });
  k.runUntil(2_000_000);
  const sd = k.domains.domains[1].find((d) => d.span.includes(0))!;
  wakeState(k).lines.begin();
  assert.equal(
    paid(k, 1, () => wakeAffine2629({ k, p, sd, thisCpu: 1, prevCpu: 0, sync: false })),
    2 * LINE,
  );
  wakeState(k).lines.begin();
  assert.equal(
    paid(k, 1, () => wakeIdle2629({ k, p, prev: 0, target: 0, thisCpu: 1 })),
    2 * LINE,
    "idle_cpu(0), then cpu_rq(0)->cfs.nr_running",
  );
});

test("a migrating wakeup pays for the old runqueue's lines its era touches, once per wakeup", () => {
  const want: Record<string, number> = {
    "2.6.29": 2, // old rq->clock, old cfs_rq->min_vruntime
    "3.19": 2, // decay_counter, removed_load
    "4.8": 3, // min_vruntime, avg.last_update_time, removed_*_avg
    "5.19": 3, // min_vruntime, cfs_rq->avg, cfs_rq->removed
    "6.19": 2, // no min_vruntime renormalisation under EEVDF
  };
  for (const [era, lines] of Object.entries(want)) {
    assert.equal(migrationLines(era as Era).length, lines, era);
    const { k, p } = kernel(era as Era, 4);
    const st = wakeState(k);
    st.lines.begin();
    // the waker on the other node moves p (asleep on cpu0) to itself
    const waker = 4;
    assert.equal(
      paid(k, waker, () => k.setTaskCpu(p, waker, "wakeup")),
      lines * FAR,
      `${era}: ${lines} lines from cpu0`,
    );
    assert.equal(
      paid(k, waker, () => k.setTaskCpu(p, 0, "wakeup")),
      0,
      `${era}: cpu4 is the waker's own runqueue, and nothing of cpu0 is new`,
    );
  }
});

test("psi=1 (v4.20+): a remote enqueue writes the target's psi_group_cpu line; psi=0 or 4.8 does not", () => {
  const cost = (era: Era, psi: number) => {
    const { k, p } = kernel(era, 4, psi);
    k.rqs[0].nrRunning = 0;
    return paid(k, 4, () => k.enqueueTask(k.rqs[0], p, 0));
  };
  assert.equal(cost("5.19", 1) - cost("5.19", 0), FAR);
  assert.equal(cost("4.8", 1), cost("4.8", 0), "no PSI before v4.20");
  assert.throws(() => patch("x").tunable("psi", 2), /tunable psi must be 0 or 1/);
});

test("5.19 with an idle core hinted: select_idle_core reads every sibling of each core it walks", () => {
  // 1 socket x 4 cores x 2 threads: cpu c and c + 4 are siblings; all busy, has_idle_cores set
  const SIB = 2; // cacheLineNs.same_core
  const m = machineBuilder()
    .cores(4)
    .threads(2)
    .costs({ cacheLineNs: { same_cpu: OWN, same_core: SIB, shared_llc: LINE } })
    .build();
  const k = boot(m, "5.19");
  const p = k.spawn({
    comm: "p",
    cpu: 0,
    program: function* () {
      for (;;) yield wait();
    },
  });
  k.runUntil(1_000_000);
  const st = wakeState(k);
  st.setRecentUsedCpu(p, -1);
  for (let c = 0; c < 8; c++) k.rqs[c].nrRunning = 1;
  st.hasIdleCores.fill(1);
  let cpu = -1;
  const ns = paid(k, 0, () => {
    cpu = wake5x(k, p, 0);
  });
  assert.equal(cpu, 0);
  // cores of cpu1, cpu2, cpu3 (both threads each), then cpu0's own core: cpu0 and its sibling
  assert.equal(ns, 6 * LINE + OWN + SIB);
  assert.equal(st.hasIdleCores[k.domains.sdLlcId[0]], 0, "the hint is cleared");
});
