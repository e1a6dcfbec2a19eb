import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describeDomains, topology } from "../../src/index";
import { test } from "node:test";
import assert from "node:assert/strict";
import { costFigureNames } from "../../src/machine/builder";
import {
  machineByName,
  machineFromFile,
  machineFromSpec,
  preset,
  presetNames,
  presetSpec,
  type MachineSpec,
} from "../../src/machine/presets";

const NAMES = [
  "core2-2x2",
  "ht-2x1x2",
  "jacobsville-24",
  "numa-2x12x2",
  "rome-2x16x2",
  "x86-104t",
  "xeon-x5472",
];

test("the presets are listed", () => {
  for (const n of NAMES) assert.ok(presetNames().includes(n), n);
});

test("every preset loads and every cost, cache and idle figure has a source", () => {
  for (const name of presetNames()) {
    const m = preset(name);
    assert.equal(m.name, name);
    assert.ok(m.description.length > 40, `${name}: description`);
    const keys = [
      ...costFigureNames(),
      "caches.l2Bytes",
      "caches.llcBytes",
      "topology",
      ...m.idleStates.flatMap((s) => [
        `idle.${s.name}.exitLatencyNs`,
        `idle.${s.name}.targetResidencyNs`,
        `idle.${s.name}.polling`,
        ...(s.coreExitLatencyNs === undefined
          ? []
          : [`idle.${s.name}.coreExitLatencyNs`, `idle.${s.name}.packageScope`]),
        ...(s.exitDraw === undefined
          ? []
          : [
              `idle.${s.name}.packageScope`,
              ...["core", "packageExtra"].flatMap((p) =>
                ["medianNs", "logSd"].map((f) => `idle.${s.name}.exitDraw.${p}.${f}`),
              ),
            ]),
      ]),
    ];
    for (const k of keys) {
      const src = m.sources[k];
      assert.ok(typeof src === "string" && src.trim().length > 10, `${name}: source of ${k}`);
      assert.ok(
        !src.startsWith("builder"),
        `${name}: ${k} must come from the JSON, not a builder default`,
      );
    }
    assert.ok(m.idleStates.length >= 1, `${name}: idle states`);
  }
});

test("preset topologies", () => {
  const x = preset("xeon-x5472");
  assert.equal(x.cpus.length, 8);
  assert.equal(new Set(x.cpus.map((c) => c.llc)).size, 4);
  assert.equal(new Set(x.cpus.map((c) => c.die)).size, 4);
  assert.equal(x.caches.l2Bytes, 6 * 1024 * 1024);
  const c2 = preset("core2-2x2");
  assert.deepEqual(
    c2.cpus.map((c) => c.package),
    [0, 0, 1, 1],
  );
  const ht = preset("ht-2x1x2");
  assert.deepEqual(
    ht.cpus.map((c) => c.core),
    [0, 1, 0, 1],
  );
  assert.match(ht.description, /not published/i);
  const big = preset("x86-104t");
  assert.equal(big.cpus.length, 104);
  assert.deepEqual(big.nodeDistance, [
    [10, 21],
    [21, 10],
  ]);
  assert.deepEqual(
    big.idleStates.map((s) => [s.name, s.exitLatencyNs, s.targetResidencyNs]),
    [
      ["POLL", 0, 0],
      ["C1", 2000, 2000],
      ["C1E", 10000, 20000],
      ["C6", 133000, 600000],
    ],
  );
  assert.equal(big.caches.llcBytes, Math.round(35.75 * 1024 * 1024));
  const hsw = preset("numa-2x12x2");
  assert.equal(hsw.cpus.length, 48);
  assert.deepEqual(
    hsw.idleStates.map((s) => s.exitLatencyNs),
    [0, 2000, 10000, 33000, 133000],
  );
  assert.equal(hsw.cpus.filter((c) => c.node === 0).length, 24);
});

test("jacobsville-24: six 4-core L2 clusters under one LLC, so 5.16+ adds a CLS level below MC", () => {
  const m = preset("jacobsville-24");
  assert.equal(m.cpus.length, 24);
  assert.equal(new Set(m.cpus.map((c) => c.l2)).size, 6);
  assert.equal(new Set(m.cpus.map((c) => c.llc)).size, 1);
  assert.ok(m.caches.llcBytes > m.caches.l2Bytes);
  assert.deepEqual(m.bandwidth, { nodeBytesPerNs: 35 });
  // cpu0's domains, bottom up
  const levels = (era: "5.10" | "5.19") =>
    [
      ...describeDomains(topology("jacobsville-24").era(era).domains(), era)
        .split("\ncpu1:")[0]
        .matchAll(/^ {2}domain-\d: (\w+) span=(\S+)/gm),
    ].map((x) => `${x[1]} ${x[2]}`);
  assert.deepEqual(levels("5.10"), ["MC 0-23"]);
  assert.deepEqual(levels("5.19"), ["CLS 0-3", "MC 0-23"]);
});

