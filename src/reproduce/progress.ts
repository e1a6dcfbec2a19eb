// Progress of a reproduction's runs: a bar with runs done, elapsed and estimated time left on a
// terminal (cli-progress), plain lines about every tenth run in a log.
import { SingleBar } from "cli-progress";
import type { IterationResult } from "../experiment/types";

/** Reports the runs of one experiment as they finish (in completion order). */
export class RunProgress {
  readonly #id: string;
  readonly #total: number;
  readonly #threads: number;
  readonly #t0 = process.hrtime.bigint();
  readonly #bar: SingleBar | null;

  /** `threads`: how many threads share the runs (named in the text when more than one). */
  constructor(id: string, total: number, threads: number, tty = !!process.stderr.isTTY) {
    this.#id = id;
    this.#total = total;
    this.#threads = Math.min(threads, total);
    this.#bar = tty
      ? new SingleBar({
          stream: process.stderr,
          format: `[${id}] {bar} {value}/{total} runs | {duration_formatted} elapsed | {eta_formatted} left${this.#threadsText()}`,
          hideCursor: true,
          etaBuffer: 20,
        })
      : null;
    this.#bar?.start(total, 0);
  }

  /** Seconds since the experiment started. */
  elapsed(): number {
    return Number(process.hrtime.bigint() - this.#t0) / 1e9;
  }

  #threadsText(): string {
    return this.#threads > 1 ? ` on ${this.#threads} threads` : "";
  }

  /** `done` runs are finished, the last of them `last`. */
  update(done: number, last: IterationResult): void {
    if (this.#bar) {
      this.#bar.update(done);
      return;
    }
    if (done === this.#total || done % Math.max(1, Math.ceil(this.#total / 10)) === 0) {
      // with workers, runs finish out of order: name the one just finished
      process.stderr.write(
        `[${this.#id}] ${done}/${this.#total} runs (last: variant ${last.variant}, iteration ${last.iteration}), ${this.elapsed().toFixed(1)} s${this.#threadsText()}\n`,
      );
    }
  }

  /** Ends the bar (the terminal line stays). */
  stop(): void {
    this.#bar?.stop();
  }
}
