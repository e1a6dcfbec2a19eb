// select_idle_sibling, select_idle_cpu, wake_affine_idle/_weight and select_task_rq_fair of the
// 5.x eras (src/kernel/fair/wake/v5x.ts) on hand-set runqueues: which CPU each kernel rule picks.
// Sources (kernel/sched/fair.c): 5.6/5.7 select_idle_sibling (target, prev, recent_used_cpu,
// select_idle_core, select_idle_cpu from target with `!--nr`, select_idle_smt of target, SIS_PROP's
// nr from avg_idle / 512 and avg_scan_cost, avg_scan_cost updated after every scan); 5.19
// (select_idle_smt of prev when no idle core is known, one select_idle_cpu pass from target + 1,
// SIS_PROP from rq->wake_avg_idle aged by a halving per jiffy and debited with the scan time);
// 6.8+ (SIS_UTIL: nr = sd_llc_shared->nr_idle_scan + 1, `nr == 1` stops at once); wake_affine_idle
// and wake_affine_weight as in 5.7 (WA_BIAS: prev_eff_load *= 100 + (imbalance_pct - 100) / 2),
// 5.11+ "Check for idle core in wake_affine" (an idle prev after the sync test).
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { wait } from "../../../src/kernel/ops";
import type { Era } from "../../../src/kernel/features";
import { WF_EXEC, WF_FORK, WF_SYNC, WF_TTWU } from "../../../src/kernel/sched";
import { SD_BALANCE_WAKE, SD_LOAD_BALANCE } from "../../../src/kernel/topology/sched_domain";
import { wakeState } from "../../../src/kernel/fair/wake/common";
import {
  selectTaskRqFair5x,
  updateIdleCpuScan,
  wakeAffine5x,
  wakeAffineIdle,
  wakeAffineWeight,
} from "../../../src/kernel/fair/wake/v5x";
import { boot } from "../boot";

import { busy, llc0BusyBut, setup, sis } from "./wake_fixtures";

test("select_idle_sibling: an idle target, else an idle cache-affine prev (never one of another LLC)", () => {
  for (const era of ["5.6", "5.19", "6.19"] as Era[]) {
    const { k, p } = setup(era);
    assert.equal(sis(k, p, 2, 3), 3, `${era}: idle target`);
    busy(k, 3);
    assert.equal(sis(k, p, 2, 3), 2, `${era}: idle prev in target's LLC`);
    busy(k, 2);
    const c = sis(k, p, 4, 3);
    assert.notEqual(c, 4, `${era}: prev of the other LLC`);
    assert.equal(k.domains.sdLlcId[c], 0, `${era}: found in target's LLC (cpu${c})`);
    assert.ok(k.rqs[c].isIdle());
  }
});

test("select_idle_sibling: recent_used_cpu only if idle, in target's LLC, allowed, and neither prev nor target; 5.6 replaces it by prev only when used, 5.12+ always", () => {
  for (const era of ["5.6", "5.19"] as Era[]) {
    // target 0 and prev 1 busy; the scan would find cpu2 first (5.6 from target, 5.19 from 1).
    const run = (recent: number, cpus?: number[], idle: number[] = [2, 10]) => {
      const { k, p } = setup(era, cpus);
      llc0BusyBut(k, ...idle);
      const st = wakeState(k);
      st.setRecentUsedCpu(p, recent);
      return { cpu: sis(k, p, 1, 0), after: st.recentUsedCpu(p), reason: st.sisReason };
    };
    const used = run(10);
    assert.equal(used.cpu, 10, era);
    assert.equal(used.reason, "recent_used", era);
    assert.equal(used.after, 1, `${era}: replaced by prev`);
    const other = run(5, undefined, [2, 10, 5]);
    assert.equal(other.cpu, 2, `${era}: recent_used_cpu of another LLC is skipped`);
    assert.equal(other.after, era === "5.6" ? 5 : 1, `${era}: kept in 5.6 when unused`);
    assert.equal(run(11).cpu, 2, `${era}: a busy recent_used_cpu is skipped`);
    // 5.12 ... 6.4 test the allowed mask on p->recent_used_cpu, already set to prev (89aafd67f28c
    // until ae2ad293d6be): a recent CPU outside the mask is returned, and select_task_rq falls back
    assert.equal(
      run(10, [0, 1, 2, 3, 8, 9, 11]).cpu,
      era === "5.6" ? 2 : 10,
      `${era}: recent_used_cpu not allowed`,
    );
    assert.equal(run(-1).cpu, 2, `${era}: none`);
  }
  // recent_used_cpu == target: not taken (target is busy here, so taking it would stack)
  const { k, p } = setup("5.19");
  llc0BusyBut(k, 10);
  wakeState(k).setRecentUsedCpu(p, 0);
  assert.equal(sis(k, p, 1, 0), 10, "recent_used_cpu == target (busy) is not returned");
});

