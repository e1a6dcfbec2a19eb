// Shared test check: every invariant of the RT class's SMP bookkeeping that push/pull relies on.
import assert from "node:assert/strict";
import type { Kernel } from "../../../src/kernel/core/core";
import { convertPrio, rqCpupriPrio } from "../../../src/kernel/rt/cpupri";
import { MAX_RT_PRIO } from "../../../src/kernel/prio";

/** Every RT invariant the push/pull code relies on. */
export function checkRt(k: Kernel): void {
  const rd = k.rt.rd;
  let rto = 0;
  for (const rq of k.rqs) {
    const rt = rq.rt;
    const queued = rt.queues.flat();
    const at = `t=${k.now} cpu${rq.cpu}`;
    assert.equal(rt.rtNrRunning, queued.length, `${at}: rt_nr_running`);
    assert.equal(
      rt.rtNrMigratory,
      queued.filter((t) => t.nrCpusAllowed > 1).length,
      `${at}: rt_nr_migratory`,
    );
    const best = queued.reduce((m, t) => Math.min(m, t.prio), MAX_RT_PRIO);
    assert.equal(rt.highestPrio, best, `${at}: highest_prio.curr`);
    if (rq.online)
      assert.equal(
        rd.cpupri.level(rq.cpu),
        convertPrio(rd.cpupri.numbering, rqCpupriPrio(rd.cpupri.numbering, best)),
        `${at}: cpupri level`,
      );
    assert.equal(rt.overloaded, rt.rtNrRunning > 1 && rt.rtNrMigratory > 0, `${at}: overloaded`);
    assert.equal(rd.rtoMask[rq.cpu], rt.overloaded ? 1 : 0, `${at}: rto_mask`);
    rto += rd.rtoMask[rq.cpu];
    const pushable = queued.filter((t) => t !== rq.curr && t.nrCpusAllowed > 1);
    assert.deepEqual(
      new Set(rt.pushable),
      new Set(pushable),
      `${at}: pushable = queued, not running, migratable`,
    );
    for (let i = 1; i < rt.pushable.length; i++)
      assert.ok(rt.pushable[i - 1].prio <= rt.pushable[i].prio, `${at}: plist order`);
    for (const t of queued) assert.equal(t.cpu, rq.cpu, `${at}: ${t.comm} queued on the wrong rq`);
  }
  assert.equal(rd.rtoCount, rto, "rto_count");
}
