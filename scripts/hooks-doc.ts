// Writes docs/hooks.md from the hook records (src/kernel/hook_docs.ts) that
// `npx schedlab hooks --verbose` prints, so the page cannot drift from them
// (test/kernel/hook_docs.test.ts fails when it is stale).
//   node --import tsx scripts/hooks-doc.ts          rewrite the page
//   node --import tsx scripts/hooks-doc.ts --check  exit 1 if the page is stale
import * as fs from "node:fs";
import * as path from "node:path";
import "../src/index"; // registers every hook
import { hooksMarkdown } from "../src/kernel/hook_docs_text";

/** The page's path in the repository. */
export const HOOKS_PAGE = path.join(__dirname, "..", "docs", "hooks.md");

if (require.main === module) {
  const page = hooksMarkdown();
  if (process.argv.includes("--check")) {
    const now = fs.existsSync(HOOKS_PAGE) ? fs.readFileSync(HOOKS_PAGE, "utf8") : "";
    if (now !== page) {
      console.error("docs/hooks.md is stale: run node --import tsx scripts/hooks-doc.ts");
      process.exit(1);
    }
  } else {
    fs.writeFileSync(HOOKS_PAGE, page);
    console.log(`wrote ${path.relative(process.cwd(), HOOKS_PAGE)}`);
  }
}
