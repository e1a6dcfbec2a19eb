import { test } from "node:test";
import { withCosts } from "../../src/machine/with_costs";
import assert from "node:assert/strict";
import { DEFAULT_COSTS, costFigureNames, machineBuilder } from "../../src/machine/builder";

const base = () => machineBuilder().sockets(2).cores(4);
const DRAW = {
  core: { medianNs: 30_000, logSd: 0.2 },
  packageExtra: { medianNs: 50_000, logSd: 0.3 },
};

test("defaults: thread-major numbering, one node, capacity 1024, every figure sourced", () => {
  const m = machineBuilder().sockets(2).cores(2).threads(2).build();
  assert.equal(m.cpus.length, 8);
  // thread 0 of every core first (socket order), then the second threads
  assert.deepEqual(
    m.cpus.map((c) => [c.package, c.core, c.thread]),
    [
      [0, 0, 0],
      [0, 1, 0],
      [1, 2, 0],
      [1, 3, 0],
      [0, 0, 1],
      [0, 1, 1],
      [1, 2, 1],
      [1, 3, 1],
    ],
  );
  assert.ok(m.cpus.every((c, i) => c.id === i && c.node === 0 && c.capacity === 1024));
  assert.deepEqual(m.nodeDistance, [[10]]);
  assert.deepEqual(m.online, new Array(8).fill(true));
  assert.deepEqual(m.costs, DEFAULT_COSTS);
  for (const k of costFigureNames()) assert.ok(m.sources[k], `source for ${k}`);
});

test("core-major numbering puts SMT siblings next to each other", () => {
  const m = machineBuilder().sockets(1).cores(2).threads(2).numbering("core-major").build();
  assert.deepEqual(
    m.cpus.map((c) => c.core),
    [0, 0, 1, 1],
  );
  assert.deepEqual(
    m.cpus.map((c) => c.thread),
    [0, 1, 0, 1],
  );
});

test("dies, L2 sharing and LLC span give the cache ids", () => {
  const m = base().diesPerSocket(2).l2SharedBy(2).llc("l2").build();
  assert.deepEqual(
    m.cpus.map((c) => c.die),
    [0, 0, 1, 1, 2, 2, 3, 3],
  );
  assert.deepEqual(
    m.cpus.map((c) => c.l2),
    [0, 0, 1, 1, 2, 2, 3, 3],
  );
  assert.deepEqual(
    m.cpus.map((c) => c.llc),
    [0, 0, 1, 1, 2, 2, 3, 3],
  );
  const pkg = base().diesPerSocket(2).llc("package").build();
  assert.deepEqual(
    pkg.cpus.map((c) => c.llc),
    [0, 0, 0, 0, 1, 1, 1, 1],
  );
  const die = base().diesPerSocket(2).llc("die").build();
  assert.deepEqual(
    die.cpus.map((c) => c.llc),
    [0, 0, 1, 1, 2, 2, 3, 3],
  );
});

test("nodes split sockets evenly; default distance 10/21", () => {
  const m = machineBuilder().sockets(4).cores(1).nodes(2).build();
  assert.deepEqual(
    m.cpus.map((c) => c.node),
    [0, 0, 1, 1],
  );
  assert.deepEqual(m.nodeDistance, [
    [10, 21],
    [21, 10],
  ]);
});

