// `schedlab ... | head` (or less, or grep -m1): once the reader has gone, a write to stdout or
// stderr fails with EPIPE. The command then has nobody to tell anything to, so it exits at once
// with status 0 instead of dying on an unhandled 'error' event with a stack trace.

let installed = false;

/** Makes a closed stdout or stderr end the process quietly (status 0); installed once. */
export function quietOnClosedPipe(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EPIPE") process.exit(0);
      throw err;
    });
  }
}
