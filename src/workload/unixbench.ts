// UnixBench "Pipe-based Context Switching" (context1.c, byte-unixbench 5.1.x): a parent creates
// two pipes and forks a child; the parent writes its counter into pipe 1 and reads it back from
// pipe 2, the child reads pipe 1 and writes pipe 2, until SIGALRM ends the pass. Each write wakes
// the blocked reader with a sync wakeup (pipe_write's wake_up_interruptible_sync_poll). With
// `-c N` the Run script starts N copies at once and adds their loops per second; each test is
// run 10 times ("long" repeat), the worst third of the passes dropped and the geometric mean of
// the rest kept; the index is that result / 4000 lps (the baseline's context1 figure) x 10.
// Model shortening: the passes of one run are consecutive windows over one set of copies,
// counted once the last copy has started (UnixBench starts fresh copies for each 10 s pass, whose
// start-up is then a negligible part of it); passSeconds is shorter than 10 s when asked.
import { fork, recv, send } from "../kernel/ops";
import { repeat } from "../kernel/repeat";
import type { Task } from "../kernel/sched";
import type { Workload, WorkloadContext, WorkloadRun } from "./workload";
import { requireInt, requireKnownKeys, requireNumber } from "./workload";

const SEC = 1e9;
/** pgms/index.base: context1 baseline, 4000 lps (index 10 = the baseline machine). */
export const CONTEXT1_BASELINE_LPS = 4000;
/** context1 passes its counter as one `unsigned long` (8 bytes on x86-64). */
const MSG_BYTES = 8;
/**
 * choice: what a context1 process keeps warm between switches (its stack, the counter, libc's
 * read/write paths, the pipe_buffer lines it touches): 4 KB, refilled after a migration.
 */
export const CONTEXT1_WORKING_SET_BYTES = 4096;

/** Parameters of workload.unixbenchContext1. */
export interface UnixbenchContext1Params {
  /** `-c`: copies started together (each a parent and a forked child). */
  copies: number;
  /** Passes per run (UnixBench "long" repeat: 10). */
  passes?: number;
  /** Seconds per pass (UnixBench: 10; the model's speed makes 10 s x 10 passes x 208 tasks slow). */
  passSeconds?: number;
  /**
   * Mean time between the starts of two copies, usec (default CONTEXT1_COPY_START_US; each gap
   * drawn uniformly within +-50% of it). The Run script
   * starts the copies one after another (a fork and exec each). The passes are counted once
   * every copy runs.
   */
  copyStartUs?: number;
}

const ACCEPTED = ["copies", "passes", "passSeconds", "copyStartUs"];

/**
 * choice: UnixBench's Run (perl) starts copy i+1 about this long after copy i: a fork of the
 * perl process and an exec of context1 take on the order of 100 us each on a server of this
 * class (no published figure for this box; a sensitivity parameter of the workload).
 */
export const CONTEXT1_COPY_START_US = 100;
/** Time after the last copy's start before the first pass: its fork of the child (choice: 50 us). */
const STARTUP_NS = 50_000;

/**
 * UnixBench's combination of passes (Run, "dropping worst third"): sort, drop floor(n / 3) of
 * the lowest, geometric mean of the rest.
 */
export function unixbenchCombine(passes: readonly number[]): number {
  if (passes.length === 0) return 0;
  const sorted = [...passes].sort((a, b) => b - a);
  const keep = sorted.slice(0, sorted.length - Math.floor(sorted.length / 3));
  if (keep.some((x) => x <= 0)) return 0;
  return Math.exp(keep.reduce((s, x) => s + Math.log(x), 0) / keep.length);
}

/** The index UnixBench prints: lps / 4000 x 10. */
export function context1Index(lps: number): number {
  return (lps / CONTEXT1_BASELINE_LPS) * 10;
}

/**
 * UnixBench context1 with N copies. Metrics: `score` (the index of the combined passes),
 * `lps` (loops per second over all copies, combined as UnixBench does), `round_trip_us` (mean
 * per copy), and from the kernel's counters over the run: `wakelist_wakeups_per_s`,
 * `ipis_per_s`, `remote_rq_lock_waits_per_s`, `on_cpu_spins_per_s`; over the counted passes:
 * `local_wakeup_share` (wakeups whose wakee is enqueued on the waking CPU), `rq_lock_spin_share`
 * (time spent spinning for rq locks, all paths, over the CPUs' time) and `idle_share` (idle time
 * over the CPUs' time). Series: `pass_lps`.
 *
 * @example
 * ```ts
 * import { topology, workload } from "schedlab";
 * const w = workload.unixbenchContext1({ copies: 2, passes: 3, passSeconds: 0.005 });
 * const res = await topology("core2-2x2").era("5.19").workload(w).run();
 * console.log(res.mean("score", "baseline") > 0);
 * ```
 * Prints:
 * ```text
 * true
 * ```
 */
