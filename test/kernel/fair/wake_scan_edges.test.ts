// Edge cases of the 5.x select_idle_sibling / select_task_rq_fair (src/kernel/fair/wake/v5x.ts)
// that the first mutation run of wake_scan left alive: CPU 0 as an answer (the kernel's
// `(unsigned)i < nr_cpumask_bits`), the wrap of for_each_cpu_wrap, cpus_ptr in each scan, a
// machine without SMT (no select_idle_core, no has_idle_cores), SCHED_IDLE CPUs in the scan,
// SIS_PROP's `span_avg > 4 * avg_cost`, SIS_UTIL's integer x, wake_affine_weight's sync-only
// steps, and select_task_rq_fair's walk (want_affine only for wakeups, sync from WF_SYNC, the
// break without want_affine, fork placement without a SD_BALANCE_FORK domain).
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { wait } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import { Task, WF_FORK, WF_SYNC, WF_TTWU } from "../../../src/kernel/sched";
import { SD_BALANCE_FORK, SD_BALANCE_WAKE } from "../../../src/kernel/topology/sched_domain";
import { wakeState } from "../../../src/kernel/fair/wake/common";
import {
  selectTaskRqFair5x,
  updateIdleCpuScan,
  wakeAffineWeight,
} from "../../../src/kernel/fair/wake/v5x";
import { boot } from "../boot";
import { busy, llc0BusyBut, setup, sis } from "./wake_fixtures";

test("CPU 0 is a valid answer of select_idle_core, select_idle_cpu and select_idle_smt", () => {
  // 5.6 select_idle_core from target 11 wraps to core 0 (0, 8): cpu0, labelled idle_core
  let { k, p } = setup("5.6");
  k.rqs[11].avgIdle = 1e9;
  llc0BusyBut(k, 0, 8);
  wakeState(k).hasIdleCores[0] = 1;
  assert.equal(sis(k, p, 11, 11), 0);
  assert.equal(wakeState(k).sisReason, "idle_core");
  // 5.6 select_idle_cpu from target 11 finds cpu0 (its sibling 3 busy, so no select_idle_smt)
  ({ k, p } = setup("5.6"));
  k.rqs[11].avgIdle = 1e9;
  llc0BusyBut(k, 0);
  assert.equal(sis(k, p, 11, 11), 0);
  assert.equal(wakeState(k).sisReason, "idle_sibling");
  // 5.6 select_idle_smt(target 8) after a scan cut at nr = 4 (8, 9, 10): its sibling cpu0
  ({ k, p } = setup("5.6"));
  k.rqs[8].avgIdle = 0;
  llc0BusyBut(k, 0);
  assert.equal(sis(k, p, 8, 8), 0);
  assert.equal(wakeState(k).sisReason, "idle_smt");
  // 5.19 select_idle_smt(prev 8): cpu0; with nr = 4 the scan from target 1 would not reach it
  ({ k, p } = setup("5.19"));
  k.rqs[1].wakeAvgIdle = 0;
  llc0BusyBut(k, 0);
  assert.equal(sis(k, p, 8, 1), 0);
  assert.equal(wakeState(k).sisReason, "idle_smt");
  // 5.19 the core scan from target 11 wraps to core 0
  ({ k, p } = setup("5.19"));
  llc0BusyBut(k, 0, 8);
  busy(k, 4);
  wakeState(k).hasIdleCores[0] = 1;
  assert.equal(sis(k, p, 4, 11), 0);
  assert.equal(wakeState(k).sisReason, "idle_core");
  // recent_used_cpu 0
  ({ k, p } = setup("5.19"));
  llc0BusyBut(k, 0, 10);
  wakeState(k).setRecentUsedCpu(p, 0);
  assert.equal(sis(k, p, 1, 3), 0);
  assert.equal(wakeState(k).sisReason, "recent_used");
});