test("validation errors name the field and the accepted values", () => {
  const cases: Array<[() => unknown, RegExp]> = [
    [
      () => machineBuilder().sockets(2).cores(0).build(),
      /^Error: topology: cores must be a positive integer \(got 0\)$/,
    ],
    [
      () => machineBuilder().sockets(-1).cores(2).build(),
      /topology: sockets must be a positive integer \(got -1\)/,
    ],
    [
      () => machineBuilder().sockets(1.5).cores(2).build(),
      /topology: sockets must be a positive integer \(got 1.5\)/,
    ],
    [() => machineBuilder().sockets(1).build(), /topology: cores must be a positive integer/],
    [() => base().threads(0).build(), /topology: threads must be a positive integer/],
    [
      () => base().diesPerSocket(3).build(),
      /topology: cores must be divisible by diesPerSocket \(3\) \(got 4\)/,
    ],
    [
      () => base().l2SharedBy(3).build(),
      /topology: l2SharedBy must be a divisor of the cores per die \(4\) \(got 3\)/,
    ],
    [
      () => base().diesPerSocket(2).l2SharedBy(4).build(),
      /topology: l2SharedBy must be a divisor of the cores per die \(2\)/,
    ],
    [() => base().nodes(3).build(), /topology: nodes must be a divisor of sockets \(2\)/],
    [
      () =>
        base()
          .llc("l3" as never)
          .build(),
      /topology: llc must be one of "die", "package", "l2" \(got "l3"\)/,
    ],
    [
      () =>
        base()
          .numbering("bios" as never)
          .build(),
      /topology: numbering must be one of "thread-major", "core-major"/,
    ],
    [
      () =>
        base()
          .nodes(2)
          .distance([[10, 21]])
          .build(),
      /topology: distance must be a 2x2 matrix/,
    ],
    [
      () =>
        base()
          .nodes(2)
          .distance([
            [10, 21],
            [20, 10],
          ])
          .build(),
      /topology: distance\[1\]\[0\] must be equal to distance\[0\]\[1\] \(21\)/,
    ],
    [
      () =>
        base()
          .nodes(2)
          .distance([
            [11, 21],
            [21, 10],
          ])
          .build(),
      /topology: distance\[0\]\[0\] must be 10 \(LOCAL_DISTANCE\) \(got 11\)/,
    ],
    [
      () =>
        base()
          .nodes(2)
          .distance([
            [10, 10],
            [10, 10],
          ])
          .build(),
      /topology: distance\[0\]\[1\] must be an integer in 11..255/,
    ],
    [
      () => base().capacity(2048).build(),
      /topology: capacity must be an integer in 1..1024 \(got 2048\)/,
    ],
    [() => base().offline([8]).build(), /topology: offline must be CPU ids in 0..7 \(got 8\)/],
    [
      () => base().offline([0, 1, 2, 3, 4, 5, 6, 7]).build(),
      /topology: offline must be a list leaving at least one CPU online/,
    ],
    [
      () => base().costs({ syscallNs: -5 }).build(),
      /costs: syscallNs must be a non-negative finite number \(got -5\)/,
    ],
    [
      () =>
        base()
          .costs({ copyBytesPerNs: { same_core: 0 } })
          .build(),
      /costs: copyBytesPerNs.same_core must be a positive finite number/,
    ],
    [
      () =>
        base()
          .costs({ cacheLineNs: { l3: 4 } as never })
          .build(),
      /costs: cacheLineNs has an unknown share level "l3"; accepted: same_cpu, same_core/,
    ],
    [
      () =>
        base()
          .costs({ bogusNs: 1 } as never)
          .build(),
      /costs: unknown figure "bogusNs"/,
    ],
    [
      () => base().caches({ l2Bytes: 0 }).build(),
      /caches: l2Bytes must be a positive integer number of bytes/,
    ],
    [
      () =>
        base()
          .idleStates([
            { name: "C6", exitLatencyNs: 100_000, targetResidencyNs: 0, polling: false },
            { name: "C1", exitLatencyNs: 2000, targetResidencyNs: 0, polling: false },
          ])
          .build(),
      /idleStates\[1\]: exitLatencyNs must not be below the previous state's/,
    ],
    [
      () =>
        base()
          .idleStates([{ name: "C1", exitLatencyNs: -1, targetResidencyNs: 0, polling: false }])
          .build(),
      /idleStates\[0\]: exitLatencyNs must be a non-negative number/,
    ],
    [
      () =>
        base()
          .idleStates([
            {
              ...{ name: "C6", exitLatencyNs: 100_000, targetResidencyNs: 0, polling: true },
              ...{ coreExitLatencyNs: 120_000, packageScope: "system" },
            },
          ])
          .build(),
      /idleStates\[0\]: coreExitLatencyNs must be a number of ns from 0 to exitLatencyNs \(100000\)/,
    ],
    [
      () =>
        base()
          .idleStates([
            {
              ...{ name: "C6", exitLatencyNs: 100_000, targetResidencyNs: 0, polling: true },
              coreExitLatencyNs: 40_000,
            },
          ])
          .build(),
      /idleStates\[0\]: packageScope must be "package" or "system" with coreExitLatencyNs/,
    ],
    [
      () =>
        base()
          .idleStates([
            {
              ...{ name: "C6", exitLatencyNs: 100_000, targetResidencyNs: 0, polling: true },
              packageScope: "package",
            },
          ])
          .build(),
      /idleStates\[0\]: packageScope is only meaningful with coreExitLatencyNs/,
    ],
    [
      () =>
        base()
          .idleStates([
            {
              ...{ name: "C6", exitLatencyNs: 100_000, targetResidencyNs: 0, polling: true },
              ...{ coreExitLatencyNs: 40_000, packageScope: "package" },
              exitDraw: DRAW,
            },
          ])
          .build(),
      /idleStates\[0\]: give coreExitLatencyNs \(a constant core exit\) or exitDraw/,
    ],
    [
      () =>
        base()
          .idleStates([
            {
              ...{ name: "C6", exitLatencyNs: 100_000, targetResidencyNs: 0, polling: true },
              exitDraw: DRAW,
            },
          ])
          .build(),
      /idleStates\[0\]: packageScope must be "package" or "system" with exitDraw/,
    ],
    [
      () =>
        base()
          .idleStates([
            {
              ...{ name: "C6", exitLatencyNs: 100_000, targetResidencyNs: 0, polling: true },
              packageScope: "package",
              exitDraw: { ...DRAW, packageExtra: { medianNs: 150_000, logSd: 0.2 } },
            },
          ])
          .build(),
      /idleStates\[0\]: exitDraw.packageExtra.medianNs must be a number of ns from 0 to exitLatencyNs \(100000\)/,
    ],
    [
      () =>
        base()
          .idleStates([
            {
              ...{ name: "C6", exitLatencyNs: 100_000, targetResidencyNs: 0, polling: true },
              packageScope: "package",
              exitDraw: { ...DRAW, core: { medianNs: 30_000, logSd: -1 } },
            },
          ])
          .build(),
      /idleStates\[0\]: exitDraw.core.logSd must be a number from 0 to 3/,
    ],
  ];
  for (const [fn, re] of cases) assert.throws(fn, re);
});

