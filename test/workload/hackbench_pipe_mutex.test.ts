import { test } from "node:test";
import assert from "node:assert/strict";
import type { Kernel } from "../../src/kernel/core/core";
import { OP_RUN, OP_WAIT, OP_WAKE, type Op } from "../../src/kernel/ops";
import type { TaskApi } from "../../src/kernel/sched";
import {
  Messaging,
  newFd,
  PIPE_DEF_BUFFERS,
  ReceiverProgram,
  SenderProgram,
} from "../../src/workload/hackbench_programs";

// A machine with flat costs (a syscall 100 ns, a cache line 5 ns, a copy 10 ns on the writer's
// CPU and 300 ns from another CPU, so readers are slow and pipes fill) where task `pid` runs on
// CPU `pid` whenever it is not asleep, unless the test marks it preempted.
interface T {
  pid: number;
  prog: Iterator<Op, void>;
  asleep: boolean;
  pending: boolean;
  readyAt: number;
  done: boolean;
}
function machine(opts: { fds: number; loops: number; perPage: number; mutexSpin?: boolean }) {
  let now = 0;
  const tasks: T[] = [];
  const offCpu = new Set<number>();
  const kernel = {
    machine: { costs: { syscallNs: 100 } },
    cache: {
      copyNs: (_: number, w: number, r: number) => (w === r ? 10 : 300),
      cacheLineNs: () => 5,
    },
    taskByPid: (pid: number) => {
      const t = tasks[pid - 1];
      return t && { onCpu: !t.asleep && !t.done && !offCpu.has(pid), cpu: pid };
    },
  } as unknown as Kernel;
  const sh = new Messaging(kernel, {
    loops: opts.loops,
    fds: opts.fds,
    bytes: 4096 / opts.perPage,
    pipe: true,
    thread: false,
    sndbuf: 0,
    truesize: 0,
    perPage: opts.perPage,
    pipeWake: "released",
    mutexSpin: opts.mutexSpin,
    total: 2 * opts.fds,
  });
  sh.started = true;
  const api = (pid: number) => ({ pid, cpu: () => pid, now: () => now }) as unknown as TaskApi;
  const add = (make: (a: TaskApi) => Iterator<Op, void>) => {
    const pid = tasks.length + 1;
    const t = { pid, prog: make(api(pid)), asleep: false, pending: false, readyAt: 0, done: false };
    tasks.push(t);
    return t;
  };
  /** One op of task `t` at its ready time; returns the op (or null when the program ended). */
  const step = (t: T): Op | null => {
    now = Math.max(now, t.readyAt);
    const r = t.prog.next();
    if (r.done) {
      t.done = true;
      return null;
    }
    const op = r.value;
    if (op.kind === OP_RUN) t.readyAt = now + op.ns;
    else if (op.kind === OP_WAIT) {
      if (t.pending) t.pending = false;
      else t.asleep = true;
    } else if (op.kind === OP_WAKE) {
      const w = tasks[op.pid - 1];
      if (w.asleep) {
        w.asleep = false;
        w.readyAt = now;
      } else w.pending = true;
    }
    return op;
  };
  return { sh, tasks, add, step, offCpu, now: () => now };
}