test("5.6: select_idle_core (whole idle cores, while has_idle_cores) before select_idle_cpu; a failed core scan clears the hint", () => {
  const { k, p } = setup("5.6");
  const st = wakeState(k);
  k.rqs[0].avgIdle = 1e9; // SIS_PROP: the whole LLC
  busy(k, 0, 9, 2, 10); // core 1 half idle (cpu1), core 3 idle (3, 11)
  assert.equal(sis(k, p, 0, 0), 1, "no hint: select_idle_cpu from target finds cpu1");
  assert.equal(st.sisReason, "idle_sibling");
  st.hasIdleCores[0] = 1;
  assert.equal(sis(k, p, 0, 0), 3, "the hint: the first whole idle core from target");
  assert.equal(st.sisReason, "idle_core");
  assert.equal(st.hasIdleCores[0], 1, "kept while a core was found");
  busy(k, 11);
  assert.equal(sis(k, p, 0, 0), 1, "no idle core left: select_idle_cpu");
  assert.equal(st.hasIdleCores[0], 0, "hint cleared");
  // the scan walks the allowed CPUs (cpus = span & cpus_ptr) and returns the one whose whole SMT
  // mask is idle: with cpu3 not allowed, cpu11 stands for core 3; with neither, core 3 is out
  const q = setup("5.6", [0, 1, 2, 9, 10, 11]);
  q.k.rqs[0].avgIdle = 1e9;
  busy(q.k, 0, 9, 2, 10);
  wakeState(q.k).hasIdleCores[0] = 1;
  assert.equal(sis(q.k, q.p, 0, 0), 11, "core 3 through its allowed thread");
  const r = setup("5.6", [0, 1, 2, 9, 10]);
  r.k.rqs[0].avgIdle = 1e9;
  busy(r.k, 0, 9, 2, 10);
  wakeState(r.k).hasIdleCores[0] = 1;
  assert.equal(sis(r.k, r.p, 0, 0), 1, "no allowed thread of an idle core");
  assert.equal(wakeState(r.k).hasIdleCores[0], 0);
});

test("5.6 SIS_PROP: nr = span_weight * (avg_idle / 512) / (avg_scan_cost + 1), at least 4; the scan starts at target and `!--nr` stops it; then select_idle_smt(target)", () => {
  const at = (avgIdle: number, cost: number, idle: number[]) => {
    const { k, p } = setup("5.6");
    k.rqs[0].avgIdle = avgIdle;
    wakeState(k).avgScanCost[0] = cost;
    llc0BusyBut(k, ...idle);
    return sis(k, p, 0, 0);
  };
  // nr = 4: cpu0 (target), 1, 2 looked at; cpu3 is not.
  assert.equal(at(0, 0, [2]), 2);
  assert.equal(at(0, 0, [3]), 0, "cpu3 is the 4th: the scan stops, target is kept");
  assert.equal(at(0, 0, [3, 8]), 8, "select_idle_smt(target): its idle sibling");
  // avg_idle / 512 is an integer division: 460 / 512 = 0, so nr = 4 (not 8 * 0.9 = 7).
  assert.equal(at(460, 0, [3]), 0);
  // avg_idle / 512 = 75, avg_cost = 100: span_avg 600 > 400, nr = 6: five CPUs (0,1,2,3,8).
  assert.equal(at(75 * 512, 99, [8]), 8);
  assert.equal(at(75 * 512, 99, [9]), 0, "cpu9 is the 6th");
  // avg_cost 1 and avg_idle / 512 = 1: span_avg 8 > 4, nr = 8: seven CPUs, cpu10 is the 7th.
  assert.equal(at(512, 0, [10]), 10);
  assert.equal(at(512, 0, [11]), 0);
});