test("for_each_cpu_wrap: the scans wrap past the end of the LLC span to its start", () => {
  // 5.6 select_idle_core: core 1 (1, 9) is the idle one; from target 3 the scan meets cpu9
  // before the end of the span, from target 11 only after the wrap, as cpu1
  let { k, p } = setup("5.6");
  k.rqs[3].avgIdle = 1e9;
  llc0BusyBut(k, 1, 9);
  wakeState(k).hasIdleCores[0] = 1;
  assert.equal(sis(k, p, 3, 3), 9);
  ({ k, p } = setup("5.6"));
  k.rqs[11].avgIdle = 1e9;
  llc0BusyBut(k, 1, 9);
  wakeState(k).hasIdleCores[0] = 1;
  assert.equal(sis(k, p, 11, 11), 1, "from 11, the wrap reaches cpu1 first");
  // 5.19 core scan from target 11 (the last of the span): wraps at once
  ({ k, p } = setup("5.19"));
  llc0BusyBut(k, 2, 10);
  busy(k, 4);
  wakeState(k).hasIdleCores[0] = 1;
  assert.equal(sis(k, p, 4, 11), 2);
});

test("cpus_ptr: a CPU the task may not use is skipped by the core scan and by select_idle_smt, even when idle", () => {
  // 5.19 core scan: core 2 (2, 10) idle, cpu2 not allowed: the core is found through cpu10
  let { k, p } = setup("5.19", [1, 0, 3, 8, 9, 10, 11]);
  llc0BusyBut(k, 2, 10);
  busy(k, 4);
  wakeState(k).hasIdleCores[0] = 1;
  assert.equal(sis(k, p, 4, 0), 10);
  // 5.19 select_idle_smt(prev 1): sibling 9 idle but not allowed; the scan finds cpu2
  ({ k, p } = setup("5.19", [1, 0, 2, 3, 8, 10, 11]));
  k.rqs[0].wakeAvgIdle = 1e9;
  k.rqs[0].wakeStamp = 1;
  llc0BusyBut(k, 9, 2);
  assert.equal(sis(k, p, 1, 0), 2);
  assert.equal(wakeState(k).sisReason, "idle_sibling");
});

test("no SMT: no select_idle_core even with the hint set, and the scan keeps SIS_PROP's depth", () => {
  // 8 cores, one LLC, one thread each; nr = 4 (no idle time known): from target 0 the 5.6 scan
  // looks at 0, 1, 2 and 5.19's at 1, 2, 3; cpu5 is beyond both.
  const m = machineBuilder().cores(8).llc("package").build();
  for (const era of ["5.6", "5.19"] as Era[]) {
    const k = boot(m, era);
    const p = k.spawn({
      comm: "p",
      cpu: 1,
      program: function* () {
        for (;;) yield wait();
      },
    });
    k.runUntil(1_000_000);
    const st = wakeState(k);
    assert.equal(st.smtActive, false);
    st.hasIdleCores.fill(1);
    st.setRecentUsedCpu(p, -1);
    k.rqs[0].avgIdle = 0;
    k.rqs[0].wakeAvgIdle = 0;
    for (const c of [0, 1, 2, 3, 4, 6, 7]) k.rqs[c].nrRunning = 1;
    assert.equal(sis(k, p, 1, 0), 0, `${era}: cpu5 is not scanned`);
  }
});

test("select_idle_cpu: a CPU running only SCHED_IDLE tasks is taken like an idle one", () => {
  const { k, p } = setup("5.19");
  k.rqs[0].wakeAvgIdle = 1e9;
  k.rqs[0].wakeStamp = 1;
  llc0BusyBut(k);
  busy(k, 4);
  const idleTask = new Task(900, "batchy", "test", function* () {}, 16);
  idleTask.policy = "idle";
  const rq = k.rqs[10];
  rq.cfs.tasks.push(idleTask);
  rq.cfs.hNrRunning = 1;
  assert.equal(sis(k, p, 4, 0), 10);
  rq.cfs.tasks.pop();
  rq.cfs.hNrRunning = 0;
});

