// Shared caches and memory bandwidth under load (kernel/contention.ts), on hand-built machines:
// bandwidth shared out at a memory controller, working sets overflowing an L2 and an LLC, memory
// left on the node a task first ran on (read over the interconnect after a move), and no effect
// between tasks that share no level.
import { test } from "node:test";
import assert from "node:assert/strict";
import { machineBuilder } from "../../src/machine/builder";
import { run, setAffinity } from "../../src/kernel/ops";
import { shareOut, sharedFigures, type Footprint } from "../../src/kernel/contention";
import { machineFromSpec, presetSpec } from "../../src/machine/presets";
import type { Machine } from "../../src/machine/types";
import { boot } from "./boot";

const MS = 1_000_000;

/**
 * 2 sockets = 2 nodes, 4 cores each, no SMT; an L2 per pair of cores, an LLC per socket.
 * One thread reads 25 B/ns from memory, a controller sustains 20 B/ns.
 */
function box(): Machine {
  const m = machineBuilder()
    .sockets(2)
    .cores(4)
    .threads(1)
    .l2SharedBy(2)
    .nodes(2)
    .caches({ l2Bytes: 1 << 20, llcBytes: 8 << 20 })
    .costs({
      memoryBytesPerNs: 25,
      copyBytesPerNs: { shared_llc: 50 },
      smtSiblingSpeed: 1,
    })
    .build();
  m.bandwidth = { nodeBytesPerNs: 20 };
  return m;
}

/** Work each pinned task did in 100 ms (from 50 ms on): [cpu, footprint or none]. */
function work(m: Machine, tasks: [number, Footprint | undefined][]): number[] {
  const k = boot(m, "6.19");
  const ps = tasks.map(([cpu, footprint], i) =>
    k.spawn({
      comm: `t${i}`,
      cpu,
      cpus: [cpu],
      ...(footprint ? { footprint } : {}),
      program: function* () {
        yield run(Infinity);
      },
    }),
  );
  // after the first refill of each working set (resumeRefillNs: from memory)
  k.runUntil(50 * MS);
  const before = ps.map((p) => k.workDone(p));
  k.runUntil(150 * MS);
  return ps.map((p, i) => k.workDone(p) - before[i]);
}

// A STREAM-like sweep: 160 bytes per ns of work, far more than memory gives; no stores.
const streamer: Footprint = {
  workingSetBytes: 256 << 20,
  bytesPerWorkNs: 16 * 10,
  access: "sweep",
};
const bytes = (w: number, fp: Footprint) => (w * fp.bytesPerWorkNs) / (100 * MS);

test("max-min fair shares: demands under the equal share are met, the rest split the remainder", () => {
  let out: number[] = [];
  shareOut([2, 10, 10], 12, out);
  assert.deepEqual(out, [2, 5, 5]);
  out = [];
  shareOut([1, 2], 12, out);
  assert.deepEqual(out, [1, 2]);
});

test("one stream per memory controller gets the controller's figure; two on one controller share it", () => {
  const m = box();
  const one = work(m, [
    [0, streamer],
    [4, streamer],
  ]).map((w) => bytes(w, streamer));
  for (const b of one) assert.ok(Math.abs(b - 20) < 0.01, `one per node: ${b} B/ns`);
  const two = work(m, [
    [0, streamer],
    [2, streamer],
  ]).map((w) => bytes(w, streamer));
  for (const b of two) assert.ok(Math.abs(b - 10) < 0.01, `two on node 0: ${b} B/ns`);
  // a lone thread below the controller's figure is held to its own rate
  m.bandwidth = { nodeBytesPerNs: 40 };
  const [alone] = work(m, [[0, streamer]]).map((w) => bytes(w, streamer));
  assert.ok(Math.abs(alone - 25) < 0.01, `thread rate: ${alone}`);
});

