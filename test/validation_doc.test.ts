// docs/validation.md's fidelity tables are what replaying data/traces gives today
// (scripts/validation-doc.ts), and every shipped recording has one.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { recordingNames, VALIDATION_PAGE, validationPage } from "../scripts/validation-doc";

test("docs/validation.md's tables are fresh (run scripts/validation-doc.ts after a model change) and cover every recording", async () => {
  const now = fs.readFileSync(VALIDATION_PAGE, "utf8");
  const names = recordingNames();
  assert.ok(names.length >= 5, `recordings under data/traces: ${names.join(", ")}`);
  for (const n of names) assert.ok(now.includes(`### ${n}\n`), `a table for ${n}`);
  assert.equal(now, await validationPage(now), "docs/validation.md is stale");
});