export function unixbenchContext1(params: UnixbenchContext1Params): Workload {
  const where = "workload.unixbenchContext1";
  requireKnownKeys(where, params, ACCEPTED);
  const copies = requireInt(where, "copies", params.copies, 1, 100_000);
  const passes = requireInt(where, "passes", params.passes ?? 10, 1, 1000);
  const passNs = Math.round(
    requireNumber(where, "passSeconds", params.passSeconds ?? 10, 0, false) * SEC,
  );
  const staggerNs = Math.round(
    requireNumber(where, "copyStartUs", params.copyStartUs ?? CONTEXT1_COPY_START_US, 0) * 1000,
  );
  // The passes start once the last copy has started and forked its child.
  const firstPassNs = (copies - 1) * staggerNs + STARTUP_NS;
  return {
    name: "unixbench-context1",
    params: { ...params },
    defaultDurationNs: firstPassNs + passes * passNs,
    defaultWarmupNs: 0,
    setup(ctx: WorkloadContext): WorkloadRun {
      const passLps: number[] = [];
      const k = ctx.kernel;
      const state = { loops: 0 };
      // Copy c starts after c gaps of copyStartUs +-50% (uniform; the run's seed), scaled so the
      // last copy starts at (copies - 1) x copyStartUs, before the first pass.
      const rnd = ctx.random("context1-start");
      const gaps = Array.from({ length: copies - 1 }, () => 0.5 + rnd.next());
      const scale = gaps.length ? ((copies - 1) * staggerNs) / gaps.reduce((a, b) => a + b, 0) : 0;
      let t = 0;
      for (let c = 0; c < copies; c++) {
        const at = Math.round(t);
        ctx.at(at, () => spawnCopy(ctx, c, state));
        if (c < gaps.length) t += gaps[c] * scale;
      }
      const nPasses = Math.max(0, Math.min(passes, Math.floor((ctx.endNs - firstPassNs) / passNs)));
      let mark = 0;
      const window = windowCounters(k);
      let atFirst = window();
      ctx.at(firstPassNs, () => {
        mark = state.loops;
        atFirst = window();
      });
      for (let i = 1; i <= nPasses; i++) {
        ctx.at(firstPassNs + i * passNs, () => {
          passLps.push((state.loops - mark) / (passNs / SEC));
          mark = state.loops;
        });
      }
      const secs = ctx.endNs / SEC;
      return {
        metrics() {
          const lps = unixbenchCombine(passLps);
          const c = k.counters;
          const wakelist =
            (c.wakePath.wakelist ?? 0) +
            (c.wakePath.wakelist_llc ?? 0) +
            (c.wakePath.wakelist_on_cpu ?? 0);
          const end = window();
          const cpuNs = (end.t - atFirst.t) * k.onlineCount();
          const wakeups = end.wakeups - atFirst.wakeups;
          return {
            score: context1Index(lps),
            lps,
            round_trip_us: lps > 0 ? (copies * 1e6) / lps : 0,
            wakelist_wakeups_per_s: wakelist / secs,
            ipis_per_s: (c.ipis.call_function_single ?? 0) / secs + (c.ipis.resched ?? 0) / secs,
            remote_rq_lock_waits_per_s: (c.other.ttwu_remote_lock_waits ?? 0) / secs,
            on_cpu_spins_per_s: (c.other.ttwu_on_cpu_spin ?? 0) / secs,
            local_wakeup_share: wakeups > 0 ? (end.local - atFirst.local) / wakeups : 0,
            rq_lock_spin_share: cpuNs > 0 ? (end.spinNs - atFirst.spinNs) / cpuNs : 0,
            idle_share: cpuNs > 0 ? (end.idleNs - atFirst.idleNs) / cpuNs : 0,
          };
        },
        series: () => ({ pass_lps: passLps }),
      };
    },
  };
}

/**
 * The kernel's running totals at an instant, for figures over the counted passes: wakeups by
 * path (wakePath: local = enqueued on the waking CPU), time spinning for rq locks (every path's
 * waitNs) and idle time (closed periods plus the open ones up to now).
 */
function windowCounters(k: WorkloadContext["kernel"]) {
  return () => {
    const c = k.counters;
    let wakeups = 0;
    for (const v of Object.values(c.wakePath)) wakeups += v;
    let spinNs = 0;
    for (const s of Object.values(c.rqLock)) spinNs += s.waitNs;
    let idleNs = 0;
    for (const rq of k.rqs) {
      if (!rq.online) continue;
      idleNs += rq.idleNs;
      if (rq.curr === null && rq.idleSince < k.now) idleNs += k.now - rq.idleSince;
    }
    return { t: k.now, wakeups, local: c.wakePath.local ?? 0, spinNs, idleNs };
  };
}

/** One copy: the parent (started by the Run script) forks the child, then they ping-pong. */
function spawnCopy(ctx: WorkloadContext, copy: number, state: { loops: number }): Task {
  const p1 = ctx.channel(`ctx1.${copy}.p1`, "pipe", 65536);
  const p2 = ctx.channel(`ctx1.${copy}.p2`, "pipe", 65536);
  return ctx.spawn({
    comm: `ctx1p${copy}`,
    role: "parent",
    workingSetBytes: CONTEXT1_WORKING_SET_BYTES,
    // context1.c: the parent forks the child, then both loop write/read on their two pipes
    program: repeat([send(p1, MSG_BYTES), recv(p2)], {
      first: [
        fork({
          comm: `ctx1c${copy}`,
          role: "child",
          workingSetBytes: CONTEXT1_WORKING_SET_BYTES,
          program: repeat([recv(p1), send(p2, MSG_BYTES)]),
        }),
      ],
      lap: () => {
        state.loops++;
      },
    }),
  });
}
