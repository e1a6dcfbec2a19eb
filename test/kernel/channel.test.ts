// The channel's message ring: FIFO across wrap-around and growth, and datagram drops when the
// receive buffer is full (as UDP drops what does not fit in sk_rcvbuf).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Channel } from "../../src/kernel/channel";

function drain(ch: Channel): [number, number, number][] {
  const out: [number, number, number][] = [];
  while (ch.shift()) out.push([ch.lastBytes, ch.lastWriterCpu, ch.lastSentAt]);
  return out;
}

test("ring: messages come out in order after the head wraps, and after growing from a wrapped ring", () => {
  const ch = new Channel("p", "pipe", 1 << 30);
  let next = 1;
  const sent: [number, number, number][] = [];
  const push = (n: number) => {
    for (let i = 0; i < n; i++, next++) {
      assert.equal(ch.push(next, next % 7, next * 10), true);
      sent.push([next, next % 7, next * 10]);
    }
  };
  const take = (n: number) => {
    for (let i = 0; i < n; i++) {
      assert.equal(ch.shift(), true);
      assert.deepEqual([ch.lastBytes, ch.lastWriterCpu, ch.lastSentAt], sent.shift());
    }
  };
  push(12);
  take(10); // head at 10 of the initial 16 slots
  push(12); // wraps: 14 queued, the tail is at slot 6
  assert.equal(ch.length, 14);
  take(8); // the head passes the end of the array and wraps to slot 2
  push(12); // 18 > 16: grows while wrapped
  assert.equal(ch.length, 18);
  assert.equal(
    ch.queuedBytes,
    sent.reduce((s, m) => s + m[0], 0),
  );
  take(5);
  push(40); // grows again
  assert.deepEqual(drain(ch), sent);
  assert.equal(ch.length, 0);
  assert.equal(ch.queuedBytes, 0);
  assert.equal(ch.shift(), false, "empty");
  assert.equal(ch.sent, next - 1);
  assert.equal(ch.received, next - 1);
  assert.equal(ch.dropped, 0);
});

test("dgram: a datagram that does not fit the receive buffer is dropped; one that fits exactly is kept", () => {
  const ch = new Channel("u", "dgram", 1000);
  assert.equal(ch.push(600, 0, 1), true);
  assert.equal(ch.push(500, 1, 2), false, "600 + 500 > 1000");
  assert.equal(ch.push(400, 2, 3), true, "600 + 400 == 1000 fits");
  assert.equal(ch.push(1, 3, 4), false, "full");
  assert.deepEqual([ch.sent, ch.dropped, ch.length, ch.queuedBytes], [4, 2, 2, 1000]);
  assert.equal(ch.shift(), true);
  assert.equal(ch.push(600, 4, 5), true, "room again after a read");
  assert.deepEqual(drain(ch), [
    [400, 2, 3],
    [600, 4, 5],
  ]);
  assert.deepEqual([ch.received, ch.bytesReceived], [3, 1600]);
  // A pipe never drops (writers would block; none are modelled).
  const pipe = new Channel("p", "pipe", 100);
  assert.equal(pipe.push(500, 0, 0), true);
  assert.equal(pipe.dropped, 0);
});

test("a channel needs a positive capacity", () => {
  assert.throws(() => new Channel("x", "pipe", 0), /capacityBytes must be > 0/);
});
