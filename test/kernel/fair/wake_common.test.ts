// The shared pieces of select_task_rq_fair (src/kernel/fair/wake/common.ts) on hand-set state:
// sched_idle_cpu (5.4+ fair.c: nr_running == cfs.idle_h_nr_running and nr_running != 0),
// select_idle_core's *idle_cpu (5.12+), __update_idle_core (a CPU going idle with every SMT
// sibling idle sets sd_llc_shared->has_idle_cores), update_avg (avg += (sample - avg) / 8 on s64),
// for_each_cpu_wrap's start, the SD_BALANCE_* flag of each wakeup kind and the placement counters.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { wait } from "../../../src/kernel/ops";
import { Rq, Task, WF_EXEC, WF_FORK, WF_SYNC, WF_TTWU } from "../../../src/kernel/sched";
import {
  SD_BALANCE_EXEC,
  SD_BALANCE_FORK,
  SD_BALANCE_WAKE,
} from "../../../src/kernel/topology/sched_domain";
import {
  countIdlestPlacement,
  countWakePlacement,
  cpusShareCache,
  currentOn,
  idleOrSchedIdle,
  intersectsAllowed,
  schedIdleCpu,
  sdFlagOf,
  selectIdleCore,
  spanHas,
  updateAvg,
  wakeState,
  wrapStart,
} from "../../../src/kernel/fair/wake/common";
import { boot } from "../boot";

// 2 packages x 4 cores x 2 threads, thread-major: cpu c and c + 8 are SMT siblings.
const box = () => machineBuilder().sockets(2).cores(4).threads(2).llc("package").build();

const program = function* () {
  for (;;) yield wait();
};

function task(pid: number, policy: "normal" | "idle", n = 16): Task {
  const t = new Task(pid, `t${pid}`, "test", program, n);
  t.policy = policy;
  return t;
}

/** An rq with the given fair tasks queued (nr_running = h_nr_running = their count) and curr. */
function rqWith(queued: Task[], curr: Task | null, extra = 0): Rq {
  const rq = new Rq(0);
  for (const t of queued) rq.cfs.tasks.push(t);
  rq.cfs.hNrRunning = queued.length + (curr ? 1 : 0);
  rq.nrRunning = rq.cfs.hNrRunning + extra;
  rq.curr = curr;
  return rq;
}

test("sched_idle_cpu: only SCHED_IDLE fair tasks on the rq, at least one", () => {
  assert.equal(schedIdleCpu(rqWith([], null)), false, "an idle rq is not sched_idle_cpu");
  assert.equal(schedIdleCpu(rqWith([task(1, "idle")], null)), true);
  assert.equal(schedIdleCpu(rqWith([], task(1, "idle"))), true, "SCHED_IDLE curr only");
  assert.equal(schedIdleCpu(rqWith([task(1, "idle"), task(2, "idle")], task(3, "idle"))), true);
  assert.equal(schedIdleCpu(rqWith([task(1, "idle")], task(2, "normal"))), false, "normal curr");
  assert.equal(schedIdleCpu(rqWith([task(1, "idle"), task(2, "normal")], null)), false);
  assert.equal(schedIdleCpu(rqWith([task(1, "normal"), task(2, "idle")], null)), false);
  assert.equal(schedIdleCpu(rqWith([task(1, "idle")], null, 1)), false, "an RT task queued too");
});

test("idle_cpu / available_idle_cpu || sched_idle_cpu, cpus_share_cache, current", () => {
  const k = boot(box(), "5.19");
  assert.equal(idleOrSchedIdle(k, 3), true);
  k.rqs[3].nrRunning = 1;
  assert.equal(idleOrSchedIdle(k, 3), false, "a normal task queued");
  k.rqs[3].cfs.hNrRunning = 1;
  k.rqs[3].cfs.tasks.push(task(90, "idle"));
  assert.equal(idleOrSchedIdle(k, 3), true, "only a SCHED_IDLE task queued");
  assert.equal(cpusShareCache(k, 0, 11), true);
  assert.equal(cpusShareCache(k, 0, 4), false);
  assert.equal(cpusShareCache(k, 12, 5), true);
  assert.equal(currentOn(k, -1), null, "no CPU context");
  assert.equal(currentOn(k, 2), null, "the idle task");
  const t = task(91, "normal");
  k.rqs[2].curr = t;
  assert.equal(currentOn(k, 2), t);
});

test("sdFlagOf: fork, then exec, else wakeup", () => {
  assert.equal(sdFlagOf(WF_FORK), SD_BALANCE_FORK);
  assert.equal(sdFlagOf(WF_EXEC), SD_BALANCE_EXEC);
  assert.equal(sdFlagOf(WF_TTWU), SD_BALANCE_WAKE);
  assert.equal(sdFlagOf(WF_TTWU | WF_SYNC), SD_BALANCE_WAKE);
  assert.equal(sdFlagOf(WF_FORK | WF_EXEC), SD_BALANCE_FORK);
});

