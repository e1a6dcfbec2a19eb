// The schema of a machine file (data/machines/<name>.json), in zod: the loader validates every
// file with it, and scripts/file-formats.ts writes docs/file-formats.md from it, so the checks
// and the documentation cannot drift apart. Cost figure names come from the builder's list, so
// a figure added there is required here too.
import { z } from "zod";
import { LEVEL_COSTS, LLC_SPANS, NUMBERINGS, SCALAR_COSTS } from "./builder";
import { ARCHS, SHARE_LEVELS } from "./types";

const SOURCE_MESSAGE = 'must be a non-empty citation or "choice: ..."';

/** A figure with its source: a citation, or "choice: ..." / "estimate: ..." saying why. */
export function sourcedSchema<T extends z.ZodType>(value: T) {
  return z.strictObject({
    value,
    source: z
      .string({ error: SOURCE_MESSAGE })
      .refine((s) => s.trim().length > 0, { message: SOURCE_MESSAGE })
      .describe("a primary source, or choice: / estimate: with the reasoning"),
  });
}

const finite = z.number({ error: "must be a finite number" }).finite("must be a finite number");
const sourcedNumber = sourcedSchema(finite);
const positiveInt = z.int("must be a positive integer").positive("must be a positive integer");

/** A lognormal exit time as a machine file gives it: median (ns) and log-sd, each sourced. */
const exitTimeDraw = z.strictObject({
  medianNs: sourcedNumber.describe("the median exit time, ns"),
  logSd: sourcedNumber.describe("the standard deviation of the exit time's natural log"),
});

const levelTable = z
  .strictObject(
    Object.fromEntries(SHARE_LEVELS.map((l) => [l, sourcedNumber])) as Record<
      (typeof SHARE_LEVELS)[number],
      typeof sourcedNumber
    >,
  )
  .describe(`one sourced figure per share level: ${SHARE_LEVELS.join(", ")}`);

const costs = z
  .strictObject({
    ...(Object.fromEntries(SCALAR_COSTS.map((k) => [k, sourcedNumber])) as Record<
      (typeof SCALAR_COSTS)[number],
      typeof sourcedNumber
    >),
    ...(Object.fromEntries(LEVEL_COSTS.map((k) => [k, levelTable])) as Record<
      (typeof LEVEL_COSTS)[number],
      typeof levelTable
    >),
  })
  .describe("every cost figure of the machine, each with its source (docs/cost-model.md)");

