// Writes docs/metrics.md from the workload metric tables (src/workload/metrics.ts), so the page
// cannot drift from them (test/workload/metrics.test.ts fails when it is stale).
//   node --import tsx scripts/metrics-doc.ts          rewrite the page
//   node --import tsx scripts/metrics-doc.ts --check  exit 1 if the page is stale
import * as fs from "node:fs";
import * as path from "node:path";
import { metricsMarkdown } from "../src/workload/metrics";

/** The page's path in the repository. */
export const METRICS_PAGE = path.join(__dirname, "..", "docs", "metrics.md");

if (require.main === module) {
  const page = metricsMarkdown();
  if (process.argv.includes("--check")) {
    const now = fs.existsSync(METRICS_PAGE) ? fs.readFileSync(METRICS_PAGE, "utf8") : "";
    if (now !== page) {
      console.error("docs/metrics.md is stale: run node --import tsx scripts/metrics-doc.ts");
      process.exit(1);
    }
  } else {
    fs.writeFileSync(METRICS_PAGE, page);
    console.log(`wrote ${path.relative(process.cwd(), METRICS_PAGE)}`);
  }
}