test("spanHas (binary search), wrapStart (for_each_cpu_wrap's first index), intersectsAllowed", () => {
  const span = [0, 1, 2, 3, 8, 9, 10, 11];
  for (const c of span) assert.equal(spanHas(span, c), true, `cpu${c}`);
  for (const c of [4, 5, 7, 12, 15]) assert.equal(spanHas(span, c), false, `cpu${c}`);
  assert.equal(spanHas([], 0), false);
  assert.equal(wrapStart(span, 0), 0);
  assert.equal(wrapStart(span, 3), 3);
  assert.equal(wrapStart(span, 4), 4, "the next CPU of the span: 8");
  assert.equal(wrapStart(span, 9), 5);
  assert.equal(wrapStart(span, 11), 7);
  assert.equal(wrapStart(span, 12), 0, "past the last CPU: wraps to the first");
  const all = task(1, "normal", 8);
  assert.equal(intersectsAllowed([4, 5], all), true);
  const pinned = task(2, "normal", 8);
  pinned.cpusAllowed = new Uint8Array(8); // a mask of its own (the all-CPUs mask is shared)
  pinned.cpusAllowed[6] = 1;
  pinned.nrCpusAllowed = 1;
  assert.equal(intersectsAllowed([4, 5], pinned), false);
  assert.equal(intersectsAllowed([4, 6], pinned), true);
  assert.equal(intersectsAllowed([6], pinned), true);
});

test("update_avg: avg + (sample - avg) / 8 with C's division (truncated toward zero)", () => {
  assert.equal(updateAvg(0, 80), 10);
  assert.equal(updateAvg(0, 7), 0);
  assert.equal(updateAvg(100, 0), 88, "-12.5 truncates to -12, not -13");
  assert.equal(updateAvg(100, 100), 100);
  assert.equal(updateAvg(8, 24), 10);
});

test("select_idle_core (5.12+): the core when every sibling is idle; else the first idle allowed sibling is remembered and the core leaves the scan", () => {
  const k = boot(box(), "5.19");
  const st = wakeState(k);
  const all = new Uint8Array(16).fill(1);
  const gen = st.nextGen();
  st.idleCpuSeen = -1;
  assert.equal(selectIdleCore(k, st, all, 1, gen, false), 1, "core 1 (1, 9) idle");
  assert.equal(st.idleCpuSeen, 1, "its first CPU is also remembered");
  assert.notEqual(st.seen[9], gen, "a core returned is not marked");
  k.rqs[1].nrRunning = 1;
  st.idleCpuSeen = -1;
  assert.equal(selectIdleCore(k, st, all, 1, gen, false), -1);
  assert.equal(st.idleCpuSeen, 9, "the idle sibling");
  assert.equal(st.seen[1], gen);
  assert.equal(st.seen[9], gen, "both threads leave the scan");
  st.idleCpuSeen = 5;
  assert.equal(selectIdleCore(k, st, all, 1, gen, false), -1);
  assert.equal(st.idleCpuSeen, 5, "the first one seen is kept");
  const no9 = all.slice();
  no9[9] = 0;
  st.idleCpuSeen = -1;
  assert.equal(selectIdleCore(k, st, no9, 1, gen, false), -1);
  assert.equal(st.idleCpuSeen, -1, "an idle sibling the task may not use is not remembered");
  // a sibling running only SCHED_IDLE tasks is remembered when no idle one was seen
  k.rqs[9].nrRunning = 1;
  k.rqs[9].cfs.hNrRunning = 1;
  k.rqs[9].cfs.tasks.push(task(92, "idle"));
  st.idleCpuSeen = -1;
  assert.equal(selectIdleCore(k, st, all, 1, gen, true), -1);
  assert.equal(st.idleCpuSeen, 9, "sched_idle_cpu sibling");
  st.idleCpuSeen = -1;
  assert.equal(selectIdleCore(k, st, all, 1, gen, false), -1);
  assert.equal(st.idleCpuSeen, -1, "not while no task has SCHED_IDLE");
  // core 2: cpu2 idle, cpu10 busy: cpu2 is remembered, the core is not returned
  k.rqs[10].nrRunning = 1;
  st.idleCpuSeen = -1;
  assert.equal(selectIdleCore(k, st, all, 2, gen, false), -1);
  assert.equal(st.idleCpuSeen, 2);
});