test("5.6: avg_scan_cost += (scan time - avg_scan_cost) / 8 after every select_idle_cpu", () => {
  const { k, p } = setup("5.6");
  const st = wakeState(k);
  k.rqs[0].avgIdle = 1e9;
  llc0BusyBut(k, 2);
  assert.equal(sis(k, p, 0, 0), 2);
  // cpu0 (same CPU: 1 ns), cpu1 and cpu2 (shared LLC: 45 ns each) = 91 ns; 0 + 91 / 8 -> 11.
  assert.equal(st.avgScanCost[0], 11);
  busy(k, 2);
  assert.equal(sis(k, p, 0, 0), 0);
  // nothing idle: nr covers the LLC, so the walk ends without a find and is still averaged in:
  // 1 + 45 * 3 + 2 (cpu8, the SMT sibling) + 45 * 3 = 273: 11 + (273 - 11) / 8 -> 43.
  assert.equal(st.avgScanCost[0], 43);
});

test("5.19: select_idle_smt(prev) (not prev itself) before the LLC scan when no idle core is known and prev shares target's LLC", () => {
  const { k, p } = setup("5.19");
  k.rqs[0].wakeAvgIdle = 1e9;
  k.rqs[0].wakeStamp = 1;
  llc0BusyBut(k, 2, 9); // prev = cpu1 busy, its sibling 9 idle; cpu2 idle, first in the scan
  assert.equal(sis(k, p, 1, 0), 9);
  assert.equal(wakeState(k).sisReason, "idle_smt");
  wakeState(k).hasIdleCores[0] = 1;
  k.rqs[3].nrRunning = 0;
  k.rqs[11].nrRunning = 0; // core 3 whole idle
  assert.equal(sis(k, p, 1, 0), 3, "with an idle core known: the scan for cores");
});

test("5.19 SIS_PROP: the scan starts at target + 1; nr from rq->wake_avg_idle, halved per jiffy since wake_stamp", () => {
  const at = (era: Era, wakeAvgIdle: number, jiffiesAgo: number, cost: number, idle: number[]) => {
    const { k, p } = setup(era);
    const rq = k.rqs[0];
    rq.avgIdle = 0; // 5.6's input
    rq.wakeAvgIdle = wakeAvgIdle;
    rq.wakeStamp = Math.floor(k.now / k.tickNs) - jiffiesAgo;
    wakeState(k).avgScanCost[0] = cost;
    llc0BusyBut(k, ...idle);
    busy(k, 4); // prev = cpu4, another LLC: no select_idle_smt(prev)
    return { cpu: sis(k, p, 4, 0), rq, st: wakeState(k) };
  };
  // nr = 4: cpu1, 2, 3 looked at (5.6 would look at 0, 1, 2).
  assert.equal(at("5.19", 0, 0, 0, [3]).cpu, 3);
  assert.equal(at("5.6", 0, 0, 0, [3]).cpu, 0, "5.6 starts at target");
  assert.equal(at("5.19", 0, 0, 0, [8]).cpu, 0, "5.19: cpu8 is the 4th");
  assert.equal(at("5.19", 0, 0, 0, [8, 0]).cpu, 0);
  // wake_avg_idle 600, three jiffies old: 75; avg_cost 100, nr = 8 * 75 / 100 = 6: 1,2,3,8,9.
  assert.equal(at("5.19", 600, 3, 99, [9]).cpu, 9);
  assert.equal(at("5.19", 600, 3, 99, [10]).cpu, 0, "cpu10 is the 6th");
  const r = at("5.19", 600, 3, 99, [10]);
  assert.equal(
    r.rq.wakeAvgIdle,
    75,
    "aged three times; a scan cut by nr returns before the accounting",
  );
  assert.equal(r.st.avgScanCost[0], 99);
  assert.equal(r.rq.wakeStamp, Math.floor(r.st.k.now / r.st.k.tickNs), "wake_stamp caught up");
  // two jiffies: 150, nr = 12 > the LLC: cpu10 found.
  const two = at("5.19", 600, 2, 99, [10]);
  assert.equal(two.cpu, 10);
  // the scan looked at 1, 2, 3, 8, 9, 10 from cpu0: five rqs in the LLC (45 ns each) and the SMT
  // sibling (2 ns) = 227 ns, debited from wake_avg_idle (150 -> 0) and averaged into
  // avg_scan_cost: 99 + (227 - 99) / 8 = 115
  assert.equal(two.rq.wakeAvgIdle, 0);
  assert.equal(two.st.avgScanCost[0], 115);
  const more = at("5.19", 1e6, 0, 0, [10]);
  assert.equal(more.rq.wakeAvgIdle, 1e6 - 227);
  assert.equal(more.st.avgScanCost[0], 28, "0 + 227 / 8, truncated");
  // 6.19 has no SIS_PROP: neither wake_avg_idle nor avg_scan_cost moves, and nr is SIS_UTIL's.
  const late = at("6.19", 600, 3, 99, [10]);
  assert.equal(late.cpu, 10);
  assert.equal(late.st.avgScanCost[0], 99);
});

