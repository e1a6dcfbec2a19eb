// Proportional newidle balance (v6.19, 33cf66d88306 "sched/fair: Proportional newidle balance",
// Peter Zijlstra; sched feature NI_RANDOM, on by default). Each domain counts its newidle passes
// (newidle_call) and their successes (newidle_success); every 1024 calls newidle_ratio takes the
// success count and both counters halve. sched_balance_newidle throws a 1024-sided die (sched_rng,
// a per-CPU prandom state) and runs the domain's pass only when the roll is at most
// 1 + newidle_ratio; a success then counts 1024 / (1 + ratio), rounded, so that a domain sampled
// 1 time in 4 is credited 4 per success and can climb back. The later rate term (NI_RATE,
// 9fe89f022c05, tip Feb 2026) is after 6.19 and not here.
import type { RandomSource, RandomStream } from "../../sim/random";
import type { SchedDomain } from "../topology/sched_domain";

/** The die's sides, and the call count at which newidle_ratio is refreshed. */
export const NEWIDLE_DICE = 1024;

/** struct sched_domain's newidle_call, newidle_success and newidle_ratio (v6.19). */
export interface NewidleStats {
  call: number;
  success: number;
  ratio: number;
}

/** The proportional-newidle state of one kernel: per-domain counters, per-CPU sched_rng. */
export class NewidleRatio {
  private readonly bySd = new WeakMap<SchedDomain, NewidleStats>();
  private readonly rngs: RandomStream[] = [];
  constructor(private readonly random: RandomSource) {}

  /** sd's counters; sd_init starts them at a 50% success rate (512 / 256 / 512). */
  stats(sd: SchedDomain): NewidleStats {
    let s = this.bySd.get(sd);
    if (!s) {
      s = { call: 512, success: 256, ratio: 512 };
      this.bySd.set(sd, s);
    }
    return s;
  }

  /** update_newidle_stats(sd, success), unsigned int arithmetic. */
  update(sd: SchedDomain, success: number): void {
    const s = this.stats(sd);
    s.call = (s.call + 1) >>> 0;
    s.success = (s.success + success) >>> 0;
    if (s.call >= NEWIDLE_DICE) {
      s.ratio = s.success;
      s.call >>>= 1;
      s.success >>>= 1;
    }
  }

  /**
   * The die of sched_balance_newidle for sd on `cpu`: null when the pass is skipped (counted as
   * a call without success), else the weight a success of this pass counts.
   */
  roll(sd: SchedDomain, cpu: number): number | null {
    const d1k = Math.floor(this.rng(cpu).next() * NEWIDLE_DICE); // sched_rng() % 1024
    const weight = (1 + this.stats(sd).ratio) >>> 0;
    if (d1k > weight) {
      this.update(sd, 0);
      return null;
    }
    return Math.floor((NEWIDLE_DICE + Math.floor(weight / 2)) / weight); // rounding divide
  }

  /** DEFINE_PER_CPU(struct rnd_state, sched_rnd_state): one named stream per CPU. */
  private rng(cpu: number): RandomStream {
    let r = this.rngs[cpu];
    if (!r) {
      r = this.random.stream(`sched_rng/${cpu}`);
      this.rngs[cpu] = r;
    }
    return r;
  }
}