test("has_idle_cores: set at boot for an LLC with an idle core, and by a CPU going idle whose siblings are all idle", () => {
  const k = boot(box(), "5.19");
  const st = wakeState(k);
  assert.deepEqual(
    [st.hasIdleCores[0], st.hasIdleCores[4]],
    [1, 1],
    "indexed by sd_llc_id (0 and 4)",
  );
  assert.equal(st.coreIdle(3), true);
  k.rqs[11].nrRunning = 1;
  assert.equal(st.coreIdle(3), false);
  assert.equal(st.coreIdle(11), false);
  st.hasIdleCores.fill(0);
  const hook = k.newIdleHooks.at(-1)!;
  hook(k.rqs[3]); // cpu3 goes idle, cpu11 busy
  assert.equal(st.hasIdleCores[0], 0, "a sibling busy");
  k.rqs[11].nrRunning = 0;
  k.rqs[3].nrRunning = 1;
  hook(k.rqs[3]);
  assert.equal(st.hasIdleCores[0], 0, "the CPU itself still has a task");
  k.rqs[3].nrRunning = 0;
  k.rqs[3].ttwuPending = 1;
  hook(k.rqs[3]);
  assert.equal(st.hasIdleCores[0], 0, "a wakelist entry pending");
  k.rqs[3].ttwuPending = 0;
  hook(k.rqs[3]);
  assert.equal(st.hasIdleCores[0], 1, "every sibling idle");
  assert.equal(st.hasIdleCores[4], 0, "only its own LLC");
  // rebuild() recomputes the hint from the CPUs' state
  for (const c of [4, 5, 6, 7]) k.rqs[c].nrRunning = 1;
  st.rebuild();
  assert.equal(st.hasIdleCores[4], 0, "every core of LLC 1 has a busy thread");
  assert.equal(st.hasIdleCores[0], 1);
  assert.equal(st.smtActive, true);
  assert.deepEqual(st.smtMask[10], [2, 10]);
});

test("WakeState: recent_used_cpu per pid (beyond the first table too), scan generations, probe costs", () => {
  const k = boot(box(), "5.19");
  const st = wakeState(k);
  const p = k.spawn({ comm: "p", program });
  st.setRecentUsedCpu(p, 7);
  const far = task(1000, "normal");
  assert.equal(st.recentUsedCpu(far), -1, "a pid past the table");
  st.setRecentUsedCpu(far, 3);
  assert.equal(st.recentUsedCpu(far), 3);
  assert.equal(st.recentUsedCpu(p), 7, "kept when the table grows");
  assert.equal(st.recentUsedCpu(task(999, "normal")), -1, "new entries are -1");
  const g = st.nextGen();
  assert.equal(st.nextGen(), g + 1);
  st.seen[5] = 7;
  st.gen = 0xfffffffe;
  assert.equal(st.nextGen(), 1, "wraps before 0xffffffff");
  assert.equal(st.seen[5], 0, "and clears the marks");
  assert.equal(st.probeNs(0, 0), k.machine.costs.cacheLineNs.same_cpu);
  assert.equal(st.probeNs(0, 8), k.machine.costs.cacheLineNs.same_core);
  assert.equal(st.probeNs(0, 1), k.machine.costs.cacheLineNs.shared_llc);
  const row = st.levelRow(0);
  assert.equal(st.lineNs[row[4]], st.probeNs(0, 4));
  assert.equal(st.levelRow(0), row, "built once");
  assert.equal(st.spanHas(0, 1, 11), true, "cpu0's MC domain spans cpu11");
  assert.equal(st.spanHas(0, 1, 4), false);
  assert.equal(st.spanHas(0, 0, 8), true, "the SMT domain");
  assert.equal(st.spanHas(0, 0, 1), false);
  assert.equal(wakeState(k), st, "one state per kernel");
});

/** The one counter key `f` adds to. */
function keyAdded(counters: Record<string, number>, f: () => void): string {
  const before = { ...counters };
  f();
  const keys = Object.keys(counters).filter((key) => counters[key] !== (before[key] ?? 0));
  assert.equal(keys.length, 1);
  return keys[0];
}

test("placement counters: select_idle_sibling's reason when its answer was taken, else prev / affine / other, _busy when not idle", () => {
  const k = boot(box(), "5.19");
  const st = wakeState(k);
  const c = k.counters.wakePlacement;
  const count = (cpu: number, prev: number, thisCpu: number) =>
    keyAdded(c, () => {
      countWakePlacement(k, st, cpu, prev, thisCpu);
      assert.equal(st.sisReason, null, "the reason is consumed");
    });
  st.noteSis("idle_core", 5);
  assert.equal(count(5, 1, 2), "idle_core");
  st.noteSis("idle_core", 5);
  assert.equal(count(6, 1, 2), "other_idle", "another CPU was chosen: not the reason");
  assert.equal(count(1, 1, 2), "prev");
  k.rqs[1].nrRunning = 1;
  assert.equal(count(1, 1, 2), "prev_busy");
  assert.equal(count(2, 1, 2), "affine");
  k.rqs[2].nrRunning = 1;
  assert.equal(count(2, 1, 2), "affine_busy");
  k.rqs[7].nrRunning = 1;
  assert.equal(count(7, 1, 2), "other");
  const k2 = boot(box(), "5.19");
  const idlest = (flag: number, cpu: number) =>
    keyAdded(k2.counters.wakePlacement, () => countIdlestPlacement(k2, flag, cpu, 0));
  assert.equal(idlest(SD_BALANCE_WAKE, 1), "idlest_group");
  assert.equal(idlest(SD_BALANCE_WAKE, 0), "idlest_local");
  assert.equal(idlest(SD_BALANCE_FORK, 1), "fork_idlest_group");
  assert.equal(idlest(SD_BALANCE_FORK, 0), "fork_local");
  assert.equal(idlest(SD_BALANCE_EXEC, 1), "exec_idlest_group");
  assert.equal(idlest(SD_BALANCE_EXEC, 0), "exec_local");
});
