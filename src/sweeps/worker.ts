// `schedlab worker --queue redis://HOST:PORT`: takes sweep jobs from the queue and runs each on a
// worker thread, so this thread stays free to renew the job locks (a worker that dies stops
// renewing them, and another worker's stall check puts its jobs back in the queue). A job from
// a submitter of another schedlab version or model is put back untouched and this worker stops,
// naming both, since its numbers would not be the submitter's.
import * as os from "node:os";
import { performance } from "node:perf_hooks";
import type { Job, Worker } from "bullmq";
import { ReproductionPool } from "../reproduce/parallel";
import { describeIdentity, identity } from "./identity";
import { checkRedis, connectionOptions, redisClient, type RedisTarget } from "./redis";
import { QUEUE_NAME, QUEUE_PREFIX, REFUSALS_KEY, type QueuedJob, type QueuedResult } from "./queue";

/** Options of runQueueWorker. */
export interface QueueWorkerOptions {
  /** Jobs run at once, each on its own thread (default 1). */
  concurrency?: number;
  /**
   * Seconds a job's lock lasts without renewal: a job whose worker died is retried this long
   * (up to twice this long) after (default 30).
   */
  stallTimeout?: number;
  /** Where the worker's lines go (default: stderr). */
  log?: (line: string) => void;
  /** Stops the worker: the jobs it is running finish first. */
  signal?: AbortSignal;
}

/** Exit status of a worker that refused a job of another version or model. */
export const REFUSED_STATUS = 3;

/**
 * Serves the sweep queue on `target` until `signal` (0) or until it refuses a job of another
 * schedlab version or model (REFUSED_STATUS).
 */
export async function runQueueWorker(
  target: RedisTarget,
  opts: QueueWorkerOptions = {},
): Promise<number> {
  const concurrency = opts.concurrency ?? 1;
  const stall = opts.stallTimeout ?? 30;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error(`--concurrency must be a positive integer (got ${concurrency})`);
  if (!(stall > 0)) throw new Error(`--stall-timeout must be a positive number (got ${stall})`);
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  await checkRedis(target);
  const { Worker, WaitingError } = require("bullmq") as typeof import("bullmq");
  const me = identity();
  const name = `${os.hostname()}:${process.pid}`;
  const pool = new ReproductionPool(concurrency);
  const client = redisClient(target);
  let refused = false;
  let stop!: () => void;
  const stopped = new Promise<void>((r) => {
    stop = r;
  });
  const onAbort = () => stop();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) stop();

  await pool.warm();
  const processor = async (job: Job<QueuedJob>, token?: string): Promise<QueuedResult> => {
    const d = job.data;
    if (d.submitter.version !== me.version || d.submitter.model !== me.model) {
      const msg = `refused job ${d.key} (${d.describe}): it was submitted by ${describeIdentity(d.submitter)} and this worker runs ${describeIdentity(me)}; run the same schedlab on every machine`;
      if (!refused) {
        refused = true;
        void worker.pause(true);
        log(`[worker ${name}] ${msg}`);
        await client.hset(REFUSALS_KEY, name, msg).catch(() => {});
        await client.expire(REFUSALS_KEY, 24 * 3600).catch(() => {});
        stop();
      }
      await job.moveToWait(token);
      throw new WaitingError();
    }
    log(`[worker ${name}] start ${d.key} ${d.describe}`);
    const t0 = performance.now();
    const result = await pool.runTask(d.task);
    const wallMs = performance.now() - t0;
    log(`[worker ${name}] done ${d.key} in ${(wallMs / 1000).toFixed(2)} s`);
    return { result, worker: name, wallMs };
  };
  const worker: Worker<QueuedJob, QueuedResult> = new Worker(QUEUE_NAME, processor, {
    connection: connectionOptions(target),
    prefix: QUEUE_PREFIX,
    concurrency,
    lockDuration: stall * 1000,
    stalledInterval: stall * 1000,
    maxStalledCount: 1,
  });
  worker.on("error", (err) => log(`[worker ${name}] ${err.message}`));
  worker.on("failed", (job, err) => {
    if (job && !(err instanceof WaitingError))
      log(`[worker ${name}] failed ${job.id} (attempt ${job.attemptsMade}): ${err.message}`);
  });
  log(
    `[worker ${name}] ${describeIdentity(me)} serving ${target.display} with ${concurrency} thread${concurrency > 1 ? "s" : ""}`,
  );
  try {
    await stopped;
    await worker.close();
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    client.disconnect();
    await pool.close();
  }
  return refused ? REFUSED_STATUS : 0;
}