test("5.19/6.19 with has_idle_cores: from target + 1 the first whole idle core, else the first idle CPU seen; the hint is then cleared", () => {
  for (const era of ["5.19", "6.19"] as Era[]) {
    const { k, p } = setup(era);
    const st = wakeState(k);
    k.rqs[0].wakeAvgIdle = 0; // SIS_PROP does not limit a scan for cores
    st.hasIdleCores[0] = 1;
    busy(k, 0, 9, 2, 4); // core 1 half idle (cpu1), core 2 half idle (10), core 3 idle
    assert.equal(sis(k, p, 4, 0), 3, era);
    assert.equal(st.sisReason, "idle_core", era);
    assert.equal(st.hasIdleCores[0], 1, era);
    busy(k, 11);
    assert.equal(sis(k, p, 4, 0), 1, `${era}: the first idle CPU the core scan saw`);
    assert.equal(st.hasIdleCores[0], 0, `${era}: hint cleared`);
    assert.equal(st.sisReason, "idle_sibling", era);
  }
});

test("6.19 SIS_UTIL: nr_idle_scan = llc_weight * (1 - (util / llc_weight)^2 * pct^2 / (10000 * 1024)) / 1024 terms; the scan reads what the last balance wrote", () => {
  const { k, p } = setup("6.19");
  const st = wakeState(k);
  const llc = k.domains.sdLlc[0]!;
  assert.equal(llc.imbalancePct, 117);
  assert.equal(llc.spanWeight, 8);
  assert.equal(st.nrIdleScan[0], 8, "an idle LLC's value until a balance writes one");
  const write = (util: number) => updateIdleCpuScan(k, llc, 0, 8 * util);
  busy(k, 0, 4);
  // util 500: x^2 pct^2 / (10000 * 1024) = 334, y = (1024 - 334) * 8 / 1024 = 5
  write(500);
  assert.equal(st.nrIdleScan[0], 5);
  // util 800: 855, y = 169 * 8 / 1024 = 1: nr = 2, one CPU (cpu1) looked at
  llc0BusyBut(k, 2);
  write(800);
  assert.equal(st.nrIdleScan[0], 1);
  assert.equal(sis(k, p, 4, 0), 0, "cpu2 is beyond nr = 2");
  k.rqs[2].nrRunning = 0;
  k.rqs[1].nrRunning = 0;
  assert.equal(sis(k, p, 4, 0), 1);
  // util 900: capped at 1024, y = 0: nr == 1, no scan at all
  write(900);
  assert.equal(st.nrIdleScan[0], 0);
  assert.equal(sis(k, p, 4, 0), 0, "an overloaded LLC: target");
  // The LLC's utilization at the wakeup does not matter, only what the balance wrote.
  for (const c of llc.span) k.rqs[c].cfs.avg.utilAvg = 0;
  assert.equal(sis(k, p, 4, 0), 0, "still no scan");
});

