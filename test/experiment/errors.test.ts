import { test } from "node:test";
import assert from "node:assert/strict";
import { topology, workload, patch } from "../../src/index";

test("bad input fails with a message naming the field and the accepted values", () => {
  assert.throws(
    () => topology("no-such-box"),
    /unknown machine "no-such-box".*accepted: .*xeon-x5472/,
  );
  assert.throws(
    () =>
      topology()
        .sockets(2)
        .cores(0)
        .threads(1)
        .workload(workload.hogs({ n: 1 }))
        .runSync(),
    /cores/,
  );
  assert.throws(
    () =>
      topology("core2-2x2")
        .workload(workload.hogs({ n: 1 }))
        .runSync({ duration: -1 }),
    /duration must be a positive number/,
  );
  assert.throws(
    () => workload.hogs({ n: 0 }),
    /workload.hogs: n must be an integer from 1 to 100000 \(got 0\)/,
  );
  assert.throws(
    () => workload.hogs({ n: 2, nice: [0, 40] }),
    /nice\[1\] must be an integer from -20 to 19/,
  );
  assert.throws(
    () => patch("x").replace("fair.no_such_hook" as never, (() => 0) as never),
    /unknown hook "fair.no_such_hook" \(accepted: .*fair.select_task_rq/,
  );
  assert.throws(
    () => topology("core2-2x2").era("9.9" as never),
    /era must be one of 2.6.29, .*6.19/,
  );
  assert.throws(() => topology("core2-2x2").offline(7), /cpu must be an integer from 0 to 3/);
  assert.throws(() => topology("core2-2x2").runSync(), /no workload/);
  assert.throws(
    () => patch("t").tunable("sched_latency_nsx" as never, 1),
    /unknown tunable .*sched_latency_ns/,
  );
});
