import { test } from "node:test";
import assert from "node:assert/strict";
import type { Kernel } from "../../src/kernel/core/core";
import { OP_RUN, OP_WAIT, OP_WAKE, type Op } from "../../src/kernel/ops";
import type { TaskApi } from "../../src/kernel/sched";
import {
  Messaging,
  newFd,
  ReceiverProgram,
  SenderProgram,
  UNIX_STREAM_RECV_NS,
  UNIX_STREAM_SEND_NS,
} from "../../src/workload/hackbench_programs";

// A kernel with flat costs: a syscall 100 ns, a copy 10 ns, a cache line 5 ns.
const kernel = {
  machine: { costs: { syscallNs: 100 } },
  cache: { copyNs: () => 10, cacheLineNs: () => 5 },
} as unknown as Kernel;
const api = (pid: number, cpu: number) => ({ pid, cpu: () => cpu }) as unknown as TaskApi;
const sockets = (loops: number, fds: number) =>
  new Messaging(kernel, {
    loops,
    fds,
    bytes: 100,
    pipe: false,
    thread: false,
    sndbuf: 4 * 768,
    truesize: 768,
    perPage: 40,
    pipeWake: "released",
    total: 2 * fds,
  });
const kindOf = (r: IteratorResult<Op, void>) => (r.done ? "done" : r.value.kind);

test("hackbench sender: ready write, poll until the start, then one write per fd, waking a sleeping reader; one reused result", () => {
  const sh = sockets(1, 2);
  sh.fdTab.push(newFd(), newFd());
  const s = new SenderProgram(api(7, 1), sh, 0, 2);
  const first = s.next();
  assert.equal(kindOf(first), OP_RUN);
  assert.equal((first.value as Op).ns, 100); // write(ready_out)
  assert.equal(kindOf(s.next()), OP_WAIT); // poll(wakefd)
  assert.deepEqual(sh.pollers, [7]);
  assert.equal(sh.ready, 1);
  sh.started = true;
  sh.fdTab[0].readerWaiting = true;
  sh.fdTab[0].reader = 3;
  const write = s.next();
  assert.equal(write, first, "the result object is refilled, not allocated");
  assert.equal(kindOf(write), OP_RUN);
  assert.equal((write.value as Op).ns, 100 + UNIX_STREAM_SEND_NS + 10);
  assert.equal(sh.fdTab[0].wmem, 768); // charged at the allocation
  const woken = s.next();
  assert.equal(kindOf(woken), OP_WAKE);
  assert.equal((woken.value as Op).pid, 3);
  assert.equal(sh.fdTab[0].queue.length, 1);
  assert.equal(sh.fdTab[0].queue.shift(), 1, "the message was written on the sender's CPU");
  // fd 1's send buffer is spent: the write sleeps until room is made
  sh.fdTab[1].wmem = 4 * 768;
  assert.equal(kindOf(s.next()), OP_WAIT);
  assert.deepEqual(sh.fdTab[1].writers, [7]);
  assert.equal(sh.sleeps, 1);
  sh.fdTab[1].writers.length = 0;
  sh.fdTab[1].wmem = 0;
  assert.equal(kindOf(s.next()), OP_RUN);
  // the last write done, the sender exits (nobody waits: no wakeup of the main task)
  assert.equal(kindOf(s.next()), "done");
  assert.equal(sh.exited, 1);
  assert.equal(sh.done[2], 1);
});

test("hackbench receiver: a read down to a quarter of sk_sndbuf wakes every sleeping writer, newest first; an empty socket puts it to sleep", () => {
  const sh = sockets(1, 2);
  const f = newFd();
  sh.fdTab.push(f, newFd());
  sh.mainWaiting = true;
  sh.mainPid = 1;
  sh.started = true;
  const r = new ReceiverProgram(api(3, 0), sh, f, 0);
  assert.equal(kindOf(r.next()), OP_RUN); // write(ready_out)
  const main = r.next(); // the main task sleeps in read(ready): woken
  assert.equal(kindOf(main), OP_WAKE);
  assert.equal((main.value as Op).pid, 1);
  assert.equal(kindOf(r.next()), OP_WAIT); // nothing queued yet
  assert.equal(f.readerWaiting, true);
  f.queue.push(2);
  f.queue.push(2); // two messages from CPU 2, which wrote the queue's lines last
  f.lineCpu = 2;
  f.wmem = 2 * 768;
  f.writers.push(11, 12);
  const read = r.next(); // leaves sk_wmem_alloc at 768: 4 x 768 <= sk_sndbuf
  assert.equal((read.value as Op).ns, 100 + UNIX_STREAM_RECV_NS + 10 + 2 * 5 + 4 * 5);
  // one wake op, refilled: read each pid before asking for the next op, as the executor does
  const woken = [0, 1].map(() => (r.next().value as Op).pid);
  assert.deepEqual(woken, [12, 11]);
  assert.equal(sh.wakeups, 2);
  assert.deepEqual(f.writers, []);
  // the second read: 0 bytes left, no writer to wake; then the receiver exits
  assert.equal(kindOf(r.next()), OP_RUN);
  sh.mainWaiting = true;
  const reap = r.next();
  assert.equal(kindOf(reap), OP_WAKE, "exit(0) wakes the main task in wait()");
  assert.equal((reap.value as Op).sync, true);
  assert.equal(kindOf(r.next()), "done");
  assert.equal(sh.received, 2);
});
