import { test } from "node:test";
import assert from "node:assert/strict";
import { CpuFifo } from "../../src/workload/hackbench_messaging";

test("CpuFifo: first in, first out across wrap-arounds and growth past its first ring", () => {
  const q = new CpuFifo();
  const model: number[] = [];
  let next = 0;
  // uneven pushes and shifts move the head round the ring before each doubling
  for (let round = 0; round < 40; round++) {
    for (let i = 0; i < 7 + (round % 5) * 9; i++) {
      q.push(next);
      model.push(next++);
    }
    for (let i = 0; i < 5 + (round % 3) * 11 && model.length > 0; i++)
      assert.equal(q.shift(), model.shift());
    assert.equal(q.length, model.length);
  }
  assert.ok(model.length > 64, "the queue outgrew its first 64-entry ring");
  while (model.length > 0) assert.equal(q.shift(), model.shift());
  assert.equal(q.length, 0);
});
