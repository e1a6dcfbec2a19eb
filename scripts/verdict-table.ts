// The README's verdict table from a ledger: `npx schedlab reproduce --json > ledger.json`, then
// `node --import tsx scripts/verdict-table.ts ledger.json` (or pipe the ledger in).
import * as fs from "node:fs";
import { verdictTable } from "../src/reproduce/verdict_table";

const text = fs.readFileSync(process.argv[2] ?? 0, "utf8");
process.stdout.write(`${verdictTable(JSON.parse(text))}\n`);