test("6.6+ update_idle_cpu_scan: a periodic or idle pass of dst's LLC domain writes nr_idle_scan from its CPUs' util; newidle passes and other levels do not", () => {
  for (const era of ["6.6", "6.19"] as Era[]) {
    const { k } = setup(era);
    const st = wakeState(k);
    const llc = k.domains.sdLlc[0]!;
    const top = k.domains.domains[0].at(-1)!;
    assert.notEqual(top, llc);
    // cpu_util_cfs of each CPU, capped at its capacity: 8 x 800 -> nr_idle_scan 1
    for (const c of llc.span) k.rqs[c].cfs.avg.utilAvg = 800;
    k.balancer.loadBalance(k.rqs[0], llc, "CPU_NEWLY_IDLE");
    assert.equal(st.nrIdleScan[0], 8, `${era}: not from a newidle pass`);
    k.balancer.loadBalance(k.rqs[0], top, "CPU_IDLE");
    assert.equal(st.nrIdleScan[0], 8, `${era}: not from the package level`);
    k.balancer.loadBalance(k.rqs[0], llc, "CPU_IDLE");
    assert.equal(st.nrIdleScan[0], 1, `${era}: an idle pass of the LLC`);
    for (const c of llc.span) k.rqs[c].cfs.avg.utilAvg = 0;
    k.balancer.loadBalance(k.rqs[0], llc, "CPU_NOT_IDLE");
    assert.equal(st.nrIdleScan[0], 8, `${era}: a periodic pass of the LLC`);
  }
  // 5.19 has no SIS_UTIL: nothing is written
  const { k } = setup("5.19");
  const llc = k.domains.sdLlc[0]!;
  for (const c of llc.span) k.rqs[c].cfs.avg.utilAvg = 800;
  k.balancer.loadBalance(k.rqs[0], llc, "CPU_IDLE");
  assert.equal(wakeState(k).nrIdleScan[0], 8);
});

test("wake_affine_idle: an idle waking CPU sharing prev's LLC gives prev if idle, else itself; sync from a CPU running only the waker gives the waker's CPU; 5.11+ then an idle prev", () => {
  for (const era of ["5.6", "5.19"] as Era[]) {
    const late = era !== "5.6";
    const { k } = setup(era);
    assert.equal(wakeAffineIdle(k, 0, 2, false), 2, `${era}: both idle, shared LLC: prev`);
    busy(k, 2);
    assert.equal(wakeAffineIdle(k, 0, 2, false), 0, `${era}: prev busy: this_cpu`);
    // this_cpu idle but prev in another LLC: not the interrupt case; 5.11+ takes the idle prev
    assert.equal(wakeAffineIdle(k, 0, 4, false), late ? 4 : -1, `${era}: another LLC`);
    busy(k, 0);
    assert.equal(wakeAffineIdle(k, 0, 4, true), 0, `${era}: sync, nr_running == 1`);
    assert.equal(wakeAffineIdle(k, 0, 4, false), late ? 4 : -1, `${era}: not sync, prev idle`);
    k.rqs[0].nrRunning = 2;
    assert.equal(wakeAffineIdle(k, 0, 4, true), late ? 4 : -1, `${era}: sync but 2 running`);
    assert.equal(wakeAffineIdle(k, 0, 2, true), -1, `${era}: prev busy too`);
  }
});

test("wake_affine_weight: this_eff = (this load - current if sync + task) * 100 * cap(prev) against prev_eff = (prev load - task) * (100 + (pct - 100) / 2) * cap(this); a sync tie goes to this_cpu", () => {
  const { k, p } = setup("5.19");
  const sd = k.domains.domains[0].at(-1)!; // the package domain spanning 0 and 4
  const pct = sd.imbalancePct;
  const bias = 100 + Math.floor((pct - 100) / 2);
  const rq0 = k.rqs[0];
  const rq4 = k.rqs[4];
  p.se.avg.loadAvg = 100;
  const w = (thisLoad: number, prevLoad: number, sync: boolean) => {
    rq0.cfs.avg.loadAvg = thisLoad;
    rq4.cfs.avg.loadAvg = prevLoad;
    return wakeAffineWeight(k, sd, p, 0, 4, sync);
  };
  // (this + 100) * 100 < (prev - 100) * bias
  assert.equal(bias, 108);
  assert.equal(w(0, 300, false), 0, "100 * 100 < 200 * 108");
  assert.equal(w(117, 300, false), -1, "217 * 100 >= 200 * 108");
  assert.equal(w(115, 300, false), 0, "215 * 100 < 21600");
  assert.equal(w(116, 300, false), -1, "21600 is not < 21600 without sync");
  // sync: the waker's own load is taken off this_cpu; a tie (+1) is affine
  const waker = setup("5.19").p;
  waker.se.avg.loadAvg = 50;
  rq0.curr = waker;
  assert.equal(w(166, 300, true), 0, "(166 - 50 + 100) = 216: a sync tie is affine");
  assert.equal(w(167, 300, true), -1);
  waker.se.avg.loadAvg = 500;
  assert.equal(w(400, 0, true), 0, "current's load above this_cpu's: this_cpu at once");
  rq0.curr = null;
  // capacities cross-multiply: this_eff by prev's capacity, prev_eff by this_cpu's
  rq4.cpuCapacity = 512;
  assert.equal(w(300, 300, false), 0, "400 * 100 * 512 < 200 * 108 * 1024");
  rq4.cpuCapacity = 1024;
  rq0.cpuCapacity = 512;
  assert.equal(w(20, 300, false), -1, "120 * 100 * 1024 >= 200 * 108 * 512");
  rq0.cpuCapacity = 1024;
  // without WA_BIAS: 100 * 100 would tie with 200 * 100 ... plain loads compared
  (k.features as { WA_BIAS: boolean }).WA_BIAS = false;
  assert.equal(w(99, 300, false), 0, "199 < 200");
  assert.equal(w(100, 300, false), -1, "200 is not < 200");
});

