// Every MachineBuilder method checks its own argument when called (src/machine/builder_checks.ts),
// naming the field and the accepted values; profile() takes a profile name as Experiment.profile
// does, or the CostProfile costProfile(name) returns.
import { test } from "node:test";
import assert from "node:assert/strict";
import { costProfile, machineBuilder, topology } from "../../src/index";
import type { MachineBuilder } from "../../src/index";

test("machineBuilder().profile(name) starts from the named profile, as Experiment.profile does", () => {
  const byName = machineBuilder().cores(4).profile("hikey-a53-2x4").build();
  const byObject = machineBuilder().cores(4).profile(costProfile("hikey-a53-2x4")).build();
  assert.deepEqual(byName, byObject);
  assert.deepEqual(
    byName.idleStates.map((s) => s.name),
    ["WFI", "CPU_SLEEP", "CLUSTER_SLEEP"],
  );
  assert.deepEqual(topology().cores(4).profile("hikey-a53-2x4").machine(), byName);
  assert.throws(
    () => machineBuilder().profile("vax"),
    /profile: unknown cost profile "vax"; accepted: x86-server-2008, .*hikey-a53-2x4/,
  );
});

test("each builder method refuses a bad argument at the call, naming the field and what it accepts", () => {
  type Bad = [keyof MachineBuilder, unknown, RegExp];
  const cases: Bad[] = [
    ["name", "", /topology: name must be a non-empty string \(got ""\)/],
    ["description", 3, /topology: description must be a string \(got 3\)/],
    ["sockets", 0, /topology: sockets must be a positive integer \(got 0\)/],
    ["diesPerSocket", 1.5, /topology: diesPerSocket must be a positive integer/],
    ["cores", "4", /topology: cores must be a positive integer \(got "4"\)/],
    ["threads", -1, /topology: threads must be a positive integer/],
    ["l2SharedBy", null, /topology: l2SharedBy must be a positive integer \(got null\)/],
    ["llc", "l3", /topology: llc must be one of "die", "package", "l2" \(got "l3"\)/],
    ["nodes", 0, /topology: nodes must be a positive integer/],
    ["distance", [10, 20], /topology: distance must be a node x node matrix/],
    ["capacity", 2048, /topology: capacity must be an integer in 1\.\.1024 \(got 2048\)/],
    ["capacities", [1024, "x"], /topology: capacities must be an array of integers in 1\.\.1024/],
    ["profile", {}, /topology: profile must be a cost profile name \(costProfileNames\(\): /],
    ["profile", undefined, /topology: profile must be a cost profile name/],
    ["costs", null, /topology: costs must be an object of cost figures/],
    [
      "idleStates",
      [{ name: "C1" }],
      /idleStates\[0\]: exitLatencyNs must be a non-negative number of ns/,
    ],
    ["idle", "off", /topology: idle must be "poll" .* or \{ maxState: N \}/],
    ["idle", { maxState: -1 }, /topology: idle\.maxState must be an integer >= 0/],
    [
      "caches",
      { l3Bytes: 1 },
      /topology: caches key must be one of "l2Bytes", "llcBytes" \(got "l3Bytes"\)/,
    ],
    ["numbering", "bios", /topology: numbering must be one of "thread-major", "core-major"/],
    ["offline", 3, /topology: offline must be an array of CPU ids/],
    ["sources", { x: 1 }, /topology: sources\["x"\] must be a string \(got 1\)/],
  ];
  for (const [method, arg, re] of cases) {
    const b = machineBuilder().cores(2);
    assert.throws(
      () => (b[method] as (a: unknown) => MachineBuilder)(arg),
      re,
      `${method}(${JSON.stringify(arg)})`,
    );
  }
  // the same checks at an Experiment's step, not at run()
  assert.throws(() => topology().cores(0), /topology: cores must be a positive integer \(got 0\)/);
});