/** The zod schema of a machine file. */
export const machineSpecSchema = z
  .strictObject({
    name: z.string().min(1).describe("the preset name; must equal the file name"),
    description: z.string().describe("what the machine is, in a sentence or two"),
    topology: z
      .strictObject({
        sockets: positiveInt.describe("packages"),
        diesPerSocket: positiveInt.optional().describe("dies per package (default 1)"),
        coresPerSocket: positiveInt.describe("cores per package"),
        threadsPerCore: positiveInt.optional().describe("SMT threads per core (default 1)"),
        l2SharedBy: positiveInt.optional().describe("cores sharing one L2 (default 1)"),
        llc: z.enum(LLC_SPANS as [string, ...string[]]).describe("what one LLC spans"),
        nodes: positiveInt.optional().describe("NUMA nodes (default 1)"),
        numbering: z
          .enum(NUMBERINGS as [string, ...string[]])
          .optional()
          .describe("Linux CPU numbering (default thread-major)"),
        arch: z
          .enum(ARCHS as [string, ...string[]])
          .optional()
          .describe(
            "the architecture (default x86_64): arch-specific kernel code such as the rq spinlock kind",
          ),
        capacity: positiveInt.optional().describe("CPU capacity, SCHED_CAPACITY_SCALE units"),
        capacities: z
          .array(positiveInt)
          .optional()
          .describe(
            "per-CPU capacity in Linux CPU numbering (asymmetric machines; sysfs cpu_capacity); overrides capacity",
          ),
        source: z
          .string()
          .refine((s) => s.trim().length > 0, { message: "must be a non-empty string" })
          .describe("where the topology comes from"),
      })
      .describe("the machine's shape"),
    nodeDistance: sourcedSchema(z.array(z.array(finite)))
      .optional()
      .describe("the SLIT node distance table (default: 10 local, 21 remote)"),
    caches: z
      .strictObject({ l2Bytes: sourcedNumber, llcBytes: sourcedNumber })
      .describe("cache sizes in bytes"),
    bandwidth: z
      .strictObject({
        nodeBytesPerNs: sourcedNumber,
        llcBytesPerNs: sourcedNumber.optional(),
        interconnectBytesPerNs: sourcedNumber.optional(),
      })
      .optional()
      .describe(
        "sustained bandwidth (bytes/ns) of one memory controller (write-allocate reads included), of one LLC, all its CPUs together, and of the links between two nodes; absent: docs/cost-model.md's stand-ins",
      ),
    costs,
    idleStates: z
      .array(
        z.strictObject({
          name: z.string().min(1),
          polling: z
            .union([z.boolean(), sourcedSchema(z.boolean())])
            .describe("TIF_POLLING_NRFLAG while in the state (a woken CPU needs no IPI)"),
          exitLatencyNs: sourcedNumber,
          targetResidencyNs: sourcedNumber,
          coreExitLatencyNs: sourcedNumber
            .optional()
            .describe(
              "measured exit of the core state alone (the table figure is the package state's worst case)",
            ),
          packageScope: sourcedSchema(z.enum(["package", "system"]))
            .optional()
            .describe(
              "CPUs that must all be idle for the package state (with coreExitLatencyNs or exitDraw)",
            ),
          exitDraw: z
            .strictObject({
              core: exitTimeDraw.describe("the core state's exit while the package is awake"),
              packageExtra: exitTimeDraw.describe(
                "what a wakeup adds when it must first wake the package from its package state",
              ),
            })
            .optional()
            .describe(
              "exit times drawn per exit (lognormal), where the table figure is a package state's worst case; instead of coreExitLatencyNs",
            ),
          haltPoll: z
            .strictObject({ pollNs: sourcedNumber, exitNs: sourcedNumber })
            .optional()
            .describe(
              "a virtual CPU's halt: after more than pollNs of halt (the host's halt polling window) a wakeup pays exitNs instead of exitLatencyNs",
            ),
        }),
      )
      .describe("cpuidle states, shallow to deep"),
  })
  .describe("A modelled machine: topology, caches, costs and idle states, every figure sourced");

/** The JSON form of a machine (data/machines/<name>.json). */
export type MachineSpec = z.infer<typeof machineSpecSchema>;

/** A figure and its source, as machine files hold them. */
export interface Sourced<T> {
  value: T;
  /** A citation, or "choice: ..." saying why the figure was chosen. */
  source: string;
}

/**
 * Validates `raw` against `schema`; on failure throws one error listing every problem as
 * `<where>: <field path> <message> (got <value>)`.
 */
export function parseWith<T extends z.ZodType>(schema: T, raw: unknown, where: string): z.infer<T> {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const lines = r.error.issues.slice(0, 8).map((iss) => {
    const field = iss.path.map(String).join(".") || "(the file)";
    const got = valueAt(raw, iss.path);
    let msg = iss.message;
    if (iss.code === "unrecognized_keys") msg = `has unknown field(s) ${iss.keys.join(", ")}`;
    if (iss.code === "invalid_value") msg = `must be one of ${iss.values.join(", ")}`;
    const shown = got === undefined ? "missing" : `got ${JSON.stringify(got)?.slice(0, 80)}`;
    return `${where}: ${field} ${msg} (${shown})`;
  });
  const more = r.error.issues.length > 8 ? `\n... and ${r.error.issues.length - 8} more` : "";
  throw new Error(lines.join("\n") + more);
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}