test("rome-2x16x2: eight 4-CPU LLCs per socket, one node per socket at distance 32", () => {
  const m = preset("rome-2x16x2");
  assert.equal(m.cpus.length, 64);
  assert.equal(new Set(m.cpus.map((c) => c.llc)).size, 16);
  for (const llc of new Set(m.cpus.map((c) => c.llc)))
    assert.equal(m.cpus.filter((c) => c.llc === llc).length, 4);
  assert.deepEqual(m.nodeDistance, [
    [10, 32],
    [32, 10],
  ]);
  assert.deepEqual(
    m.cpus.filter((c) => c.node === 0).map((c) => c.id),
    [...Array(16).keys(), ...Array.from({ length: 16 }, (_, i) => 32 + i)],
  );
  assert.deepEqual(m.bandwidth, { nodeBytesPerNs: 150, llcBytesPerNs: 190 });
  const text = describeDomains(topology("rome-2x16x2").era("5.19").domains(), "5.19");
  assert.match(text, /^cpu0: sd_llc_size=4 /m);
  assert.match(text, /domain-1: MC span=0-1,32-33 weight=4/);
});

test("cost tables are physical: latency grows and bandwidth falls with distance", () => {
  for (const name of presetNames()) {
    const c = preset(name).costs;
    const lat = Object.values(c.cacheLineNs);
    const bw = Object.values(c.copyBytesPerNs);
    for (let i = 1; i < lat.length; i++) {
      assert.ok(lat[i] >= lat[i - 1], `${name}: cacheLineNs monotone`);
      assert.ok(bw[i] <= bw[i - 1], `${name}: copyBytesPerNs monotone`);
    }
    assert.equal(c.rqLockRemoteNs.same_cpu, 0);
  }
});

test("preset() returns a fresh copy each time", () => {
  const a = preset("core2-2x2");
  a.online[3] = false;
  a.costs.syscallNs = 1;
  const b = preset("core2-2x2");
  assert.equal(b.online[3], true);
  assert.notEqual(b.costs.syscallNs, 1);
});

test("unknown preset names list the accepted ones", () => {
  assert.throws(
    () => preset("xeon"),
    /preset: unknown machine "xeon"; accepted: .*core2-2x2.*xeon-x5472/,
  );
});

test("a spec figure without a source is rejected, naming the field", () => {
  const spec = JSON.parse(JSON.stringify(presetSpec("core2-2x2"))) as MachineSpec;
  (spec.costs.cacheLineNs.shared_l2 as { source?: string }).source = "";
  assert.throws(
    () => machineFromSpec(spec, "test"),
    /test: costs.cacheLineNs.shared_l2.source must be a non-empty citation/,
  );
  const spec2 = JSON.parse(JSON.stringify(presetSpec("core2-2x2"))) as MachineSpec;
  spec2.topology.coresPerSocket = 0;
  assert.throws(
    () => machineFromSpec(spec2, "test"),
    /test: topology.coresPerSocket must be a positive integer \(got 0\)/,
  );
});

test("malformed machine files are refused by the schema, naming the field, the value and what is accepted", () => {
  // biome-ignore lint/suspicious/noExplicitAny: the cases mutate arbitrary JSON
  type Json = Record<string, any>;
  const base = () => JSON.parse(JSON.stringify(presetSpec("core2-2x2"))) as Json;
  const cases: Array<[string, (s: Json) => unknown, RegExp]> = [
    ["not an object", () => 42, /test: \(the file\) .*\(got 42\)/],
    [
      "missing costs",
      (s) => {
        delete s.costs;
        return s;
      },
      /test: costs .*\(missing\)/,
    ],
    [
      "a typo in a field name",
      (s) => {
        s.topology.coresPerSocet = 2;
        return s;
      },
      /test: topology has unknown field\(s\) coresPerSocet/,
    ],
    [
      "an unknown cost figure",
      (s) => {
        s.costs.fooNs = { value: 1, source: "x" };
        return s;
      },
      /test: costs has unknown field\(s\) fooNs/,
    ],
    [
      "an unknown LLC span",
      (s) => {
        s.topology.llc = "l3";
        return s;
      },
      /test: topology.llc must be one of die, package, l2 \(got "l3"\)/,
    ],
    [
      "a string figure",
      (s) => {
        s.costs.syscallNs.value = "100";
        return s;
      },
      /test: costs.syscallNs.value must be a finite number \(got "100"\)/,
    ],
    [
      "a share level missing",
      (s) => {
        delete s.costs.cacheLineNs.other_node;
        return s;
      },
      /test: costs.cacheLineNs.other_node .*\(missing\)/,
    ],
    [
      "a fractional socket count",
      (s) => {
        s.topology.sockets = 1.5;
        return s;
      },
      /test: topology.sockets must be a positive integer \(got 1.5\)/,
    ],
    [
      "idle states not an array",
      (s) => {
        s.idleStates = {};
        return s;
      },
      /test: idleStates .*\(got \{\}\)/,
    ],
  ];
  for (const [what, mutate, re] of cases) {
    assert.throws(() => machineFromSpec(mutate(base()), "test"), re, what);
  }
});

test("a machine file anywhere on disk builds the same machine as its preset, through topology() too", () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "schedlab-")), "box.json");
  fs.writeFileSync(file, JSON.stringify(presetSpec("numa-2x12x2")));
  assert.deepEqual(machineFromFile(file), preset("numa-2x12x2"));
  assert.deepEqual(machineByName(file), preset("numa-2x12x2"));
  assert.equal(
    describeDomains(topology(file).era("5.6").domains()),
    describeDomains(topology("numa-2x12x2").era("5.6").domains()),
  );
  assert.throws(() => topology(`${file}.missing.json`), /machine file .*cannot read it \(ENOENT\)/);
});
