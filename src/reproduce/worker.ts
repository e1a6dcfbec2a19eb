// A worker thread of a ReproductionPool: runs the (variant, iteration) jobs it is sent and posts
// each IterationResult back. Reproductions are rebuilt here by id: experiments hold closures
// (workload programs, hook replacements) that cannot cross threads. `<id>@today` is a
// reproduction's today run (today.ts).
import { parentPort } from "node:worker_threads";
import "../index";
import { experimentById } from "./today";
import type { Experiment } from "../experiment/experiment";
import type { WorkerJob, WorkerReply } from "./parallel";

const experiments = new Map<string, Experiment>();

parentPort!.on("message", ({ id, opts, job }: WorkerJob) => {
  let reply: WorkerReply;
  try {
    let exp = experiments.get(id);
    if (!exp) {
      exp = experimentById(id);
      experiments.set(id, exp);
    }
    reply = { type: "result", result: exp.runJob(opts, job) };
  } catch (err) {
    reply = { type: "error", message: err instanceof Error ? err.message : String(err), job };
  }
  parentPort!.postMessage(reply);
});