test("wake_affine: WA_IDLE's answer first, WA_WEIGHT only without one, prev_cpu when neither picks", () => {
  const { k, p } = setup("5.6");
  const sd = k.domains.domains[0].at(-1)!;
  const wa = (sync: boolean) => wakeAffine5x({ k, p, sd, thisCpu: 0, prevCpu: 4, sync });
  p.se.avg.loadAvg = 100;
  busy(k, 0, 4);
  k.rqs[0].cfs.avg.loadAvg = 1000;
  k.rqs[4].cfs.avg.loadAvg = 0;
  assert.equal(wa(true), 0, "sync and nr_running 1: wake_affine_idle picks this_cpu");
  assert.equal(wa(false), 4, "no idle answer, this_cpu heavier: prev");
  k.rqs[4].cfs.avg.loadAvg = 5000;
  assert.equal(wa(false), 0, "wake_affine_weight: prev much heavier");
  (k.features as { WA_WEIGHT: boolean }).WA_WEIGHT = false;
  assert.equal(wa(false), 4, "no WA_WEIGHT: prev");
  (k.features as { WA_IDLE: boolean }).WA_IDLE = false;
  assert.equal(wa(true), 4, "no WA_IDLE, no WA_WEIGHT: prev even for sync");
  (k.features as { WA_WEIGHT: boolean }).WA_WEIGHT = true;
  k.rqs[4].cfs.avg.loadAvg = 5000;
  k.rqs[0].cfs.avg.loadAvg = 1000;
  assert.equal(wa(true), 0, "WA_WEIGHT alone: this_cpu lighter");
  k.rqs[0].cfs.avg.loadAvg = 6000;
  assert.equal(wa(true), 4, "WA_WEIGHT alone, this_cpu heavier: prev (no sync shortcut)");
});

