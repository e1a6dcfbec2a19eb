// Writes docs/eras.md from the era tables (src/kernel/era_changes.ts, features.ts,
// features_folded.ts) that `npx schedlab era E` prints, so the page cannot drift from them
// (test/kernel/era_changes.test.ts fails when it is stale).
//   node --import tsx scripts/eras-doc.ts          rewrite the page
//   node --import tsx scripts/eras-doc.ts --check  exit 1 if the page is stale
import * as fs from "node:fs";
import * as path from "node:path";
import { erasMarkdown } from "../src/kernel/era_changes";

/** The page's path in the repository. */
export const ERAS_PAGE = path.join(__dirname, "..", "docs", "eras.md");

if (require.main === module) {
  const page = erasMarkdown();
  if (process.argv.includes("--check")) {
    const now = fs.existsSync(ERAS_PAGE) ? fs.readFileSync(ERAS_PAGE, "utf8") : "";
    if (now !== page) {
      console.error("docs/eras.md is stale: run node --import tsx scripts/eras-doc.ts");
      process.exit(1);
    }
  } else {
    fs.writeFileSync(ERAS_PAGE, page);
    console.log(`wrote ${path.relative(process.cwd(), ERAS_PAGE)}`);
  }
}
