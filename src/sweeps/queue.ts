// A sweep's jobs through a BullMQ queue on Redis: the submitter enqueues the jobs the database
// lacks (the job id is the job's key, so a job already queued, running or finished by another
// submitter is not added twice), collects each result as a worker finishes it, and follows the
// cluster's progress. Workers (worker.ts) may run on any number of machines.
import type { Queue, QueueEvents } from "bullmq";
import type { IterationResult } from "../experiment/types";
import type { PoolTask } from "../reproduce/parallel";
import { describeIdentity, type Identity } from "./identity";
import type { PlannedJob, SweepPlan } from "./spec";
import { connectionOptions, redisClient, type RedisTarget } from "./redis";
import { describeJob, type ExecHooks } from "./exec";

/** The queue every sweep's jobs go through, and the prefix of its Redis keys. */
export const QUEUE_NAME = "sweep-jobs";
export const QUEUE_PREFIX = "schedlab";
/** The Redis hash where workers leave why they refused a job (field: the worker). */
export const REFUSALS_KEY = `${QUEUE_PREFIX}:refusals`;

/** A job as it travels through the queue. */
export interface QueuedJob {
  sweep: string;
  key: string;
  /** Who submitted it: a worker of another version or model refuses it. */
  submitter: Identity;
  /** The job in words, for logs and failure reports. */
  describe: string;
  task: PoolTask;
}

/** What a worker returns for a job. */
export interface QueuedResult {
  result: IterationResult;
  /** host:pid of the worker process. */
  worker: string;
  wallMs: number;
}

/** How long finished jobs stay in Redis: a submitter restarted within the hour collects them. */
const KEEP_COMPLETED_S = 3600;
const KEEP_FAILED_S = 7 * 24 * 3600;
/** Attempts of a job whose run throws (a run that stalls is retried by the stall check). */
export const JOB_ATTEMPTS = 2;

/** The queue entry of a planned job. */
export function queuedJob(plan: SweepPlan, job: PlannedJob, submitter = plan.identity): QueuedJob {
  return {
    sweep: plan.id,
    key: job.key,
    submitter,
    describe: describeJob(plan.experiment, job),
    task: job.task,
  };
}

/** Adds queue entries (ids are the job keys; an id already in the queue is left as it is). */
export async function enqueue(queue: Queue, entries: QueuedJob[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 500)
    await queue.addBulk(
      entries.slice(i, i + 500).map((data) => ({
        name: "run",
        data,
        opts: {
          jobId: data.key,
          attempts: JOB_ATTEMPTS,
          removeOnComplete: { age: KEEP_COMPLETED_S },
          removeOnFail: { age: KEEP_FAILED_S },
        },
      })),
    );
}

/** Opens the sweep queue on `target`. */
export function openQueue(target: RedisTarget): Queue {
  const { Queue } = require("bullmq") as typeof import("bullmq");
  return new Queue(QUEUE_NAME, { connection: connectionOptions(target), prefix: QUEUE_PREFIX });
}

/**
 * Runs `jobs` through the queue on `target` and collects their results; resolves when every one
 * finished or failed for good, or when aborted (then the jobs still waiting are taken back; the
 * running ones finish on their workers and stay in Redis for an hour, for the next run).
 */