test("5.6 SIS_PROP: nr = 4 whenever span_avg <= 4 * avg_cost (span_avg 8 against avg_cost 100)", () => {
  const { k, p } = setup("5.6");
  k.rqs[0].avgIdle = 512; // avg_idle / 512 = 1: span_avg = 8
  wakeState(k).avgScanCost[0] = 99;
  llc0BusyBut(k, 2);
  assert.equal(sis(k, p, 0, 0), 2, "the third CPU from target is within nr = 4");
});

test("5.19: a scan that finds nothing averages the time of every CPU it looked at into avg_scan_cost", () => {
  const { k, p } = setup("5.19");
  k.rqs[0].wakeAvgIdle = 1e9;
  k.rqs[0].wakeStamp = 1;
  llc0BusyBut(k);
  busy(k, 4);
  assert.equal(sis(k, p, 4, 0), 0);
  // 1, 2, 3 (45 ns each), 8 (2), 9, 10, 11 (45 each), 0 (1): 273 ns once each; 0 + 273 / 8
  assert.equal(wakeState(k).avgScanCost[0], 34);
});

test("SIS_UTIL: x = sum_util / llc_weight is an integer division", () => {
  // seven CPUs at 310 and one at 311: x = 2481 / 8 = 310, tmp = 310^2 * 117^2 / 10240000 = 128,
  // nr_idle_scan = (1024 - 128) * 8 / 1024 = 7 (x = 311 would give tmp 129 and 6)
  const { k } = setup("6.19");
  const llc = k.domains.sdLlc[0]!;
  updateIdleCpuScan(k, llc, 0, 7 * 310 + 311);
  assert.equal(wakeState(k).nrIdleScan[0], 7);
  updateIdleCpuScan(k, llc, 0, 8 * 311);
  assert.equal(wakeState(k).nrIdleScan[0], 6);
});

test("wake_affine_weight: the waker's load comes off this_cpu only for sync wakeups; current's load equal to this_cpu's is not the shortcut", () => {
  const { k, p } = setup("5.19");
  const sd = k.domains.domains[0].at(-1)!;
  p.se.avg.loadAvg = 100;
  const waker = setup("5.19").p;
  waker.se.avg.loadAvg = 150;
  k.rqs[0].curr = waker;
  k.rqs[0].cfs.avg.loadAvg = 150;
  k.rqs[4].cfs.avg.loadAvg = 300;
  // not sync: (150 + 100) * 100 = 25000 >= (300 - 100) * 108 = 21600: prev
  assert.equal(wakeAffineWeight(k, sd, p, 0, 4, false), -1);
  // sync: (150 - 150 + 100) * 100 = 10000 < 21601: this_cpu
  assert.equal(wakeAffineWeight(k, sd, p, 0, 4, true), 0);
  // sync, current_load == this_eff_load (not >): computed, and prev 50 makes it prev
  k.rqs[4].cfs.avg.loadAvg = 50;
  assert.equal(wakeAffineWeight(k, sd, p, 0, 4, true), -1);
  k.rqs[0].curr = null;
});

test("select_task_rq_fair: want_affine only for wakeups, sync only with WF_SYNC, no climb without want_affine, fork placement without SD_BALANCE_FORK stays put", () => {
  // not sync: the waker's CPU running one task is not taken by wake_affine_idle; loads favour prev
  let { k, p } = setup("5.19");
  p.se.avg.loadAvg = 100;
  busy(k, 0, 4);
  k.rqs[0].cfs.avg.loadAvg = 1000;
  const c = selectTaskRqFair5x({ k, p, prevCpu: 4, wakerCpu: 0, wakeFlags: WF_TTWU });
  assert.equal(k.domains.sdLlcId[c], 4, `not sync: prev's LLC (cpu${c})`);
  // fork from a busy cpu0 with prev 0: the slow path moves the child (find_idlest_cpu)
  ({ k, p } = setup("5.19"));
  busy(k, 0);
  k.rqs[0].cfs.avg.loadAvg = 1024;
  const f = selectTaskRqFair5x({ k, p, prevCpu: 0, wakerCpu: 0, wakeFlags: WF_FORK });
  assert.notEqual(f, 0, "fork balancing, not wake_affine");
  assert.equal(k.counters.wakePlacement.fork_idlest_group, 1);
  // without SD_BALANCE_FORK anywhere: new_cpu = prev, counted fork_local
  for (const sd of k.domains.domains[0]) sd.flags &= ~SD_BALANCE_FORK;
  assert.equal(selectTaskRqFair5x({ k, p, prevCpu: 0, wakerCpu: 0, wakeFlags: WF_FORK }), 0);
  assert.equal(k.counters.wakePlacement.fork_local, 1);
  // no want_affine (cpu0 not allowed): the walk breaks at the first domain without
  // SD_BALANCE_WAKE, so a flag on the top domain alone does not start the slow path
  ({ k, p } = setup("5.19", [4, 5, 6, 7, 12, 13, 14, 15]));
  k.domains.domains[0].at(-1)!.flags |= SD_BALANCE_WAKE;
  selectTaskRqFair5x({ k, p, prevCpu: 4, wakerCpu: 0, wakeFlags: WF_TTWU });
  assert.deepEqual(
    Object.keys(k.counters.wakePlacement).filter((key) => key.startsWith("idlest_")),
    [],
  );
});