test("stores that miss read their line first: the controller moves (1 + writeFraction) x", () => {
  const copy = { ...streamer, writeFraction: 0.5 };
  const [b] = work(box(), [[0, copy]]).map((w) => bytes(w, copy));
  assert.ok(Math.abs(b - 20 / 1.5) < 0.01, `copy-like stream: ${b} B/ns named`);
});

// A cache-bound loop: 600 KiB (fits a 1 MiB L2 alone), 100 B/ns of loads.
const hog: Footprint = { workingSetBytes: 600 << 10, bytesPerWorkNs: 100 };

test("a working set that fits the L2 runs at full speed alone and slows when a co-runner overflows the L2", () => {
  const m = box();
  const [alone] = work(m, [[0, hog]]);
  assert.ok(alone > 99.9 * MS, `alone ${alone}`);
  // CPUs 0 and 1 share an L2: 1.2 MiB over 1 MiB; the missed share comes from the LLC at 50 B/ns
  const [a, b] = work(m, [
    [0, hog],
    [1, hog],
  ]);
  const inL2 = (1 << 20) / (2 * (600 << 10));
  const expected = 1 / (1 + (100 * (1 - inL2)) / 50); // dependent loads stall on the LLC
  for (const w of [a, b]) assert.ok(Math.abs(w / (100 * MS) - expected) < 1e-3, `pair ${w}`);
  assert.ok(expected < 0.8);
  // CPUs 0 and 2 have an L2 each: no slowdown
  for (const w of work(m, [
    [0, hog],
    [2, hog],
  ]))
    assert.ok(w > 99.9 * MS, `apart ${w}`);
});

test("the same on the LLC: sets that fit it alone go to memory when their sum overflows it", () => {
  const m = box();
  const big: Footprint = { workingSetBytes: 5 << 20, bytesPerWorkNs: 100 };
  const [alone] = work(m, [[0, big]]); // 4/5 of its bytes from the LLC at 50 B/ns
  const aloneSpeed = 1 / (1 + (100 * 0.8) / 50);
  assert.ok(Math.abs(alone / (100 * MS) - aloneSpeed) < 1e-3, `alone ${alone}`);
  // CPUs 0 and 2: 10 MiB over an 8 MiB LLC: 1/5 of each set in its L2, 3/5 more in the LLC, the
  // rest from memory, where the two demands (at their compute speed, 20 B/ns each) share 20 B/ns
  const [a] = work(m, [
    [0, big],
    [2, big],
  ]);
  const pair = 1 / (1 + (100 * 0.6) / 50 + (100 * 0.2) / (25 * (10 / 20)));
  assert.ok(Math.abs(a / (100 * MS) - pair) < 1e-3, `pair ${a} vs ${pair}`);
  assert.ok(a < alone);
  // on the other socket: its own LLC and controller
  const [c] = work(m, [
    [0, big],
    [4, big],
  ]);
  assert.ok(Math.abs(c - alone) < 1e3, `other socket ${c}`);
});

test("no effect between tasks that share nothing, and none on or from tasks without a footprint", () => {
  const m = box();
  const [alone] = work(m, [[0, streamer]]);
  const [s0, s4] = work(m, [
    [0, streamer],
    [4, streamer],
  ]);
  assert.equal(s0, alone);
  assert.equal(s4, alone);
  const [plain0, withStream] = work(m, [
    [0, undefined],
    [1, streamer],
  ]);
  assert.equal(
    plain0,
    work(m, [
      [0, undefined],
      [1, undefined],
    ])[0],
  );
  assert.equal(withStream, alone);
});

test("a bad footprint is an error naming the field", () => {
  const k = boot(box(), "6.19");
  const spawn = (footprint: unknown) =>
    k.spawn({ comm: "x", footprint: footprint as Footprint, program: function* () {} });
  assert.throws(
    () => spawn({ workingSetBytes: -1, bytesPerWorkNs: 1 }),
    /footprint.workingSetBytes/,
  );
  assert.throws(
    () => spawn({ workingSetBytes: 1, bytesPerWorkNs: 1, writeFraction: 2 }),
    /writeFraction/,
  );
  assert.throws(() => spawn({ workingSetBytes: 1, bytesPerWork: 1 }), /bytesPerWork/);
});

