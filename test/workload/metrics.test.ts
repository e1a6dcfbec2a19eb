// Every workload factory documents its metrics with units (src/workload/metrics.ts): what each
// reports is in its table, each table entry is in the factory's doc comment in the API reference
// (the `workload` object of src/index.ts), and docs/metrics.md is what the table generates.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { topology, workload } from "../../src/index";
import { metricMatches, metricsMarkdown, WORKLOAD_METRICS } from "../../src/workload/metrics";
import { durationOf, smallFactories } from "./factories";

const root = path.join(__dirname, "..", "..");

test("every metric a factory reports is documented with a unit, and every documented one is reported", () => {
  const factories = smallFactories();
  assert.deepEqual(
    Object.keys(factories).sort(),
    Object.keys(WORKLOAD_METRICS).sort(),
    "a table per factory",
  );
  for (const [name, w] of Object.entries(factories)) {
    const metrics = Object.keys(
      topology("core2-2x2")
        .workload(w)
        .runSync({ duration: durationOf(name) })
        .iteration("baseline", 0).metrics,
    );
    const docs = WORKLOAD_METRICS[name];
    for (const m of metrics)
      assert.ok(
        docs.some((d) => metricMatches(d, m)),
        `workload.${name} reports ${m}, which its table does not document`,
      );
    for (const d of docs) {
      assert.ok(d.unit.length > 0 && d.what.length > 0, `${name}.${d.name}`);
      if (d.name === "pairs") continue; // reported only for more than one pair
      assert.ok(
        metrics.some((m) => metricMatches(d, m)),
        `workload.${name} documents ${d.name} but does not report it`,
      );
    }
  }
});

test("each factory's doc comment in the API reference names its metrics, and docs/metrics.md is fresh", () => {
  const index = fs.readFileSync(path.join(root, "src", "index.ts"), "utf8");
  const block = index.slice(index.indexOf("export const workload = {"));
  for (const [name, docs] of Object.entries(WORKLOAD_METRICS)) {
    const at = block.indexOf(`\n  ${name}:`);
    assert.ok(at > 0, `workload.${name} in index.ts`);
    const comment = block.slice(block.lastIndexOf("/**", at), at);
    for (const d of docs)
      assert.ok(
        comment.includes(`\`${d.name}\``),
        `workload.${name}'s doc comment names ${d.name}`,
      );
  }
  assert.equal(fs.readFileSync(path.join(root, "docs", "metrics.md"), "utf8"), metricsMarkdown());
  assert.ok(typeof workload.hogs === "function");
});
