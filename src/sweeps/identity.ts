// Which schedlab runs a job: the package version and a fingerprint of the model, the source files
// and machine figures a run's numbers come from. A sweep's job keys include both, so results of
// another model are never reused, and a queue worker refuses a job submitted by another one.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { VERSION } from "../version";

/** A schedlab build as far as results go: its version and its model's fingerprint. */
export interface Identity {
  version: string;
  model: string;
}

const ROOT = path.join(__dirname, "..", "..");

/**
 * The parts of src/ whose code decides a run's numbers: everything but the command line, the
 * plots, reports, notebooks and this folder (how jobs travel does not change what they compute).
 */
const NOT_MODEL = /^(cli[^/]*|plot|report|notebook|sweeps|index)(\/|\.|$)/;

function filesUnder(dir: string, exts: string[], rel = ""): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...filesUnder(path.join(dir, e.name), exts, r));
    else if (exts.some((x) => e.name.endsWith(x))) out.push(r);
  }
  return out;
}

let cached: string | null = null;

/**
 * The model's fingerprint: 12 hex digits of a SHA-256 over the model's source (src/, or dist/ in
 * a build without it) and the machine and calibration files under data/. The same checkout gives
 * the same fingerprint whether it runs from source or from a build.
 */
export function modelFingerprint(): string {
  if (cached) return cached;
  const h = createHash("sha256");
  const src = path.join(ROOT, "src");
  const code = fs.existsSync(src)
    ? { dir: src, exts: [".ts"] }
    : { dir: path.join(ROOT, "dist"), exts: [".js"] };
  const parts: Array<[string, string]> = [
    ...filesUnder(code.dir, code.exts)
      .filter((f) => !NOT_MODEL.test(f))
      .map((f): [string, string] => [`code/${f}`, path.join(code.dir, f)]),
    ...filesUnder(path.join(ROOT, "data", "machines"), [".json"]).map((f): [string, string] => [
      `machines/${f}`,
      path.join(ROOT, "data", "machines", f),
    ]),
    ...filesUnder(path.join(ROOT, "data", "calibration"), [".json"]).map((f): [string, string] => [
      `calibration/${f}`,
      path.join(ROOT, "data", "calibration", f),
    ]),
  ];
  for (const [name, file] of parts) {
    h.update(`${name}\0`);
    h.update(fs.readFileSync(file, "utf8"));
    h.update("\0");
  }
  cached = h.digest("hex").slice(0, 12);
  return cached;
}

/** This process's identity. */
export function identity(): Identity {
  return { version: VERSION, model: modelFingerprint() };
}

/** "schedlab 0.1.0 (model 1a2b3c4d5e6f)". */
export function describeIdentity(id: Identity): string {
  return `schedlab ${id.version} (model ${id.model})`;
}
