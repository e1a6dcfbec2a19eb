// A worker thread that runs some (variant, iteration) jobs of a named reproduction and posts
// each IterationResult back. Reproductions are rebuilt here by id: experiments hold closures
// (workload programs, hook replacements) that cannot cross threads.
import { parentPort, workerData } from "node:worker_threads";
import "../index";
import { reproduction } from "./registry";
import type { IterationJob, RunOptions } from "../experiment/experiment";

interface WorkerInput {
  id: string;
  opts: Pick<RunOptions, "iterations" | "duration" | "warmup" | "seed" | "trace">;
  jobs: IterationJob[];
}

const { id, opts, jobs } = workerData as WorkerInput;
const exp = reproduction(id).experiment();
try {
  for (const job of jobs)
    parentPort!.postMessage({ type: "result", result: exp.runJob(opts, job) });
  parentPort!.postMessage({ type: "done" });
} catch (err) {
  parentPort!.postMessage({
    type: "error",
    message: err instanceof Error ? err.message : String(err),
  });
}