test("a machine file's bandwidth reaches the model with its source; a bad figure names the field", () => {
  const spec = {
    ...presetSpec("core2-2x2"),
    bandwidth: { nodeBytesPerNs: { value: 5, source: "test figure" } },
  };
  const m = machineFromSpec(spec);
  assert.equal(m.bandwidth?.nodeBytesPerNs, 5);
  assert.equal(m.sources["bandwidth.nodeBytesPerNs"], "test figure");
  assert.equal(sharedFigures(m).nodeBytesPerNs, 5);
  assert.equal(sharedFigures(m).llcBytesPerNs, Infinity);
  assert.equal(
    sharedFigures(m).interconnectBytesPerNs,
    Infinity,
    "none stated: the links do not limit",
  );
  // the 2-socket Haswell-EP: its QPI links' figure and one thread's remote rate
  const hsw = machineFromSpec(presetSpec("numa-2x12x2"));
  assert.equal(sharedFigures(hsw).interconnectBytesPerNs, 29);
  assert.match(hsw.sources["bandwidth.interconnectBytesPerNs"], /2 QPI links at 9\.6 GT\/s/);
  assert.equal(sharedFigures(hsw).threadRemoteBytesPerNs, 6.5);
  assert.throws(
    () => boot({ ...box(), bandwidth: { nodeBytesPerNs: 0 } }),
    /bandwidth.nodeBytesPerNs must be a number of bytes\/ns > 0/,
  );
});

/**
 * Work in 100 ms (from 50 ms on) of tasks that first run on one CPU (their memory's node: first
 * touch) and after 0.1 ms of work (under 1 ms at these rates) move to another: [first cpu, then cpu].
 */
function workMoved(m: Machine, tasks: [number, number][], fp: Footprint): number[] {
  const k = boot(m, "6.19");
  const ps = tasks.map(([first, then], i) =>
    k.spawn({
      comm: `t${i}`,
      cpu: first,
      cpus: [first],
      footprint: fp,
      program: function* () {
        yield run(0.1 * MS);
        if (then !== first) yield setAffinity([then]);
        yield run(Infinity);
      },
    }),
  );
  k.runUntil(50 * MS);
  const before = ps.map((p) => k.workDone(p));
  k.runUntil(150 * MS);
  return ps.map((p, i) => k.workDone(p) - before[i]);
}

test("memory stays on the node a task first ran on: moved away, it reads at one thread's remote rate, loads its home controller, and shares the links", () => {
  // remote rate 10 B/ns per thread; local 25; a controller sustains 20
  const m = box();
  m.costs.copyBytesPerNs.other_node = 10;
  const rate = (tasks: [number, number][]) =>
    workMoved(m, tasks, streamer).map((w) => Math.round(bytes(w, streamer)));
  assert.deepEqual(rate([[0, 1]]), [20], "moved within its node: the controller's figure");
  assert.deepEqual(rate([[0, 4]]), [10], "moved to the other node: one thread's remote rate");
  // a local stream and a moved one share the home controller (equal shares of 20); the other
  // node's controller is untouched
  assert.deepEqual(
    rate([
      [0, 0],
      [1, 4],
      [5, 5],
    ]),
    [10, 10, 20],
  );
  // the links between the nodes carry 12 B/ns: two moved streams get 6 each, not 10
  m.bandwidth = { nodeBytesPerNs: 20, interconnectBytesPerNs: 12 };
  assert.deepEqual(
    rate([
      [0, 4],
      [1, 5],
    ]),
    [6, 6],
  );
  // without links in the way, they get the remote rate each (20 from the home controller)
  m.bandwidth = { nodeBytesPerNs: 20 };
  assert.deepEqual(
    rate([
      [0, 4],
      [1, 5],
    ]),
    [10, 10],
  );
});
