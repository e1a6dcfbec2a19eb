// meta.json of a recorded trace directory (`schedlab trace record`, data/traces/<name>/): what
// was run, on which kernel, with which clock and events, how long, how loaded the box was, and
// how many events the ring buffer lost. docs/file-formats.md is generated from this schema.
import * as fs from "node:fs";
import { z } from "zod";

/** The schema of a trace directory's meta.json. */
export const traceMetaSchema = z
  .strictObject({
    kernelRelease: z.string().min(1).describe("`uname -r` of the recording box"),
    command: z.array(z.string()).min(1).describe("the recorded command's argv"),
    pid: z
      .number()
      .int()
      .optional()
      .describe(
        "the command's pid (its tasks are it and what it forked: sched_process_fork); absent if it did not start",
      ),
    exitStatus: z
      .number()
      .int()
      .describe("the command's exit status (128 + the signal's number when a signal ended it)"),
    signal: z
      .string()
      .optional()
      .describe("the signal (SIGINT, SIGTERM) that stopped the recording, if one did"),
    traceClock: z.string().min(1).describe("tracefs's trace_clock during the recording"),
    nrCpus: z.number().int().positive().describe("online CPUs"),
    events: z.array(z.string()).min(1).describe("the sched events enabled"),
    bufferSizeKb: z.number().int().nonnegative().describe("the ring buffer's size per CPU, kB"),
    lostEvents: z
      .number()
      .int()
      .nonnegative()
      .describe(
        "events the ring buffer lost: the larger of the per-CPU overruns and the sum of [LOST N EVENTS] lines",
      ),
    lostByCpu: z
      .record(z.string(), z.number().int().nonnegative())
      .describe('per CPU, per_cpu/cpuN/stats "overrun:" + "dropped events:"'),
    durationS: z.number().nonnegative().describe("wall time from tracing on to the command's end"),
    loadavgStart: z.string().describe("/proc/loadavg just before the recording"),
    schedlab: z.string().min(1).describe("the schedlab version that recorded it"),
    date: z.string().min(10).describe("when the recording started (ISO 8601)"),
  })
  .describe(
    "What `schedlab trace record` ran and measured; beside it trace.txt (tracefs's trace file, " +
      "or trace.txt.gz) and machine.json (the box as `schedlab machine import` reads it)",
  );

/** A trace directory's meta.json. */
export type TraceMeta = z.infer<typeof traceMetaSchema>;

/** Reads and validates a meta.json; a bad field is an error naming it. */
export function readTraceMeta(file: string): TraceMeta {
  const r = traceMetaSchema.safeParse(JSON.parse(fs.readFileSync(file, "utf8")));
  if (!r.success)
    throw new Error(
      `${file}: ${r.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")}`,
    );
  return r.data;
}
