// Progress of a sweep over every thread or machine that runs it: jobs done (and how many of
// them were already in the database), running, failed, and the time left at the rate of this
// run. One line rewritten in place on a terminal; in a log, a line whenever a job finishes, at
// most one a second.

/** The counts a progress line shows. */
export interface SweepCounts {
  /** Jobs with a result in the database, reused ones included. */
  done: number;
  running: number;
  failed: number;
}

function seconds(s: number): string {
  if (!Number.isFinite(s)) return "?";
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** Reports a sweep's counts on stderr. */
export class SweepProgress {
  readonly #label: string;
  readonly #total: number;
  readonly #reused: number;
  readonly #tty: boolean;
  readonly #write: (s: string) => void;
  readonly #t0 = Date.now();
  #last: SweepCounts = { done: 0, running: 0, failed: 0 };
  #lastPrinted = 0;
  #lastText = "";
  /** When this run's first job finished: the rate is taken from there (start-up left out). */
  #firstAt = 0;

  constructor(
    label: string,
    total: number,
    reused: number,
    opts: { tty?: boolean; write?: (s: string) => void } = {},
  ) {
    this.#label = label;
    this.#total = total;
    this.#reused = reused;
    this.#tty = opts.tty ?? !!process.stderr.isTTY;
    this.#write = opts.write ?? ((s) => process.stderr.write(s));
    this.#last = { done: reused, running: 0, failed: 0 };
  }

  /** Seconds since the sweep started. */
  elapsed(): number {
    return (Date.now() - this.#t0) / 1000;
  }

  /** The progress line for these counts. */
  text(c: SweepCounts): string {
    const ran = c.done - this.#reused;
    const left = this.#total - c.done - c.failed;
    if (ran > 0 && !this.#firstAt) this.#firstAt = Date.now();
    const eta = ran > 1 ? (left * (Date.now() - this.#firstAt)) / 1000 / (ran - 1) : Number.NaN;
    return (
      `[sweep ${this.#label}] ${c.done}/${this.#total} done` +
      (this.#reused ? ` (${this.#reused} from the database)` : "") +
      ` | ${c.running} running | ${c.failed} failed | ${seconds(this.elapsed())}` +
      (left > 0 && Number.isFinite(eta) ? ` | about ${seconds(eta)} left` : "")
    );
  }

  /** New counts; printed now on a terminal, else when a job finished (at most once a second). */
  update(c: SweepCounts): void {
    const finished = c.done !== this.#last.done || c.failed !== this.#last.failed;
    this.#last = { ...c };
    const text = this.text(c);
    if (this.#tty) {
      if (text !== this.#lastText) this.#write(`\r${text}\x1b[K`);
      this.#lastText = text;
      return;
    }
    const all = c.done + c.failed >= this.#total;
    if (!finished || (!all && Date.now() - this.#lastPrinted < 1000)) return;
    this.#lastPrinted = Date.now();
    this.#write(`${text}\n`);
  }

  /** A message between progress lines (a failed job, a refusing worker). */
  note(line: string): void {
    this.#write(`${this.#tty && this.#lastText ? "\r\x1b[K" : ""}${line}\n`);
    if (this.#tty && this.#lastText) this.#write(this.#lastText);
  }

  /** Ends the line on a terminal. */
  stop(): void {
    if (this.#tty && this.#lastText) this.#write("\n");
    this.#lastText = "";
  }
}
