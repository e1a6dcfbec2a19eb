// Declared unknowns: a figure no source gives (a machine cost, a workload rate, a tunable, which
// machine or era it was), stated with the range a source supports, a default, and how a value
// enters an experiment. Experiments declare them (Experiment.unknowns), sweeps walk their ranges,
// calibration fits them on published figures named in advance and freezes the values.
//
// Generic in the experiment type E, so this module does not import experiment.ts (which imports
// it); `unknown()` in experiment.ts fixes E to Experiment.

/** The value of an unknown: a number in its range, or one of its choices. */
export type UnknownValue = number | string;

/** How an unknown is declared: `unknown(name, options)`. */
export interface UnknownOptions<E> {
  /** The range [low, high] a source supports (numeric unknowns). */
  range?: readonly [number, number];
  /** The alternatives a source leaves open (a choice between machines, eras, placements). */
  choices?: readonly string[];
  /** The value used when nothing is assumed or calibrated: the best-supported one. */
  default: UnknownValue;
  /** Where the range (or the choices) and the default come from: vendor table, paper, commit. */
  source: string;
  /**
   * The unit of a numeric unknown ("ns", "us", "ms", "s", "GB/s", "MB/s", "Hz", "/s", "share",
   * "x", "count"); "choice" for a choice. It sets the physical limits unless `limits` is given.
   */
  unit: string;
  /** Physical limits of the quantity; the range must lie inside them (default: from the unit). */
  limits?: readonly [number, number];
  /** Whole numbers only (counts, levels). */
  integer?: boolean;
  /** What the unknown is, in one line (shown by listings and plots). */
  description?: string;
  /**
   * How a value enters the experiment: returns the experiment with it applied (a cost, a
   * workload parameter, a tunable, another machine or era).
   */
  apply: (exp: E, value: UnknownValue) => E;
}

/** A declared unknown (made by `unknown()`, frozen). */
export interface Unknown<E = unknown>
  extends Readonly<Omit<UnknownOptions<E>, "range" | "choices" | "limits">> {
  readonly name: string;
  readonly kind: "numeric" | "choice";
  readonly range?: readonly [number, number];
  readonly choices?: readonly string[];
  readonly limits?: readonly [number, number];
}

/** Physical limits per unit: times, rates and sizes are never negative, shares lie in [0, 1]. */
const UNIT_LIMITS: Record<string, readonly [number, number]> = {
  ns: [0, Infinity],
  us: [0, Infinity],
  ms: [0, Infinity],
  s: [0, Infinity],
  "GB/s": [0, Infinity],
  "MB/s": [0, Infinity],
  Hz: [0, Infinity],
  "/s": [0, Infinity],
  bytes: [0, Infinity],
  count: [0, Infinity],
  x: [0, Infinity],
  share: [0, 1],
};

/** The units unknown() knows the physical limits of (others need `limits`). */
export const UNKNOWN_UNITS: readonly string[] = [...Object.keys(UNIT_LIMITS), "choice"];

const NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/** Declares an unknown after checking every field (see `unknown()` in the public API). */
export function declareUnknown<E>(name: string, opts: UnknownOptions<E>): Unknown<E> {
  const where = `unknown(${JSON.stringify(name)})`;
  if (typeof name !== "string" || !NAME.test(name))
    throw new Error(
      `unknown: name must start with a letter and hold letters, digits, _ . - (got ${JSON.stringify(name)})`,
    );
  if (!opts || typeof opts !== "object") throw new Error(`${where}: options are required`);
  if (typeof opts.source !== "string" || opts.source.trim().length < 3)
    throw new Error(
      `${where}: source is required: where the range and default come from (vendor table, paper, commit, or "choice: <reason>")`,
    );
  if (typeof opts.apply !== "function")
    throw new Error(`${where}: apply must be a function (exp, value) => Experiment`);
  const hasRange = opts.range !== undefined;
  const hasChoices = opts.choices !== undefined;
  if (hasRange === hasChoices)
    throw new Error(
      `${where}: give exactly one of range ([low, high], a numeric unknown) or choices (a list of names)`,
    );
  if (hasChoices) {
    const cs = opts.choices!;
    if (!Array.isArray(cs) || cs.length < 2 || cs.some((c) => typeof c !== "string" || !c))
      throw new Error(`${where}: choices must be two or more non-empty strings`);
    if (new Set(cs).size !== cs.length) throw new Error(`${where}: choices must be distinct`);
    if (typeof opts.default !== "string" || !cs.includes(opts.default))
      throw new Error(
        `${where}: default must be one of the choices (${cs.join(", ")}); got ${JSON.stringify(opts.default)}`,
      );
    return Object.freeze({
      ...opts,
      name,
      kind: "choice" as const,
      unit: "choice",
      choices: Object.freeze([...cs]),
    });
  }
  const r = opts.range!;
  if (
    !Array.isArray(r) ||
    r.length !== 2 ||
    !r.every((x) => typeof x === "number" && Number.isFinite(x)) ||
    !(r[0] < r[1])
  )
    throw new Error(
      `${where}: range must be [low, high], two finite numbers with low < high (got ${JSON.stringify(r)})`,
    );
  const limits = opts.limits ?? UNIT_LIMITS[opts.unit];
  if (!limits)
    throw new Error(
      `${where}: unit ${JSON.stringify(opts.unit)} has no known physical limits; give limits: [low, high] (units with limits: ${Object.keys(UNIT_LIMITS).join(", ")})`,
    );
  if (r[0] < limits[0] || r[1] > limits[1])
    throw new Error(
      `${where}: range [${r[0]}, ${r[1]}] lies outside the physical limits of ${opts.unit} [${limits[0]}, ${limits[1]}]`,
    );
  if (typeof opts.default !== "number" || opts.default < r[0] || opts.default > r[1])
    throw new Error(
      `${where}: default must be a number in the range [${r[0]}, ${r[1]}] (got ${JSON.stringify(opts.default)})`,
    );
  if (opts.integer && !(Number.isInteger(r[0]) && Number.isInteger(r[1])))
    throw new Error(`${where}: an integer unknown needs a range of whole numbers`);
  if (opts.integer && !Number.isInteger(opts.default))
    throw new Error(`${where}: default must be a whole number (integer unknown)`);
  return Object.freeze({
    ...opts,
    name,
    kind: "numeric" as const,
    range: Object.freeze([r[0], r[1]] as [number, number]),
    limits: Object.freeze([limits[0], limits[1]] as [number, number]),
  });
}

/** Refuses a value outside the unknown's range or choices, naming the unknown and what it takes. */
export function checkUnknownValue<E>(
  u: Unknown<E>,
  v: UnknownValue,
  field = "value",
): UnknownValue {
  if (u.kind === "choice") {
    if (typeof v !== "string" || !u.choices!.includes(v))
      throw new Error(
        `unknown ${u.name}: ${field} must be one of ${u.choices!.join(", ")} (got ${JSON.stringify(v)})`,
      );
    return v;
  }
  const [lo, hi] = u.range!;
  if (typeof v !== "number" || !Number.isFinite(v) || v < lo || v > hi)
    throw new Error(
      `unknown ${u.name}: ${field} must be a number in its range [${lo}, ${hi}] ${u.unit} (got ${JSON.stringify(v)})`,
    );
  if (u.integer && !Number.isInteger(v))
    throw new Error(`unknown ${u.name}: ${field} must be a whole number (got ${v})`);
  return v;
}

/** An unknown as plain data (for specs, ledgers and listings): everything but apply. */
export interface UnknownInfo {
  name: string;
  kind: "numeric" | "choice";
  unit: string;
  range?: [number, number];
  choices?: string[];
  default: UnknownValue;
  source: string;
  description?: string;
}

/** The plain-data description of an unknown. */
export function unknownInfo<E>(u: Unknown<E>): UnknownInfo {
  return {
    name: u.name,
    kind: u.kind,
    unit: u.unit,
    ...(u.range ? { range: [u.range[0], u.range[1]] as [number, number] } : {}),
    ...(u.choices ? { choices: [...u.choices] } : {}),
    default: u.default,
    source: u.source,
    ...(u.description ? { description: u.description } : {}),
  };
}

/**
 * `n` values spread evenly over a numeric unknown's range (ends included; whole numbers for an
 * integer unknown), or every choice of a choice.
 */
export function spanOf<E>(u: Unknown<E>, n = 5): UnknownValue[] {
  if (u.kind === "choice") return [...u.choices!];
  if (!Number.isInteger(n) || n < 2)
    throw new Error(`spanOf: n must be an integer >= 2 (got ${n})`);
  const [lo, hi] = u.range!;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = lo + ((hi - lo) * i) / (n - 1);
    out.push(u.integer ? Math.round(v) : +v.toPrecision(12));
  }
  return [...new Set(out)];
}
