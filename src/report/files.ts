// Output places and writes that never leave half a file: a directory is checked (created and
// written to) before any work starts, and every file is written to a temporary name in the same
// directory and renamed over the target, so a reader sees the old file or the new one.
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Makes sure `dir` exists (creating missing parents one level at a time) and that a file can be
 * written in it; throws an error naming `field` and the reason otherwise. Returns the absolute
 * path. Not `mkdirSync(dir, { recursive: true })`: under /proc that call never returns.
 */
export function prepareOutputDir(dir: string, field: string): string {
  if (dir.trim() === "") throw new Error(`${field} must be a directory path (got an empty string)`);
  const abs = path.resolve(dir);
  const missing: string[] = [];
  let at = abs;
  while (!fs.existsSync(at)) {
    missing.unshift(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  if (fs.existsSync(at) && !fs.statSync(at).isDirectory())
    throw new Error(`${field} ${dir}: ${at} is not a directory`);
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
    } catch (err) {
      throw new Error(
        `${field} ${dir}: cannot create ${d} (${(err as NodeJS.ErrnoException).code})`,
      );
    }
  }
  const probe = path.join(abs, `.schedlab-probe-${process.pid}`);
  try {
    fs.writeFileSync(probe, "");
    fs.unlinkSync(probe);
  } catch (err) {
    throw new Error(`${field} ${dir}: cannot write there (${(err as NodeJS.ErrnoException).code})`);
  }
  return abs;
}

/** Writes `data` to `file` through a temporary file in the same directory and a rename. */
export function writeFileAtomic(file: string, data: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
