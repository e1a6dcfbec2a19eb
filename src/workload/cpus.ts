// `cpus`: the CPU list every workload factory takes, as the real tools are run under
// `taskset -c LIST` or `numactl -C LIST`: every task of the benchmark, and every task it forks,
// may run only there (a child inherits its parent's affinity, kernel/fork.c dup_task_struct), and
// the benchmark sees only those CPUs (what nproc / sched_getaffinity report).
import { fork, OP_FORK, type ForkSpec, type Op, type Program } from "../kernel/ops";
import { formatCpuList, parseCpuList } from "../machine/sysfs";
import type { SpawnSpec } from "../kernel/core/core";
import type { Workload, WorkloadContext } from "./workload";

/** The option every workload factory takes. */
export interface CpusOption {
  /**
   * Run the whole benchmark on these CPUs, as `taskset -c LIST` would: a kernel cpulist string
   * ("0,16,32-47") or an array of CPU ids. Tasks the benchmark pins elsewhere are refused; tasks
   * it forks inherit the list. Default: every CPU.
   */
  cpus?: string | number[];
}

/** The CPU ids of a `cpus` option; throws naming `where` and the accepted form. */
export function parseCpusOption(where: string, cpus: unknown): number[] {
  let list: number[];
  if (typeof cpus === "string") list = parseCpuList(cpus, `${where}: cpus`);
  else if (Array.isArray(cpus) && cpus.every((c) => Number.isInteger(c) && c >= 0)) list = cpus;
  else
    throw new Error(
      `${where}: cpus must be a CPU list like "0,16,32-47" or an array of CPU ids (got ${JSON.stringify(cpus)})`,
    );
  if (list.length === 0)
    throw new Error(`${where}: cpus must name at least one CPU (got ${JSON.stringify(cpus)})`);
  return [...new Set(list)].sort((a, b) => a - b);
}

/** `allowed` within the list (all of it when the task had no affinity of its own). */
function within(where: string, comm: string, allowed: number[] | undefined, list: number[]) {
  const out = allowed ? allowed.filter((c) => list.includes(c)) : [...list];
  if (out.length === 0)
    throw new Error(
      `${where}: cpus ${formatCpuList(list)} leaves ${comm} no CPU (it is bound to ${formatCpuList(allowed ?? [])})`,
    );
  return out;
}

/** The program with each fork's child kept within the list (and its own program wrapped too). */
function restrictForks(where: string, program: Program, list: number[]): Program {
  return function* (api) {
    const it = program(api);
    let r = it.next();
    while (!r.done) {
      let op: Op = r.value;
      if (op.kind === OP_FORK && op.child) op = fork(childWithin(where, op.child, list));
      r = it.next(yield op);
    }
  };
}

function childWithin(where: string, child: ForkSpec, list: number[]): ForkSpec {
  const cpus = within(where, child.comm, child.cpus, list);
  const cpu = child.cpu !== undefined && cpus.includes(child.cpu) ? child.cpu : undefined;
  return { ...child, cpus, cpu, program: restrictForks(where, child.program, list) };
}

/**
 * `w` run within `cpus` (unchanged when it is undefined): every task it spawns or forks gets
 * its affinity cut to the list, and its setup sees only the listed CPUs online.
 */
export function withCpus(
  where: string,
  w: Workload,
  cpus: string | number[] | undefined,
): Workload {
  if (cpus === undefined) return w;
  const list = parseCpusOption(where, cpus);
  return {
    ...w,
    params: { ...w.params, cpus },
    setup(ctx: WorkloadContext) {
      const bad = list.filter((c) => c >= ctx.ncpus);
      if (bad.length)
        throw new Error(
          `${where}: cpus ${formatCpuList(list)}: this machine has CPUs 0-${ctx.ncpus - 1} (got ${formatCpuList(bad)})`,
        );
      const online = ctx.onlineCpus().filter((c) => list.includes(c));
      if (online.length === 0)
        throw new Error(`${where}: cpus ${formatCpuList(list)}: none of them is online`);
      const spawn = (spec: SpawnSpec) => {
        const cpusOf = within(where, spec.comm, spec.cpus, list);
        // a start CPU outside the list is only a placement hint the list overrides: fork
        // placement picks one within it, as for any task started under taskset
        const cpu = spec.cpu !== undefined && cpusOf.includes(spec.cpu) ? spec.cpu : undefined;
        return ctx.spawn({
          ...spec,
          cpus: cpusOf,
          cpu,
          program: restrictForks(where, spec.program, list),
        });
      };
      return w.setup({
        ...ctx,
        spawn,
        onlineCpus: () => ctx.onlineCpus().filter((c) => list.includes(c)),
      });
    },
  };
}

/** A factory's argument list with `cpus` added to its options (optional stays optional). */
export type WithCpus<A extends unknown[]> = A extends [infer P]
  ? [params: P & CpusOption]
  : A extends [(infer P)?]
    ? [params?: P & CpusOption]
    : never;

/** A workload factory that also takes `cpus` (CpusOption), applied with withCpus. */
export function takingCpus<F extends (params: never) => Workload>(
  where: string,
  factory: F,
): (...args: WithCpus<Parameters<F>>) => ReturnType<F> {
  return (...args) => {
    const params = args[0] as unknown;
    const call = (p: unknown) => {
      try {
        return (factory as unknown as (p: unknown) => ReturnType<F>)(p);
      } catch (e) {
        // the factory's list of accepted options, with the one this wrapper takes
        const m = /^(.*unknown option "[^"]*" \(accepted: [^)]*)\)$/.exec((e as Error).message);
        throw m ? new Error(`${m[1]}, cpus)`) : e;
      }
    };
    if (params === null || typeof params !== "object" || !("cpus" in params)) return call(params);
    const { cpus, ...rest } = params as CpusOption & Record<string, unknown>;
    return withCpus(where, call(rest), cpus) as ReturnType<F>;
  };
}
