// The progress of a sweep: done (and how many from the database), running, failed, and the time
// left at this run's rate; in a log, a line when a job finishes, and always the last one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SweepProgress } from "../../src/sweeps/progress";

test("the line names done, reused, running and failed; a log gets the last line whatever the time", () => {
  const lines: string[] = [];
  const p = new SweepProgress("demo", 10, 4, { tty: false, write: (s) => lines.push(s) });
  assert.match(
    p.text({ done: 4, running: 2, failed: 0 }),
    /^\[sweep demo\] 4\/10 done \(4 from the database\) \| 2 running \| 0 failed \| \d+ s$/,
  );
  p.update({ done: 4, running: 2, failed: 0 }); // nothing finished: no line
  assert.equal(lines.length, 0);
  p.update({ done: 5, running: 2, failed: 0 });
  assert.equal(lines.length, 1);
  p.update({ done: 6, running: 2, failed: 0 }); // within the second: no line
  assert.equal(lines.length, 1);
  p.update({ done: 9, running: 0, failed: 1 }); // all settled: printed at once
  assert.equal(lines.length, 2);
  assert.match(lines[1], /9\/10 done \(4 from the database\) \| 0 running \| 1 failed/);
  assert.doesNotMatch(lines[1], /left/);
  p.note("job x failed");
  assert.equal(lines[2], "job x failed\n");
});
