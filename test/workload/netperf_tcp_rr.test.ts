import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder, preset, topology, workload } from "../../src/index";
import { TCP_RR_RX_NS, TCP_RR_TX_NS, tcpRmemDefault } from "../../src/workload/netperf_tcp_rr";
import type { Machine } from "../../src/machine/types";

test("netperfTcpRr: bad options are refused with the field and accepted values named", () => {
  assert.throws(
    () => workload.netperfTcpRr({ requestBytes: 0 }),
    /requestBytes must be an integer from 1/,
  );
  assert.throws(() => workload.netperfTcpRr({ seconds: 0 }), /seconds must be a finite number > 0/);
  assert.throws(
    // @ts-expect-error: a one-CPU binding
    () => workload.netperfTcpRr({ bind: [1] }),
    /bind must be \[netperf CPU, netserver CPU\]/,
  );
  assert.throws(
    // @ts-expect-error: netperf's -r is two fields
    () => workload.netperfTcpRr({ r: "1,1" }),
    /unknown option "r" \(accepted: requestBytes, responseBytes, seconds, warmupSeconds, bind, pairs, cpus\)/,
  );
  // netperf's defaults: -r 1,1 and -l 10
  const p = workload.netperfTcpRr().params;
  assert.equal(p.requestBytes, 1);
  assert.equal(p.responseBytes, 1);
  assert.equal(p.seconds, 10);
});

const rr = (m: Machine | string, era: "4.8" | "6.19", bind?: [number, number]) => {
  const w = workload.netperfTcpRr({ seconds: 0.1, bind });
  const metrics = topology(m).era(era).workload(w).runSync().iteration("baseline", 0).metrics;
  return { w, m: metrics };
};

test("netperfTcpRr: prints netperf's TCP_RR table; the rate is transactions over the elapsed time", () => {
  for (const era of ["4.8", "6.19"] as const) {
    const { w, m } = rr("core2-2x2", era);
    assert.ok(m.transactions > 1000, `${m.transactions}`);
    assert.ok(Math.abs(m.trans_per_s * m.elapsed_s - m.transactions) < 1e-6);
    const lines = w.format(m).split("\n");
    assert.equal(
      lines[0],
      "MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to localhost () port 0 AF_INET : first burst 0",
    );
    assert.deepEqual(lines.slice(1, 6), [
      "Local /Remote",
      "Socket Size   Request  Resp.   Elapsed  Trans.",
      "Send   Recv   Size     Size    Time     Rate         ",
      "bytes  Bytes  bytes    bytes   secs.    per sec   ",
      "",
    ]);
    // "%-6d %-6d %-6d   %-6d  %-6.2f   %7.2f   \n" then "%-6d %-6d\n"
    const rcv = tcpRmemDefault(era);
    assert.equal(rcv, era === "4.8" ? 87380 : 131072);
    const rate = m.trans_per_s.toFixed(2).padStart(7);
    assert.equal(lines[6], `16384  ${String(rcv).padEnd(6)} 1        1       0.10     ${rate}   `);
    assert.equal(lines[7], `16384  ${String(rcv).padEnd(6)}`);
    assert.equal(lines.length, 8);
  }
});

test("netperfTcpRr: a slower machine gives fewer transactions per second", () => {
  const mk = (capacity: number) => machineBuilder().cores(2).capacity(capacity).build();
  const fast = rr(mk(1024), "6.19", [0, 1]).m;
  const slow = rr(mk(512), "6.19", [0, 1]).m;
  assert.ok(
    slow.trans_per_s < 0.8 * fast.trans_per_s,
    `${slow.trans_per_s} vs ${fast.trans_per_s}`,
  );
});

test("netperfTcpRr: one CPU pays no wakeup IPI or line transfers; farther CPUs pay more (-T binding on the X5472)", () => {
  const same = rr("xeon-x5472", "4.8", [0, 0]).m;
  const l2 = rr("xeon-x5472", "4.8", [0, 1]).m;
  const socket = rr("xeon-x5472", "4.8", [0, 4]).m;
  assert.equal(same.same_cpu_fraction, 1);
  assert.equal(l2.same_cpu_fraction, 0);
  assert.ok(same.trans_per_s > l2.trans_per_s, `${same.trans_per_s} vs ${l2.trans_per_s}`);
  assert.ok(l2.trans_per_s > socket.trans_per_s, `${l2.trans_per_s} vs ${socket.trans_per_s}`);
  // On one CPU a transaction is two sends, two receives and two switches, nothing else.
  const c = preset("xeon-x5472").costs;
  const floorUs = (2 * (2 * c.syscallNs + TCP_RR_TX_NS + TCP_RR_RX_NS)) / 1000;
  assert.ok(same.round_trip_us > floorUs, `${same.round_trip_us} vs ${floorUs}`);
  assert.ok(
    same.round_trip_us < floorUs + (4 * c.contextSwitchNs + 4 * c.wakeupNs) / 1000 + 2,
    `${same.round_trip_us} vs ${floorUs}`,
  );
});

test("netperfTcpRr: pairs runs N concurrent netperf/netserver pairs and sums their rates as a harness does", () => {
  const run = (pairs: number) =>
    topology("x86-104t")
      .era("6.19")
      .workload(workload.netperfTcpRr({ seconds: 0.05, pairs }))
      .runSync()
      .iteration("baseline", 0);
  const one = run(1);
  const four = run(4);
  assert.equal(one.metrics.pairs, undefined, "one pair reports what netperf alone reports");
  assert.equal(four.metrics.pairs, 4);
  assert.equal(four.tasks.filter((t) => t.comm === "netperf").length, 4);
  const perPair = four.series.pair_trans_per_s;
  assert.equal(perPair.length, 4);
  assert.ok(Math.abs(perPair.reduce((a, b) => a + b, 0) - four.metrics.trans_per_s) < 1e-6);
  // 104 CPUs: four pairs run side by side, each near one pair's rate
  assert.ok(
    four.metrics.trans_per_s > 3 * one.metrics.trans_per_s,
    `${four.metrics.trans_per_s} vs ${one.metrics.trans_per_s}`,
  );
  assert.throws(
    () => workload.netperfTcpRr({ pairs: 0 }),
    /pairs must be an integer from 1 to 10000/,
  );
});