test("5.6: after an affine wakeup the waker records the waking CPU as its recent_used_cpu", () => {
  const { k, p } = setup("5.6");
  const waker = setup("5.6").p;
  k.rqs[0].curr = waker;
  busy(k, 0, 4);
  selectTaskRqFair5x({ k, p, prevCpu: 4, wakerCpu: 0, wakeFlags: WF_TTWU | WF_SYNC });
  assert.equal(wakeState(k).recentUsedCpu(waker), 0);
  k.rqs[0].curr = null;
});

test("more scan edges: a failed 5.6 core scan returns -1; SIS_UTIL's nr == 1 ends the scan before the core search; a core scan leaves wake_avg_idle alone; a target without sd_llc is returned", () => {
  // 5.6: hint set but no whole idle core: select_idle_cpu then finds cpu2 (not an idle-core answer)
  let { k, p } = setup("5.6");
  k.rqs[0].avgIdle = 1e9;
  llc0BusyBut(k, 2);
  wakeState(k).hasIdleCores[0] = 1;
  assert.equal(sis(k, p, 0, 0), 2);
  // 6.19: an overloaded LLC (nr_idle_scan 0) is not scanned even with an idle core known
  ({ k, p } = setup("6.19"));
  for (const c of k.domains.sdLlc[0]!.span) k.rqs[c].cfs.avg.utilAvg = 900;
  llc0BusyBut(k, 2, 10);
  busy(k, 4);
  wakeState(k).hasIdleCores[0] = 1;
  updateIdleCpuScan(k, k.domains.sdLlc[0]!, 0, 8 * 900);
  assert.equal(sis(k, p, 4, 0), 0);
  // 5.19: a scan for idle cores (no SIS_PROP depth) does not debit wake_avg_idle
  ({ k, p } = setup("5.19"));
  k.rqs[0].wakeAvgIdle = 5000;
  k.rqs[0].wakeStamp = Math.floor(k.now / k.tickNs);
  llc0BusyBut(k, 1);
  busy(k, 4);
  wakeState(k).hasIdleCores[0] = 1;
  assert.equal(sis(k, p, 4, 0), 1);
  assert.equal(k.rqs[0].wakeAvgIdle, 5000);
  // target alone in its package (no sd_llc): target, busy or not
  const m = machineBuilder()
    .sockets(2)
    .cores(4)
    .threads(2)
    .llc("package")
    .offline([5, 6, 7, 12, 13, 14, 15])
    .build();
  const k2 = boot(m, "5.19");
  const q = k2.spawn({
    comm: "q",
    cpu: 1,
    program: function* () {
      for (;;) yield wait();
    },
  });
  k2.runUntil(1_000_000);
  busy(k2, 0, 4);
  assert.equal(sis(k2, q, 0, 4, 4), 4);
  assert.equal(sis(k2, q, 0, 4, 0), 4, "woken from cpu0, which has an sd_llc");
});