test("hackbench -p: writers of one pipe take pipe->mutex in turn, so a pipe never holds more than 16 pages", () => {
  // 8 senders and 8 receivers; each pipe has 8 writers and 1 reader, 2 messages per page
  const fds = 8;
  const m = machine({ fds, loops: 60, perPage: 2 });
  for (let j = 0; j < fds; j++) m.sh.fdTab.push(newFd());
  for (let j = 0; j < fds; j++)
    m.sh.fdTab[j].reader = m.add((a) => new ReceiverProgram(a, m.sh, m.sh.fdTab[j], j)).pid;
  for (let j = 0; j < fds; j++) m.add((a) => new SenderProgram(a, m.sh, 0, fds + j));
  // ready(): each child writes its byte; the wake socket is already written
  let peak = 0;
  const held: { pid: number; from: number; to: number }[][] = m.sh.fdTab.map(() => []);
  for (let n = 0; n < 1_000_000; n++) {
    const live = m.tasks.filter((t) => !t.done && !t.asleep);
    if (live.length === 0) break;
    const t = live.reduce((a, b) => (b.readyAt < a.readyAt ? b : a));
    const op = m.step(t);
    if (op?.kind === OP_RUN) {
      const pipe = m.sh.fdTab.findIndex((f) => f.owner === t.pid);
      if (pipe >= 0) held[pipe].push({ pid: t.pid, from: m.now(), to: m.now() + op.ns });
    }
    for (const f of m.sh.fdTab) peak = Math.max(peak, f.pages.length);
  }
  assert.equal(m.sh.received, fds * fds * 60, "every message read: no lost wakeup");
  assert.ok(peak <= PIPE_DEF_BUFFERS, `a pipe held ${peak} pages`);
  assert.equal(peak, PIPE_DEF_BUFFERS, "the pipes did fill");
  assert.equal(m.sh.maxPages, peak);
  assert.ok(m.sh.lockSpins > 0, "writers met a held mutex");
  for (const h of held) {
    assert.ok(h.length > 0);
    h.sort((a, b) => a.from - b.from);
    for (let i = 1; i < h.length; i++)
      assert.ok(h[i].from >= h[i - 1].to, `pid ${h[i].pid} copied while ${h[i - 1].pid} held it`);
  }
});

test("pipe->mutex: a writer spins while the owner runs, sleeps while it is off CPU (or always before 2.6.30), and the unlock wakes it", () => {
  for (const mutexSpin of [true, false]) {
    const m = machine({ fds: 1, loops: 1, perPage: 40, mutexSpin });
    const f = newFd();
    m.sh.fdTab.push(f);
    f.reader = 99;
    const a = m.add((x) => new SenderProgram(x, m.sh, 0, 0));
    const b = m.add((x) => new SenderProgram(x, m.sh, 0, 1));
    for (const t of [a, b]) t.prog.next(); // write(ready_out); the wake socket is written
    assert.equal(m.step(a)?.ns, 100, "A: the system call's entry");
    assert.equal(m.step(b)?.ns, 100);
    const copyA = m.step(a);
    assert.equal(f.owner, a.pid, "A holds pipe->mutex for its copy");
    assert.equal(copyA?.ns, 10);
    const bLock = m.step(b);
    if (mutexSpin) {
      // A runs: B spins until A's copy ends (10 ns from now) plus one line transfer
      assert.equal(bLock?.kind, OP_RUN);
      assert.equal(bLock?.ns, 10 + 5);
      assert.equal(m.sh.lockSpins, 1);
      m.offCpu.add(a.pid); // A is preempted mid-copy: B's next try sleeps
      assert.equal(m.step(b)?.kind, OP_WAIT);
    } else assert.equal(bLock?.kind, OP_WAIT, "2.6.29: no optimistic spinning");
    assert.deepEqual(f.lockWaiters, [b.pid]);
    assert.equal(m.sh.lockSleeps, 1);
    m.offCpu.delete(a.pid);
    // A's copy done: the page is accounted under the mutex, mutex_unlock wakes B (not sync)
    const unlockWake = m.step(a);
    assert.equal(unlockWake?.kind, OP_WAKE);
    assert.equal(unlockWake?.pid, b.pid);
    assert.equal(unlockWake?.sync, false);
    assert.equal(f.owner, 0);
    assert.equal(f.queue.length, 1);
    assert.equal(b.asleep, false);
    const copyB = m.step(b);
    assert.equal(copyB?.kind, OP_RUN);
    assert.equal(f.owner, b.pid, "the woken waiter takes the free mutex");
    assert.deepEqual(f.lockWaiters, []);
  }
});
