// `npm run fuzz -- [--runs N] [--seed S] [--json]`: random machines, eras, workloads, hotplug and
// patches (test/support/fuzz.ts) with the invariant checker on. Runs in batches of 100 cases, each
// batch with its own seed, so one failure does not end the search; each failure is shrunk by
// fast-check and printed with the seed that finds it again. Prints {"runs":N,"failures":[...]}.
import fc from "fast-check";
import { checkCase, fuzzCase } from "../test/support/fuzz";

interface Failure {
  seed: number;
  error: string;
  counterexample: unknown;
}

function parse(argv: string[]): { runs: number; seed: number; json: boolean } {
  const out = { runs: 1000, seed: 1, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") out.json = true;
    else if (a === "--runs" || a === "--seed") {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < (a === "--runs" ? 1 : 0))
        throw new Error(
          `${a} must be a ${a === "--runs" ? "positive" : "non-negative"} integer (got ${argv[i]})`,
        );
      if (a === "--runs") out.runs = v;
      else out.seed = v;
    } else throw new Error(`unknown option ${a} (accepted: --runs N, --seed S, --json)`);
  }
  return out;
}

function main(): number {
  const o = parse(process.argv.slice(2));
  const failures: Failure[] = [];
  const batch = 100;
  let done = 0;
  for (let b = 0; done < o.runs; b++) {
    const n = Math.min(batch, o.runs - done);
    const seed = o.seed + b;
    const details = fc.check(fc.property(fuzzCase, checkCase), { numRuns: n, seed });
    done += details.numRuns;
    if (details.failed) {
      const error =
        details.errorInstance instanceof Error
          ? details.errorInstance.message
          : String(details.errorInstance);
      if (!failures.some((f) => f.error === error))
        failures.push({ seed, error, counterexample: details.counterexample?.[0] });
      // the batch stopped at its failure: count the cases it did not run as not run
      if (details.numRuns < n) continue;
    }
    if (!o.json)
      process.stderr.write(`\r${done}/${o.runs} cases, ${failures.length} distinct failures`);
  }
  if (!o.json) process.stderr.write("\n");
  process.stdout.write(`${JSON.stringify({ runs: done, failures }, null, o.json ? 0 : 2)}\n`);
  return failures.length ? 1 : 0;
}

process.exitCode = main();