test("partial cost overrides merge per share level; withCosts replaces and re-sources", () => {
  const m = base()
    .costs({ cacheLineNs: { shared_l2: 7 } })
    .costs({ syscallNs: 90 })
    .sources({ "costs.syscallNs": "measured" })
    .build();
  assert.equal(m.costs.cacheLineNs.shared_l2, 7);
  assert.equal(m.costs.cacheLineNs.other_node, DEFAULT_COSTS.cacheLineNs.other_node);
  assert.equal(m.costs.syscallNs, 90);
  assert.equal(m.sources["costs.syscallNs"], "measured");
  const w = withCosts(m, { cacheLineNs: { same_node: 300 } }, "sweep: 300 ns");
  assert.equal(w.costs.cacheLineNs.same_node, 300);
  assert.equal(w.costs.cacheLineNs.shared_l2, 7);
  assert.equal(w.sources["costs.cacheLineNs.same_node"], "sweep: 300 ns");
  assert.equal(
    m.costs.cacheLineNs.same_node,
    DEFAULT_COSTS.cacheLineNs.same_node,
    "original untouched",
  );
  assert.throws(
    () => withCosts(m, { ipiDeliveryNs: Number.NaN }),
    /costs: ipiDeliveryNs must be a non-negative finite number/,
  );
});

test("offline CPUs are recorded in Machine.online", () => {
  const m = base().offline([3]).build();
  assert.deepEqual(m.online, [true, true, true, false, true, true, true, true]);
});
