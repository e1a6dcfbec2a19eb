import { test } from "node:test";
import assert from "node:assert/strict";
import { preset, topology, workload } from "../../src/index";
import {
  NETPERF_TX_STACK_NS,
  UDP_LENGTH_MAX,
  netperfConfidence,
  skbTruesize,
} from "../../src/workload/netperf";

test("netperfUdpStream: bad options are refused with the field and accepted values named", () => {
  assert.throws(
    () => workload.netperfUdpStream({ messageBytes: 70000 }),
    /messageBytes must be an integer from 1 to 65507/,
  );
  assert.throws(
    () => workload.netperfUdpStream({ socketBufferBytes: 0 }),
    /socketBufferBytes must be an integer >= 1/,
  );
  assert.throws(
    () => workload.netperfUdpStream({ seconds: 0 }),
    /seconds must be a finite number > 0/,
  );
  assert.throws(
    // @ts-expect-error: a one-CPU binding
    () => workload.netperfUdpStream({ bind: [1] }),
    /bind must be \[netperf CPU, netserver CPU\]/,
  );
  assert.throws(
    // @ts-expect-error: an unknown option
    () => workload.netperfUdpStream({ length: 60 }),
    /unknown option "length" \(accepted: messageBytes, socketBufferBytes, seconds, warmupSeconds, bind, cpus\)/,
  );
  assert.throws(
    () =>
      topology("xeon-x5472")
        .era("4.8")
        .workload(workload.netperfUdpStream({ seconds: 0.01, bind: [0, 8] }))
        .runSync({ iterations: 1 }),
    /bind CPUs must be below 8/,
  );
});

/** One bound run on the X5472: netperf on cpu 0, netserver on `rcpu`. */
const bound = (rcpu: number) =>
  topology("xeon-x5472")
    .era("4.8")
    .workload(workload.netperfUdpStream({ seconds: 0.2, bind: [0, rcpu] }))
    .runSync({ iterations: 1, seed: 1 })
    .iteration("baseline", 0).metrics;

test("netperfUdpStream: the payload copies cost more the farther apart the pair runs (-T binding)", () => {
  const same = bound(0); // one CPU: the two take turns
  const l2 = bound(1); // the other core of the die: shared 6 MB L2
  const die = bound(2); // the other die of the package: FSB snoops
  const socket = bound(4); // the other package
  assert.ok(
    l2.throughput_mbps > 1.5 * die.throughput_mbps,
    `${l2.throughput_mbps} vs ${die.throughput_mbps}`,
  );
  assert.ok(
    die.throughput_mbps > socket.throughput_mbps,
    `${die.throughput_mbps} vs ${socket.throughput_mbps}`,
  );
  assert.ok(l2.throughput_mbps > 1.5 * same.throughput_mbps);
  assert.equal(l2.pair_shares_l2_fraction, 1);
  assert.equal(die.pair_shares_l2_fraction, 0);
  // bound tasks never migrate
  assert.equal(l2.migrations_per_s, 0);
  // sharing an L2, one message costs the sender about its stack work plus an L2-speed copy:
  // the send line is within 20% of what those figures give
  const c = preset("xeon-x5472").costs;
  const perMsg =
    c.syscallNs +
    NETPERF_TX_STACK_NS +
    c.cacheLineNs.shared_l2 +
    UDP_LENGTH_MAX / c.copyBytesPerNs.shared_l2;
  const expect = (UDP_LENGTH_MAX * 8) / perMsg / 1e-3; // 10^6 bit/s
  assert.ok(Math.abs(l2.throughput_mbps / expect - 1) < 0.2, `${l2.throughput_mbps} vs ${expect}`);
});

test("netperfUdpStream: a receive buffer of one datagram drops what arrives during a copy; the lines split", () => {
  const it = topology("xeon-x5472")
    .era("4.8")
    .workload(
      workload.netperfUdpStream({ seconds: 0.2, bind: [0, 1], socketBufferBytes: UDP_LENGTH_MAX }),
    )
    .runSync({ iterations: 1, seed: 1 })
    .iteration("baseline", 0).metrics;
  assert.ok(
    it.messages_dropped > 0.3 * it.messages_ok,
    `dropped ${it.messages_dropped} of ${it.messages_ok}`,
  );
  // every datagram sent is received, dropped, or still queued / being copied at the end
  const left = it.messages_ok - it.messages_received - it.messages_dropped;
  assert.ok(left >= 0 && left <= 1, `left ${left}`);
  assert.ok(it.recv_throughput_mbps < 0.7 * it.throughput_mbps);
  assert.equal(it.send_errors, 0);
  // with the default 212992-byte buffer the receiver sharing the L2 keeps up: nothing dropped
  const l2 = bound(1);
  assert.equal(l2.messages_dropped, 0);
  assert.ok(l2.messages_ok - l2.messages_received <= 3);
});

test("netperfConfidence: stops at 3 when the interval is narrow, warns at 5 when it is not", () => {
  const tight = netperfConfidence([100, 101, 100.5, 99, 130]);
  assert.deepEqual([tight.iterations, tight.met, tight.warning], [3, true, null]);
  const wide = netperfConfidence([100, 130, 90, 120, 80]);
  assert.equal(wide.iterations, 5);
  assert.equal(wide.met, false);
  assert.match(wide.warning!, /Desired confidence was not achieved/);
  // -i 5,1: the minimum is raised to 3 as netperf's netsh.c does
  assert.equal(netperfConfidence([100, 100.1, 100.2, 100, 100], { min: 1 }).iterations, 3);
  // not met at 3 (width > 5%), met at 4
  assert.ok(netperfConfidence([100, 102, 99], { max: 3 }).width > 0.05);
  const four = netperfConfidence([100, 102, 99, 100.5, 50]);
  assert.deepEqual([four.iterations, four.met], [4, true]);
});

test("skbTruesize: a 64 KB datagram is one order-5 block (kmalloc_large) plus the sk_buff", () => {
  assert.equal(skbTruesize(UDP_LENGTH_MAX), 128 * 1024 + 256);
  // just under one page of data and headers: a 4 KB kmalloc cache object
  assert.equal(skbTruesize(3000), 4096 + 256);
  // the default 212992-byte receive buffer holds two such datagrams: the check is
  // sk_rmem_alloc >= sk_rcvbuf before charging (__sock_queue_rcv_skb)
  assert.ok(skbTruesize(UDP_LENGTH_MAX) < 212992 && 2 * skbTruesize(UDP_LENGTH_MAX) >= 212992);
});
