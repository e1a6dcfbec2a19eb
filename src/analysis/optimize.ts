// Derivative-free minimisation for calibration: Nelder-Mead from fmin (Ben Frederickson's
// fmin, BSD-3-Clause, pinned). fmin 0.0.4 declares "type": "module" but ships its build as UMD,
// which Node's CommonJS loader cannot take; the UMD text is evaluated here with a CommonJS
// `exports`, as its own wrapper expects. Its build is strict code, and the shrink step of
// nelderMead assigns an undeclared loop counter (`for (i = 1; ...)`, a ReferenceError whenever a
// contraction fails); the text is given its `let` before evaluation.
import * as fs from "node:fs";

/** fmin's nelderMead: minimises f from x0; returns the best point x and its value fx. */
export type NelderMead = (
  f: (x: number[]) => number,
  x0: number[],
  params?: {
    maxIterations?: number;
    nonZeroDelta?: number;
    zeroDelta?: number;
    minErrorDelta?: number;
    minTolerance?: number;
  },
) => { x: number[]; fx: number };

let loaded: NelderMead | null = null;

/** fmin's nelderMead, loaded on first use. */
export function nelderMead(): NelderMead {
  if (loaded) return loaded;
  const file = require.resolve("fmin/build/fmin.js");
  const mod = { exports: {} as Record<string, unknown> };
  const BUG = "for (i = 1; i < simplex.length; ++i)";
  const text = fs.readFileSync(file, "utf8");
  if (!text.includes(BUG)) throw new Error(`fmin: ${file} is not the pinned 0.0.4 build`);
  const fixed = text.replace(BUG, "for (let i = 1; i < simplex.length; ++i)");
  new Function("exports", "module", fixed)(mod.exports, mod);
  const nm = mod.exports.nelderMead;
  if (typeof nm !== "function") throw new Error(`fmin: ${file} has no nelderMead export`);
  loaded = nm as NelderMead;
  return loaded;
}
