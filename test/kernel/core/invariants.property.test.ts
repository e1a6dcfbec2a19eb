// Property test: random machines, eras, workloads, hotplug and patches (test/support/fuzz.ts) run
// with the invariant checker every simulated millisecond, conserve CPU time, and are
// deterministic. `npm run fuzz -- --runs N` runs more cases.
import { test } from "node:test";
import fc from "fast-check";
import { checkCase, fuzzCase } from "../../support/fuzz";

test("300 random cases keep every invariant, conserve CPU time and repeat exactly", {
  timeout: 600_000,
}, () => {
  fc.assert(fc.property(fuzzCase, checkCase), { numRuns: 300, seed: 20261202 });
});
