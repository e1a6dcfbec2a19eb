// Seeded random streams. Every consumer (a task, a CPU's noise source, the workload) derives its
// own stream from the master seed and a stable name, so adding a consumer never perturbs another.
import seedrandom from "seedrandom";

/** One named, seeded pseudo-random sequence (alea); the same name and seed always repeat it. */
export class RandomStream {
  private readonly rng: seedrandom.PRNG;
  constructor(
    readonly name: string,
    seed: string,
  ) {
    this.rng = seedrandom.alea(seed);
  }
  /** Uniform in [0, 1). */
  next(): number {
    return this.rng();
  }
  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rng() * (hi - lo + 1));
  }
  /** Uniform real in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + this.rng() * (hi - lo);
  }
  /** Exponential with the given mean. */
  exp(mean: number): number {
    return -mean * Math.log(1 - this.rng());
  }
  /** Normal (Box-Muller). */
  normal(mean: number, sd: number): number {
    const u = 1 - this.rng();
    const v = this.rng();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

/** The random streams of one run, all derived from its master seed. */
export class RandomSource {
  private readonly streams = new Map<string, RandomStream>();
  constructor(readonly masterSeed: string) {}
  /** The stream for a consumer name; the same name always gives the same sequence. */
  stream(name: string): RandomStream {
    let s = this.streams.get(name);
    if (!s) {
      s = new RandomStream(name, `${this.masterSeed}/${name}`);
      this.streams.set(name, s);
    }
    return s;
  }
}

/** Seed of iteration i of a variant: variants share iteration seeds so A/B runs are paired. */
export function iterationSeed(master: string | number, iteration: number): string {
  return `${master}#${iteration}`;
}
