import assert from "node:assert/strict";
import * as fs from "node:fs";
import { test } from "node:test";
import { FILE_FORMATS_PAGE, fileFormatsMarkdown } from "../scripts/file-formats";

test("docs/file-formats.md is what the schemas generate (run scripts/file-formats.ts after a schema change)", () => {
  const page = fileFormatsMarkdown();
  assert.equal(fs.readFileSync(FILE_FORMATS_PAGE, "utf8"), page);
  // every machine cost figure the builder knows is documented
  assert.match(page, /`costs.copyBytesPerNs.other_node` \| sourced number \| yes/);
  assert.match(page, /`figures\[\].kind` \| "independent" \\\| "calibrated" \\\| "derived"/);
});
