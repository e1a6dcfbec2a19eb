// A worker thread of a ReproductionPool: runs the (variant, iteration) jobs it is sent and posts
// each IterationResult back. Reproductions are rebuilt here by id: experiments hold closures
// (workload programs, hook replacements) that cannot cross threads. `<id>@today` is a
// reproduction's today run (today.ts), `<id>|<values>` a point of a sweep, and a JSON object one
// job of a sweep spec (sweep_job.ts).
import { parentPort } from "node:worker_threads";
import "../index";
import { experimentById } from "./today";
import type { Experiment } from "../experiment/experiment";
import type { WorkerJob, WorkerReply } from "./parallel";

/** Experiments built so far, newest last; a sweep sends one per point, so only the last few stay. */
const experiments = new Map<string, Experiment>();
const KEEP = 64;

parentPort!.on("message", (m: WorkerJob | { ping: true }) => {
  if ("ping" in m) return parentPort!.postMessage({ type: "pong" } satisfies WorkerReply);
  const { id, opts, job } = m;
  let reply: WorkerReply;
  try {
    let exp = experiments.get(id);
    if (!exp) {
      exp = experimentById(id);
      if (experiments.size >= KEEP) experiments.delete(experiments.keys().next().value!);
      experiments.set(id, exp);
    }
    reply = { type: "result", result: exp.runJob(opts, job) };
  } catch (err) {
    reply = { type: "error", message: err instanceof Error ? err.message : String(err), job };
  }
  parentPort!.postMessage(reply);
});