test("select_task_rq_fair (5.x): fork records recent_used_cpu; a waker CPU the task may not use gives no affine wakeup; SD_BALANCE_WAKE domains take the slow path", () => {
  const { k, p } = setup("5.19");
  const st = wakeState(k);
  const sel = (prevCpu: number, wakerCpu: number, wakeFlags: number) =>
    selectTaskRqFair5x({ k, p, prevCpu, wakerCpu, wakeFlags });
  sel(3, 0, WF_FORK);
  assert.equal(st.recentUsedCpu(p), 3, "wake_up_new_task: recent_used_cpu = task_cpu");
  st.setRecentUsedCpu(p, -1);
  sel(3, 0, WF_EXEC);
  assert.equal(st.recentUsedCpu(p), -1, "exec does not set it");
  // outside any CPU context the walk starts at prev: an idle prev is kept
  assert.equal(sel(5, -1, WF_TTWU), 5);
  // cross-LLC sync wakeup from a CPU running only the waker: pulled into the waker's LLC
  busy(k, 0, 4);
  const c = sel(4, 0, WF_TTWU | WF_SYNC);
  assert.equal(k.domains.sdLlcId[c], 0, `affine: cpu${c}`);
  assert.equal(k.counters.wakePlacement.idle_sibling, 1);
  // waker's CPU not allowed: no wake_affine, no slow path (no SD_BALANCE_WAKE): prev's LLC
  const q = setup("5.19", [4, 5, 6, 7, 12, 13, 14, 15]);
  busy(q.k, 0, 4);
  const c2 = selectTaskRqFair5x({
    k: q.k,
    p: q.p,
    prevCpu: 4,
    wakerCpu: 0,
    wakeFlags: WF_TTWU | WF_SYNC,
  });
  assert.equal(q.k.domains.sdLlcId[c2], 4, `prev's LLC: cpu${c2}`);
  // with SD_BALANCE_WAKE on cpu0's domains and no affine wakeup: find_idlest_cpu
  for (const sd of q.k.domains.domains[0]) sd.flags |= SD_BALANCE_WAKE;
  const before = { ...q.k.counters.wakePlacement };
  selectTaskRqFair5x({ k: q.k, p: q.p, prevCpu: 4, wakerCpu: 0, wakeFlags: WF_TTWU });
  const added = Object.keys(q.k.counters.wakePlacement).filter(
    (key) => q.k.counters.wakePlacement[key] !== (before[key] ?? 0),
  );
  assert.equal(added.length, 1);
  assert.ok(added[0].startsWith("idlest_"), added[0]);
});

test("select_idle_cpu needs the waking CPU's sd_llc: from a CPU alone in its LLC (this_sd NULL) there is no scan", () => {
  // cpu4 is the only online CPU of package 1, so it has no sd_llc.
  const m = machineBuilder()
    .sockets(2)
    .cores(4)
    .threads(2)
    .llc("package")
    .offline([5, 6, 7, 12, 13, 14, 15])
    .build();
  for (const era of ["5.6", "5.19"] as Era[]) {
    const k = boot(m, era);
    assert.equal(k.domains.sdLlc[4], null);
    const p = k.spawn({
      comm: "p",
      cpu: 1,
      program: function* () {
        for (;;) yield wait();
      },
    });
    k.runUntil(1_000_000);
    const st = wakeState(k);
    st.hasIdleCores.fill(0);
    st.setRecentUsedCpu(p, -1);
    k.rqs[4].avgIdle = 1e9;
    k.rqs[4].wakeAvgIdle = 1e9;
    llc0BusyBut(k, 2);
    assert.equal(sis(k, p, 4, 0, 4), 0, `${era}: target kept, cpu2 not found`);
    assert.equal(sis(k, p, 4, 0, 0), 2, `${era}: from cpu0 the scan finds cpu2`);
  }
});

test("5.19 SIS_PROP: an rq whose wake_avg_idle is 0 is not aged (the loop also tests wake_avg_idle)", () => {
  const { k, p } = setup("5.19");
  const rq = k.rqs[0];
  const now = Math.floor(k.now / k.tickNs);
  rq.wakeAvgIdle = 0;
  rq.wakeStamp = now - 3;
  llc0BusyBut(k, 3);
  busy(k, 4);
  assert.equal(sis(k, p, 4, 0), 3);
  assert.equal(rq.wakeStamp, now - 3, "wake_stamp left behind");
  rq.wakeAvgIdle = 8;
  sis(k, p, 4, 0);
  assert.equal(rq.wakeStamp, now, "aged to now while there was idle time to halve");
});

test("5.6 select_task_rq_fair: the domain walk stops at a domain without SD_LOAD_BALANCE (no wake_affine above it)", () => {
  const { k, p } = setup("5.6");
  busy(k, 0, 4);
  const top = k.domains.domains[0].at(-1)!;
  top.flags &= ~SD_LOAD_BALANCE;
  const c = selectTaskRqFair5x({ k, p, prevCpu: 4, wakerCpu: 0, wakeFlags: WF_TTWU | WF_SYNC });
  assert.equal(k.domains.sdLlcId[c], 4, `no affine pull into the waker's LLC: cpu${c}`);
  top.flags |= SD_LOAD_BALANCE;
  const d = selectTaskRqFair5x({ k, p, prevCpu: 4, wakerCpu: 0, wakeFlags: WF_TTWU | WF_SYNC });
  assert.equal(k.domains.sdLlcId[d], 0, `affine: cpu${d}`);
});