export async function runOnQueue(
  plan: SweepPlan,
  jobs: readonly PlannedJob[],
  target: RedisTarget,
  hooks: ExecHooks,
  pollMs = 2000,
): Promise<void> {
  const { QueueEvents } = require("bullmq") as typeof import("bullmq");
  const queue = openQueue(target);
  const events: QueueEvents = new QueueEvents(QUEUE_NAME, {
    connection: connectionOptions(target),
    prefix: QUEUE_PREFIX,
  });
  const byKey = new Map(jobs.map((j) => [j.key, j]));
  const pending = new Set(byKey.keys());
  const running = new Set<string>();
  const seenRefusals = new Set<string>();
  let settle!: () => void;
  const settled = new Promise<void>((r) => {
    settle = r;
  });
  if (!pending.size) settle();
  hooks.signal?.addEventListener("abort", () => settle(), { once: true });
  const busy = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    const q = p.then(
      () => {},
      (err: Error) => hooks.note(`queue: ${err.message}`),
    );
    busy.add(q);
    void q.then(() => busy.delete(q));
  };
  let fatal: Error | null = null;
  const finish = (key: string, write: () => Promise<void>) => {
    if (!pending.delete(key) || hooks.signal?.aborted) return;
    running.delete(key);
    track(
      write().then(
        () => {
          hooks.onRunning(running.size);
          if (!pending.size) settle();
        },
        (err: Error) => {
          // the database refused a write: stop the sweep (what was written stays)
          fatal ??= err;
          settle();
        },
      ),
    );
  };
  const failed = (key: string, reason: string, attempts: number) =>
    finish(key, () => hooks.onFailure(byKey.get(key)!, reason, attempts));
  /** Writes a finished job's result; one read before the job completed is read again. */
  const collect = async (key: string, rv: unknown) => {
    let r = (typeof rv === "string" ? JSON.parse(rv) : rv) as QueuedResult | null | undefined;
    if (!r?.result) r = (await queue.getJob(key))?.returnvalue as QueuedResult | undefined;
    if (!r?.result) return; // not there yet: the next poll comes back to it
    const { result, worker, wallMs } = r;
    finish(key, () => hooks.onResult(byKey.get(key)!, JSON.stringify(result), { worker, wallMs }));
  };
  /** Reads a job's state and acts on it: collects it, fails it, counts it as running. */
  const reconcile = async (key: string) => {
    // the state first, then the job: a job read before it finished has no result yet
    const state = await queue.getJobState(key);
    if (state === "unknown") return false;
    if (state === "completed") await collect(key, undefined);
    else if (state === "failed") {
      const j = await queue.getJob(key);
      if (j) failed(key, j.failedReason, j.attemptsMade);
    } else if (state === "active") running.add(key);
    else running.delete(key);
    return true;
  };
  events.on("active", ({ jobId }) => {
    if (pending.has(jobId)) running.add(jobId);
    hooks.onRunning(running.size);
  });
  events.on("completed", ({ jobId, returnvalue }) => {
    if (pending.has(jobId)) track(collect(jobId, returnvalue));
  });
  events.on("failed", ({ jobId }) => {
    if (pending.has(jobId)) track(reconcile(jobId));
  });
  events.on("stalled", ({ jobId }) => {
    if (!pending.has(jobId)) return;
    running.delete(jobId);
    hooks.note(
      `job ${jobId} (${queuedJob(plan, byKey.get(jobId)!).describe}) stalled: its worker stopped renewing its lock; it is retried`,
    );
  });
  events.on("waiting", ({ jobId }) => {
    if (running.delete(jobId)) hooks.onRunning(running.size);
  });
  const client = redisClient(target);
  const refusals = async () => {
    const all = await client.hgetall(REFUSALS_KEY);
    const me = describeIdentity(plan.identity);
    for (const [worker, msg] of Object.entries(all))
      if (msg.includes(me) && !seenRefusals.has(`${worker} ${msg}`)) {
        seenRefusals.add(`${worker} ${msg}`);
        hooks.note(`worker ${worker} ${msg}`);
      }
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    await events.waitUntilReady();
    // jobs already in the queue (a previous run of this sweep, another submitter) are followed,
    // failed ones retried; the others are added
    const fresh: QueuedJob[] = [];
    for (let i = 0; i < jobs.length && !hooks.signal?.aborted; i += 200) {
      const batch = jobs.slice(i, i + 200);
      const found = await Promise.all(batch.map((j) => queue.getJob(j.key)));
      for (let n = 0; n < batch.length; n++) {
        const j = found[n];
        if (!j) fresh.push(queuedJob(plan, batch[n]));
        else if ((await j.getState()) === "failed") await j.retry("failed");
        else await reconcile(batch[n].key);
      }
    }
    await enqueue(queue, fresh);
    hooks.onRunning(running.size);
    // the events carry results as they come; a poll catches what an event missed
    const poll = async () => {
      if (!pending.size || hooks.signal?.aborted) return;
      const keys = [...pending];
      for (let i = 0; i < keys.length; i += 200) {
        const batch = keys.slice(i, i + 200);
        const there = await Promise.all(batch.map((k) => reconcile(k)));
        // a job that vanished (Redis flushed, removed by hand) is queued again
        const lost = batch.filter((k, n) => !there[n] && pending.has(k));
        if (lost.length)
          await enqueue(
            queue,
            lost.map((k) => queuedJob(plan, byKey.get(k)!)),
          );
      }
      await refusals();
      hooks.onRunning(running.size);
    };
    const loop = async () => {
      try {
        await poll();
      } catch (err) {
        hooks.note(`queue poll failed: ${(err as Error).message}`);
      }
      if (pending.size && !hooks.signal?.aborted) timer = setTimeout(loop, pollMs);
    };
    timer = setTimeout(loop, pollMs);
    await settled;
    clearTimeout(timer);
    while (busy.size) await Promise.allSettled([...busy]);
    if (fatal) throw fatal;
    if (hooks.signal?.aborted) {
      // take back the jobs no worker has started
      for (const key of pending) {
        const j = await queue.getJob(key);
        if (j && ["waiting", "prioritized", "delayed"].includes(await j.getState()))
          await j.remove().catch(() => {});
      }
    }
  } finally {
    clearTimeout(timer);
    client.disconnect();
    await events.close();
    await queue.close();
  }
}
