// The rt-app JSON workload description (scheduler-tools/rt-app, doc/tutorial.txt and
// src/rt-app_parse_config.c), as far as schedlab models it, in zod. Keys and defaults are rt-app's:
// an event is any key starting with an event name (obj_is_event's strncmp; workgen turns repeated
// "run" keys into "run0", "run1"...), so events are checked by prefix in a refinement.
import { z } from "zod";

/** Events schedlab runs, in rt-app's matching order (runtime before run). */
export const RT_APP_EVENTS = ["lock", "unlock", "sleep", "runtime", "run", "timer"] as const;
/** Events rt-app has that schedlab refuses (not modelled). */
const UNMODELLED_EVENTS = [
  "wait",
  "signal",
  "broad",
  "sync",
  "suspend",
  "resume",
  "memrun",
  "mem",
  "iorun",
  "yield",
  "barrier",
  "fork",
  "sem_post",
  "sem_wait",
];
/** rt-app's obj_is_event order: "unlock" and "lock" first, "runtime" before "run". */
const MATCH_ORDER = [
  "lock",
  "unlock",
  ...UNMODELLED_EVENTS.slice(0, 4),
  "sleep",
  "runtime",
  "run",
].concat(["timer"], UNMODELLED_EVENTS.slice(4));

export type RtAppEventType = (typeof RT_APP_EVENTS)[number];

/** The policies schedlab models (SCHED_DEADLINE is not). */
export const RT_APP_POLICIES = [
  "SCHED_OTHER",
  "SCHED_BATCH",
  "SCHED_IDLE",
  "SCHED_RR",
  "SCHED_FIFO",
] as const;

const usec = z.int("must be an integer (usec)").nonnegative("must be >= 0 (usec)");
const timerSchema = z.strictObject({
  ref: z.string().min(1, "must be a timer name"),
  period: z.int("must be an integer (usec)").positive("must be > 0 (usec)"),
  mode: z.enum(["relative", "absolute"]).optional(),
});
const eventValue: Record<RtAppEventType, z.ZodType> = {
  run: usec,
  runtime: usec,
  sleep: usec,
  timer: timerSchema,
  lock: z.string().min(1, "must be a mutex name"),
  unlock: z.string().min(1, "must be a mutex name"),
};

/** The event type a key names (rt-app's prefix rule), or null. */
export function eventTypeOf(key: string): string | null {
  return MATCH_ORDER.find((e) => key.startsWith(e)) ?? null;
}

const schedProps = {
  loop: z
    .int("must be an integer")
    .refine((v) => v === -1 || v >= 1, "must be -1 or >= 1")
    .optional(),
  policy: z.enum(RT_APP_POLICIES).optional(),
  priority: z.int("must be an integer").optional(),
  cpus: z.array(z.int().nonnegative()).min(1, "must list at least one CPU").optional(),
};
const PHASE_KEYS = Object.keys(schedProps);
const THREAD_KEYS = [...PHASE_KEYS, "instance", "delay", "phases"];

/** Checks every key of a thread or phase object: a known property or a modelled event. */
function eventsRefinement(known: readonly string[]) {
  return (obj: Record<string, unknown>, ctx: z.RefinementCtx) => {
    for (const [key, value] of Object.entries(obj)) {
      if (known.includes(key)) continue;
      const type = eventTypeOf(key);
      if (type === null) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `is neither a property (${known.join(", ")}) nor an event (${RT_APP_EVENTS.join(", ")}, each key starting with the event name)`,
        });
        continue;
      }
      if (!(RT_APP_EVENTS as readonly string[]).includes(type)) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `is a "${type}" event, which schedlab does not model (modelled: ${RT_APP_EVENTS.join(", ")})`,
        });
        continue;
      }
      const r = eventValue[type as RtAppEventType].safeParse(value);
      if (!r.success)
        for (const iss of r.error.issues)
          ctx.addIssue({ code: "custom", path: [key, ...iss.path], message: iss.message });
    }
  };
}

const phaseSchema = z.looseObject(schedProps).superRefine(eventsRefinement(PHASE_KEYS));

const threadSchema = z
  .looseObject({
    ...schedProps,
    instance: z.int("must be an integer").nonnegative("must be >= 0").optional(),
    delay: usec.optional(),
    phases: z.record(z.string(), phaseSchema).optional(),
  })
  .superRefine((t, ctx) => {
    const events = Object.keys(t).filter((k) => !THREAD_KEYS.includes(k));
    if (t.phases !== undefined && events.length > 0)
      ctx.addIssue({
        code: "custom",
        path: [events[0]],
        message: "is an event beside phases: put events in the phases, or drop phases",
      });
    if (t.phases !== undefined && Object.keys(t.phases).length === 0)
      ctx.addIssue({ code: "custom", path: ["phases"], message: "must hold at least one phase" });
    eventsRefinement(THREAD_KEYS)(t, ctx);
  });

const globalSchema = z.strictObject({
  duration: z
    .int("must be an integer (seconds)")
    .refine((v) => v === -1 || v > 0, "must be -1 or > 0")
    .optional(),
  calibration: z
    .union([z.string().regex(/^CPU\d+$/, 'must be "CPU<n>"'), z.int().positive()])
    .optional(),
  default_policy: z.enum(RT_APP_POLICIES).optional(),
  pi_enabled: z
    .boolean()
    .refine((v) => !v, "must be false (priority inheritance is not modelled)")
    .optional(),
  // logging and memory options: accepted, no effect on scheduling
  lock_pages: z.boolean().optional(),
  logdir: z.string().optional(),
  log_basename: z.string().optional(),
  log_size: z.union([z.string(), z.int()]).optional(),
  ftrace: z.union([z.string(), z.boolean()]).optional(),
  gnuplot: z.boolean().optional(),
  io_device: z.string().optional(),
  mem_buffer_size: z.int().optional(),
  cumulative_slack: z.boolean().optional(),
});

/** The zod schema of an rt-app JSON file (global, tasks; resources accepted and ignored). */
export const rtAppSchema = z.strictObject({
  global: globalSchema.optional(),
  tasks: z
    .record(z.string(), threadSchema)
    .refine((t) => Object.keys(t).length > 0, "must hold at least one task"),
  resources: z.unknown().optional(),
});

/** An rt-app JSON description. */
export type RtAppJson = z.infer<typeof rtAppSchema>;
