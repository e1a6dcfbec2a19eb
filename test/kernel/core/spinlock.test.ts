// Contended rq-lock handoffs on hand-built herds (src/kernel/core/spinlock.ts, rq_lock.ts): the
// lock word comes from the CPU that held the lock last; a queued spinlock (qspinlock) hands it on
// in one cache-line transfer however many CPUs wait, a ticket lock in (waiting + 1) / 2 transfers,
// since every waiter re-reads the line at each release. The kind is the architecture's in the era.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../../src/machine/builder";
import { preset } from "../../../src/machine/presets";
import type { Arch } from "../../../src/machine/types";
import { type Era, spinlockKind } from "../../../src/kernel/features";
import { lockRq, unlockRq } from "../../../src/kernel/core/rq_lock";
import { handoffNs } from "../../../src/kernel/core/spinlock";
import { rqLockStat } from "../../../src/kernel/counters";
import type { Kernel } from "../../../src/kernel/core/core";
import { boot } from "../boot";

const LINE = 40; // cacheLineNs.shared_llc
const FAR = 140; // cacheLineNs.other_node
const LOCAL = 20;
const REMOTE = 120; // rqLockRemoteNs.shared_llc
const HOLD = 1000; // the first holder's work under the lock
const WORK = 100; // each waiter's work under the lock

/** 17 cores in one LLC (cpu0-16), and one more core on a second node (cpu17). */
function kernel(era: Era, arch: Arch = "x86_64"): Kernel {
  const m = machineBuilder()
    .arch(arch)
    .sockets(2)
    .cores(17)
    .nodes(2)
    .costs({
      rqLockLocalNs: LOCAL,
      rqLockRemoteNs: { shared_llc: REMOTE, other_node: 3 * FAR },
      cacheLineNs: { shared_llc: LINE, other_node: FAR },
    })
    .build();
  const k = boot(m, era);
  k.runUntil(1_000_000);
  return k;
}

/** `holder` takes cpu0's lock and works HOLD ns under it; then `waiters` CPUs arrive at once,
 *  each taking it in turn and working WORK ns. Returns each waiter's charge and the drain time. */
function herd(k: Kernel, waiters: number, holder = 0): { charges: number[]; drained: number } {
  const rq = k.rqs[0];
  k.thisCpu = holder;
  k.chargeNs = 0;
  lockRq(k, rq, holder, "schedule");
  k.chargeNs += HOLD;
  unlockRq(k, rq);
  const charges: number[] = [];
  for (let i = 1; i <= waiters; i++) {
    k.thisCpu = i;
    k.chargeNs = 0;
    lockRq(k, rq, i, "ttwu_remote");
    charges.push(k.chargeNs);
    k.chargeNs += WORK;
    unlockRq(k, rq);
  }
  k.chargeNs = 0;
  k.thisCpu = -1;
  return { charges, drained: rq.lockFreeAt - k.now };
}

test("spinlock kind per architecture and era: x86 ticket until v4.2, arm64 until v4.19, queued after", () => {
  const x86: Record<Era, string> = {
    "2.6.29": "ticket",
    "3.19": "ticket",
    "4.8": "queued",
    "5.6": "queued",
    "5.10": "queued",
    "5.19": "queued",
    "6.6": "queued",
    "6.19": "queued",
  };
  for (const [era, kind] of Object.entries(x86))
    assert.equal(spinlockKind("x86_64", era as Era), kind, era);
  assert.equal(spinlockKind("arm64", "4.8"), "ticket");
  assert.equal(spinlockKind("arm64", "5.6"), "queued");
  assert.equal(kernel("3.19").rqLocks.kind, "ticket");
  assert.equal(kernel("4.8").rqLocks.kind, "queued");
  assert.equal(
    kernel("4.8", "arm64").rqLocks.kind,
    "ticket",
    "arm64 kept its ticket lock until v4.19",
  );
  assert.equal(preset("hikey-a53-2x4").arch, "arm64");
  assert.equal(preset("x86-104t").arch, "x86_64");
  assert.throws(
    () =>
      machineBuilder()
        .cores(2)
        .arch("sparc" as Arch)
        .build(),
    /arch must be one of "x86_64", "arm64"/,
  );
});

test("a herd of 1, 4 and 16 waiters: a queued lock hands off in one line transfer each, a ticket lock in (waiting + 1) / 2", () => {
  for (const n of [1, 4, 16]) {
    for (const [era, arch, kind] of [
      ["3.19", "x86_64", "ticket"],
      ["4.8", "x86_64", "queued"],
      ["4.8", "arm64", "ticket"],
      ["5.19", "arm64", "queued"],
    ] as const) {
      const k = kernel(era, arch);
      const { charges, drained } = herd(k, n);
      const what = `${n} waiters, ${era} ${arch} (${kind})`;
      // waiter i finds i - 1 CPUs queued ahead: i waiting at its handoff, itself included
      let free = LOCAL + HOLD;
      for (let i = 1; i <= n; i++) {
        const handoff = kind === "queued" ? LINE : (LINE * (i + 1)) / 2;
        assert.equal(charges[i - 1], free + handoff + LOCAL + REMOTE, `${what}: waiter ${i}`);
        free += handoff + LOCAL + REMOTE + WORK;
      }
      assert.equal(drained, free, `${what}: the herd drains at ${free} ns`);
      const handoffs = kind === "queued" ? n * LINE : (LINE * ((n * (n + 1)) / 2 + n)) / 2;
      const spin = charges.reduce((a, c) => a + c - LOCAL - REMOTE, 0);
      assert.equal(rqLockStat(k.counters, "ttwu_remote").waitNs, spin, `${what}: spin counted`);
      assert.equal(
        drained,
        LOCAL + HOLD + n * (LOCAL + REMOTE + WORK) + handoffs,
        `${what}: handoffs ${handoffs} ns`,
      );
    }
  }
  // the last of 16 ticket waiters pays 8.5 transfers for its handoff, a queued one 1
  assert.equal(handoffNs("ticket", LINE, 16), 8.5 * LINE);
  assert.equal(handoffNs("queued", LINE, 16), LINE);
  assert.equal(handoffNs("ticket", LINE, 1), handoffNs("queued", LINE, 1), "one waiter: the same");
});

test("the handoff's line comes from the CPU that held the lock last", () => {
  for (const era of ["3.19", "5.19"] as const) {
    const near = herd(kernel(era), 1, 0).charges[0];
    const far = herd(kernel(era), 1, 17).charges[0]; // the last holder ran on the other node
    const remoteHold = 3 * FAR; // cpu17 took cpu0's lock from afar; cpu0 its own
    assert.equal(far - near, remoteHold + (FAR - LINE), `${era}: the lock word crosses the nodes`);
  }
});

test("an uncontended acquisition pays no handoff; a CPU never waits for its own hold", () => {
  const k = kernel("3.19");
  const rq = k.rqs[0];
  k.chargeNs = 0;
  lockRq(k, rq, 1, "ttwu_remote");
  assert.equal(k.chargeNs, LOCAL + REMOTE);
  k.chargeNs += WORK;
  unlockRq(k, rq);
  const before = k.chargeNs;
  lockRq(k, rq, 1, "ttwu_remote"); // its own hold just ended: no wait
  assert.equal(k.chargeNs - before, LOCAL + REMOTE);
  k.chargeNs = 0;
});
