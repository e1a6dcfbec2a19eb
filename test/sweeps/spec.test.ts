// Sweep specs: the jobs a spec plans and their keys (the same job always gets the same key, any
// change to what it computes gives a new one), and the refusals of a malformed spec, each naming
// its field and what is accepted.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import "../../src/index";
import { loadSweepSpec, planSweep, type SweepSpec } from "../../src/sweeps/spec";
import { identity } from "../../src/sweeps/identity";
import { experimentById } from "../../src/reproduce/today";
import { SMALL, tempDir } from "../support/sweep";

const me = identity();
const small = (): SweepSpec => loadSweepSpec(SMALL);
const plan = (s: SweepSpec, who = me) => planSweep(s, "spec.json", who);

test("the example plans 2 unknowns x 3 values x 2 variants x 2 iterations, each job keyed once", () => {
  const p = plan(small());
  assert.equal(p.points.length, 9);
  assert.deepEqual(p.variants, ["cfs-2.6.29", "eevdf-6.19"]);
  assert.equal(p.jobs.length, 36);
  assert.equal(new Set(p.jobs.map((j) => j.key)).size, 36);
  // planning again gives the same keys and sweep id
  const again = plan(small());
  assert.deepEqual(
    again.jobs.map((j) => j.key),
    p.jobs.map((j) => j.key),
  );
  assert.equal(again.id, p.id);
  // a worker thread rebuilds each job's experiment from its id alone
  const j = p.jobs.find((x) => x.variant === "cfs-2.6.29" && x.values.hz === 250)!;
  const exp = experimentById(j.task.id);
  assert.equal(exp.unknownValues().hz, 250);
  const v = exp.spec(j.task.opts).variants["cfs-2.6.29"] as Record<string, unknown>;
  assert.equal(v.era, "2.6.29");
});

test("a job's key changes with anything its numbers depend on, and only then", () => {
  const base = plan(small());
  const keys = new Set(base.jobs.map((j) => j.key));
  // more iterations: the first two iterations are the same jobs
  const more = plan({ ...small(), iterations: 3 });
  assert.equal(more.jobs.length, 54);
  assert.equal(more.jobs.filter((j) => keys.has(j.key)).length, 36);
  // another seed, another duration, another model or version: every job is new
  for (const changed of [
    plan({ ...small(), seed: 2 }),
    plan({ ...small(), profile: { duration: 2.5, warmup: 0.2 } }),
    plan(small(), { ...me, model: "000000000000" }),
    plan(small(), { ...me, version: "9.9.9" }),
  ])
    assert.equal(changed.jobs.filter((j) => keys.has(j.key)).length, 0);
  // a variant defined differently under the same name is another job
  const otherEra = plan({
    ...small(),
    variants: { "cfs-2.6.29": { era: "3.19" }, "eevdf-6.19": { era: "6.19" } },
  });
  assert.equal(otherEra.jobs.filter((j) => keys.has(j.key)).length, 18);
  // a grid with one value fewer keeps the jobs of the values it still has
  const fewer = plan({ ...small(), grid: { hz: [100, 250], context_switch_scale: [0.5, 1, 3] } });
  assert.equal(fewer.jobs.filter((j) => keys.has(j.key)).length, 24);
});

test("a malformed spec is refused naming the field and what is accepted", () => {
  const cases: Array<[unknown, RegExp]> = [
    [
      { grid: { hz: [100] } },
      /spec\.json: experiment Invalid input: expected string, received undefined \(missing\)/,
    ],
    [
      { experiment: "nope", grid: { hz: [100] } },
      /experiment must be a reproduction \(accepted: demo, 000/,
    ],
    [{ experiment: "demo", grid: {} }, /grid must name at least one unknown/],
    [{ experiment: "demo", grid: { hz: [100] }, iteratons: 2 }, /has unknown field\(s\) iteratons/],
    [
      { experiment: "demo", grid: { hz: [100] }, iterations: 0 },
      /iterations Too small: expected number to be >0 \(got 0\)/,
    ],
    [
      { experiment: "demo", grid: { nope: [1] } },
      /grid\.nope is not a declared unknown of demo \(declared: hz, context_switch_scale\)/,
    ],
    [
      { experiment: "demo", grid: { hz: "span:x" } },
      /grid\.hz must be a list of values, "span:N" or "all"/,
    ],
    [
      { experiment: "demo", grid: { hz: [100] }, design: "random" },
      /design must be one of grid, one-at-a-time/,
    ],
    [
      { experiment: "demo", grid: { hz: [100] }, variants: ["post"] },
      /variants names "post", not a variant of demo \(variants: baseline\)/,
    ],
    [
      { experiment: "demo", grid: { hz: [100] }, variants: { old: { era: "2.4" } } },
      /variants\.old\.era must be one of 2\.6\.29, 3\.19/,
    ],
    [
      { experiment: "demo", grid: { hz: [100] }, variants: { p: { patches: ["nope"] } } },
      /variants\.p\.patches: "nope" is not a published patch \(accepted: group-power-2009/,
    ],
    [
      { experiment: "demo", grid: { hz: [100] }, variants: { t: { tunables: { hzz: 1 } } } },
      /variants\.t\.tunables: unknown tunable "hzz"/,
    ],
    [
      { experiment: "demo", grid: { hz: [100] }, profile: "long" },
      /profile must be "quick", "full" or \{ "duration": seconds, "warmup": seconds \} \(got "long"\)/,
    ],
  ];
  const dir = tempDir("specs");
  for (const [raw, re] of cases) {
    const file = path.join(dir, "spec.json");
    fs.writeFileSync(file, JSON.stringify(raw));
    assert.throws(() => planSweep(loadSweepSpec(file), "spec.json", me), re, JSON.stringify(raw));
  }
  const file = path.join(dir, "broken.json");
  fs.writeFileSync(file, "{ nope");
  assert.throws(() => loadSweepSpec(file), /broken\.json is not valid JSON/);
});

test("a variant's machine file travels with its jobs, and its content is part of their keys", () => {
  const dir = tempDir("machinefile");
  const file = path.join(dir, "box.json");
  const original = fs.readFileSync(
    path.join(__dirname, "..", "..", "data", "machines", "core2-2x2.json"),
    "utf8",
  );
  fs.writeFileSync(file, original);
  const spec = (): SweepSpec => ({
    experiment: "demo",
    grid: { hz: [1000] },
    iterations: 1,
    variants: { preset: { machine: "core2-2x2" }, file: { machine: file } },
  });
  const before = plan(spec());
  const job = before.jobs.find((j) => j.variant === "file")!;
  fs.rmSync(file); // a worker elsewhere has no copy: the job carries the machine
  const exp = experimentById(job.task.id);
  const ran = exp.runJob({ ...job.task.opts, duration: 0.1, warmup: 0 }, job.task.job);
  assert.deepEqual([ran.variant, ran.cpus.length], ["file", 4]);
  const edited = JSON.parse(original);
  edited.costs.contextSwitchNs.value = 2000;
  fs.writeFileSync(file, JSON.stringify(edited));
  const after = plan(spec());
  const key = (p: typeof before, v: string) => p.jobs.find((j) => j.variant === v)!.key;
  assert.notEqual(key(after, "file"), key(before, "file"));
  assert.equal(key(after, "preset"), key(before, "preset"));
});
